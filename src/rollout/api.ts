/**
 * The names and access rules of the rollout custom resources, shared by the CRDs, the constructs and the
 * runtime controller. Pure (no cdk8s), so the controller image does not need the construct libraries.
 */
import { ControllerRule, EVENT_RULES } from '../controller/rbac';

/** The API group of the library's custom resources. */
export const ROLLOUT_GROUP = 'cdk8s-zones.dev';
/** The served and stored version. */
export const ROLLOUT_VERSION = 'v1alpha1';
export const ROLLOUT_API_VERSION = `${ROLLOUT_GROUP}/${ROLLOUT_VERSION}`;

export const ZONE_AWARE_UPDATE_KIND = 'ZoneAwareUpdate';
export const ZONE_AWARE_UPDATE_PLURAL = 'zoneawareupdates';
export const ZONE_DISRUPTION_BUDGET_KIND = 'ZoneDisruptionBudget';
export const ZONE_DISRUPTION_BUDGET_PLURAL = 'zonedisruptionbudgets';

/** The HTTPS path of the controller's validating webhook for `pods/eviction` (ZoneDisruptionBudget). */
export const EVICTION_WEBHOOK_PATH = '/validate/pods-eviction';

const READ = ['get', 'list', 'watch'];

/** What the zone-aware-update reconciler needs, cluster-wide. */
export const ZONE_AWARE_UPDATE_RBAC: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_AWARE_UPDATE_PLURAL], verbs: READ },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_AWARE_UPDATE_PLURAL}/status`], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['apps'], resources: ['statefulsets', 'deployments'], verbs: READ },
  // A Deployment is rolled by creating its new ReplicaSet and scaling its ReplicaSets.
  { apiGroups: ['apps'], resources: ['replicasets'], verbs: [...READ, 'create', 'patch'] },
  // StatefulSet pods are deleted; a Deployment's batch is marked with the pod deletion cost.
  { apiGroups: [''], resources: ['pods'], verbs: [...READ, 'delete', 'patch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: READ },
  ...EVENT_RULES,
];

/** What the zone-disruption-budget reconciler and its eviction webhook need, cluster-wide. */
export const ZONE_DISRUPTION_BUDGET_RBAC: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_DISRUPTION_BUDGET_PLURAL], verbs: READ },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_DISRUPTION_BUDGET_PLURAL}/status`], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['apps'], resources: ['statefulsets', 'replicasets'], verbs: READ },
  { apiGroups: [''], resources: ['pods', 'nodes', 'persistentvolumeclaims', 'persistentvolumes'], verbs: READ },
  ...EVENT_RULES,
];
