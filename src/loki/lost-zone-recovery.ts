/**
 * The ingesters' opt-in to the lost-zone recovery (`direct.lostZoneRecovery`). Zone-aware replication keeps a copy
 * of every stream in each of `replicationFactor` zones (the stack refuses a factor whose writes would not survive a
 * zone's loss), so a lost zone's ingesters may come back empty elsewhere, a zone's worth at once: one StatefulSet
 * for all zones brings `ingesterReplicasPerZone` back at a time; a per-zone StatefulSet (its zone group: the
 * ingesters of the other zones) all of its pods, which stand in on the other zones' nodes and keep their ring zone.
 */
import { k8s } from 'cdk8s-plus-28';
import { ResolvedLoki } from './options';
import { invalidProp } from '../shared/errors';
import { IZoneController } from '../zone-controller/controller-reference';
import { recoverFromLostZone } from '../zone-controller/lost-zone-recovery';
import { ZoneSourceKind } from '../zone-source/zone-source';

export function recoverIngesters(
  where: string, p: ResolvedLoki, ingesters: readonly k8s.KubeStatefulSet[], controller: IZoneController | undefined,
): void {
  if (controller === undefined) {
    throw invalidProp(where, 'direct.lostZoneRecovery', true, 'needs direct.controller: the ZoneController that runs lostZoneRecovery');
  }
  const problem = p.storageClasses.standInProblem();
  if (problem) throw invalidProp(where, 'direct.lostZoneRecovery', true, `with direct.ingesterStorage.storageClassNamePerZone ${problem}`);
  const perZone = p.zoneSource.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS;
  ingesters.forEach((ingester, i) => {
    recoverFromLostZone(ingester, controller, p.ingesterReplicasPerZone, perZone ? p.topology.zones[i] : undefined);
  });
}
