/**
 * The runtime controller's reconcilers: the name `ZoneController` passes in `--reconcilers` and the API
 * access each one needs, and where. The controller's reconcilers declare these rules and `ZoneController`
 * grants them, from this one list.
 *
 * What stays cluster-wide, and why: the zone annotator patches opted-in pods in any namespace (a pod opts
 * in by its label, wherever it runs) and reads nodes (cluster-scoped); the zone-aware-update and
 * zone-disruption-budget reconcilers watch their resources, pods and owners in every namespace (one watch
 * each, however many namespaces) and read nodes, claims and volumes for zones. Every write of those two is
 * granted in the namespaces of their workloads only; the Redis manager has nothing cluster-wide. The zonal
 * shift is cluster-wide by nature (ZoneShifts and nodes are cluster-scoped), and granted only with it.
 */
import {
  CLUSTER_SCOPED_EVENTS_NAMESPACE, ControllerRule, eventRules, NODE_LEASE_NAMESPACE, READ_VERBS,
} from './rbac';
import { layoutConfigMapName, statusConfigMapName } from './redis';
import { ROLLOUT_GROUP, ZONE_AWARE_UPDATE_PLURAL, ZONE_DISRUPTION_BUDGET_PLURAL } from './rollout';
import { ZONE_AUTOSHIFT_PLURAL } from './zone-autoshift';
import { ZONE_SHIFT_PLURAL } from './zone-shift';
import { KARPENTER_GROUP, NODE_POOL_PLURAL } from './zone-shift-node-pools';

/** The reconciler names (`run --reconcilers`). */
export const ZONE_ANNOTATOR = 'zone-annotator';
export const ZONE_AWARE_UPDATE = 'zone-aware-update';
export const ZONE_DISRUPTION_BUDGET = 'zone-disruption-budget';
export const REDIS_MANAGER = 'redis';
export const ZONE_SHIFT = 'zone-shift';
export const ZONE_AUTOSHIFT = 'zone-autoshift';
export const LOST_ZONE_RECOVERY = 'lost-zone-recovery';

/** The zone annotator: watches opted-in pods and nodes, patches the pods' annotation. */
export const ZONE_ANNOTATOR_RULES: readonly ControllerRule[] = [
  { apiGroups: [''], resources: ['pods'], verbs: [...READ_VERBS, 'patch'], scope: 'cluster' },
  { apiGroups: [''], resources: ['nodes'], verbs: READ_VERBS, scope: 'cluster' },
  ...eventRules('cluster'),
];

/**
 * The zonal shift, whole: ZoneShifts and nodes are cluster-scoped (a zone shifted cluster-wide has its nodes
 * tainted NoSchedule); the opted-in pods are read for the shifts' status, and the zone annotator writes their
 * readiness gate (pods/status), reading the Services for its fail-safe. With it on, the other reconcilers read the
 * ZoneShifts too (no rollout batch, no Redis master in a zone out of service): these rules cover them.
 */
export const ZONE_SHIFT_RULES: readonly ControllerRule[] = [
  // patch: the finalizer that keeps a cancelled shift until it is undone
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_SHIFT_PLURAL], verbs: [...READ_VERBS, 'patch'], scope: 'cluster' },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_SHIFT_PLURAL}/status`], verbs: ['get', 'patch', 'update'], scope: 'cluster' },
  { apiGroups: [''], resources: ['nodes'], verbs: [...READ_VERBS, 'patch'], scope: 'cluster' },
  { apiGroups: [''], resources: ['pods'], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'], scope: 'cluster' },
  // the fail-safe: a shift never takes a Service's last endpoints (its selector finds them)
  { apiGroups: [''], resources: ['services'], verbs: READ_VERBS, scope: 'cluster' },
];

/**
 * The autoshift, beside the zonal shift's rules: reads its policy and writes its status (cluster-scoped, as ZoneShifts
 * are); creates and deletes the ZoneShifts it starts and ends; reads the signals (nodes, opted-in pods and the Services
 * of the fail-safe cluster-wide, the nodes' Leases in their one namespace); records Events on its policy (in `default`,
 * the one namespace the API server takes a cluster-scoped object's Events in).
 */
export const ZONE_AUTOSHIFT_RULES: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_AUTOSHIFT_PLURAL], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_AUTOSHIFT_PLURAL}/status`], verbs: ['get', 'patch', 'update'], scope: 'cluster' },
  // patch: an autoshift's zone declared lost (`lostAfterSeconds`)
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_SHIFT_PLURAL], verbs: [...READ_VERBS, 'create', 'delete', 'patch'], scope: 'cluster' },
  { apiGroups: [''], resources: ['nodes', 'pods', 'services'], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'watch'], scope: 'namespace', namespace: NODE_LEASE_NAMESPACE },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'], scope: 'namespace', namespace: CLUSTER_SCOPED_EVENTS_NAMESPACE },
];

/**
 * The lost-zone recovery: reads the ZoneShifts (and writes their `status.recovery`), the nodes and their Leases (does
 * the zone still answer?), the StatefulSets, pods, claims and volumes (what is in the lost zone); deletes pods and
 * claims, and records Events, only in the namespaces of the workloads it serves.
 */
export const LOST_ZONE_RECOVERY_RULES: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_SHIFT_PLURAL], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_SHIFT_PLURAL}/status`], verbs: ['get', 'patch', 'update'], scope: 'cluster' },
  { apiGroups: [''], resources: ['nodes', 'persistentvolumes', 'pods', 'persistentvolumeclaims'], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: ['apps'], resources: ['statefulsets'], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'watch'], scope: 'namespace', namespace: NODE_LEASE_NAMESPACE },
  { apiGroups: [''], resources: ['pods', 'persistentvolumeclaims'], verbs: ['delete'], scope: 'workloads' },
  // the stand-in labels (src/lost-zone/stand-ins.ts) on the nodes of the zones not lost
  { apiGroups: [''], resources: ['nodes'], verbs: ['patch'], scope: 'cluster' },
  ...eventRules('workloads'),
];

/** The zonal shift's rules beside its own when it leaves shifted zones out of Karpenter's NodePools. */
export const ZONE_SHIFT_NODE_POOL_RULES: readonly ControllerRule[] = [
  { apiGroups: [KARPENTER_GROUP], resources: [NODE_POOL_PLURAL], verbs: [...READ_VERBS, 'patch'], scope: 'cluster' },
];

/** The zone-aware-update reconciler: watches everywhere, writes in its workloads' namespaces. */
export const ZONE_AWARE_UPDATE_RULES: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_AWARE_UPDATE_PLURAL], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_AWARE_UPDATE_PLURAL}/status`], verbs: ['get', 'patch', 'update'], scope: 'workloads' },
  { apiGroups: ['apps'], resources: ['statefulsets', 'deployments', 'replicasets'], verbs: READ_VERBS, scope: 'cluster' },
  // A Deployment is rolled by creating its new ReplicaSet and scaling its ReplicaSets.
  { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['create', 'patch'], scope: 'workloads' },
  { apiGroups: [''], resources: ['pods', 'nodes'], verbs: READ_VERBS, scope: 'cluster' },
  // StatefulSet pods are deleted; a Deployment's batch is marked with the pod deletion cost.
  { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'patch'], scope: 'workloads' },
  ...eventRules('workloads'),
];

/**
 * The zone-disruption-budget reconciler and its eviction webhook: read everywhere, status in its budgets' namespaces.
 */
export const ZONE_DISRUPTION_BUDGET_RULES: readonly ControllerRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_DISRUPTION_BUDGET_PLURAL], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: [ROLLOUT_GROUP], resources: [`${ZONE_DISRUPTION_BUDGET_PLURAL}/status`], verbs: ['get', 'patch', 'update'], scope: 'workloads' },
  { apiGroups: ['apps'], resources: ['statefulsets', 'replicasets'], verbs: READ_VERBS, scope: 'cluster' },
  { apiGroups: [''], resources: ['pods', 'nodes', 'persistentvolumeclaims', 'persistentvolumes'], verbs: READ_VERBS, scope: 'cluster' },
  ...eventRules('workloads'),
];

/**
 * The Redis cluster manager, in each cluster's namespace: lists and watches the cluster's pods (their zone
 * is their own label), creates its status ConfigMap, records Events. The rules on named objects are
 * `redisClusterRules`.
 */
export const REDIS_MANAGER_RULES: readonly ControllerRule[] = [
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'], scope: 'workloads' },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['create'], scope: 'workloads' },
  ...eventRules('workloads'),
];

/** The objects of cluster `cluster` the manager reads and writes by name. */
export interface RedisClusterObjects {
  readonly cluster: string;
  /** The Secret that holds the password. */
  readonly passwordSecret: string;
  /** Its StatefulSets (one per zone). */
  readonly statefulSets: readonly string[];
  /** Its planned pods: the only ones the manager may delete (to replace an out-of-date one). */
  readonly pods: readonly string[];
}

/**
 * What the Redis manager reads and writes of one cluster, by name: its layout (watched: a manual operation is
 * an annotation), its status, its password Secret, its StatefulSets (read for their revision; scaled, since
 * the manager owns their replicas) and its planned pods (deleted one by one to replace out-of-date ones).
 * Kubernetes cannot restrict a delete by label, so the pods are named: a pod the plan does not have is never
 * deleted by the manager (a StatefulSet scale-down removes it).
 */
export function redisClusterRules(objects: RedisClusterObjects): ControllerRule[] {
  const { cluster, passwordSecret, statefulSets, pods } = objects;
  return [
    // patch: to remove a manual operation's annotation once it ran (REDIS_OPERATION_ANNOTATION); list and watch
    // with the field selector metadata.name=<name>: the manager sees an annotation within a second
    {
      apiGroups: [''],
      resources: ['configmaps'],
      verbs: ['get', 'patch', 'list', 'watch'],
      scope: 'workloads',
      resourceNames: [layoutConfigMapName(cluster)],
    },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], scope: 'workloads', resourceNames: [statusConfigMapName(cluster)] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], scope: 'workloads', resourceNames: [passwordSecret] },
    { apiGroups: ['apps'], resources: ['statefulsets', 'statefulsets/scale'], verbs: ['get', 'patch'], scope: 'workloads', resourceNames: [...statefulSets] },
    { apiGroups: [''], resources: ['pods'], verbs: ['delete'], scope: 'workloads', resourceNames: [...pods] },
  ];
}

/**
 * The Redis manager's rights in a namespace whose clusters this app does not know (`workloadNamespaces`):
 * their names being unknown, the ConfigMaps, Secrets, StatefulSets and pods of that namespace.
 */
export const REDIS_UNNAMED_CLUSTER_RULES: readonly ControllerRule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update', 'patch', 'list', 'watch'], scope: 'workloads' },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'], scope: 'workloads' },
  { apiGroups: ['apps'], resources: ['statefulsets', 'statefulsets/scale'], verbs: ['get', 'patch'], scope: 'workloads' },
  { apiGroups: [''], resources: ['pods'], verbs: ['delete'], scope: 'workloads' },
];
