/**
 * What the lost-zone recovery reads of the cluster, from its caches: the recovery plan's input for one lost zone
 * (src/lost-zone/recovery-plan.ts) and the stand-in labels' input for the whole cluster (src/lost-zone/stand-ins.ts).
 * Only gathering: the rules are those pure files'.
 */
import { RecoveryWatch } from './lost-zone-recovery-watches';
import { nodeZone } from './zone-shift-decision';
import {
  LostZoneRecoveryStatus, LOST_ZONE_RECOVERY_ANNOTATION, nodeAnswers, recoveryPin,
} from '../../../src/contract/lost-zone';
import { ZONE_GROUP_ANNOTATION } from '../../../src/contract/zone-check';
import { shiftCovers, shiftInForce, ZoneShiftSpec } from '../../../src/contract/zone-shift';
import { WELL_KNOWN_ZONE_KEYS } from '../../../src/kubernetes/pinned-zone';
import { conditionHolds } from '../../../src/kubernetes/pod-life';
import { RecoveryInput } from '../../../src/lost-zone/recovery-plan';
import { StandInInput } from '../../../src/lost-zone/stand-ins';
import { volumeZone } from '../../../src/lost-zone/volume-zone';
import { KubeObject } from '../kube/api';
import { Caches, nodeLeaseRenewedMs } from '../watches';

/** The cluster as both inputs read it: zones of nodes and volumes, the opted-in StatefulSets and their pods. */
class ClusterView {
  readonly zoneOfNode: Map<string, string | undefined>;
  readonly zoneOfVolume: Map<string, string | undefined>;
  readonly optedIn: KubeObject[];

  constructor(private readonly caches: Caches<RecoveryWatch>, private readonly topologyKeys: readonly string[]) {
    this.zoneOfNode = new Map(caches.list('nodes').map((n) => [n.metadata.name, nodeZone(n, topologyKeys)]));
    this.zoneOfVolume = new Map(caches.list('volumes').map((v) => [v.metadata.name, volumeZone(v, topologyKeys)]));
    this.optedIn = caches.list('statefulSets')
      .filter((s) => s.metadata.annotations?.[LOST_ZONE_RECOVERY_ANNOTATION] !== undefined);
  }

  /** Where `sts` pins its pods: its zone (but its stand-in term) and whether it has that zone's stand-in term. */
  pin(sts: KubeObject): { zone?: string; standIn: boolean } {
    return recoveryPin(sts.spec?.template?.spec, [...WELL_KNOWN_ZONE_KEYS, this.topologyKeys[0]]);
  }

  /** The pods of `statefulSets` (by `namespace/name`), each with its owner's name. */
  podsOf(statefulSets: readonly KubeObject[]): Array<{ pod: KubeObject; owner: string }> {
    const names = new Set(statefulSets.map((s) => `${s.metadata.namespace}/${s.metadata.name}`));
    return this.caches.list('pods').flatMap((pod) => {
      const owner = pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'StatefulSet')?.name;
      return owner !== undefined && names.has(`${pod.metadata.namespace}/${owner}`) ? [{ pod, owner }] : [];
    });
  }

  claimZone(claim: KubeObject): string | undefined {
    return claim.spec?.volumeName ? this.zoneOfVolume.get(claim.spec.volumeName) : undefined;
  }
}

const claimTemplatesOf = (s: KubeObject): string[] =>
  (s.spec?.volumeClaimTemplates ?? []).map((t: KubeObject) => t.metadata.name);

/** The plan's input, read from the caches: what is in `spec.zone`, of the namespaces the shift covers. */
export function recoveryInput(
  caches: Caches<RecoveryWatch>, spec: ZoneShiftSpec, topologyKeys: readonly string[],
  previous: LostZoneRecoveryStatus | undefined, nowMs: number,
): RecoveryInput {
  const view = new ClusterView(caches, topologyKeys);
  const covered = (obj: KubeObject) => shiftCovers(spec, obj.metadata.namespace);
  const workloads = view.optedIn.filter(covered);
  return {
    zone: spec.zone,
    nodes: caches.list('nodes').map((n) => ({
      name: n.metadata.name,
      zone: view.zoneOfNode.get(n.metadata.name),
      answers: nodeAnswers(conditionHolds(n, 'Ready'), nodeLeaseRenewedMs(caches, n.metadata.name), nowMs),
    })),
    workloads: workloads.map((s) => {
      const pin = view.pin(s);
      return {
        namespace: s.metadata.namespace!,
        name: s.metadata.name,
        replicas: s.spec?.replicas ?? 1,
        atOnce: s.metadata.annotations![LOST_ZONE_RECOVERY_ANNOTATION],
        claimTemplates: claimTemplatesOf(s),
        pinnedTo: pin.zone,
        standIn: pin.standIn,
        zoneGroup: s.metadata.annotations?.[ZONE_GROUP_ANNOTATION],
      };
    }),
    pods: view.podsOf(workloads).map(({ pod: p, owner }) => ({
      namespace: p.metadata.namespace!,
      name: p.metadata.name,
      uid: p.metadata.uid ?? '',
      statefulSet: owner,
      zone: view.zoneOfNode.get(p.spec?.nodeName ?? ''),
      scheduled: Boolean(p.spec?.nodeName),
      ready: conditionHolds(p, 'Ready') && !p.metadata.deletionTimestamp,
    })),
    claims: caches.list('claims').filter(covered).map((c) => ({
      namespace: c.metadata.namespace!,
      name: c.metadata.name,
      zone: view.claimZone(c),
      deleting: Boolean(c.metadata.deletionTimestamp),
    })),
    volumesInZone: [...view.zoneOfVolume.values()].filter((z) => z === spec.zone).length,
    previous,
    nowMs,
  };
}

/** The stand-in labels' input: the zones declared lost, every opted-in StatefulSet with a stand-in term, the nodes. */
export function standInInput(
  caches: Caches<RecoveryWatch>, topologyKeys: readonly string[], nowMs: number,
): StandInInput {
  const view = new ClusterView(caches, topologyKeys);
  const pinned = view.optedIn.map((s) => ({ s, pin: view.pin(s) }));
  const standIns = pinned.filter(({ pin }) => pin.standIn);
  return {
    lostZones: caches.list('shifts').flatMap((s) => {
      const spec = shiftInForce(s, nowMs);
      return spec?.lost === true ? [spec.zone] : [];
    }),
    workloads: standIns.map(({ s, pin }) => ({
      namespace: s.metadata.namespace!,
      name: s.metadata.name,
      zone: pin.zone!,
      claimTemplates: claimTemplatesOf(s),
    })),
    pods: view.podsOf(standIns.map(({ s }) => s)).map(({ pod, owner }) => ({
      namespace: pod.metadata.namespace!,
      statefulSet: owner,
      zone: view.zoneOfNode.get(pod.spec?.nodeName ?? ''),
    })),
    claims: caches.list('claims').map((c) => ({
      namespace: c.metadata.namespace!,
      name: c.metadata.name,
      zone: view.claimZone(c),
    })),
    nodes: caches.list('nodes').map((n) => ({
      name: n.metadata.name,
      zone: view.zoneOfNode.get(n.metadata.name),
      labels: n.metadata.labels ?? {},
    })),
  };
}
