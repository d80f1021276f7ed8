/**
 * The direct Loki output's ingesters rolled by the real controller while a client pushes, with real Loki
 * processes: 3 zones x 2 ingesters (one StatefulSet per zone, replication factor 3), the ZoneAwareUpdate the
 * library emits over them, and the controller process (`--reconcilers zone-aware-update`). kwok runs the pods
 * (Running and Ready at once, IPs inside 127.0.0.0/8); the test runs each ingester pod as its kubelet would, a
 * Loki ingester on the pod's IP (HTTP 3100, gRPC 9095, memberlist 7946, the zone its arguments name, a data
 * folder per pod name as its volume), stopped (SIGTERM) when the pod is deleted. A distributor, a querier and a
 * compactor run beside them on 127.0.0.1. The only readiness the controller can trust is Loki's own `/ready`
 * (the ingester ACTIVE in the ring): kwok's Ready condition says nothing.
 *
 * A config change (the S3 endpoint: a new config hash in every ingester template) is rolled while a client
 * pushes a line every 25 ms: at no moment are ingesters of two zones down (down = from the pod's deletion
 * until its successor answers /ready), no push is refused, and every line pushed is returned by a query.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { PodWatch, watchPods } from './pod-watch';
import { crds } from './rollout-fixtures';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { IngesterRollout, LokiOutput, ZoneAwareLokiStack, ZoneTopology } from '../../../src';
import { lokiConfig, renderLokiConfig } from '../../../src/loki/config';
import { GRPC_PORT, HTTP_PORT, MEMBERLIST_PORT, ZONE_FLAG } from '../../../src/loki/direct';
import { planUpdate, RolloutPod, RolloutState } from '../../../src/rollout/update-plan';
import { HEARTBEAT, LokiProcess } from '../loki/loki-cluster';
import { freePort, stopWhenOrphaned } from '../processes';
import { programPath } from '../programs';

const { client, info } = testCluster();
const ns = uniqueName('loki-rollout');
const ZONES = [...info.zones];
const PER_ZONE = 2;
/** The processes' homes (config, data, log), kept with the run's logs. */
const root = fs.mkdtempSync(path.join(info.logsDir, 'loki-rollout-'));
const storage = path.join(root, 'storage');

/** The library's manifests of the stack; `endpoint` is the config change. */
function manifests(endpoint: string): KubeObject[] {
  const chart = new Chart(Testing.app(), 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    namespace: ns,
    output: LokiOutput.DIRECT,
    topology: new ZoneTopology({ zones: ZONES }),
    replicationFactor: 3,
    ingesterReplicasPerZone: PER_ZONE,
    s3: { bucket: 'logs', endpoint },
    ingesterRollout: IngesterRollout.ZONE_AWARE,
    controllerInstalledElsewhere: true, // the test runs the controller as a process
  });
  // The ingesters and their rollout: the other components run as processes beside the cluster.
  return Testing.synth(chart).filter((o: KubeObject) => ['StatefulSet', 'ZoneAwareUpdate', 'ConfigMap'].includes(o.kind)
    || (o.kind === 'Service' && o.metadata.name === 'logs-ingester'));
}

/** Writes `name`'s config and starts Loki with `-target=`; the process joins the ring through `join`. */
interface Ports { readonly http: number; readonly grpc: number; readonly memberlist: number }

function startLoki(name: string, target: string, listen: string, ports: Ports, joinMembers: string[], args: string[] = []): LokiProcess {
  const home = path.join(root, name);
  fs.mkdirSync(home, { recursive: true });
  const configFile = path.join(home, 'config.yaml');
  fs.writeFileSync(configFile, renderLokiConfig(lokiConfig({
    replicationFactor: 3,
    zoneAwareness: true,
    instanceZone: '',
    instanceId: name,
    instanceAddr: listen,
    listenAddress: listen,
    httpPort: ports.http,
    grpcPort: ports.grpc,
    memberlistPort: ports.memberlist,
    memberlistBindAddr: listen,
    joinMembers,
    pathPrefix: home,
    storage: { type: 'filesystem', directory: storage },
    compactorAddress: `http://127.0.0.1:${compactorPorts.http}`,
    heartbeat: HEARTBEAT,
  })));
  const logFile = path.join(home, 'loki.log');
  const log = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(programPath('loki'), [`-config.file=${configFile}`, `-target=${target}`, '-config.expand-env=true', ...args], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  stopWhenOrphaned(child.pid!);
  return new LokiProcess(name, target, undefined, ports.http, child, logFile);
}

let compactorPorts: Ports;
const helpers: LokiProcess[] = [];
let distributor: LokiProcess;
let querier: LokiProcess;
let join: string[] = [];
let controller: ControllerProcess | undefined;
let watch: PodWatch | undefined;

/** Each ingester pod's Loki process, and when each pod was down (deleted, until its successor answered /ready). */
class IngesterPods {
  /** The pod of each name now, and its process once started (after its predecessor's stopped: same volume). */
  public readonly running = new Map<string, { uid: string; zone: string; ip: string; process?: LokiProcess }>();
  public readonly downs: { pod: string; zone: string; from: number; to?: number }[] = [];
  private readonly chain = new Map<string, Promise<void>>();
  /** Per pod IP, the stop of the process last on it: kwok may hand a deleted pod's IP to another pod at once. */
  private readonly released = new Map<string, Promise<void>>();

  /** Runs `pod` as its kubelet would: once its predecessor (same name) stopped, a Loki ingester on its IP. */
  public onPod(type: string, pod: any): void {
    const name: string = pod.metadata.name;
    if (!name.startsWith('logs-ingester-')) return;
    const current = this.running.get(name);
    if (current && (type === 'DELETED' || pod.metadata.deletionTimestamp) && current.uid === pod.metadata.uid) {
      this.downs.push({ pod: name, zone: current.zone, from: Date.now() });
      this.running.delete(name);
      this.then(name, async () => current.process?.stop());
      this.released.set(current.ip, this.chain.get(name)!);
    } else if (type !== 'DELETED' && !pod.metadata.deletionTimestamp && pod.status?.podIP && current?.uid !== pod.metadata.uid) {
      const zone = (pod.spec.containers[0].args as string[]).find((a) => a.startsWith(`${ZONE_FLAG}=`))!.split('=')[1];
      expect(zone).toBe(zoneOfNode(info, pod.spec.nodeName)); // the StatefulSet of a zone runs in that zone
      const entry: { uid: string; zone: string; ip: string; process?: LokiProcess } = { uid: pod.metadata.uid, zone, ip: pod.status.podIP };
      this.running.set(name, entry);
      const free = this.released.get(entry.ip) ?? Promise.resolve();
      this.then(name, async () => {
        await free;
        entry.process = startLoki(name, 'ingester', pod.status.podIP, { http: HTTP_PORT, grpc: GRPC_PORT, memberlist: MEMBERLIST_PORT }, join, [`${ZONE_FLAG}=${zone}`]);
      });
    }
  }

  private then(name: string, step: () => Promise<void>): void {
    this.chain.set(name, (this.chain.get(name) ?? Promise.resolve()).then(step));
  }

  /** Marks the end of each open down interval whose pod's successor answers /ready. */
  public async poll(): Promise<void> {
    await Promise.all(this.downs.filter((d) => d.to === undefined).map(async (down) => {
      const next = this.running.get(down.pod);
      if (next?.process && await isReady(`http://${next.ip}:${HTTP_PORT}`)) down.to ??= Date.now();
    }));
  }

  /** Throws with its log when a pod's process has exited by itself. */
  public assertRunning(): void {
    for (const [name, r] of this.running) {
      if (r.process?.exited) throw new Error(`${name}'s Loki exited (${r.process.child.exitCode}): ${fs.readFileSync(r.process.logFile, 'utf8').slice(-1500)}`);
    }
  }

  public async stop(): Promise<void> {
    await Promise.all(this.chain.values());
    await Promise.all([...this.running.values()].map((r) => r.process?.stop()));
  }
}

async function isReady(url: string): Promise<boolean> {
  return fetch(`${url}/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
}

const pods = new IngesterPods();

beforeAll(async () => {
  const port = async () => ({ http: await freePort(), grpc: await freePort(), memberlist: await freePort() });
  compactorPorts = await port();
  const distributorPorts = await port();
  const querierPorts = await port();
  join = [distributorPorts, querierPorts, compactorPorts].map((p) => `127.0.0.1:${p.memberlist}`);
  const others = (p: { memberlist: number }) => join.filter((j) => j !== `127.0.0.1:${p.memberlist}`);
  distributor = startLoki('distributor', 'distributor', '127.0.0.1', distributorPorts, others(distributorPorts));
  querier = startLoki('querier', 'querier', '127.0.0.1', querierPorts, others(querierPorts));
  helpers.push(distributor, querier, startLoki('compactor', 'compactor', '127.0.0.1', compactorPorts, others(compactorPorts)));
});

afterAll(async () => {
  watch?.stop();
  await controller?.stop();
  await pods.stop();
  await Promise.all(helpers.map((h) => h.stop()));
  await deleteNamespace(client, ns);
  client.close();
  fs.rmSync(storage, { recursive: true, force: true });
});

/** The ring's ingesters as the distributor sees them. */
async function ring(): Promise<{ id: string; state: string; zone: string }[]> {
  const res = await fetch(`${distributor.url}/ring`, { headers: { Accept: 'application/json' } });
  if (!res.ok) return [];
  return ((await res.json()) as { shards: { id: string; state: string; zone: string }[] }).shards;
}

/** Every line of `selector` from `start` to `end` (ns), page by page (Loki caps a query at 5,000 lines); a failure as a string. */
async function queryAll(selector: string, start: bigint, end: bigint): Promise<string[] | string> {
  const lines: string[] = [];
  for (let from = start; ;) {
    const params = new URLSearchParams({ query: selector, start: from.toString(), end: end.toString(), limit: '5000', direction: 'forward' });
    const res = await fetch(`${querier.url}/loki/api/v1/query_range?${params}`);
    const body = await res.text();
    if (!res.ok) return `HTTP ${res.status}: ${body.trim()}`;
    const values: [string, string][] = JSON.parse(body).data.result.flatMap((r: any) => r.values);
    lines.push(...values.map((v) => v[1]));
    if (values.length < 5000) return lines;
    from = BigInt(values[values.length - 1][0]) + 1n; // one line per nanosecond stamp: the pusher waits between lines
  }
}

/** The batches the planner gives 2 old pods per zone, each coming back updated: what the controller must delete. */
function plannedBatches(): { zone: string; size: number }[] {
  let rolloutPods: RolloutPod[] = ZONES.flatMap((zone) => Array.from({ length: PER_ZONE }, (_, i) => ({
    name: `${zone}-${i}`, order: i, zone, revision: 'old', ready: true, terminating: false,
  })));
  const batches: { zone: string; size: number }[] = [];
  let state: RolloutState | undefined;
  for (;;) {
    const d = planUpdate({ pods: rolloutPods, replicas: rolloutPods.length, updateRevision: 'new', maxUnavailable: PER_ZONE, exponentialFactor: 2, state, otherZonesReady: true });
    if (d.action !== 'delete') return batches;
    state = d.state;
    batches.push({ zone: d.zone, size: d.pods.length });
    rolloutPods = rolloutPods.map((p) => (d.pods.includes(p.name) ? { ...p, revision: 'new' } : p));
  }
}

const zauStatus = async () => (await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneAwareUpdate', 'logs-ingester', ns)).status ?? {};

test('a config change rolls zone by zone under continuous pushes: never two zones down, no push refused, no line lost', async () => {
  const applied = await applyManifests(client, [...crds(), ...manifests('minio:9000')], ns);
  expect(applied.rejections).toEqual([]);
  watch = await watchPods(info, ns, (e) => pods.onPod(e.type, e.pod));
  await waitFor(`${ZONES.length * PER_ZONE} ingesters ACTIVE in the ring`, async () => {
    const members = await ring();
    const active = members.filter((m) => m.state === 'ACTIVE');
    const done = active.length === ZONES.length * PER_ZONE && new Set(active.map((m) => m.zone)).size === ZONES.length;
    return { done, state: JSON.stringify(members) };
  }, { timeoutMs: 180_000 });
  controller = await ControllerProcess.start(info, 'loki-rollout', ['--reconcilers', 'zone-aware-update']);
  const before = await waitFor('the ZoneAwareUpdate Done before the change', async () => {
    const s = await zauStatus();
    return { done: s.phase === 'Done', value: s, state: JSON.stringify(s) };
  });

  // Push a line every 25 ms from now until the rollout is done.
  const stream = { job: 'rollout', run: ns };
  const pushed: string[] = [];
  const acceptedAt: number[] = [];
  const refused: string[] = [];
  let pushing = true;
  const start = BigInt(Date.now()) * 1_000_000n;
  const pusher = (async () => {
    for (let i = 0; pushing; i++) {
      const line = `line ${i}`;
      const res = await fetch(`${distributor.url}/loki/api/v1/push`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ streams: [{ stream, values: [[(BigInt(Date.now()) * 1_000_000n).toString(), line]] }] }),
      }).then(async (r) => ({ status: r.status, body: await r.text() }), (err) => ({ status: 0, body: String(err) }));
      if (res.status === 204) pushed.push(line), acceptedAt.push(Date.now()); else refused.push(`${line}: ${res.status} ${res.body.trim()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  // Down intervals end when the successor first answers /ready: look every 20 ms, so an interval never seems to last past
  // the moment the controller (which looks every 2 s) can have seen it end.
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await pods.poll();
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    const changed = manifests('minio.storage:9000');
    for (const sts of changed.filter((o) => o.kind === 'StatefulSet' || o.kind === 'ConfigMap')) await client.apply(sts);
    await waitFor('every ingester replaced and the rollout Done', async () => {
      controller!.assertRunning();
      pods.assertRunning();
      await pods.poll();
      const s = await zauStatus();
      const open = pods.downs.filter((d) => d.to === undefined).length;
      const done = s.phase === 'Done' && s.updateRevision !== before.updateRevision && pods.downs.length === ZONES.length * PER_ZONE && open === 0;
      return { done, state: `${JSON.stringify(s)}; ${pods.downs.length} replaced, ${open} not ready yet` };
    }, { timeoutMs: 480_000, intervalMs: 500 });
  } finally {
    polling = false;
    pushing = false;
    await Promise.all([pusher, poller]);
  }

  // Never two zones down at once: no two down intervals of different zones overlap.
  const overlaps = pods.downs.flatMap((a) => pods.downs.filter((b) => a.zone < b.zone && a.from < b.to! && b.from < a.to!)
    .map((b) => `${a.pod} ${a.from}-${a.to} and ${b.pod} ${b.from}-${b.to}`));
  expect(overlaps).toEqual([]);
  // Zone after zone, in the planner's growing batches (maxUnavailable: the 2 ingesters of a zone).
  const batches = controller.logs.filter((l) => l.msg === 'deleted a batch').map((l) => ({ zone: l.zone, size: (l.pods as string[]).length }));
  expect(batches).toEqual(plannedBatches());
  expect(refused).toEqual([]);
  // The pushes went on through the rollout: some were accepted while each zone had ingesters down.
  const whileDown = (z: string) => acceptedAt.filter((t) => pods.downs.some((d) => d.zone === z && d.from <= t && t <= d.to!)).length;
  const acceptedWhileDown = Object.fromEntries(ZONES.map((z) => [z, whileDown(z) > 0]));
  expect(acceptedWhileDown).toEqual(Object.fromEntries(ZONES.map((z) => [z, true])));

  const end = BigInt(Date.now()) * 1_000_000n;
  const returned = await waitFor('every pushed line returned by a query', async () => {
    const lines = await queryAll(`{job="rollout",run="${ns}"}`, start, end);
    return { done: typeof lines !== 'string' && lines.length >= pushed.length, value: lines as string[], state: typeof lines === 'string' ? lines : `${lines.length} of ${pushed.length}` };
  }, { timeoutMs: 60_000 });
  expect(pushed.filter((l) => !returned.includes(l))).toEqual([]);
  console.log(`loki rollout: ${pushed.length} lines pushed, 0 refused; ${pods.downs.length} ingesters replaced zone by zone, ` +
    `longest down ${Math.max(...pods.downs.map((d) => d.to! - d.from))} ms`);
});
