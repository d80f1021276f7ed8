/**
 * What a construct needs from the runtime controller, checked across the app at synth time: a
 * `ZonalRedisCluster` is bootstrapped only by a controller running the Redis manager, a `ZoneAwareUpdate`
 * rolls only with the zone-aware-update reconciler, and so on. Without it the manifests apply cleanly and
 * nothing ever happens, which is what these checks prevent.
 */
import { IConstruct } from 'constructs';
import { whenZoneController, zoneControllersOf } from './zone-controller';
import { ControllerRule } from '../contract/rbac';
import { REDIS_MANAGER, ZONE_ANNOTATOR, ZONE_AWARE_UPDATE, ZONE_DISRUPTION_BUDGET } from '../contract/reconcilers';
import { invalidProp } from '../shared/errors';
import { addWarning } from '../shared/warnings';

/** A feature of the runtime controller: its reconciler, the `ZoneController` prop that enables it, and what is lost without it. */
export interface ControllerFeature {
  readonly reconciler: string;
  readonly prop: 'zoneAnnotator' | 'zoneAwareUpdate' | 'zoneDisruptionBudget' | 'redisManager';
  readonly without: string;
}

export const ZONE_ANNOTATOR_FEATURE: ControllerFeature = {
  reconciler: ZONE_ANNOTATOR, prop: 'zoneAnnotator', without: 'no pod is ever annotated with its zone, so every pod waits forever in its init container',
};
export const ZONE_AWARE_UPDATE_FEATURE: ControllerFeature = {
  reconciler: ZONE_AWARE_UPDATE, prop: 'zoneAwareUpdate', without: 'nothing rolls the workload, so a new revision never reaches its pods',
};
export const ZONE_DISRUPTION_BUDGET_FEATURE: ControllerFeature = {
  reconciler: ZONE_DISRUPTION_BUDGET, prop: 'zoneDisruptionBudget', without: 'no eviction webhook enforces the budget, so drains ignore it',
};
export const REDIS_MANAGER_FEATURE: ControllerFeature = {
  reconciler: REDIS_MANAGER, prop: 'redisManager', without: 'nothing bootstraps or heals the cluster: its pods run, but form no Redis Cluster',
};

/** The namespace a construct's workload is in, and the rights on its named objects the controller needs there. */
export interface ServedWorkload {
  readonly namespace: string | undefined;
  /** Rules on the workload's own objects (e.g. a Redis cluster's password Secret). */
  readonly rules?: readonly ControllerRule[];
}

/**
 * Checks at synth time that the app has a `ZoneController` running `feature` for `construct`, and has that
 * controller serve `served` (its rights there, e.g. a Role in the namespace). When `installedElsewhere`
 * (the construct's `controllerInstalledElsewhere` prop), the controller runs outside this app: a warning
 * says what it must run, and a controller of this app with the feature is an error (two controllers would
 * both act).
 */
export function requireControllerFeature(
  construct: IConstruct, where: string, feature: ControllerFeature, installedElsewhere: boolean, served?: ServedWorkload,
): void {
  if (installedElsewhere) {
    addWarning(construct, `needs the cdk8s-zones controller with ${feature.prop} (reconciler ${feature.reconciler}); ` +
      'controllerInstalledElsewhere says it runs outside this app: make sure it does, and that it serves ' +
      `${served?.namespace !== undefined ? `the namespace ${served.namespace}` : 'this namespace'} (its workloadNamespaces), or ${feature.without}`);
  } else if (served?.namespace !== undefined) {
    const namespace = served.namespace;
    whenZoneController(construct, (controller) => {
      if (!controller.reconcilers.includes(feature.reconciler)) return false;
      controller._serve(feature.reconciler, namespace, served.rules ?? []);
      return true;
    });
  }
  construct.node.addValidation({
    validate: () => {
      const running = zoneControllersOf(construct).filter((c) => c.reconcilers.includes(feature.reconciler));
      if (installedElsewhere && running.length > 0) {
        return [invalidProp(where, 'controllerInstalledElsewhere', true,
          `but ZoneController '${running[0].node.path}' of this app runs ${feature.reconciler} too: two controllers would both act; ` +
          'drop the prop, or the feature from that controller').message];
      }
      if (!installedElsewhere && running.length > 0 && served !== undefined && served.namespace === undefined) {
        return [invalidProp(where, 'namespace', undefined,
          `must be set (on the construct or its chart): ZoneController '${running[0].node.path}' is granted its rights in the ` +
          'namespaces of the workloads it serves, and this one would be applied to whichever namespace kubectl or the GitOps tool picks').message];
      }
      if (!installedElsewhere && running.length === 0) {
        return [invalidProp(where, 'controllerInstalledElsewhere', false,
          `needs a ZoneController with ${feature.prop}: true in this app: without it ${feature.without}. ` +
          `Add one (new ZoneController(chart, 'controller', { ${feature.prop}: true })), or set controllerInstalledElsewhere: true ` +
          'when another app installs it').message];
      }
      return [];
    },
  });
}
