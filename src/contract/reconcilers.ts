/**
 * The runtime controller's reconcilers: the name `ZoneController` passes in `--reconcilers` and the API
 * access each one needs. The controller's reconcilers declare these rules and `ZoneController` grants
 * them, from this one list.
 */
import { ControllerRule, EVENT_RULES, READ_VERBS } from './rbac';
import { ROLLOUT_GROUP, ZONE_AWARE_UPDATE_PLURAL, ZONE_DISRUPTION_BUDGET_PLURAL } from './rollout';

/** The reconciler names (`run --reconcilers`). */
export const ZONE_ANNOTATOR = 'zone-annotator';
export const ZONE_AWARE_UPDATE = 'zone-aware-update';
export const ZONE_DISRUPTION_BUDGET = 'zone-disruption-budget';
export const REDIS_MANAGER = 'redis';

/** The zone annotator: watches opted-in pods and nodes, patches the pods' annotation. */
export const ZONE_ANNOTATOR_RULES: readonly ControllerRule[] = [
  { apiGroups: [''], resources: ['pods'], verbs: [...READ_VERBS, 'patch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: READ_VERBS },
  ...EVENT_RULES,
];

/** The zone-aware-update reconciler, cluster-wide. */
export const ZONE_AWARE_UPDATE_RULES: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_AWARE_UPDATE_PLURAL], verbs: READ_VERBS },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_AWARE_UPDATE_PLURAL}/status`], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['apps'], resources: ['statefulsets', 'deployments'], verbs: READ_VERBS },
  // A Deployment is rolled by creating its new ReplicaSet and scaling its ReplicaSets.
  { apiGroups: ['apps'], resources: ['replicasets'], verbs: [...READ_VERBS, 'create', 'patch'] },
  // StatefulSet pods are deleted; a Deployment's batch is marked with the pod deletion cost.
  { apiGroups: [''], resources: ['pods'], verbs: [...READ_VERBS, 'delete', 'patch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: READ_VERBS },
  ...EVENT_RULES,
];

/** The zone-disruption-budget reconciler and its eviction webhook, cluster-wide. */
export const ZONE_DISRUPTION_BUDGET_RULES: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_DISRUPTION_BUDGET_PLURAL], verbs: READ_VERBS },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_DISRUPTION_BUDGET_PLURAL}/status`], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['apps'], resources: ['statefulsets', 'replicasets'], verbs: READ_VERBS },
  { apiGroups: [''], resources: ['pods', 'nodes', 'persistentvolumeclaims', 'persistentvolumes'], verbs: READ_VERBS },
  ...EVENT_RULES,
];

/**
 * The Redis cluster manager: lists the clusters' pods (their zone is their own label), gets the layout
 * ConfigMap and the password Secret, writes the status ConfigMap. It emits no Events.
 */
export const REDIS_MANAGER_RULES: readonly ControllerRule[] = [
  { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
];
