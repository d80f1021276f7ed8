/**
 * The gauges the zone alert rules read: a ZoneShift's expiry while it is in force (gone once it no longer holds), and
 * a ZoneAwareUpdate's phase, old replicas per zone and last progress (a pod fewer on the old revision, or a new
 * revision), with every series of an update removed when it goes.
 */
import { ZoneAwareUpdateStatus } from '../../src/contract/rollout-resources';
import { createMetrics } from '../src/metrics';
import { ZoneAwareUpdateGauges } from '../src/reconcilers/zone-aware-update-metrics';
import { ShiftExpiryGauge } from '../src/reconcilers/zone-shift-metrics';

/** The gauge's series as `labels=value` lines, sorted. */
async function series(metrics: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  const metric = metrics.registry.getSingleMetric(name)!;
  const { values } = await metric.get();
  return values.map((v) => `${JSON.stringify(v.labels)}=${v.value}`).sort();
}

const NOW = Date.parse('2026-11-29T12:00:00Z');
const shift = (zone: string, expiresAt: string, extra: object = {}) => ({
  metadata: { name: 'drain-a', creationTimestamp: '2026-11-29T11:00:00Z' },
  spec: { zone, expiresAt, ...extra },
});

test('a ZoneShift in force shows its expiry; a new zone replaces its series; expired or deleted, it has none', async () => {
  const metrics = createMetrics({ defaultMetrics: false });
  const gauge = new ShiftExpiryGauge(metrics.zoneShiftExpiry);
  const name = 'cdk8s_zones_zone_shift_expiry_timestamp_seconds';
  gauge.show('drain-a', shift('zone-a', '2026-11-29T13:00:00Z'), NOW);
  expect(await series(metrics, name)).toEqual([`{"shift":"drain-a","zone":"zone-a","lost":"false"}=${Date.parse('2026-11-29T13:00:00Z') / 1000}`]);
  gauge.show('drain-a', shift('zone-b', '2026-11-29T14:00:00Z', { lost: true }), NOW);
  expect(await series(metrics, name)).toEqual([`{"shift":"drain-a","zone":"zone-b","lost":"true"}=${Date.parse('2026-11-29T14:00:00Z') / 1000}`]);
  gauge.show('drain-a', shift('zone-b', '2026-11-29T14:00:00Z', { lost: true }), Date.parse('2026-11-29T14:00:00Z'));
  expect(await series(metrics, name)).toEqual([]);
  gauge.show('drain-a', shift('zone-a', '2026-11-29T13:00:00Z'), NOW);
  gauge.show('drain-a', undefined, NOW);
  expect(await series(metrics, name)).toEqual([]);
});

type Phase = ZoneAwareUpdateStatus['phase'];
const status = (updateRevision: string, zones: [string, number][], phase: Phase = 'Rolling'): ZoneAwareUpdateStatus => ({
  updateRevision,
  step: 0,
  oldReplicas: zones.reduce((sum, [, old]) => sum + old, 0),
  zones: zones.map(([zone, oldReplicas]) => ({ zone, oldReplicas })),
  paused: false,
  phase,
  message: '',
});

test('a ZoneAwareUpdate progresses when a pod leaves the old revision or a new revision comes; a pass without either keeps the time', async () => {
  const metrics = createMetrics({ defaultMetrics: false });
  const gauges = new ZoneAwareUpdateGauges(metrics);
  const progress = () => series(metrics, 'cdk8s_zones_zone_aware_update_last_progress_timestamp_seconds');
  const at = (s: number) => NOW + s * 1000;
  gauges.show('web', 'app', status('r2', [['zone-a', 2], ['zone-b', 2]]), at(0));
  expect(await progress()).toEqual([`{"namespace":"web","name":"app","zone":"zone-a"}=${at(0) / 1000}`]);
  gauges.show('web', 'app', status('r2', [['zone-a', 2], ['zone-b', 2]], 'Waiting'), at(60));
  expect(await progress()).toEqual([`{"namespace":"web","name":"app","zone":"zone-a"}=${at(0) / 1000}`]);
  // zone-a done: progress, and the zone it rolls now is zone-b
  gauges.show('web', 'app', status('r2', [['zone-a', 0], ['zone-b', 2]]), at(120));
  expect(await progress()).toEqual([`{"namespace":"web","name":"app","zone":"zone-b"}=${at(120) / 1000}`]);
  expect(await series(metrics, 'cdk8s_zones_zone_aware_update_old_replicas')).toEqual([
    '{"namespace":"web","name":"app","zone":"zone-a"}=0', '{"namespace":"web","name":"app","zone":"zone-b"}=2',
  ]);
  expect((await series(metrics, 'cdk8s_zones_zone_aware_update_phase')).filter((s) => s.endsWith('=1')))
    .toEqual(['{"namespace":"web","name":"app","phase":"Rolling"}=1']);
  // a new revision: progress, though no pod moved
  gauges.show('web', 'app', status('r3', [['zone-a', 2], ['zone-b', 2]]), at(180));
  expect(await progress()).toEqual([`{"namespace":"web","name":"app","zone":"zone-a"}=${at(180) / 1000}`]);
  gauges.forget('web/app');
  for (const name of ['phase', 'old_replicas', 'last_progress_timestamp_seconds']) {
    expect(await series(metrics, `cdk8s_zones_zone_aware_update_${name}`)).toEqual([]);
  }
});
