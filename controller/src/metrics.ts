/**
 * The controller's Prometheus metrics, on one registry served at /metrics. Every reconciler records into
 * these families (labelled with its name) rather than defining its own, so dashboards need one set of
 * queries.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  LEADER, RECONCILE_ERRORS, RECONCILES, REDIS_FINALIZED, REDIS_MASTERS_OFF_PLAN, REDIS_NODE, REDIS_PASSES, REDIS_PHASE,
  UPDATE_OLD_REPLICAS, UPDATE_PHASE, UPDATE_PROGRESS, WORKLOAD_ZONE_PODS, WORKLOAD_ZONE_READY_PODS, ZONE_SHIFT_EXPIRY,
} from '../../src/contract/metrics';

export interface Metrics {
  readonly registry: Registry;
  /** Reconciles done, by reconciler. */
  readonly reconciles: Counter<'reconciler'>;
  /** Reconciles that failed (and will be retried), by reconciler. */
  readonly reconcileErrors: Counter<'reconciler'>;
  /** What reconcilers decided, e.g. `annotated`, `missing-label`, `delete-batch`, `paused`. */
  readonly decisions: Counter<'reconciler' | 'decision'>;
  /** Admission verdicts (`allowed`, `denied`, `error`) per webhook and zone. */
  readonly webhookAdmissions: Counter<'webhook' | 'zone' | 'verdict'>;
  /** Seconds from a pod's binding to a node (its PodScheduled condition) to its zone annotation. */
  readonly annotationLatency: Histogram<never>;
  /** Nodes that opted-in pods run on and that lack one of the topology labels. */
  readonly nodesMissingZoneLabel: Gauge<never>;
  /** 1 while this replica holds the leader lease. */
  readonly leader: Gauge<never>;
  /** Each ZonalRedisCluster's phase: 1 for the current one, 0 for the others. */
  readonly redisPhase: Gauge<'namespace' | 'cluster' | 'phase'>;
  /** Each ZonalRedisCluster's consecutive healthy or unhealthy passes. */
  readonly redisPasses: Gauge<'namespace' | 'cluster' | 'result'>;
  /** 1 once a ZonalRedisCluster has been healthy for 10 passes in a row. */
  readonly redisFinalized: Gauge<'namespace' | 'cluster'>;
  /** Each reachable node of a ZonalRedisCluster: its zone, role and shard. */
  readonly redisNode: Gauge<'namespace' | 'cluster' | 'pod' | 'zone' | 'role' | 'shard'>;
  /** Per zone, a ZonalRedisCluster's masters the layout plans as replicas. */
  readonly redisMastersOffPlan: Gauge<'namespace' | 'cluster' | 'zone'>;
  /** Each ZoneShift in force: when it expires (Unix seconds). */
  readonly zoneShiftExpiry: Gauge<'shift' | 'zone' | 'lost'>;
  /** Each ZoneAwareUpdate's phase: 1 for the current one, 0 for the others. */
  readonly updatePhase: Gauge<'namespace' | 'name' | 'phase'>;
  /** Each ZoneAwareUpdate's pods still on the old revision, per zone. */
  readonly updateOldReplicas: Gauge<'namespace' | 'name' | 'zone'>;
  /** When each ZoneAwareUpdate last progressed (Unix seconds), with the zone it rolls now. */
  readonly updateProgress: Gauge<'namespace' | 'name' | 'zone'>;
  /** Per zone, a workload's opted-in pods bound there (not terminating, not ended). */
  readonly workloadZonePods: Gauge<'namespace' | 'workload' | 'zone'>;
  /** Per zone, those of a workload's pods that are Ready. */
  readonly workloadZoneReadyPods: Gauge<'namespace' | 'workload' | 'zone'>;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'cdk8s_zones_controller_' });
  const registers = [registry];
  return {
    registry,
    reconciles: new Counter({ name: RECONCILES, help: 'Reconciles done', labelNames: ['reconciler'], registers }),
    reconcileErrors: new Counter({ name: RECONCILE_ERRORS, help: 'Reconciles that failed and will be retried', labelNames: ['reconciler'], registers }),
    decisions: new Counter({ name: 'cdk8s_zones_decisions_total', help: 'Decisions taken by reconcilers', labelNames: ['reconciler', 'decision'], registers }),
    webhookAdmissions: new Counter({
      name: 'cdk8s_zones_webhook_admissions_total', help: 'Admission verdicts per webhook and zone', labelNames: ['webhook', 'zone', 'verdict'], registers,
    }),
    annotationLatency: new Histogram({
      name: 'cdk8s_zones_annotation_latency_seconds',
      help: 'From a pod being bound to a node to its zone annotation being written',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    }),
    nodesMissingZoneLabel: new Gauge({ name: 'cdk8s_zones_nodes_missing_zone_label', help: 'Nodes running opted-in pods that lack a topology label', registers }),
    leader: new Gauge({ name: LEADER, help: '1 while this replica holds the leader lease', registers }),
    redisPhase: new Gauge({
      name: REDIS_PHASE, help: 'The phase of each ZonalRedisCluster (1: current)', labelNames: ['namespace', 'cluster', 'phase'], registers,
    }),
    redisPasses: new Gauge({
      name: REDIS_PASSES,
      help: 'Consecutive healthy or unhealthy passes of the Redis manager over each ZonalRedisCluster',
      labelNames: ['namespace', 'cluster', 'result'],
      registers,
    }),
    redisFinalized: new Gauge({
      name: REDIS_FINALIZED, help: '1 once a ZonalRedisCluster has been healthy for 10 passes in a row', labelNames: ['namespace', 'cluster'], registers,
    }),
    ...zoneStateGauges(registers),
    ...workloadZoneGauges(registers),
  };
}

/**
 * The gauges of what the zone alert rules read (src/monitoring/): a ZonalRedisCluster's layout, the ZoneShifts in
 * force, the ZoneAwareUpdates' progress.
 */
function zoneStateGauges(registers: Registry[]): Pick<Metrics,
'redisNode' | 'redisMastersOffPlan' | 'zoneShiftExpiry' | 'updatePhase' | 'updateOldReplicas' | 'updateProgress'> {
  return {
    redisNode: new Gauge({
      name: REDIS_NODE,
      help: 'Each reachable node of a ZonalRedisCluster (1), with its zone, role and shard (the pod of its master)',
      labelNames: ['namespace', 'cluster', 'pod', 'zone', 'role', 'shard'],
      registers,
    }),
    redisMastersOffPlan: new Gauge({
      name: REDIS_MASTERS_OFF_PLAN,
      help: 'Per zone, the masters of a ZonalRedisCluster that its layout plans as replicas',
      labelNames: ['namespace', 'cluster', 'zone'],
      registers,
    }),
    zoneShiftExpiry: new Gauge({
      name: ZONE_SHIFT_EXPIRY, help: 'When each ZoneShift in force expires (Unix seconds)', labelNames: ['shift', 'zone', 'lost'], registers,
    }),
    updatePhase: new Gauge({
      name: UPDATE_PHASE, help: 'The phase of each ZoneAwareUpdate (1: current)', labelNames: ['namespace', 'name', 'phase'], registers,
    }),
    updateOldReplicas: new Gauge({
      name: UPDATE_OLD_REPLICAS, help: 'Pods of each ZoneAwareUpdate still on the old revision, per zone', labelNames: ['namespace', 'name', 'zone'], registers,
    }),
    updateProgress: new Gauge({
      name: UPDATE_PROGRESS,
      help: 'When each ZoneAwareUpdate last progressed (Unix seconds), with the zone it rolls now',
      labelNames: ['namespace', 'name', 'zone'],
      registers,
    }),
  };
}

/** The opted-in workloads' pods per zone, and how many are Ready: what the zone readiness alert reads. */
function workloadZoneGauges(registers: Registry[]): Pick<Metrics, 'workloadZonePods' | 'workloadZoneReadyPods'> {
  const labelNames = ['namespace', 'workload', 'zone'] as const;
  return {
    workloadZonePods: new Gauge({
      name: WORKLOAD_ZONE_PODS, help: 'Per zone, the opted-in pods of each workload bound there', labelNames, registers,
    }),
    workloadZoneReadyPods: new Gauge({
      name: WORKLOAD_ZONE_READY_PODS, help: 'Per zone, the opted-in pods of each workload bound there and Ready', labelNames, registers,
    }),
  };
}
