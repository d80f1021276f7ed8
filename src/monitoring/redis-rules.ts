/**
 * The zone alert rules that come with a monitored ZonalRedisCluster, over what the Redis manager reports of it (the
 * controller's metrics, src/contract/metrics.ts: so the controller must be monitored too): a shard with two of its
 * nodes in one zone (a master moved into its replica's zone: losing that zone loses the shard), masters not where the
 * layout plans them for a while, and the manager unable to heal the cluster. Each is about one cluster (its namespace
 * and name), counted from the controller replica that leads.
 */
import { AlertGroup, AlertRule } from './alert-rule';
import { LEADING } from './controller-rules';
import { DashboardSection } from './dashboard';
import { promQlString } from './promql';
import { REDIS_MASTERS_OFF_PLAN, REDIS_NODE, REDIS_PASSES } from '../contract/metrics';

/** How long a shard may have two nodes in one zone (a failover settling) before it alerts. */
export const SHARD_IN_ONE_ZONE_FOR = '2m';
/** How long masters may stay off the layout's plan (the manager fails them back) before it alerts. */
export const MASTERS_OFF_PLAN_FOR = '15m';
/** Unhealthy passes in a row of the Redis manager (one every 15 s by default: 5 minutes) that alert. */
export const REDIS_UNHEALTHY_PASSES = 20;

/** The rules of the cluster `namespace/cluster`. */
export function redisAlertGroup(namespace: string, cluster: string): AlertGroup {
  const of = `namespace=${promQlString(namespace)}, cluster=${promQlString(cluster)}`;
  const name = `ZonalRedisCluster ${namespace}/${cluster}`;
  const shardInOneZone: AlertRule = {
    alert: 'ZonalRedisShardInOneZone',
    expr: `count by (instance, namespace, cluster, shard, zone) (${REDIS_NODE}{${of}}) > 1 ${LEADING}`,
    for: SHARD_IN_ONE_ZONE_FOR,
    severity: 'critical',
    summary: `${name}: shard {{ $labels.shard }} has {{ $value }} nodes in zone {{ $labels.zone }}; losing that zone loses`
      + ' the shard',
    description: 'A master and its replica (or two of its nodes) serve from one zone: a failover or a node moved put them'
      + ' there, and the manager has not moved them apart.',
  };
  const mastersOffPlan: AlertRule = {
    alert: 'ZonalRedisMastersOffPlan',
    expr: `${REDIS_MASTERS_OFF_PLAN}{${of}} > 0 ${LEADING}`,
    for: MASTERS_OFF_PLAN_FOR,
    severity: 'warning',
    summary: `${name}: {{ $value }} master(s) in zone {{ $labels.zone }} where the layout plans replicas`,
    description: `Masters have been off the layout's plan for ${MASTERS_OFF_PLAN_FOR}: after a failover the manager fails`
      + ' them back once their planned nodes are healthy; it has not.',
  };
  const unhealthy: AlertRule = {
    alert: 'ZonalRedisClusterUnhealthy',
    expr: `${REDIS_PASSES}{${of}, result="unhealthy"} >= ${REDIS_UNHEALTHY_PASSES} ${LEADING}`,
    severity: 'critical',
    summary: `${name} has been unhealthy for {{ $value }} passes of the Redis manager in a row`,
    description: 'The manager has found the cluster unhealthy (slots not covered, a master without a replica in another'
      + ' zone, nodes failing) on every pass for about five minutes, and has not healed it.',
  };
  return { name: 'cdk8s-zones-redis', rules: [shardInOneZone, mastersOffPlan, unhealthy] };
}

/** The panels of the cluster `namespace/cluster` on the zone dashboard: where its masters and replicas are. */
export function redisDashboardSection(namespace: string, cluster: string): DashboardSection {
  const of = `namespace=${promQlString(namespace)}, cluster=${promQlString(cluster)}`;
  return {
    title: `ZonalRedisCluster ${namespace}/${cluster}`,
    panels: [
      {
        title: 'Masters and replicas, by zone',
        description: 'As planned, no zone holds a majority of the masters, nor a master and its own replica.',
        expr: `count by (zone, role) (${REDIS_NODE}{${of}} ${LEADING})`,
        legend: '{{zone}} {{role}}',
      },
      {
        title: 'Masters where the layout plans replicas, by zone',
        description: 'Above 0 after a failover, until the manager fails the masters back.',
        expr: `max by (zone) (${REDIS_MASTERS_OFF_PLAN}{${of}} ${LEADING})`,
        legend: '{{zone}}',
      },
      {
        title: 'Unhealthy passes of the Redis manager in a row',
        description: `The alert ZonalRedisClusterUnhealthy fires at ${REDIS_UNHEALTHY_PASSES}.`,
        expr: `max (${REDIS_PASSES}{${of}, result="unhealthy"} ${LEADING})`,
        legend: 'unhealthy passes',
      },
    ],
  };
}
