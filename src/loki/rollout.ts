/**
 * How the direct output's ingester StatefulSets take a new revision (a config, image or resources change).
 * Their zones replicate one another, so a zone may restart only while the others are whole: with the app's
 * ZoneController, one ZoneAwareUpdate rolls them as a group, zone after zone, each pod waiting for Loki's
 * `/ready` (the ingester ACTIVE in its ring); without one, a partitioned RollingUpdate that nothing rolls
 * until the user lowers each zone's partition in turn (docs/loki.md, "Rolling out a change").
 */
import { ApiObject, JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { HTTP_PORT, selectorOf } from './direct';
import { LokiComponent, ResolvedLoki } from './options';
import { ZONE_AWARE_UPDATE } from '../contract/reconcilers';
import { whenZoneController, zoneControllersOf } from '../controller/zone-controller';
import { RolloutTarget, ZoneAwareUpdate } from '../rollout/zone-aware-update';
import { invalidProp } from '../shared/errors';
import { emitNetworkPolicy } from '../shared/network-policy';
import { standardLabels } from '../shared/standard-labels';
import { addWarning } from '../shared/warnings';

/** How the ingesters roll out a new revision (direct output). */
export enum IngesterRollout {
  /**
   * ZONE_AWARE when the app has a ZoneController with `zoneAwareUpdate` (or `controllerInstalledElsewhere`
   * is set), else PARTITIONED with a synth warning.
   */
  AUTO = 'auto',
  /**
   * One ZoneAwareUpdate rolls every ingester StatefulSet (OnDelete) as a group: zone after zone, never two
   * zones at once, each pod Ready and answering Loki's `/ready` (ACTIVE in the ring) before the next batch.
   * Needs a ZoneController with `zoneAwareUpdate` in the app, or `controllerInstalledElsewhere`.
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
  readonly controllerInstalledElsewhere: boolean;
}

/**
 * Makes the ingesters roll zone-aware (OnDelete, a ZoneAwareUpdate over them, a NetworkPolicy admitting the
 * controller to their /ready) now, or once the app's ZoneController exists (AUTO); else they keep the
 * partitioned RollingUpdate directLoki gives them.
 */
export function ingesterRollout(scope: Construct, p: ResolvedLoki, ingesters: readonly k8s.KubeStatefulSet[], options: IngesterRolloutOptions): void {
  const names = ingesters.map((s) => s.name);
  let zoneAware = false;
  const rollZoneAware = () => {
    zoneAware = true;
    for (const sts of ingesters) ApiObject.of(sts).addJsonPatch(JsonPatch.replace('/spec/updateStrategy', { type: 'OnDelete' }));
    new ZoneAwareUpdate(scope, 'ingester-rollout', {
      name: `${p.name}-ingester`,
      namespace: p.metadataNamespace,
      target: RolloutTarget.statefulSetGroupNames(names),
      // A whole zone may be down (the others hold every stream); the ramp still starts with one pod.
      maxUnavailable: p.ingesterReplicasPerZone,
      readyCheck: { path: '/ready', port: HTTP_PORT },
      controllerInstalledElsewhere: options.controllerInstalledElsewhere,
    });
    // The controller asks each ingester's /ready. A controller installed elsewhere is admitted through networkPolicy.clients.
    emitNetworkPolicy(scope, 'ingester-rollout-network-policy', p.where, p.networkPolicy, {
      name: `${p.name}-ingester-rollout`,
      namespace: p.metadataNamespace,
      labels: standardLabels('loki', p.name, 'network-policy'),
      podSelector: selectorOf(p, LokiComponent.INGESTER),
      ingress: [{ ports: ['http'], from: () => zoneControllersOf(scope).filter((c) => c.reconcilers.includes(ZONE_AWARE_UPDATE)).map((c) => c._podPeer()) }],
    });
  };

  if (options.mode === IngesterRollout.PARTITIONED && options.controllerInstalledElsewhere) {
    throw invalidProp(p.where, 'controllerInstalledElsewhere', true,
      'names the controller that rolls the ingesters, but ingesterRollout is IngesterRollout.PARTITIONED (no controller rolls them): drop one of the two');
  }
  const mode = options.mode === IngesterRollout.AUTO && options.controllerInstalledElsewhere ? IngesterRollout.ZONE_AWARE : options.mode;
  if (mode === IngesterRollout.ZONE_AWARE) {
    rollZoneAware();
  } else if (mode === IngesterRollout.AUTO) {
    whenZoneController(scope, (controller) => {
      if (!controller.reconcilers.includes(ZONE_AWARE_UPDATE)) return false;
      rollZoneAware();
      return true;
    });
    let warned = false;
    scope.node.addValidation({
      validate: () => {
        if (!zoneAware && !warned) {
          warned = true;
          addWarning(scope, 'no ZoneController with zoneAwareUpdate in this app: the ingester StatefulSets use a partitioned RollingUpdate, ' +
            'so a change reaches no ingester until you lower each zone\'s partition in turn (docs/loki.md, "Rolling out a change"). ' +
            'Add a ZoneController with zoneAwareUpdate: true to roll them zone by zone, or set ingesterRollout: IngesterRollout.PARTITIONED');
        }
        return [];
      },
    });
  }
}
