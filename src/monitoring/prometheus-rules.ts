/**
 * The zone alert rule that comes with a monitored TopologyShardedPrometheus (topology mode): a shard that lost its
 * zone's targets. Each shard reports how many targets it scrapes (`prometheus_target_scrape_pool_targets`, after the
 * zone relabeling); a shard that scrapes under half of what it did half an hour before has lost its zone's targets to
 * a change of labels, of discovery rights or of the zone itself. A shard that restarts has no series half an hour old,
 * so it never alerts for that.
 */
import { AlertGroup } from './alert-rule';
import { DashboardSection } from './dashboard';
import { promQlString } from './promql';

/** How far back a shard's target count is compared. */
export const TARGETS_LOOKBACK = '30m';

/** The series of the shards' target counts, for the shards whose pods in `namespace` match `podPattern`. */
function shardTargets(namespace: string, podPattern: string): string {
  return `prometheus_target_scrape_pool_targets{namespace=${promQlString(namespace)}, pod=~${promQlString(podPattern)}}`;
}

/** The rules of the shards whose pods, in `namespace`, have names matching `podPattern` (a PromQL regex). */
export function prometheusShardAlertGroup(namespace: string, podPattern: string): AlertGroup {
  const targets = shardTargets(namespace, podPattern);
  const perShard = (series: string) => `sum by (namespace, pod, zone) (${series})`;
  return {
    name: 'cdk8s-zones-prometheus',
    rules: [{
      alert: 'PrometheusShardLostZoneTargets',
      expr: `${perShard(targets)} < 0.5 * ${perShard(`${targets} offset ${TARGETS_LOOKBACK}`)}`,
      for: '10m',
      severity: 'warning',
      summary: 'Prometheus shard {{ $labels.pod }} in zone {{ $labels.zone }} scrapes {{ $value }} targets, under half of'
        + ` what it scraped ${TARGETS_LOOKBACK} before`,
      description: 'The shard keeps only the targets of its zone: they went away, or it no longer sees their zone (a node'
        + ' or pod label changed, its discovery lost the right to read nodes or EndpointSlices).',
    }],
  };
}

/** The shards' panel of the zone dashboard: how many targets each keeps, by zone. */
export function prometheusDashboardSection(namespace: string, podPattern: string): DashboardSection {
  return {
    title: `Prometheus shards in ${namespace}`,
    panels: [{
      title: 'Targets each shard scrapes, by zone',
      description: 'A shard keeps its zone\'s targets only: a fall to near 0 is the alert PrometheusShardLostZoneTargets.',
      expr: `sum by (zone, pod) (${shardTargets(namespace, podPattern)})`,
      legend: '{{zone}} {{pod}}',
    }],
  };
}
