/**
 * The Redis manager's day 2 in the cluster, end to end: the real controller process (`run --reconcilers
 * redis`) against the tier's API server and real redis-server processes, one per pod, on the pod's IP (as
 * redis-manager.test.ts runs them). Here a small kubelet (`Kubelet` below) keeps running them as the pods
 * come and go: a pod deleted loses its process, and the pod its StatefulSet makes again gets a new one on its
 * new IP, with the data folder of its name (its volume). A ZonalRedisCluster of 5 masters x 1 replica over 3
 * zones (1 s cluster-node-timeout):
 *
 * - an image change, applied as a GitOps tool would: the StatefulSets (OnDelete) get a new revision and the
 *   manager replaces every pod, replicas first, each master after a failover, one pod at a time, never two
 *   zones at once, under continuous writes acknowledged by `WAIT 1`: none is lost, the longest time a slot
 *   refused writes is measured against cluster-node-timeout, the planned masters are back at the end;
 * - force-reconcile by annotation;
 * - replicasPerMaster 1 -> 2 -> 1, then masters 5 -> 3: the manager scales the StatefulSets (it owns their
 *   replicas), reshards, retires, scales down only once the retired nodes are out of the cluster; no key lost,
 *   no pod that stays changes shard or role (nor its Redis node id).
 */
import * as path from 'path';
import { ApiObject, App, Chart, Duration, Size } from 'cdk8s';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { livePods, testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { ClusterState } from '../../../controller/src/redis/decide';
import { RedisHealth } from '../../../controller/src/redis/health';
import {
  CONTROLLER_REVISION_LABEL,
  LAYOUT_KEY,
  REDIS_CLUSTER_LABEL,
  REDIS_OPERATION_ANNOTATION,
  STATUS_KEY,
  layoutConfigMapName,
  statusConfigMapName,
} from '../../../src/contract/redis';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { ZonalRedisCluster } from '../../../src/redis/cluster';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';
import { ZoneTopology } from '../../../src/topology/zone-topology';
import { ZoneController } from '../../../src/zone-controller/zone-controller';
import { ContinuousWriter } from '../redis/continuous-writer';
import { EmulatedPod } from '../redis/pod-emulation';
import { missingKeys, slotOwners, writeKeys } from '../redis/redis-keys';
import { AWKWARD_PASSWORD, RedisProcesses } from '../redis/redis-processes';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('redis-day2');
const NAME = 'cache';
const PASSWORD = AWKWARD_PASSWORD;
const NODE_TIMEOUT_MS = 1000;
const redis = new RedisProcesses(NODE_TIMEOUT_MS, PASSWORD);
let controller: ControllerProcess | undefined;
let kubelet: Kubelet | undefined;
const acked = new Map<string, string>();

type Status = ClusterState & {
  skippedPods: string[];
  updated: string;
  health: RedisHealth;
  lastOperation?: { operation: string; result: string; message: string; at: string };
  upgrade?: { outdated?: string[]; replaced: string[]; waiting?: string };
  statefulSets?: { name: string; zone: string; replicas?: number; wanted: number }[];
};

interface Shape {
  readonly masters: number;
  readonly replicasPerMaster: number;
  readonly image: string;
}

function manifests(shape: Shape): KubeObject[] {
  const app = new App();
  const chart = new Chart(app, 'redis-day2', { namespace: ns, disableResourceNameHashes: true });
  new ApiObject(chart, 'password', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'redis-password' },
    stringData: { password: PASSWORD },
  });
  new ZonalRedisCluster(chart, 'redis', {
    // the test runs the controller as a process
    controller: ZoneController.fromInstalled({ workloadNamespaces: [ns], zoneAnnotator: false, redisManager: true }),
    name: NAME,
    topology: new ZoneTopology({ zones: [...info.zones] }),
    ...shape,
    password: { name: 'redis-password', key: 'password' },
    storage: { size: Size.gibibytes(1) },
    clusterNodeTimeout: Duration.millis(NODE_TIMEOUT_MS),
  });
  return chart.toJson();
}

/**
 * Runs the cluster's pods as a kubelet would, on this machine: every Running pod with an IP gets its
 * redis-server (pod-emulation.ts: its init container, then its command line, on its IP), its data in a folder
 * of the pod's name (its volume); a pod deleted or terminating loses its process at once (SIGKILL). It also
 * records how many zones had a pod away (not running its process) at the same time.
 */
class Kubelet {
  /** The pod (uid) each process runs for. */
  private readonly running = new Map<string, string>();
  private stopped = false;
  private loop?: Promise<void>;
  /** The most zones with a planned pod away at one time, since `resetAway`. */
  public maxZonesAway = 0;
  /** Planned pod names (the rest are not counted as away). */
  public planned = new Set<string>();

  public start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.sync().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }

  public async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  public resetAway(): void {
    this.maxZonesAway = 0;
  }

  private async sync(): Promise<void> {
    const labelSelector = `${REDIS_CLUSTER_LABEL}=${NAME}`;
    const pods = await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector });
    const isRunning = (p: any) => !isTerminating(p) && p.status?.phase === 'Running' && p.status.podIP;
    const live = new Map(pods.filter(isRunning).map((p) => [p.metadata.name, p]));
    for (const [name, uid] of this.running) {
      if (live.get(name)?.metadata.uid === uid) continue;
      await redis.remove(node(name));
      this.running.delete(name);
    }
    for (const [name, pod] of live) {
      if (this.running.has(name)) continue;
      await runPod(pod);
      this.running.set(name, pod.metadata.uid);
    }
    const away = [...this.planned].filter((p) => !this.running.has(p));
    const zonesAway = new Set(away.map((p) => layoutNow.node(node(p)).zone));
    this.maxZonesAway = Math.max(this.maxZonesAway, zonesAway.size);
  }
}

const node = (pod: string) => pod.slice(NAME.length + 1);
let layoutNow: RedisShardLayout;

/**
 * The running nodes the applied layout plans: the seeds of the test's clients. A pod scaled away can run for a moment
 * after the status settles (until the kubelet above sees it go), reset out of the cluster: it answers CLUSTER SLOTS
 * with no slot, and a cluster client that asks it resets its pool to the nodes that answer lists (none), failing
 * the commands in flight with "Connection is closed".
 */
const members = () => redis.live().filter((n) => layoutNow.nodes.some((p) => p.name === n.name));

async function runPod(pod: any): Promise<void> {
  const configMap = await client.get<any>('v1', 'ConfigMap', `${NAME}-config`, ns);
  const secret = await client.get<any>('v1', 'Secret', 'redis-password', ns);
  const bytes = (data: Record<string, string>) => Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  );
  const emulated = new EmulatedPod(pod.spec, path.join(redis.root, pod.metadata.name), {
    configMaps: new Map([[configMap.metadata.name, configMap.data]]),
    secrets: new Map([['redis-password', bytes(secret.data)]]),
    podIP: pod.status.podIP,
  });
  const args = emulated.redisServerArgs();
  const port = pod.spec.containers[0].ports.find((p: any) => p.name === 'redis').containerPort;
  const redisNode = {
    name: node(pod.metadata.name),
    zone: zoneOfNode(info, pod.spec.nodeName)!,
    address: `${pod.status.podIP}:${port}`,
  };
  await redis.add(redisNode, args[args.indexOf('--dir') + 1], args, emulated.env());
}

async function status(): Promise<Status | undefined> {
  const cm = await client.find<any>('v1', 'ConfigMap', statusConfigMapName(NAME), ns);
  return cm ? JSON.parse(cm.data[STATUS_KEY]) : undefined;
}

/** Waits until the status ConfigMap, written after `since`, says what `check` wants. */
async function statusWhere(
  what: string,
  since: Date,
  check: (s: Status) => boolean,
  timeoutMs = 180_000,
): Promise<Status> {
  return waitFor(`the status ConfigMap to report ${what}`, async () => {
    controller?.assertRunning();
    const s = await status();
    const state = JSON.stringify(s && {
      healthy: s.healthy,
      phase: s.health?.phase,
      issues: s.issues,
      upgrade: s.upgrade,
      sets: s.statefulSets,
    });
    return { done: !!s && new Date(s.updated) > since && check(s), value: s, state };
  }, { timeoutMs, intervalMs: 500 });
}

/** The cluster as planned by `layout`, every pod at its StatefulSet's revision, nothing left to do. */
const settled = (layout: RedisShardLayout) => (s: Status) => s.healthy
  && s.health.phase === 'healthy'
  && s.upgrade?.outdated?.length === 0
  && s.nodes.length === layout.nodes.length
  && (s.statefulSets ?? []).every((x) => x.replicas === x.wanted);

/** Who each node is in the cluster: its Redis id, role and (a replica) its master's name, from the status. */
function roles(s: Status): Map<string, string> {
  const masterOf = (n: Status['nodes'][number]) => (n.role === RedisRole.REPLICA ? ` of ${n.master}` : '');
  return new Map(s.nodes.map((n) => [n.name, `${n.id} ${n.role}${masterOf(n)}`]));
}

/** Applies the cluster's manifests with `shape`, as a GitOps tool would (server-side apply). */
async function apply(shape: Shape): Promise<RedisShardLayout> {
  const objects = manifests(shape);
  const { rejections, warnings } = await applyManifests(client, objects, ns);
  expect({ rejections, warnings }).toEqual({ rejections: [], warnings: [] });
  const layoutConfigMap = objects.find((o) => o.metadata.name === layoutConfigMapName(NAME))!;
  const layout = RedisShardLayout.fromJson(layoutConfigMap.data[LAYOUT_KEY]);
  layoutNow = layout;
  kubelet!.planned = new Set(layout.nodes.map((n) => `${NAME}-${n.name}`));
  return layout;
}

/** Writes `count` keys acknowledged by WAIT 1 (or by the master where no replica is attached) and keeps them. */
async function writeSome(prefix: string, count = 2000): Promise<void> {
  const owners = await slotOwners(members()[0].address, PASSWORD);
  const { acked: replicated } = await writeKeys(owners, prefix, count, PASSWORD);
  expect(replicated.size).toBe(count);
  for (const [k, v] of replicated) acked.set(k, v);
}

const steps = (msg: string) => controller!.logs.filter((l) => l.msg === msg);

const SHAPE: Shape = { masters: 5, replicasPerMaster: 1, image: 'docker.io/library/redis:7.2.5' };
let layout: RedisShardLayout;

beforeAll(() => {
  kubelet = new Kubelet();
  kubelet.start();
});

afterAll(async () => {
  await kubelet?.stop();
  await controller?.stop();
  await redis.close();
  await deleteNamespace(client, ns);
  client.close();
});

test('5 masters x 1 replica: the manager scales the StatefulSets to the layout and bootstraps it', async () => {
  layout = await apply(SHAPE);
  const since = new Date();
  controller = await ControllerProcess.start(info, 'redis-day2', ['--reconcilers', 'redis', '--redis-namespaces', ns]);
  const s = await statusWhere('a healthy cluster of 10 nodes', since, settled(layout));
  expect(s.statefulSets!.map((x) => [x.name, x.replicas]))
    .toEqual(info.zones.map((z) => [`${NAME}-${z}`, layout.nodesPerZone[z]]));
  expect(s.mastersPerZone).toEqual(layout.mastersPerZone);
  await writeSome('bootstrap');
});

test('an image change: every pod replaced, replicas first, a master only after a failover, one zone at a time; no acknowledged write lost', async () => {
  const before = roles((await status())!);
  const replacedBefore = steps('redis pod replaced').length;
  const writer = await ContinuousWriter.start({
    seeds: () => members().map((n) => n.address),
    ranges: layout.shards.map((x) => [x.slotStart, x.slotEnd]),
    prefix: 'rolling',
    password: PASSWORD,
  });
  kubelet!.resetAway();
  const since = new Date();
  const started = Date.now();
  await apply({ ...SHAPE, image: 'docker.io/library/redis:7.2.6' });
  const upgrading = await statusWhere('the upgrade under way', since, (x) => x.health.phase === 'upgrading');
  expect(upgrading.upgrade!.outdated!.length).toBeGreaterThan(0);
  const s = await statusWhere('every pod at the new revision, healthy', since, settled(layout), 600_000);
  const elapsedMs = Date.now() - started;
  await writer.stop();

  // every pod was replaced, each once: replicas first, then each master once failed over to a replica in another zone
  const replaced = steps('redis pod replaced').slice(replacedBefore);
  const order = replaced.map((l) => `${l.kind} ${l.node}`);
  const replicas = layout.nodes.filter((n) => n.role === RedisRole.REPLICA).map((n) => n.name);
  const masters = layout.nodes.filter((n) => n.role === RedisRole.MASTER).map((n) => n.name);
  expect(order.slice(0, replicas.length).sort()).toEqual(replicas.map((n) => `replica ${n}`).sort());
  expect(order.slice(replicas.length).sort()).toEqual(masters.map((n) => `master ${n}`).sort());
  for (const l of replaced.filter((x) => x.kind === 'master')) {
    const sameZone = layout.node(l.heir as string).zone === layout.node(l.node as string).zone;
    expect([l.node, sameZone]).toEqual([l.node, false]);
  }
  // the pods run the new revision (their StatefulSets' updateRevision)
  const pods = await livePods(client, ns, `${REDIS_CLUSTER_LABEL}=${NAME}`);
  const sets = await client.list<any>('apps/v1', 'StatefulSet', { namespace: ns });
  for (const p of pods) {
    const owner = sets.find((x) => x.metadata.name === p.metadata.ownerReferences[0].name);
    expect([p.metadata.name, p.metadata.labels[CONTROLLER_REVISION_LABEL]])
      .toEqual([p.metadata.name, owner.status.updateRevision]);
    expect(p.spec.containers[0].image).toBe('docker.io/library/redis:7.2.6');
  }
  // never pods of two zones away at once; the planned masters back; the same Redis nodes in the same roles
  expect(kubelet!.maxZonesAway).toBe(1);
  expect(s.mastersPerZone).toEqual(layout.mastersPerZone);
  expect(roles(s)).toEqual(before);
  // zero acknowledged writes lost
  expect(writer.acked.size).toBeGreaterThan(1000);
  const [writerMissing, earlierMissing] = await Promise.all([
    missingKeys(members(), writer.acked, PASSWORD),
    missingKeys(members(), acked, PASSWORD),
  ]);
  expect(writerMissing).toEqual([]);
  expect(earlierMissing).toEqual([]);
  for (const [k, v] of writer.acked) acked.set(k, v);
  const ratio = writer.longestRefusalMs / NODE_TIMEOUT_MS;
  // eslint-disable-next-line no-console
  console.log(`redis rolling upgrade of ${layout.nodes.length} pods: ${(elapsedMs / 1000).toFixed(1)} s; ${writer.acked.size} writes acknowledged, ` +
    `none lost; the longest time one slot refused writes: ${writer.longestRefusalMs} ms = ${ratio.toFixed(2)} x cluster-node-timeout (${NODE_TIMEOUT_MS} ms)`);
  expect(ratio).toBeLessThan(3);
  const fieldSelector = `involvedObject.name=${layoutConfigMapName(NAME)}`;
  const reasons = (await client.list<any>('v1', 'Event', { namespace: ns, fieldSelector })).map((e) => e.reason);
  expect(reasons).toEqual(expect.arrayContaining(['RedisUpgrading', 'RedisPodReplaced', 'RedisHealthy']));
});

test('force-reconcile by annotation: a full pass at once (the poll is 15 s), acknowledged in the status', async () => {
  const since = new Date();
  const request = { metadata: { annotations: { [REDIS_OPERATION_ANNOTATION]: 'force-reconcile' } } };
  await client.patch('v1', 'ConfigMap', layoutConfigMapName(NAME), request, ns);
  const done = (x: Status) => x.lastOperation?.operation === 'force-reconcile' && new Date(x.lastOperation.at) > since;
  const s = await statusWhere('force-reconcile done', since, done, 10_000);
  expect(s.lastOperation).toMatchObject({ result: 'done', message: 'the cluster ended healthy' });
  // the watch brought it well before the 15 s poll
  expect(new Date(s.lastOperation!.at).getTime() - since.getTime()).toBeLessThan(5_000);
  const stored = await client.get<any>('v1', 'ConfigMap', layoutConfigMapName(NAME), ns);
  const annotations = stored.metadata.annotations ?? {};
  expect(annotations[REDIS_OPERATION_ANNOTATION]).toBeUndefined();
});

/**
 * Applies `shape`, waits until the cluster is settled on it, and checks that the pods that stayed kept their node,
 * shard and role.
 */
async function reshape(shape: Shape, what: string): Promise<RedisShardLayout> {
  await writeSome(`before-${what}`);
  const before = roles((await status())!);
  const since = new Date();
  const next = await apply(shape);
  const s = await statusWhere(`the cluster settled on ${what}`, since, settled(next), 600_000);
  expect(s.statefulSets!.map((x) => [x.name, x.replicas]))
    .toEqual(info.zones.map((z) => [`${NAME}-${z}`, next.nodesPerZone[z]]));
  expect(s.mastersPerZone).toEqual(next.mastersPerZone);
  const after = roles(s);
  const stayed = [...before.keys()].filter((n) => after.has(n));
  expect(stayed.length).toBe(Math.min(before.size, after.size));
  expect(stayed.map((n) => [n, after.get(n)])).toEqual(stayed.map((n) => [n, before.get(n)]));
  const pods = (await livePods(client, ns, `${REDIS_CLUSTER_LABEL}=${NAME}`)).map((p) => node(p.metadata.name)).sort();
  expect(pods).toEqual(next.nodes.map((n) => n.name).sort());
  expect(await missingKeys(members(), acked, PASSWORD)).toEqual([]);
  return next;
}

test('replicasPerMaster 1 -> 2 -> 1 and masters 5 -> 3: scaled by the manager, no key lost, no pod that stays changes shard or role', async () => {
  const upgraded = { ...SHAPE, image: 'docker.io/library/redis:7.2.6' };
  const two = await reshape({ ...upgraded, replicasPerMaster: 2 }, '2 replicas per master');
  expect(two.nodes.length).toBe(15);
  const one = await reshape({ ...upgraded, replicasPerMaster: 1 }, '1 replica per master');
  expect(one.nodes.length).toBe(10);
  const from = controller!.logs.length;
  const three = await reshape({ ...upgraded, masters: 3 }, '3 masters');
  expect(three.nodes.length).toBe(6);
  // scaled down only after the retired nodes were drained of slots and forgotten: every migrate and retire first
  const logs = controller!.logs.slice(from);
  const at = (test: (l: any) => boolean) => logs.map((l, i) => (test(l) ? i : -1)).filter((i) => i >= 0);
  const scaledDown = at((l) => l.msg === 'redis statefulset scaled');
  const moved = at((l) => l.msg === 'redis step' && ['migrate', 'retire'].includes(l.step?.kind));
  expect(scaledDown.map((i) => [logs[i].statefulSet, logs[i].to]).sort())
    .toEqual(info.zones.map((z) => [`${NAME}-${z}`, 2]));
  expect(moved.length).toBeGreaterThan(0);
  expect(Math.max(...moved)).toBeLessThan(Math.min(...scaledDown));
  expect(controller!.logs.filter((l) => l.level === 'error')).toEqual([]);
});
