/**
 * The ring claim of the Loki constructs, on Cortex (Apache-2.0), which runs the same ring: the layout the
 * loki-direct-3-zones example synthesizes (3 zones, replication factor 3, 2 ingesters per zone, zone awareness
 * on), read from its objects and translated to Cortex's flags by ring-layout.ts, run as real processes
 * (distributor, 6 ingesters, querier; memberlist ring on 127.0.0.1). Every ingester of one zone is killed
 * (SIGKILL, as a zone outage does: no flush, no leaving the ring). With zone awareness every pushed sample is
 * still returned and new pushes succeed; the same layout with zone awareness off fails, which is the difference
 * the configuration makes.
 */
import { createHash } from 'crypto';
import { App, Testing } from 'cdk8s';
import {
  CortexCluster,
  ingestedSamples,
  push,
  ringOf,
  samples,
  TEST_HEARTBEAT,
  TEST_MIN_READY_FLAG,
  UNHEALTHY,
} from './cortex-cluster';
import { replicaSet, RingShard, seriesToken } from './placement';
import { lokiRing, RingWorkload } from './ring-layout';
import { build } from '../../../examples/loki-direct-3-zones/main';
import { waitFor } from '../processes';

const app = new App();
build(app);
const LAYOUT = lokiRing(app.charts.flatMap((c) => Testing.synth(c)));
const SERIES = 60;
const SELECTOR = '{__name__="zone_proof"}';
/** Nothing here restarts an ingester: its readiness delay only holds up the start. */
const PACING = { extraFlags: (target: string) => (target === 'ingester' ? [TEST_MIN_READY_FLAG] : []) };

/**
 * The series' names: hex digests, so their ring tokens (an FNV hash of the labels) spread over the ring. Names that
 * differ in their last characters only (s00, s01, ...) hash close together and share a few replica sets.
 */
const NAMES = Array.from({ length: SERIES }, (_, i) => createHash('sha256').update(`series ${i}`).digest('hex').slice(0, 16));

/** One sample per series, each series a distinct label set (so their replicas land on different ingesters). */
async function pushAll(
  cluster: CortexCluster,
  round: number,
  names = NAMES,
): Promise<{ ok: string[]; failed: string[] }> {
  const ok: string[] = [];
  const failed: string[] = [];
  const timestampMs = Date.now();
  for (const series of names) {
    const sample = { labels: { __name__: 'zone_proof', series }, samples: [{ value: round, timestampMs }] };
    const res = await push(cluster.distributor.url, [sample]);
    if (res.status === 200) ok.push(`${series} ${round}`); else failed.push(`${series} ${round}: HTTP ${res.status} ${res.body}`);
  }
  return { ok, failed };
}

async function killZone(cluster: CortexCluster, zone: string): Promise<void> {
  await Promise.all(cluster.ingesters(zone).map((p) => p.kill()));
}

/** Waits until the querier's ring shows the killed zone's ingesters as unhealthy (heartbeat timed out). */
async function waitUntilZoneUnhealthy(cluster: CortexCluster, zone: string): Promise<void> {
  await new Promise((r) => setTimeout(r, TEST_HEARTBEAT.timeoutMs + 2000));
  await waitFor(`the ring to show ${zone}'s ingesters as unhealthy`, 30_000, async () => {
    const inZone = (await ringOf(cluster.querier.url)).filter((m) => m.zone === zone);
    return inZone.length > 0 && inZone.every((m) => m.state === UNHEALTHY) ? true : undefined;
  });
}

describe('the loki-direct-3-zones layout on Cortex: 3 zones, replication factor 3, 2 ingesters per zone', () => {
  let cluster: CortexCluster;
  afterEach(async () => {
    await cluster?.stop();
  });

  test('the layout read from the objects', () => {
    const ingesters = LAYOUT.filter((w) => w.target === 'ingester');
    expect(ingesters.map((w) => [w.zone, w.replicas])).toEqual([['zone-a', 2], ['zone-b', 2], ['zone-c', 2]]);
    const rings = LAYOUT.map((w) => JSON.stringify([w.ring.replicationFactor, w.ring.zoneAwareness]));
    expect(new Set(rings)).toEqual(new Set(['[3,true]']));
  });

  test('zone awareness on: with every ingester of one zone down, every pushed sample is returned and new pushes succeed', async () => {
    cluster = await CortexCluster.start(LAYOUT, PACING);
    // Each ingester registered in its zone.
    const ring = await (await fetch(`${cluster.distributor.url}/ingester/ring`, { headers: { Accept: 'application/json' } })).json() as any;
    const registered = ring.shards.map((s: any) => [s.id, s.zone]).sort();
    expect(registered).toEqual(cluster.ingesters().map((p) => [p.name, p.zone]).sort());

    const before = await pushAll(cluster, 1);
    expect(before.failed).toEqual([]);
    expect(await samples(cluster.querier.url, SELECTOR)).toEqual([...before.ok].sort());
    // The series are spread over every ingester (one replica in each zone), so the zone's loss takes replicas away.
    const ingested = await Promise.all(cluster.ingesters().map((p) => ingestedSamples(p.url)));
    expect(ingested.every((n) => n > 0)).toBe(true);
    expect(ingested.reduce((a, b) => a + b)).toBe(3 * SERIES);

    await killZone(cluster, 'zone-a');
    // Right after the outage (the dead ingesters still look healthy in the ring) ...
    const during = await pushAll(cluster, 2);
    expect(during.failed).toEqual([]);
    expect(await samples(cluster.querier.url, SELECTOR)).toEqual([...before.ok, ...during.ok].sort());

    // ... and once the ring has marked them unhealthy.
    await waitUntilZoneUnhealthy(cluster, 'zone-a');
    const after = await pushAll(cluster, 3);
    expect(after.failed).toEqual([]);
    const all = [...before.ok, ...during.ok, ...after.ok];
    expect(await samples(cluster.querier.url, SELECTOR)).toEqual(all.sort());
    console.log(`zone awareness on, zone-a down: ${all.length} of ${3 * SERIES} pushes accepted, all ${all.length} samples returned`);
  });

  test('zone awareness off (same layout, same factor): one zone down loses reads, and the writes of every series with 2 replicas in it', async () => {
    const off: RingWorkload[] = LAYOUT.map((w) => ({ ...w, ring: { ...w.ring, zoneAwareness: false } }));
    cluster = await CortexCluster.start(off, PACING);
    // Without zone awareness a series' 3 replicas are the next 3 ingesters on the ring, whatever their zones: from the
    // ring's random tokens, pick series of which some have both zone-a ingesters among their replicas.
    const ring = await fetch(`${cluster.distributor.url}/ingester/ring`, { headers: { Accept: 'application/json' } });
    const shards = ((await ring.json()) as any).shards as RingShard[];
    const inZoneA = new Set(cluster.ingesters('zone-a').map((p) => p.name));
    const replicasOf = (name: string) => replicaSet(shards, seriesToken('fake', [['__name__', 'zone_proof'], ['series', name]]), 3);
    const candidates = Array.from({ length: 2000 }, (_, i) => createHash('sha256').update(`candidate ${i}`).digest('hex').slice(0, 16))
      .map((name) => ({
        name,
        replicasInZoneA: replicasOf(name).filter((id) => inZoneA.has(id)).length,
      }));
    const doomed = candidates.filter((c) => c.replicasInZoneA >= 2).slice(0, SERIES / 3).map((c) => c.name);
    const spared = candidates
      .filter((c) => c.replicasInZoneA < 2)
      .slice(0, SERIES - doomed.length)
      .map((c) => c.name);
    const names = [...doomed, ...spared];
    expect(doomed.length).toBe(SERIES / 3);

    const before = await pushAll(cluster, 1, names);
    expect(before.failed).toEqual([]);
    expect(await samples(cluster.querier.url, SELECTOR)).toEqual([...before.ok].sort());

    await killZone(cluster, 'zone-a');
    await waitUntilZoneUnhealthy(cluster, 'zone-a');
    // Without zone awareness a series' 3 replicas may sit on both ingesters of the lost zone, and the read path
    // tolerates only floor(RF/2) = 1 lost ingester, not a whole zone of 2.
    const queryError = await samples(cluster.querier.url, SELECTOR).then(() => undefined, (err: Error) => err.message);
    expect(queryError).toMatch(/HTTP 5\d\d: .*too many unhealthy instances in the ring/);
    const after = await pushAll(cluster, 3, names);
    // Exactly the series with 2 of their 3 replicas in the lost zone can no longer be written.
    console.log(`zone awareness off, zone-a down: ${after.failed.length} of ${SERIES} series refused writes`);
    expect(after.failed.map((f) => f.split(' ')[0]).sort()).toEqual([...doomed].sort());
    for (const f of after.failed) expect(f).toMatch(/HTTP 5\d\d .*at least 2 live replicas required, could only find 1/);
  });
});
