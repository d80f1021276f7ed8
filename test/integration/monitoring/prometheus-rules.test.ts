/**
 * The rule that comes with a monitored TopologyShardedPrometheus, held to the real promtool: a shard that scrapes under
 * half of its targets of half an hour before, for 10 minutes, alerts with its pod and zone; a shard that keeps its
 * targets, a shard newly started (no series that old) and the shards of another Prometheus do not.
 */
import { Promtool, promtoolOver } from './promtool';
import { prometheusShardAlertGroup } from '../../../src/monitoring/prometheus-rules';

const GROUP = prometheusShardAlertGroup('monitoring', 'prometheus-prom-.+');
let promtool: Promtool;
beforeAll(() => {
  promtool = promtoolOver(GROUP);
});
afterAll(() => promtool.close());

const targets = (pod: string, zone: string, job: string, namespace = 'monitoring') =>
  `prometheus_target_scrape_pool_targets{namespace="${namespace}",pod="${pod}",zone="${zone}",scrape_job="${job}"}`;

test('promtool check rules accepts it', () => {
  expect(promtool.run('check', 'rules', 'rules.yml')).toMatchObject({ code: 0, output: expect.stringContaining('SUCCESS: 1 rules found') });
});

test('promtool test rules: a shard that lost its zone\'s targets alerts; the others do not', () => {
  const tests = [{
    interval: '1m',
    input_series: [
      // zone-a's shard: 20 + 1 targets, then its pods job empties at 60m
      { series: targets('prometheus-prom-zone-a-0', 'zone-a', 'kubernetes-pods'), values: '20x59 0x60' },
      { series: targets('prometheus-prom-zone-a-0', 'zone-a', 'self'), values: '1x119' },
      // zone-b's shard keeps its targets, with ups and downs under half
      { series: targets('prometheus-prom-zone-b-0', 'zone-b', 'kubernetes-pods'), values: '10x59 12x30 8x29' },
      // zone-c's shard restarted at 60m: a new pod, no series 30 minutes old
      { series: targets('prometheus-prom-zone-c-0', 'zone-c', 'kubernetes-pods'), values: '9x59' },
      { series: targets('prometheus-prom-zone-c-1', 'zone-c', 'kubernetes-pods'), values: '_x60 1x59' },
      // a Prometheus of the same name in another namespace, whose shard lost everything
      { series: targets('prometheus-prom-zone-a-0', 'zone-a', 'kubernetes-pods', 'other'), values: '20x59 0x60' },
    ],
    alert_rule_test: [
      { eval_time: '65m', alertname: 'PrometheusShardLostZoneTargets', exp_alerts: [] },
      {
        eval_time: '75m',
        alertname: 'PrometheusShardLostZoneTargets',
        exp_alerts: [promtool.alert('PrometheusShardLostZoneTargets', { namespace: 'monitoring', pod: 'prometheus-prom-zone-a-0', zone: 'zone-a' },
          'Prometheus shard prometheus-prom-zone-a-0 in zone zone-a scrapes 1 targets, under half of what it scraped 30m before',
          'The shard keeps only the targets of its zone: they went away, or it no longer sees their zone (a node or pod label'
          + ' changed, its discovery lost the right to read nodes or EndpointSlices).')],
      },
    ],
  }];
  promtool.expectTestsPass(tests);
});
