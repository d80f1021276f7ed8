/**
 * The runtime controller's metric families, by name: the controller defines them (controller/src/metrics.ts) and
 * the zone alert rules and the dashboard query them (src/monitoring/). One home, so that a rename breaks both.
 */

/** Reconciles done, by reconciler. */
export const RECONCILES = 'cdk8s_zones_reconciles_total';
/** Reconciles that failed (and will be retried), by reconciler. */
export const RECONCILE_ERRORS = 'cdk8s_zones_reconcile_errors_total';
/** 1 while the replica holds the leader lease (only the leader reconciles, so only its gauges below are set). */
export const LEADER = 'cdk8s_zones_leader';
/** Each ZonalRedisCluster's phase (labels namespace, cluster, phase): 1 for the current one, 0 for the others. */
export const REDIS_PHASE = 'cdk8s_zones_redis_cluster_phase';
/** The Redis manager's consecutive healthy or unhealthy passes (labels namespace, cluster, result). */
export const REDIS_PASSES = 'cdk8s_zones_redis_cluster_consecutive_passes';
/** 1 once a ZonalRedisCluster has been healthy for 10 passes in a row. */
export const REDIS_FINALIZED = 'cdk8s_zones_redis_cluster_finalized';
/**
 * Each reachable node of a ZonalRedisCluster, 1 (labels namespace, cluster, pod, zone, role: `master` or `replica`,
 * shard: the pod of the master it serves with, its own for a master).
 */
export const REDIS_NODE = 'cdk8s_zones_redis_node';
/** Per zone, a ZonalRedisCluster's masters the layout plans as replicas (labels namespace, cluster, zone). */
export const REDIS_MASTERS_OFF_PLAN = 'cdk8s_zones_redis_masters_off_plan';
/** Each ZoneShift in force: when it expires, in Unix seconds (labels shift, zone, lost). */
export const ZONE_SHIFT_EXPIRY = 'cdk8s_zones_zone_shift_expiry_timestamp_seconds';
/** Each ZoneAwareUpdate's phase (labels namespace, name, phase): 1 for the current one, 0 for the others. */
export const UPDATE_PHASE = 'cdk8s_zones_zone_aware_update_phase';
/** Each ZoneAwareUpdate's pods still on the old revision, per zone (labels namespace, name, zone). */
export const UPDATE_OLD_REPLICAS = 'cdk8s_zones_zone_aware_update_old_replicas';
/**
 * When each ZoneAwareUpdate last progressed, in Unix seconds (labels namespace, name, zone: the zone it rolls now):
 * a pod fewer on the old revision, or a new revision to roll out. Since the controller's start at the earliest.
 */
export const UPDATE_PROGRESS = 'cdk8s_zones_zone_aware_update_last_progress_timestamp_seconds';
/**
 * Per zone, the pods of a workload that opted in to the zone annotation, bound to a node of that zone and neither
 * terminating nor ended (labels namespace, workload: `<Kind>/<name>` of its controller, a Deployment for its
 * ReplicaSets' pods, `Pod/<name>` for a pod of none; zone). No series where the workload has no such pod.
 */
export const WORKLOAD_ZONE_PODS = 'cdk8s_zones_workload_zone_pods';
/** Per zone, those pods of a workload (`WORKLOAD_ZONE_PODS`) whose Ready condition is True (same labels). */
export const WORKLOAD_ZONE_READY_PODS = 'cdk8s_zones_workload_zone_ready_pods';
