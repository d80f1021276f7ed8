/**
 * How the direct output's ingester StatefulSets take a new revision (a config, image or resources change).
 * Their zones replicate one another, so a zone may restart only while the others are whole: with a
 * controller running zoneAwareUpdate (the stack's `controller`), one ZoneAwareUpdate rolls them as a group, zone after
 * zone, each pod waiting for Loki's `/ready` (the ingester ACTIVE in its ring); without one, a partitioned
 * RollingUpdate that nothing rolls until the user lowers each zone's partition in turn (docs/loki.md, "Rolling out a
 * change").
 */
import { ApiObject, JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { HTTP_PORT, selectorOf } from './direct';
import { MigrationStep } from './migration';
import { componentName, LokiComponent, ResolvedLoki } from './options';
import { docsUrl } from '../contract/docs';
import { emitNetworkPolicy } from '../kubernetes/network-policy';
import { standardLabels } from '../kubernetes/standard-labels';
import { RolloutTarget, ZoneAwareUpdate } from '../rollout/zone-aware-update';
import { invalidProp } from '../shared/errors';
import { addWarning } from '../shared/warnings';
import { controllerPeer, describeController, IZoneController } from '../zone-controller/controller-reference';
import { ZONE_AWARE_UPDATE_FEATURE } from '../zone-controller/features';

/** How the ingesters roll out a new revision (direct output). */
export enum IngesterRollout {
  /** ZONE_AWARE when the stack names a `controller`, else PARTITIONED with a synth warning. */
  AUTO = 'auto',
  /**
   * One ZoneAwareUpdate rolls every ingester StatefulSet (OnDelete) as a group, a whole zone per wave: zone
   * after zone, never two zones at once, every ingester of the zone Ready and answering Loki's `/ready` (ACTIVE
   * in the ring) before the next zone.
   * Needs the stack's `controller`, running `zoneAwareUpdate`.
   */
  ZONE_AWARE = 'zone-aware',
  /**
   * RollingUpdate with `partition` = replicas: a new revision reaches no pod until you lower one zone's
   * partition to 0, wait for its ingesters to be ready, then the next zone.
   */
  PARTITIONED = 'partitioned',
}

/** The ingester rollout's settings, from the stack's props. */
export interface IngesterRolloutOptions {
  readonly mode: IngesterRollout;
  /** The controller that rolls them (or brings them back from a lost zone). */
  readonly controller?: IZoneController;
  /** The controller brings them back from a lost zone (`direct.lostZoneRecovery`): it may roll none. */
  readonly recovers?: boolean;
}

/**
 * Makes the ingesters roll zone-aware (OnDelete, a ZoneAwareUpdate over them, a NetworkPolicy admitting the
 * controller to their /ready) when a controller rolls them; else they keep the partitioned RollingUpdate
 * directLoki gives them.
 */
export function ingesterRollout(
  scope: Construct, p: ResolvedLoki, ingesters: readonly k8s.KubeStatefulSet[], options: IngesterRolloutOptions,
): ZoneAwareUpdate | undefined {
  if (options.mode === IngesterRollout.PARTITIONED && options.controller !== undefined && options.recovers !== true) {
    throw invalidProp(p.where, 'direct.controller', describeController(options.controller),
      'names the controller that rolls the ingesters, but direct.ingesterRollout is IngesterRollout.PARTITIONED (no controller rolls them) ' +
      'and direct.lostZoneRecovery is off: drop one of the two');
  }
  if (options.mode === IngesterRollout.PARTITIONED) return undefined;
  const controller = options.controller;
  if (options.mode === IngesterRollout.AUTO && controller === undefined) {
    addWarning(scope, 'no controller: the ingester StatefulSets use a partitioned RollingUpdate, ' +
      `so a change reaches no ingester until you lower each zone's partition in turn (${docsUrl('loki.md', 'Rolling out a change')}). ` +
      'Name a ZoneController with zoneAwareUpdate: true in direct.controller to roll them zone by zone, or set direct.ingesterRollout: IngesterRollout.PARTITIONED');
    return undefined;
  }
  if (controller === undefined || !controller.reconcilers.includes(ZONE_AWARE_UPDATE_FEATURE.reconciler)) {
    throw invalidProp(p.where, 'direct.controller', controller && describeController(controller),
      `must name a controller running ${ZONE_AWARE_UPDATE_FEATURE.reconciler} (zoneAwareUpdate: true) to roll the ingesters zone by zone: ` +
      `without it ${ZONE_AWARE_UPDATE_FEATURE.without}`);
  }
  for (const sts of ingesters) ApiObject.of(sts).addJsonPatch(JsonPatch.replace('/spec/updateStrategy', { type: 'OnDelete' }));
  const rollout = new ZoneAwareUpdate(scope, 'ingester-rollout', {
    controller,
    name: componentName(p, LokiComponent.INGESTER),
    namespace: p.metadataNamespace,
    target: RolloutTarget.statefulSetGroupNames(ingesters.map((s) => s.name)),
    // A zone per wave: the layout survives a zone down (checked at synth), and a batch never spans two zones. Not
    // while migrating to zone awareness: the replicas written before may all sit in one zone, so one pod at a time.
    maxUnavailable: p.migration !== undefined && p.migration < MigrationStep.READ_PATH ? 1 : '100%',
    exponentialFactor: 0,
    readyCheck: { path: '/ready', port: HTTP_PORT },
  });
  // The controller asks each ingester's /ready.
  emitNetworkPolicy(scope, 'ingester-rollout-network-policy', p.where, p.networkPolicy, {
    name: `${p.name}-ingester-rollout`,
    namespace: p.metadataNamespace,
    labels: standardLabels('loki', p.name, 'network-policy'),
    podSelector: selectorOf(p, LokiComponent.INGESTER),
    ingress: [{ ports: ['http'], from: [controllerPeer(controller)] }],
  });
  return rollout;
}
