/**
 * Rolling 30 pods over 3 zones on the test control plane (kwok makes pods Ready at once, so the times are
 * the controllers' own pace): a StatefulSet's default RollingUpdate against ZoneAwareUpdate with the real
 * controller process, side by side in one run. Waves are the groups of pods deleted together; "zones
 * disrupted at once" is the most zones that had an unavailable pod at the same moment; "zone changes + 1"
 * counts the runs of consecutive waves in one zone (3 = zone by zone over 3 zones).
 *
 * Then Loki's ingesters (the direct output: 3 zones x 2, a StatefulSet per zone) with their ring run by real
 * Cortex ingesters on the pods' IPs (ring-on-kwok.ts; Cortex shares Loki's ring and is Apache-2.0): a config
 * change rolled by the ZoneAwareUpdate group the library emits and by the three StatefulSets' own RollingUpdate,
 * as a ratio to the ideal of one wave per zone (each zone's pods deleted together, the next zone as soon as the
 * last answers /ready), measured in the same run. A pod counts as down from its deletion until its successor answers
 * /ready (ACTIVE in the ring; kwok's Ready condition knows nothing of the ring).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { BenchSection } from './harness';
import { IngesterRollout } from '../src';
import { isReady } from '../src/kubernetes/pod-life';
import { ControlPlane } from '../test/integration/kubernetes/control-plane';
import { ControllerProcess } from '../test/integration/kubernetes/controller-process';
import { applyManifests, deleteNamespace, restrictedNamespace } from '../test/integration/kubernetes/examples';
import { watchPods } from '../test/integration/kubernetes/pod-watch';
import { INGESTER_PREFIX, lokiIngesterManifests, lokiObjects, RingOnKwok } from '../test/integration/kubernetes/ring-on-kwok';
import { crds, RolloutObserver, statefulSet } from '../test/integration/kubernetes/rollout-fixtures';
import { zoneOfNode } from '../test/integration/kubernetes/scheduling';
import { waitFor } from '../test/integration/kubernetes/wait';

const REPLICAS = 30;
const LONG = { timeoutMs: 600_000, intervalMs: 100 };

interface Case {
  readonly name: string;
  readonly strategy: object;
  readonly zau?: { maxUnavailable: number | string; exponentialFactor: number };
}

const CASES: Case[] = [
  { name: 'StatefulSet RollingUpdate (Kubernetes default: one pod at a time)', strategy: { type: 'RollingUpdate' } },
  { name: 'ZoneAwareUpdate maxUnavailable 10, exponentialFactor 2', strategy: { type: 'OnDelete' }, zau: { maxUnavailable: 10, exponentialFactor: 2 } },
  { name: 'ZoneAwareUpdate maxUnavailable 34%, exponentialFactor 0 (a zone at a time)', strategy: { type: 'OnDelete' }, zau: { maxUnavailable: '34%', exponentialFactor: 0 } },
  { name: 'ZoneAwareUpdate maxUnavailable 4, exponentialFactor 2 (the seed\'s example)', strategy: { type: 'OnDelete' }, zau: { maxUnavailable: 4, exponentialFactor: 2 } },
];

interface Result {
  readonly waves: number[];
  readonly ms: number;
  readonly zones: number;
  readonly zoneRuns: number;
  /** The longest time pods of two or more zones were down together, ms (the Loki cases). */
  readonly multiZoneMs?: number;
  /** Each wave's first deletion and last successor ready, in ms from the start (the Loki cases). */
  readonly timeline?: ReadonlyArray<{ readonly zone: string; readonly from: number; readonly to: number }>;
}

/** A run's waves as `zone deleted at s -> ready at s (gap before it)`: where the time between the waves goes. */
function timelineText(r: Result): string {
  return (r.timeline ?? []).map((w, j, all) => {
    const gap = j === 0 ? w.from : w.from - all[j - 1].to;
    return `${w.zone} ${(w.from / 1000).toFixed(1)}→${(w.to / 1000).toFixed(1)} (+${(gap / 1000).toFixed(1)})`;
  }).join(', ');
}

async function rollOnce(cp: ControlPlane, c: Case, i: number): Promise<Result> {
  const client = cp.client;
  const ns = `bench-rollout-${i}-${Date.now().toString(36)}`;
  await restrictedNamespace(client, ns);
  try {
    const applied = await applyManifests(client, [statefulSet('app', ns, REPLICAS, c.strategy)], ns);
    if (applied.rejections.length) throw new Error(applied.rejections.join('; '));
    const initial = await waitFor(`${REPLICAS} Ready pods`, async () => {
      const pods = (await client.list<any>('v1', 'Pod', { namespace: ns }))
        .filter((p) => isReady(p) && !p.metadata.deletionTimestamp);
      return { done: pods.length === REPLICAS, value: pods };
    }, LONG);
    const zones = new Map<string, string>(
      initial.map((p: any) => [p.metadata.name, zoneOfNode(cp.info, p.spec.nodeName)!]),
    );
    if (c.zau) {
      await client.apply({
        apiVersion: 'cdk8s-zones.dev/v1alpha1',
        kind: 'ZoneAwareUpdate',
        metadata: { name: 'app', namespace: ns },
        spec: { statefulset: 'app', ...c.zau },
      });
    }
    const initialUids = new Set(initial.map((p: any) => p.metadata.uid));
    const observer = new RolloutObserver(zones, initialUids, REPLICAS, (n) => zoneOfNode(cp.info, n));
    const watch = await watchPods(cp.info, ns, (e) => observer.onEvent(e.type, e.pod));
    try {
      const started = performance.now();
      const newRevision = { spec: { template: { metadata: { annotations: { 'example.com/revision': '2' } } } } };
      const sts = await client.patch<any>('apps/v1', 'StatefulSet', 'app', newRevision, ns);
      await waitFor('every pod updated and Ready', async () => {
        const s = (await client.get<any>('apps/v1', 'StatefulSet', 'app', ns)).status ?? {};
        const pods = await client.list<any>('v1', 'Pod', { namespace: ns });
        const updated = pods.filter((p) => p.metadata.labels['controller-revision-hash'] === s.updateRevision
          && isReady(p)
          && !p.metadata.deletionTimestamp);
        const observed = (s.observedGeneration ?? 0) >= sts.metadata.generation;
        return { done: observed && updated.length === REPLICAS, state: `${updated.length} updated` };
      }, { timeoutMs: 600_000, intervalMs: 20 });
      const ms = performance.now() - started;
      return {
        waves: observer.batches.map((b) => b.pods.length),
        ms,
        zones: observer.maxZonesDisrupted,
        zoneRuns: observer.zoneRuns,
      };
    } finally {
      watch.stop();
    }
  } finally {
    await deleteNamespace(client, ns);
  }
}

const LOKI_PER_ZONE = 2;

/**
 * How Loki's ingesters are restarted: a config change rolled by the StatefulSets' own RollingUpdate or by the
 * library's ZoneAwareUpdate group; or the ideal of one wave per zone, each zone's pods deleted together by
 * the bench once the previous zone is back (no controller, no config change: the restart-to-ACTIVE time alone).
 */
type LokiRollout = 'rolling-update' | 'zone-aware' | 'ideal';

/**
 * Loki's ingesters restarted one way; the time runs from the first change until every ingester is replaced and answers
 * /ready.
 */
async function rollLoki(cp: ControlPlane, how: LokiRollout, i: number, timeoutMs = 600_000): Promise<Result> {
  const client = cp.client;
  const ns = `bench-loki-${i}-${Date.now().toString(36)}`;
  const zones = [...cp.info.zones];
  const pods = zones.length * LOKI_PER_ZONE;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-loki-'));
  const rollout = how === 'zone-aware' ? IngesterRollout.ZONE_AWARE : IngesterRollout.PARTITIONED;
  const loki = await RingOnKwok.start(root, INGESTER_PREFIX, lokiObjects(ns, zones, LOKI_PER_ZONE, 'minio:9000', rollout));
  // RollingUpdate: the StatefulSets' own, as without the library (the PARTITIONED fallback with its partition taken
  // away).
  const strategy = (objects: any[]) => (how !== 'rolling-update' ? objects : objects.map((o) => (o.kind === 'StatefulSet'
    ? { ...o, spec: { ...o.spec, updateStrategy: { type: 'RollingUpdate' } } } : o)));
  const watch = await watchPods(cp.info, ns, (e) => loki.onPod(e.type, e.pod));
  const allBack = async (count: number, what: string) => waitFor(what, async () => {
    loki.assertRunning();
    const everyDownBack = loki.downs.every((d) => d.to !== undefined);
    return { done: loki.downs.length === count && everyDownBack, state: `${loki.downs.length} replaced` };
  }, { timeoutMs, intervalMs: 20 });
  try {
    const ingesters = lokiIngesterManifests(lokiObjects(ns, zones, LOKI_PER_ZONE, 'minio:9000', rollout));
    const applied = await applyManifests(client, strategy(ingesters), ns);
    if (applied.rejections.length) throw new Error(applied.rejections.join('; '));
    // steady before the change: every ingester ACTIVE and answering /ready (its minimum ready duration over), as
    // the zone-aware rollout checks before each wave and the ideal assumes
    await waitFor(`${pods} ingesters ACTIVE and ready`, async () => {
      loki.assertRunning();
      return { done: (await loki.serving()).length === pods && await loki.allReady() };
    }, LONG);
    const started = performance.now();
    const poller = loki.pollContinuously();
    try {
      if (how === 'ideal') {
        for (const zone of zones) {
          const inZone = [...loki.running.entries()].filter(([, r]) => r.zone === zone).map(([name]) => name);
          const before = loki.downs.length;
          await Promise.all(inZone.map((name) => client.delete('v1', 'Pod', name, ns)));
          await allBack(before + inZone.length, `zone ${zone}'s ingesters back and ready`);
        }
      } else {
        for (const o of strategy(lokiIngesterManifests(lokiObjects(ns, zones, LOKI_PER_ZONE, 'minio.storage:9000', rollout)))) {
          if (o.kind === 'StatefulSet' || o.kind === 'ConfigMap') await client.apply(o);
        }
      }
      await allBack(pods, 'every ingester replaced and ready');
    } finally {
      await poller.stop();
    }
    const startedAt = performance.timeOrigin + started;
    const ms = Math.max(...loki.downs.map((d) => d.to!)) - startedAt;
    const waves = loki.waves();
    const zoneOfWave = waves.map((w) => w[0].zone);
    return {
      timeline: waves.map((w) => ({
        zone: w[0].zone,
        from: Math.min(...w.map((d) => d.from)) - startedAt,
        to: Math.max(...w.map((d) => d.to!)) - startedAt,
      })),
      waves: waves.map((w) => w.length),
      ms,
      zones: loki.maxZonesDownAtOnce(),
      multiZoneMs: loki.longestMultiZoneDownMs(),
      zoneRuns: zoneOfWave.filter((z, j) => j === 0 || z !== zoneOfWave[j - 1]).length,
    };
  } finally {
    watch.stop();
    await loki.stop();
    fs.rmSync(root, { recursive: true, force: true });
    await deleteNamespace(client, ns);
  }
}

/** Rounds of the Loki cases (each round runs every case once). */
const LOKI_ROUNDS = 5;

const LOKI_CASES: readonly (readonly [string, LokiRollout])[] = [
  ['ideal: one wave per zone (each zone\'s pods deleted together once the previous zone answers /ready; no controller)', 'ideal'],
  ['ZoneAwareUpdate group (ingesterRollout ZONE_AWARE: maxUnavailable 100%, exponentialFactor 0, /ready checked)', 'zone-aware'],
  ['3 StatefulSets, RollingUpdate each (Kubernetes default)', 'rolling-update'],
];

export async function rolloutBench(): Promise<BenchSection> {
  const cp = await ControlPlane.start({ name: 'bench-rollout' }).catch((err) => {
    throw new Error(`bench rollout needs the test control plane: ${err.message}`);
  });
  let controller: ControllerProcess | undefined;
  try {
    await applyManifests(cp.client, crds(), 'default');
    controller = await ControllerProcess.start(cp.info, 'bench-rollout', ['--reconcilers', 'zone-aware-update']);
    const rows: string[] = [];
    let baseline: number | undefined;
    for (const [i, c] of CASES.entries()) {
      const r = await rollOnce(cp, c, i);
      baseline ??= r.ms;
      const seconds = (r.ms / 1000).toFixed(2);
      rows.push(`| ${c.name} | ${r.waves.length} | ${r.waves.join(', ')} | ${r.zones} | ${r.zoneRuns} | ${seconds} | ` +
        `${(r.ms / baseline).toFixed(2)} |`);
    }
    // Interleaved rounds of the ideal and the library's rollout, so that warm-up and machine noise fall on both alike;
    // the median run of each is reported. Then Kubernetes' RollingUpdate once, for comparison: with every zone's
    // ingesters restarting together it may not come back at all (an ingester is ready only while its ring is healthy).
    const runs = new Map<LokiRollout, Result[]>(LOKI_CASES.map(([, how]) => [how, []]));
    let n = 0;
    for (let round = 0; round < LOKI_ROUNDS; round++) {
      for (const [, how] of LOKI_CASES.filter(([, h]) => h !== 'rolling-update')) runs.get(how)!.push(await rollLoki(cp, how, n++));
    }
    const rolling = await rollLoki(cp, 'rolling-update', n++, 180_000).catch((err: Error) => err.message);
    if (typeof rolling !== 'string') runs.get('rolling-update')!.push(rolling);
    const median = (rs: Result[]) => [...rs].sort((a, b) => a.ms - b.ms)[Math.floor(rs.length / 2)];
    const ideal = median(runs.get('ideal')!).ms;
    const lokiRows = LOKI_CASES.map(([name, how]) => {
      const rs = runs.get(how)!;
      if (rs.length === 0) return `| ${name} | | | | | did not finish: ${String(rolling).slice(0, 120)} | | |`;
      const r = median(rs);
      const all = rs.map((x) => (x.ms / 1000).toFixed(2)).join(', ');
      const zonesAtOnce = Math.max(...rs.map((x) => x.zones));
      const overlap = Math.max(...rs.map((x) => x.multiZoneMs ?? 0));
      const atOnce = zonesAtOnce > 1 ? `${zonesAtOnce} (for ${overlap.toFixed(0)} ms at most)` : String(zonesAtOnce);
      return `| ${name} | ${r.waves.length} | ${r.waves.join(', ')} | ${atOnce} | ${r.zoneRuns} | ` +
        `${(r.ms / 1000).toFixed(2)} (${all}) | ${(r.ms / ideal).toFixed(2)} | ${timelineText(r)} |`;
    });
    cp.assertRunning();
    return {
      title: 'Rollouts: ZoneAwareUpdate against RollingUpdate',
      body: [
        `${REPLICAS} pods of a StatefulSet over ${cp.info.zones.length} zones (${cp.info.nodes.length} kwok nodes, ${cp.info.kubernetesVersion}), ` +
        'a pod template change rolled to the end (every pod on the new revision and Ready), one run per case, one after the other. ' +
        'kwok makes pods Ready as soon as they are bound, so the time is the pace of the controllers and the API server, not of ' +
        'the application. ZoneAwareUpdate runs in the real controller process (`zone-aware-update` reconciler).',
        '',
        '| case | waves | pods per wave | zones disrupted at once (max) | zone changes + 1 | total s | ratio to RollingUpdate |',
        '| --- | ---: | --- | ---: | ---: | ---: | ---: |',
        ...rows,
        '',
        `Loki's ingesters (direct output, ${cp.info.zones.length} zones x ${LOKI_PER_ZONE}, one StatefulSet per zone, replication factor 3), ` +
        'their ring run by real Cortex ingester processes on the pods\' IPs (Cortex shares Loki\'s ring; Apache-2.0, where Loki\'s own ' +
        'build is AGPL), with the flags translated from the Loki objects; a config change (new config hash in every ingester template) rolled ' +
        `to the end: the ideal and the ZoneAwareUpdate group in ${LOKI_ROUNDS} interleaved rounds (the median run shown, every run in brackets; ` +
        'zones down at once: the most of any run), then the RollingUpdate once. Each run starts from steady state: every ingester ACTIVE and answering /ready. ' +
        'A pod is down from its deletion until its successor answers /ready (the ingester ACTIVE in the ring); a wave is the pods ' +
        'down together. The ideal is one wave per zone with nothing between the waves: each zone\'s restart-to-ACTIVE time, measured in this run. ' +
        'The StatefulSets\' RollingUpdate waits only for the Ready condition, which kwok sets at once: in a cluster the ' +
        'readiness probe would slow it, not keep its zones apart (it is fast here because it takes every zone down at once).',
        '',
        '| case | waves | pods per wave | zones down at once (max) | zone changes + 1 | median s (runs) | ratio to the ideal | ' +
        'the median run\'s waves: zone, first deletion → last ready, s from the start (+ s since the wave before was ready) |',
        '| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |',
        ...lokiRows,
      ].join('\n'),
    };
  } finally {
    await controller?.stop();
    const problems = await cp.stop();
    if (problems.length) console.error(problems.join('\n'));
  }
}
