/**
 * The rules that come with a monitored ZoneAwareLokiStack, held to the real promtool: a zone whose ingesters do not
 * answer for 5 minutes alerts with its zone (a restart shorter than that does not, nor another stack's); an ingester
 * ring with unhealthy members alerts, read from Loki 2's `cortex_ring_members` or a later `loki_ring_members`.
 */
import { Promtool, promtoolOver } from './promtool';
import { lokiAlertGroup } from '../../../src/monitoring/loki-rules';

let promtool: Promtool;
beforeAll(() => {
  promtool = promtoolOver(lokiAlertGroup('logs', 'loki'));
});
afterAll(() => promtool.close());

const up = (pod: string, zone: string, namespace = 'logs') => `up{namespace="${namespace}",pod="${pod}",zone="${zone}"}`;
const ring = (metric: string, pod: string, state: string) =>
  `${metric}{namespace="logs",pod="${pod}",zone="zone-a",name="ingester",state="${state}"}`;

test('promtool check rules accepts them', () => {
  expect(promtool.run('check', 'rules', 'rules.yml')).toMatchObject({ code: 0, output: expect.stringContaining('SUCCESS: 2 rules found') });
});

test('promtool test rules: each fires when it must, and only then', () => {
  const ingestersDown = 'Writes still reach a majority of the zones, but that zone holds no copy of what comes in meanwhile,'
    + ' and losing another zone now would stop writes.';
  const tests = [
    {
      // zone-b's ingester down from 10m; zone-a's restarts for 3 minutes at 20m; another stack's is down all along
      interval: '1m',
      input_series: [
        { series: up('loki-ingester-zone-a-0', 'zone-a'), values: '1x19 0x2 1x38' },
        { series: up('loki-ingester-zone-b-0', 'zone-b'), values: '1x9 0x50' },
        { series: up('loki-ingester-zone-c-0', 'zone-c'), values: '1x60' },
        { series: up('loki-distributor-abc-1', 'zone-b'), values: '0x60' },
        { series: up('loki-ingester-zone-a-0', 'zone-a', 'other'), values: '0x60' },
      ],
      alert_rule_test: [
        { eval_time: '13m', alertname: 'LokiIngestersDownInZone', exp_alerts: [] },
        {
          eval_time: '16m',
          alertname: 'LokiIngestersDownInZone',
          exp_alerts: [promtool.alert('LokiIngestersDownInZone', { namespace: 'logs', zone: 'zone-b' },
            'Loki logs/loki: 1 ingester(s) of zone zone-b do not answer', ingestersDown)],
        },
        {
          eval_time: '25m',
          alertname: 'LokiIngestersDownInZone',
          exp_alerts: [promtool.alert('LokiIngestersDownInZone', { namespace: 'logs', zone: 'zone-b' },
            'Loki logs/loki: 1 ingester(s) of zone zone-b do not answer', ingestersDown)],
        },
      ],
    },
    {
      // Loki 2's gauge from 0 to 1 unhealthy at 10m; a later release's name on another pod, 0 all along
      interval: '1m',
      input_series: [
        { series: ring('cortex_ring_members', 'loki-distributor-abc-1', 'Unhealthy'), values: '0x9 1x50' },
        { series: ring('cortex_ring_members', 'loki-distributor-abc-1', 'ACTIVE'), values: '3x9 2x50' },
        { series: ring('loki_ring_members', 'loki-querier-abc-1', 'Unhealthy'), values: '0x60' },
      ],
      alert_rule_test: [
        { eval_time: '13m', alertname: 'LokiRingOneZoneFromQuorumLoss', exp_alerts: [] },
        {
          eval_time: '16m',
          alertname: 'LokiRingOneZoneFromQuorumLoss',
          exp_alerts: [promtool.alert('LokiRingOneZoneFromQuorumLoss', { namespace: 'logs' },
            'Loki logs/loki: 1 ingester(s) of the ring are unhealthy; losing one more zone would leave writes without their quorum',
            'Zone-aware replication writes each stream to every zone and needs a majority of them: with a zone already'
            + ' short, one more zone lost stops writes. Bring the unhealthy ingesters back, or forget them from the ring'
            + ' if they are gone for good.')],
        },
      ],
    },
    {
      // the later release's name alone, unhealthy from the start
      interval: '1m',
      input_series: [{ series: ring('loki_ring_members', 'loki-querier-abc-1', 'Unhealthy'), values: '2x20' }],
      alert_rule_test: [{
        eval_time: '10m',
        alertname: 'LokiRingOneZoneFromQuorumLoss',
        exp_alerts: [promtool.alert('LokiRingOneZoneFromQuorumLoss', { namespace: 'logs' },
          'Loki logs/loki: 2 ingester(s) of the ring are unhealthy; losing one more zone would leave writes without their quorum',
          'Zone-aware replication writes each stream to every zone and needs a majority of them: with a zone already'
          + ' short, one more zone lost stops writes. Bring the unhealthy ingesters back, or forget them from the ring'
          + ' if they are gone for good.')],
      }],
    },
  ];
  promtool.expectTestsPass(tests);
});
