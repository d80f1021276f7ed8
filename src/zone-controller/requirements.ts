/**
 * What a construct needs from the runtime controller it names in its `controller` prop, checked when it is
 * created: a `ZonalRedisCluster` is bootstrapped only by a controller running the Redis manager, a
 * `ZoneAwareUpdate` rolls only with the zone-aware-update reconciler, and so on. Without it the manifests
 * apply cleanly and nothing ever happens, which is what these checks prevent.
 */
import {
  describeController, InstalledZoneController, isServingZoneController, IZoneController,
} from './controller-reference';
import { ControllerFeature } from './features';
import { ControllerRule } from '../contract/rbac';
import { invalidProp } from '../shared/errors';

/** The namespace a construct's workload is in, and the rights on its named objects the controller needs there. */
export interface ServedWorkload {
  readonly namespace: string | undefined;
  /** Rules on the workload's own objects (e.g. a Redis cluster's password Secret). */
  readonly rules?: readonly ControllerRule[];
}


/**
 * Has `controller` (a construct's `controller` prop) serve the construct's workload: it must run `feature`;
 * a ZoneController of this app is granted its rights in the workload's namespace, one installed by another
 * app must already serve that namespace. Throws, naming the construct and the prop, when it cannot.
 */
export function serveWith(
  where: string,
  controller: IZoneController,
  feature: ControllerFeature,
  served: ServedWorkload,
): IZoneController {
  if (!controller.reconcilers.includes(feature.reconciler)) {
    throw invalidProp(where, 'controller', describeController(controller),
      `runs no ${feature.reconciler} (${feature.prop} is off): ${feature.without}. Turn ${feature.prop} on for it`);
  }
  const namespace = served.namespace;
  if (namespace === undefined) {
    throw invalidProp(where, 'namespace', undefined,
      `must be set (on the construct or its chart): ${describeController(controller)} serves the namespaces of the workloads it is given, ` +
      'and this one would be applied to whichever namespace kubectl or the GitOps tool picks');
  }
  if (isServingZoneController(controller)) {
    controller._serve(feature.reconciler, namespace, served.rules ?? []);
  } else if (InstalledZoneController.isInstalledZoneController(controller)
    && !controller.workloadNamespaces.includes(namespace)) {
    throw invalidProp(where, 'controller', describeController(controller),
      `serves the namespaces ${controller.workloadNamespaces.join(', ') || '(none)'} (its workloadNamespaces), not ${namespace}: ` +
      `add ${namespace} to them where it is installed, and to ZoneController.fromInstalled here`);
  }
  return controller;
}

/**
 * True when the controller's eviction webhook guards `namespace` and fails closed, so a ZoneDisruptionBudget there is
 * enforced.
 */
export function guardsEvictionsIn(controller: IZoneController, namespace: string | undefined): boolean {
  if (isServingZoneController(controller)) return controller._guardsEvictionsIn(namespace);
  return InstalledZoneController.isInstalledZoneController(controller) && controller.guardsEvictionsIn(namespace);
}
