/**
 * Moving a running ring that is not zone-aware to zone-aware replication, on Cortex (Apache-2.0; the ring Loki
 * shares): the staged migration of `direct.zoneAwarenessMigration` against the all-at-once switch, with the
 * layouts read from the library's Loki objects (3 zones, replication factor 3, one ingester StatefulSet of 3 pods
 * per zone told its zone at run time) and samples pushed continuously.
 *
 * Phase 0 is the running ring without zones. The staged migration then restarts the ingesters one at a time with
 * their zones and the distributors zone-aware (the objects of phase 1: the queriers keep reading as before), waits
 * the query lookback, and restarts the queriers zone-aware (phase 2). The all-at-once switch applies the final
 * objects at once: distributors and queriers zone-aware, ingesters a zone per wave.
 *
 * A zone-aware read is done once every zone but one has answered, and leaves out a whole zone with any failing
 * instance; so the test picks series whose three replicas phase 0 placed in one zone (worked out from the ring's
 * tokens), and ends each run by killing one ingester of that zone.
 *
 * Test pacing, not the layout: the lookback (query_ingesters_within, 3h in the library's configuration) is scaled to
 * LOOKBACK, and Cortex cuts a block of each minute and ships it at once (Loki flushes its chunks within
 * max_chunk_age, 2h), so data older than the lookback is read from the store, as in Loki. In this pace Cortex's store
 * lacks some samples written while ingesters restart, also without any zone change (a run restarting the 9 ingesters
 * of a ring without zones, nothing else, found samples of the minute of the restarts missing from every query once
 * older than the lookback). A third querier that reads the store alone shows which; those samples, and only those,
 * are not held against the migration, and the test says how many there were.
 */
import { createHash } from 'crypto';
import * as path from 'path';
import { Chart, Duration, Testing } from 'cdk8s';
import {
  CortexCluster,
  CortexProcess,
  push,
  samples,
  startCortex,
  TEST_HEARTBEAT,
  TEST_MIN_READY_FLAG,
  waitUntilReady,
} from './cortex-cluster';
import { replicaSet, RingShard, seriesToken } from './placement';
import { lokiRing, RingTarget, RingWorkload } from './ring-layout';
import { LokiZoneAwarenessMigration, ZoneAwareLokiStack, ZoneSource, ZoneTopology } from '../../../src';
import { QUERY_INGESTERS_WITHIN } from '../../../src/loki/config';
import { migrationStep, MigrationStep } from '../../../src/loki/migration';
import { freePort, waitFor } from '../processes';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const PER_ZONE = 3;
/** The query lookback, scaled down from the configuration's 3h. */
const LOOKBACK = Duration.minutes(4);
const METRIC = 'migration_proof';
const SELECTOR = `{__name__="${METRIC}"}`;
const PUSH_EVERY_MS = 500;
/** Series whose three phase-0 replicas are all in zone-a, and others. */
const ONE_ZONE_SERIES = 12;
const OTHER_SERIES = 24;

/** The ring layout of the library's Loki objects with `migration`; `undefined`: none (the final objects). */
function layout(migration?: LokiZoneAwarenessMigration): RingWorkload[] {
  const chart = new Chart(Testing.app(), 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    namespace: 'logs',
    topology: new ZoneTopology({ zones: ZONES, kubernetesVersion: '1.35' }),
    replicationFactor: 3,
    direct: {
      ingesterReplicasPerZone: PER_ZONE,
      zoneSource: ZoneSource.podTopologyLabels(),
      objectStorage: { bucket: 'logs', endpoint: 'minio:9000' },
      zoneAwarenessMigration: migration,
    },
  });
  return lokiRing(Testing.synth(chart), ZONES).map((w) => {
    expect(w.ring.queryIngestersWithin).toBe('3h');
    return { ...w, ring: { ...w.ring, queryIngestersWithin: `${LOOKBACK.toSeconds()}s` } };
  });
}

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const LIBRARY_LOOKBACK_MS = QUERY_INGESTERS_WITHIN.toMilliseconds();
/** Step 1: the ingesters with their zones. */
const STEP_1 = layout({});
/** Step 2: the distributors zone-aware. */
const STEP_2 = layout({ ingestersRolledOutAt: ago(60_000) });
/** Step 3, declared once the lookback of the library's configuration has passed: the final objects. */
const FINAL = layout({
  ingestersRolledOutAt: ago(LIBRARY_LOOKBACK_MS + 120_000),
  writePathRolledOutAt: ago(LIBRARY_LOOKBACK_MS + 60_000),
});
/** Before: the same processes with no zone awareness (and the ingesters registering no zone: zonelessIngesters). */
const BEFORE = STEP_1.map((w) => ({ ...w, ring: { ...w.ring, zoneAwareness: false } }));

/**
 * Blocks of one minute, shipped at once and seen by the store gateway within a second; every query reads the store too.
 * Ingesters ready 3 s after they are ACTIVE (TEST_MIN_READY_FLAG): the staged run restarts the next one only once every
 * distributor and querier serves with the last (`waitUntilRingServes`).
 */
function pacing(target: RingTarget): string[] {
  if (target === 'ingester') {
    return ['-blocks-storage.tsdb.block-ranges-period=1m', '-blocks-storage.tsdb.ship-interval=1s', '-blocks-storage.tsdb.head-compaction-interval=1s',
      TEST_MIN_READY_FLAG];
  }
  // No compactor writes a bucket index here: the querier and its store gateway scan the bucket.
  if (target === 'querier') {
    return ['-querier.query-store-after=0s', '-blocks-storage.bucket-store.sync-interval=1s', '-blocks-storage.bucket-store.bucket-index.enabled=false'];
  }
  return [];
}

const member = (layoutOf: RingWorkload[], target: RingTarget, zone?: string) => {
  const w = layoutOf.find((m) => m.target === target)!;
  return { ...w, zone };
};

/** Pushes one sample of every series every PUSH_EVERY_MS through a distributor that is not being restarted. */
class Pusher {
  public readonly accepted: string[] = [];
  /** When each accepted sample was pushed (its timestamp), by `<series> <value>`. */
  public readonly pushedAt = new Map<string, number>();
  public readonly refused: string[] = [];
  public readonly draining = new Set<string>();
  private running = true;
  private round = 0;
  private readonly loop: Promise<void>;

  constructor(private readonly cluster: CortexCluster, private readonly names: string[]) {
    this.loop = this.run();
  }

  /** Restarts `p` as `as` once no push is on its way to it. */
  public async restart(p: CortexProcess, as: Parameters<CortexCluster['restart']>[1]): Promise<void> {
    this.draining.add(p.name);
    await new Promise((r) => setTimeout(r, PUSH_EVERY_MS * 2));
    await this.cluster.restart(p, as);
    this.draining.delete(p.name);
  }

  public async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const round = ++this.round;
      const distributor = this.cluster.all('distributor').find((d) => !this.draining.has(d.name))!;
      const timestampMs = Date.now();
      const series = this.names.map((name) => ({
        labels: { __name__: METRIC, series: name },
        samples: [{ value: round, timestampMs }],
      }));
      const res = await push(distributor.url, series);
      if (res.status === 200) {
        for (const n of this.names) this.pushedAt.set(`${n} ${round}`, timestampMs);
        this.accepted.push(...this.names.map((n) => `${n} ${round}`));
      } else {this.refused.push(`round ${round} via ${distributor.name}: HTTP ${res.status} ${res.body}`);}
      await new Promise((r) => setTimeout(r, Math.max(0, timestampMs + PUSH_EVERY_MS - Date.now())));
    }
  }
}

/** What a query through a querier not being restarted misses of what was accepted so far (its error, if it failed). */
async function missing(
  cluster: CortexCluster,
  pusher: Pusher,
): Promise<{ missed: string[]; error?: string; expected: number }> {
  const expected = [...pusher.accepted];
  const querier = cluster.all('querier').find((q) => !pusher.draining.has(q.name))!;
  try {
    const got = new Set(await samples(querier.url, SELECTOR, '1h'));
    return { missed: expected.filter((s) => !got.has(s)), expected: expected.length };
  } catch (err) {
    return { missed: [], error: (err as Error).message, expected: expected.length };
  }
}

/** Series names: half-random digests, chosen by where phase 0's ring puts their replicas. */
async function pickSeries(cluster: CortexCluster): Promise<{ oneZone: string[]; others: string[] }> {
  const ring = await fetch(`${cluster.distributor.url}/ingester/ring`, { headers: { Accept: 'application/json' } });
  const shards = ((await ring.json()) as any).shards as RingShard[];
  const zoneOf = new Map(cluster.ingesters().map((p) => [p.name, p.zone!]));
  const replicasOf = (name: string) => replicaSet(shards, seriesToken('fake', [['__name__', METRIC], ['series', name]]), 3);
  const candidates = Array.from({ length: 20_000 }, (_, i) => createHash('sha256').update(`series ${i}`).digest('hex').slice(0, 16))
    .map((name) => ({
      name,
      zones: new Set(replicasOf(name).map((id) => zoneOf.get(id))),
    }));
  const oneZone = candidates
    .filter((c) => c.zones.size === 1 && c.zones.has('zone-a'))
    .slice(0, ONE_ZONE_SERIES)
    .map((c) => c.name);
  const others = candidates.filter((c) => c.zones.size > 1).slice(0, OTHER_SERIES).map((c) => c.name);
  expect([oneZone.length, others.length]).toEqual([ONE_ZONE_SERIES, OTHER_SERIES]);
  return { oneZone, others };
}

/** A querier that reads the store alone (it asks ingesters for the last second only), to tell what the store holds. */
async function startStoreView(cluster: CortexCluster): Promise<CortexProcess> {
  const q = cluster.all('querier')[0];
  const ports = { http: await freePort(), grpc: await freePort(), memberlist: await freePort() };
  const join = cluster.processes.map((p) => `127.0.0.1:${p.place.ports.memberlist}`);
  const view = startCortex(member(BEFORE, 'querier'), 'store-view', path.join(q.place.store, 'store-view'), q.place.store, '127.0.0.1', ports, join,
    [...pacing('querier'), '-querier.query-ingesters-within=1s']);
  await waitUntilReady(view);
  return view;
}

/** Kills one zone-a ingester (as a node failure would) and waits until the queriers' ring shows it unhealthy. */
async function loseOneZoneAIngester(cluster: CortexCluster): Promise<void> {
  const victim = cluster.ingesters('zone-a')[0];
  await victim.kill();
  await new Promise((r) => setTimeout(r, TEST_HEARTBEAT.timeoutMs + 2000));
  for (const q of cluster.all('querier')) {
    await waitFor(`${q.name} to see ${victim.name} unhealthy`, 30_000, async () => {
      const shard = ((await (await fetch(`${q.url}/ingester/ring`, { headers: { Accept: 'application/json' } })).json()) as any).shards
        .find((s: any) => s.id === victim.name);
      return shard?.state === 'Unhealthy' ? true : undefined;
    });
  }
}

describe('moving a running ring to zone awareness, on Cortex: 3 zones x 3 ingesters, replication factor 3, pushes throughout', () => {
  let cluster: CortexCluster | undefined;
  let pusher: Pusher | undefined;
  let storeView: CortexProcess | undefined;
  afterEach(async () => {
    await pusher?.stop();
    await storeView?.stop();
    await cluster?.stop();
  });

  test('the layouts read from the objects: step 1 the ingesters, step 2 the distributors, step 3 the queriers zone-aware', () => {
    const awareness = (l: RingWorkload[]) => Object.fromEntries(l.map((w) => [w.target, w.ring.zoneAwareness]));
    expect(awareness(STEP_1)).toEqual({ distributor: false, ingester: true, querier: false });
    expect(awareness(STEP_2)).toEqual({ distributor: true, ingester: true, querier: false });
    expect(awareness(FINAL)).toEqual({ distributor: true, ingester: true, querier: true });
    expect(member(STEP_1, 'ingester').ordinalZones).toEqual([...ZONES, ...ZONES, ...ZONES]);
  });

  test('staged: every sample pushed is returned by a query at every step, no push is refused, and a zone-a ingester lost at the end costs nothing', async () => {
    cluster = await CortexCluster.start(BEFORE, { copies: 2, extraFlags: pacing, zonelessIngesters: true });
    const { oneZone, others } = await pickSeries(cluster);
    pusher = new Pusher(cluster, [...oneZone, ...others]);
    const steps: string[] = [];
    storeView = await startStoreView(cluster);
    const view = storeView;
    const storeLost = new Set<string>();
    // A read ends once all instances but floor(RF/2) have answered (Cortex's and Loki's rule), so a sample whose
    // other replica missed its write (an ingester restarting then) can be left out of one query: up to 3 queries.
    const check = async (step: string) => {
      let m = await missing(cluster!, pusher!);
      let queries = 1;
      for (; queries < 3 && (m.error || m.missed.length > 0); queries++) {
        await new Promise((r) => setTimeout(r, 1000));
        m = await missing(cluster!, pusher!);
      }
      // Older than the lookback a sample is read from the store alone: one the store lacks is Cortex's, not the
      // migration's.
      const stored = new Set(await samples(view.url, SELECTOR, '1h'));
      const lost = m.missed.filter((x) => {
        const isPastLookback = Date.now() - pusher!.pushedAt.get(x)! > LOOKBACK.toMilliseconds();
        return isPastLookback && !stored.has(x);
      });
      lost.forEach((x) => storeLost.add(x));
      steps.push(`${step}: ${m.expected - m.missed.length} of ${m.expected}${queries > 1 ? ` (query ${queries})` : ''}` +
        `${lost.length ? ` (${lost.length} older than the lookback and not in the store)` : ''}${m.error ? ` (${m.error})` : ''}`);
      expect([step, m.error, m.missed.filter((x) => !lost.includes(x)).slice(0, 5)]).toEqual([step, undefined, []]);
    };
    await new Promise((r) => setTimeout(r, 20_000));
    await check('phase 0');

    // Step 1: the ingesters one at a time with their zones (the distributors' configuration differs only by its
    // ConfigMap's name: their pods restart as they were).
    const ingesterMember = member(STEP_1, 'ingester');
    for (const p of cluster.ingesters()) {
      await pusher.restart(p, { ...ingesterMember, zone: p.zone });
      await cluster.waitUntilRingServes();
      await check(`step 1, ${p.name} restarted in ${p.zone}`);
    }
    // Step 2: the distributors zone-aware.
    for (const d of cluster.all('distributor')) {
      await pusher.restart(d, member(STEP_2, 'distributor'));
      await check(`step 2, ${d.name} zone-aware`);
    }
    const rolledOut = Date.now();

    // The library refuses step 3 until the lookback has passed since then.
    const declared = {
      ingestersRolledOutAt: new Date(rolledOut - 1000).toISOString(),
      writePathRolledOutAt: new Date(rolledOut).toISOString(),
    };
    const zoneSource = ZoneSource.podTopologyLabels();
    expect(() => migrationStep('test', declared, zoneSource, LOOKBACK, rolledOut + LOOKBACK.toMilliseconds() - 1000))
      .toThrow(/too early/);
    while (Date.now() < rolledOut + LOOKBACK.toMilliseconds()) {
      await new Promise((r) => setTimeout(r, 30_000));
      await check(`waiting for the lookback, ${Math.round((Date.now() - rolledOut) / 1000)} s after the write path`);
    }
    expect(migrationStep('test', declared, zoneSource, LOOKBACK, Date.now())).toBe(MigrationStep.READ_PATH);

    // Step 3: the queriers zone-aware, one at a time.
    for (const q of cluster.all('querier')) {
      await pusher.restart(q, member(FINAL, 'querier'));
      await check(`step 3, ${q.name} zone-aware`);
    }
    await loseOneZoneAIngester(cluster);
    await check('a zone-a ingester lost');
    await pusher.stop();
    console.log(`staged migration:\n  ${steps.join('\n  ')}\n  pushes refused: ${pusher.refused.length}; ` +
      `samples older than the lookback that Cortex's store lacked: ${storeLost.size} of ${pusher.accepted.length}`);
    expect(pusher.refused).toEqual([]);
  }, 900_000); // 9 ingesters restarted one at a time (each ready 15 s after it is ACTIVE), then the lookback

  test('all at once: queries miss data placed without zones, for the lookback after the switch', async () => {
    // Within the lookback the data is the ingesters' alone (Loki flushes a chunk within max_chunk_age, 2h): here Cortex
    // keeps its 2-hour blocks, so none reaches the store during the test.
    cluster = await CortexCluster.start(BEFORE, {
      copies: 2,
      extraFlags: (t) => (t === 'ingester' ? [] : pacing(t)),
      zonelessIngesters: true,
    });
    const { oneZone, others } = await pickSeries(cluster);
    pusher = new Pusher(cluster, [...oneZone, ...others]);
    await new Promise((r) => setTimeout(r, 20_000));
    const before = await missing(cluster, pusher);
    expect([before.error, before.missed]).toEqual([undefined, []]);
    const started = Date.now();

    // The final objects at once: distributors and queriers zone-aware (their Deployments roll), ingesters a zone per
    // wave.
    for (const target of ['distributor', 'querier'] as const) {
      for (const p of cluster.all(target)) await pusher.restart(p, member(FINAL, target));
    }
    const ingesterMember = member(FINAL, 'ingester');
    const misses: string[] = [];
    for (const zone of ZONES) {
      const wave = cluster.ingesters(zone);
      const restarting = Promise.all(wave.map((p) => cluster!.restart(p, { ...ingesterMember, zone })));
      let done = false;
      void restarting.then(() => { done = true; });
      while (!done) {
        const m = await missing(cluster, pusher);
        if (m.missed.length > 0 || m.error) {
          const withError = m.error ? `, ${m.error}` : '';
          misses.push(`during ${zone}'s wave: ${m.missed.length} of ${m.expected} samples missing${withError}`);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      await restarting;
      await cluster.waitUntilRingServes();
    }
    await loseOneZoneAIngester(cluster);
    const afterLoss = await missing(cluster, pusher);
    const seconds = Math.round((Date.now() - started) / 1000);
    const missedSeries = new Set(afterLoss.missed.map((s) => s.split(' ')[0]));
    await pusher.stop();
    console.log(`all at once:\n  ${misses.join('\n  ') || 'no query missed data during the waves'}\n  ${seconds} s after the switch, a zone-a ingester lost: ` +
      `${afterLoss.missed.length} of ${afterLoss.expected} samples missing (${missedSeries.size} series)${afterLoss.error ? `, ${afterLoss.error}` : ''}` +
      `\n  pushes refused: ${pusher.refused.length}`);
    // While zone-a's wave restarts its ingesters at once, the series placed in zone-a alone are not readable at all.
    expect(misses.some((m) => m.startsWith('during zone-a'))).toBe(true);
    // The series placed in zone-a alone lose their samples from before the switch while zone-a is left out of reads
    // (others may too: written during the switch to fewer zones than the replication factor).
    expect(afterLoss.error).toBeUndefined();
    expect(oneZone.filter((s) => missedSeries.has(s)).length).toBeGreaterThan(0);
  });
});
