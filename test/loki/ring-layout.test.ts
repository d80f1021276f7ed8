/**
 * The translation of the library's Loki objects into Cortex's flags (test/integration/cortex/ring-layout.ts),
 * which the ring proofs on Cortex rely on: what it reads from the objects, the flags it writes, and what it
 * refuses.
 */
import { Chart, Testing } from 'cdk8s';
import { parse, stringify } from 'yaml';
import { ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from '../../src';
import { ZONE_FLAG } from '../../src/loki/direct';
import { cortexFlags, lokiRing } from '../integration/cortex/ring-layout';

function objects(
  props: { zones?: string[]; replicationFactor?: number; perZone?: number; zoneSource?: ZoneSource } = {},
): any[] {
  const chart = new Chart(Testing.app(), 'c', { disableResourceNameHashes: true });
  // rolls the ingesters out
  const controller = new ZoneController(chart, 'zones', { workloadNamespaces: ['logs'], zoneAwareUpdate: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    namespace: 'logs',
    topology: new ZoneTopology({ zones: props.zones ?? ['zone-a', 'zone-b', 'zone-c'], kubernetesVersion: '1.35' }),
    replicationFactor: props.replicationFactor ?? 3,
    direct: {
      controller,
      ingesterReplicasPerZone: props.perZone ?? 2,
      zoneSource: props.zoneSource ?? ZoneSource.perZoneStatefulSets(),
      objectStorage: { bucket: 'logs', endpoint: 'minio:9000' },
    },
  });
  return Testing.synth(chart);
}

test('the per-zone StatefulSets: one ingester workload per zone with its replicas, and a distributor and a querier', () => {
  const ring = lokiRing(objects({ zones: ['eu-1a', 'eu-1b', 'eu-1c', 'eu-1d'], replicationFactor: 3, perZone: 3 }));
  expect(ring.map((w) => [w.target, w.zone, w.replicas]).sort()).toEqual([
    ['distributor', undefined, 4], // the stateless components default to one per zone
    ['ingester', 'eu-1a', 3], ['ingester', 'eu-1b', 3], ['ingester', 'eu-1c', 3], ['ingester', 'eu-1d', 3],
    ['querier', undefined, 4],
  ].sort());
  for (const w of ring) {
    expect(w.ring).toEqual({
      replicationFactor: 3,
      zoneAwareness: true,
      minReadyDuration: '15s',
      queryIngestersWithin: '3h',
    });
  }
});

test.each([3, 5])('replication factor %i reaches every member\'s flags', (factor) => {
  const ring = lokiRing(objects({ zones: ['a', 'b', 'c', 'd', 'e'], replicationFactor: factor, perZone: 1 }));
  for (const w of ring) expect(cortexFlags(w)).toContain(`-distributor.replication-factor=${factor}`);
});

test('the flags of each role', () => {
  const ring = lokiRing(objects());
  const of = (target: string, zone?: string) => cortexFlags(ring.find((w) => w.target === target && w.zone === zone)!);
  const shared = ['-distributor.replication-factor=3', '-distributor.zone-awareness-enabled=true', '-distributor.shard-by-all-labels=true'];
  expect(of('distributor')).toEqual(['-target=distributor', ...shared]);
  expect(of('querier')).toEqual(['-target=querier,store-gateway', ...shared, '-querier.query-ingesters-within=3h']);
  expect(of('ingester', 'zone-b')).toEqual(['-target=ingester', ...shared, '-ingester.availability-zone=zone-b', '-ingester.min-ready-duration=15s']);
});

describe('read from the configuration each workload mounts', () => {
  /** The objects with the Loki configuration edited. */
  function edited(edit: (config: any) => void): any[] {
    const all = objects();
    const configMap = all.find((o) => o.kind === 'ConfigMap' && o.data?.['config.yaml']);
    const config = parse(configMap.data['config.yaml']);
    edit(config);
    configMap.data['config.yaml'] = stringify(config);
    return all;
  }

  test('zone awareness off, a heartbeat', () => {
    const ring = lokiRing(edited((c) => {
      c.common.ring.zone_awareness_enabled = false;
      c.common.ring.heartbeat_period = '2s';
      c.common.ring.heartbeat_timeout = '10s';
    }));
    const ingester = ring.find((w) => w.target === 'ingester')!;
    expect(ingester.ring).toMatchObject({ zoneAwareness: false, heartbeatPeriod: '2s', heartbeatTimeout: '10s' });
    expect(cortexFlags(ingester)).toEqual(expect.arrayContaining([
      '-distributor.zone-awareness-enabled=false', '-ring.heartbeat-timeout=10s', '-ingester.heartbeat-period=2s',
    ]));
  });

  test('the ingesters\' own ring settings win over the common ones, as in Loki', () => {
    const ring = lokiRing(edited((c) => {
      c.ingester.lifecycler.ring.zone_awareness_enabled = false;
      c.ingester.lifecycler.heartbeat_period = '3s';
    }));
    expect(ring.find((w) => w.target === 'ingester')!.ring).toMatchObject({ zoneAwareness: false, heartbeatPeriod: '3s' });
  });

  test('Loki\'s default replication factor (3) where common.replication_factor is unset', () => {
    const ring = lokiRing(edited((c) => {
      delete c.common.replication_factor;
      c.ingester.lifecycler.ring.replication_factor = 1; // Loki overwrites it with common's
    }));
    expect(new Set(ring.map((w) => w.ring.replicationFactor))).toEqual(new Set([3]));
  });
});

test('an ingester whose zone is known only at run time is refused, naming it, unless told where the scheduler puts each pod', () => {
  const labels = objects({ zoneSource: ZoneSource.podTopologyLabels(), perZone: 2 });
  expect(() => lokiRing(labels)).toThrow(`logs-ingester: the ingester's zone is not in its arguments (${ZONE_FLAG})`);
  const ingester = lokiRing(labels, ['zone-a', 'zone-b', 'zone-c']).find((w) => w.target === 'ingester')!;
  expect(ingester).toMatchObject({ name: 'logs-ingester', replicas: 6, ordinalZones: ['zone-a', 'zone-b', 'zone-c', 'zone-a', 'zone-b', 'zone-c'] });
  expect(ingester.zone).toBeUndefined();
});

test('a workload whose configuration is not in a ConfigMap it mounts is refused', () => {
  const all = objects().filter((o) => o.kind !== 'ConfigMap');
  expect(() => lokiRing(all)).toThrow(/^logs-distributor: \S+\/config\.yaml is not a key of a ConfigMap it mounts$/);
});

test('other workloads are not ring members', () => {
  const targets = new Set(lokiRing(objects()).map((w) => w.target));
  expect(targets).toEqual(new Set(['distributor', 'ingester', 'querier']));
});
