/**
 * The direct Loki output's ingesters rolled by the real controller while a client pushes, with the ring run by
 * real Cortex processes (Apache-2.0; the ring Loki shares with it, ../cortex/ring-layout.ts translating the
 * Loki objects' settings): 3 zones x 2 ingesters (one StatefulSet per zone, replication factor 3), the
 * ZoneAwareUpdate the library emits over them, and the controller process (`--reconcilers zone-aware-update`).
 * kwok runs the pods (Running and Ready at once, IPs inside 127.0.0.0/8); the test runs each ingester pod as
 * its kubelet would, an ingester on the pod's IP (HTTP 3100, gRPC 9095, memberlist 7946, the zone its arguments
 * name, a data folder per pod name as its volume), stopped (SIGTERM) when the pod is deleted. A distributor and
 * a querier run beside them on 127.0.0.1. The only readiness the controller can trust is the ingester's own
 * `/ready` (ACTIVE in the ring): kwok's Ready condition says nothing.
 *
 * A config change (the S3 endpoint: a new config hash in every ingester template) is rolled while a client
 * pushes a sample every 25 ms: at no moment are ingesters of two zones down (down = from the pod's deletion
 * until its successor answers /ready), no push is refused, and every sample pushed is returned by a query.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { PodWatch, watchPods } from './pod-watch';
import { INGESTER_PREFIX, lokiIngesterManifests, lokiObjects, RingOnKwok } from './ring-on-kwok';
import { crds } from './rollout-fixtures';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { scaleMaxUnavailable } from '../../../src/rollout/max-unavailable';
import { planUpdate, RolloutPod, RolloutState } from '../../../src/rollout/update-plan';

const { client, info } = testCluster();
const ns = uniqueName('loki-rollout');
const ZONES = [...info.zones];
const PER_ZONE = 2;

let loki: RingOnKwok;
let controller: ControllerProcess | undefined;
let watch: PodWatch | undefined;

beforeAll(async () => {
  // The processes' homes (config, data, log) are kept with the run's logs.
  loki = await RingOnKwok.start(
    fs.mkdtempSync(path.join(info.logsDir, 'loki-rollout-')),
    INGESTER_PREFIX,
    lokiObjects(ns, ZONES, PER_ZONE, 'minio:9000'),
  );
});

afterAll(async () => {
  watch?.stop();
  await controller?.stop();
  await loki.stop();
  await deleteNamespace(client, ns);
  client.close();
});

/**
 * The batches the planner gives 2 old pods per zone, each coming back updated, with the ZoneAwareUpdate's spec as the
 * objects carry it (a zone per wave): what the controller must delete.
 */
function plannedBatches(): { zone: string; size: number }[] {
  const spec = lokiObjects(ns, ZONES, PER_ZONE, 'minio:9000').find((o) => o.kind === 'ZoneAwareUpdate')!.spec;
  let rolloutPods: RolloutPod[] = ZONES.flatMap((zone) => Array.from({ length: PER_ZONE }, (_, i) => ({
    name: `${zone}-${i}`, order: i, zone, revision: 'old', ready: true, terminating: false,
  })));
  const maxUnavailable = scaleMaxUnavailable(spec.maxUnavailable, rolloutPods.length, 'down');
  const batches: { zone: string; size: number }[] = [];
  let state: RolloutState | undefined;
  for (;;) {
    const d = planUpdate({
      pods: rolloutPods,
      replicas: rolloutPods.length,
      updateRevision: 'new',
      maxUnavailable,
      exponentialFactor: spec.exponentialFactor,
      state,
      otherZonesReady: true,
    });
    if (d.action !== 'delete') return batches;
    state = d.state;
    batches.push({ zone: d.zone, size: d.pods.length });
    rolloutPods = rolloutPods.map((p) => (d.pods.includes(p.name) ? { ...p, revision: 'new' } : p));
  }
}

const zauStatus = async () => (await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneAwareUpdate', 'logs-ingester', ns)).status ?? {};

test('a config change rolls zone by zone under continuous pushes: never two zones down, no push refused, no sample lost', async () => {
  const ingesters = lokiIngesterManifests(lokiObjects(ns, ZONES, PER_ZONE, 'minio:9000'));
  const applied = await applyManifests(client, [...crds(), ...ingesters], ns);
  expect(applied.rejections).toEqual([]);
  watch = await watchPods(info, ns, (e) => {
    if (e.type !== 'DELETED' && e.pod.status?.podIP && e.pod.metadata.name.startsWith(INGESTER_PREFIX)) {
      const zone = e.pod.spec.containers[0].args.at(-1).split('=')[1];
      expect(zone).toBe(zoneOfNode(info, e.pod.spec.nodeName)); // a zone's StatefulSet runs in that zone
    }
    loki.onPod(e.type, e.pod);
  });
  await waitFor(`${ZONES.length * PER_ZONE} ingesters ACTIVE in the ring`, async () => {
    const members = await loki.ring();
    const active = await loki.serving();
    const done = active.length === ZONES.length * PER_ZONE && new Set(active.map((m) => m.zone)).size === ZONES.length;
    return { done, state: JSON.stringify(members) };
  }, { timeoutMs: 180_000 });
  controller = await ControllerProcess.start(info, 'loki-rollout', ['--reconcilers', 'zone-aware-update']);
  const before = await waitFor('the ZoneAwareUpdate Done before the change', async () => {
    const s = await zauStatus();
    return { done: s.phase === 'Done', value: s, state: JSON.stringify(s) };
  });

  // Push a sample every 25 ms from now until the rollout is done.
  const pusher = loki.pushEvery({ __name__: 'rollout_proof', run: ns }, 25);
  const { accepted: pushed, acceptedAt, refused } = pusher;
  // Down intervals end when the successor first answers /ready, looked at every 20 ms, so an interval never seems to
  // last past the moment the controller (which looks every 0.5 s) can have seen it end.
  const poller = loki.pollContinuously();
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    const changed = lokiIngesterManifests(lokiObjects(ns, ZONES, PER_ZONE, 'minio.storage:9000'));
    for (const sts of changed.filter((o) => o.kind === 'StatefulSet' || o.kind === 'ConfigMap')) await client.apply(sts);
    await waitFor('every ingester replaced and the rollout Done', async () => {
      controller!.assertRunning();
      loki.assertRunning();
      await loki.poll();
      const s = await zauStatus();
      const open = loki.downs.filter((d) => d.to === undefined).length;
      const done = s.phase === 'Done'
        && s.updateRevision !== before.updateRevision
        && loki.downs.length === ZONES.length * PER_ZONE
        && open === 0;
      return { done, state: `${JSON.stringify(s)}; ${loki.downs.length} replaced, ${open} not ready yet` };
    }, { timeoutMs: 480_000, intervalMs: 500 });
  } finally {
    await Promise.all([pusher.stop(), poller.stop()]);
  }

  // Never two zones down at once: no two pods of different zones surely down at the same moment. An interval's end is
  // seen by a poll (every 20 ms, its answer later under load), so the controller, looking for itself, may see it before
  // the test does: the overlap counted is the one both were seen down in (up to `surelyDownAt`), not the one a late
  // poll adds.
  const overlaps = loki.downs.flatMap((a) => loki.downs
    .filter((b) => a.zone < b.zone && a.from < b.surelyDownAt && b.from < a.surelyDownAt)
    .map((b) => `${a.pod} ${a.from}-${a.to} and ${b.pod} ${b.from}-${b.to}`));
  expect(overlaps).toEqual([]);
  // Zone after zone, a zone per wave, as the planner plans it.
  const batches = controller.logs
    .filter((l) => l.msg === 'deleted a batch')
    .map((l) => ({ zone: l.zone, size: (l.pods as string[]).length }));
  expect(batches).toEqual(plannedBatches());
  expect(batches).toEqual(ZONES.map((zone) => ({ zone, size: PER_ZONE })));
  expect(refused).toEqual([]);
  // The pushes went on through the rollout: some were accepted while each zone had ingesters down.
  const isDownAt = (z: string, t: number) => loki.downs.some((d) => d.zone === z && d.from <= t && t <= d.to!);
  const whileDown = (z: string) => acceptedAt.filter((t) => isDownAt(z, t)).length;
  const acceptedWhileDown = Object.fromEntries(ZONES.map((z) => [z, whileDown(z) > 0]));
  expect(acceptedWhileDown).toEqual(Object.fromEntries(ZONES.map((z) => [z, true])));

  expect(await loki.missing(`{__name__="rollout_proof",run="${ns}"}`, pushed)).toEqual([]);
  console.log(`loki rollout: ${pushed.length} samples pushed, 0 refused; ${loki.downs.length} ingesters replaced zone by zone, ` +
    `longest down ${Math.max(...loki.downs.map((d) => d.to! - d.from))} ms`);
});
