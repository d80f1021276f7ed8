/**
 * The `redis` reconciler (the Kubernetes mode of the Redis cluster manager) end to end, with real
 * redis-server processes: a synthesized ZonalRedisCluster (3 masters x 1 replica over the tier's 3 zones)
 * is applied to the real API server; kwok makes its pods Running with IPs inside 127.0.0.0/8 (loopback on
 * Linux, see nodes.ts), and the test runs one redis-server per pod on that pod's IP with the pod's own
 * command line (the ConfigMap's redis.conf, `--cluster-announce-ip $(POD_IP)`, the password of the Secret).
 * The real controller (`run --reconcilers redis`) finds the pods by label and their zones from their own zone label,
 * reads the layout ConfigMap and the Secret, drives the cluster and writes the status ConfigMap.
 *
 * Two zone losses: zone-a's Redis processes killed while kwok keeps its pods Running (a crash or a network
 * cut the kubelet has not seen yet: the reconciler finds them at the same addresses, not answering); then
 * zone-a's nodes deleted, so its pods are recreated Pending and come back on new pods, their servers started
 * on the data folders of the old ones (their volumes).
 */
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, App, Chart, Duration } from 'cdk8s';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace, waitForRollout } from './examples';
import { KubeObject } from './kube-client';
import { livePods, OutageMode, testCluster, uniqueName, zoneOfNode, zoneOutage } from './scheduling';
import { waitFor } from './wait';
import { ClusterState } from '../../../controller/src/redis/decide';
import { LAYOUT_KEY, REDIS_CLUSTER_LABEL, STATUS_KEY, layoutConfigMapName, statusConfigMapName } from '../../../src/contract/redis';
import { ZonalRedisCluster } from '../../../src/redis/cluster';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';
import { ZoneTopology } from '../../../src/topology/zone-topology';
import { missingKeys, RedisProcesses, slotOwners, untilServedAndWritable, writeKeys } from '../redis/redis-cluster';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('redis-manager');
const NAME = 'cache';
const PASSWORD = 'pods-read-me-from-the-secret';
const NODE_TIMEOUT_MS = 1000;
const redis = new RedisProcesses(NODE_TIMEOUT_MS, PASSWORD);
let controller: ControllerProcess | undefined;
let layout: RedisShardLayout;
const acked = new Map<string, string>();

type Status = ClusterState & { skippedPods: string[]; updated: string };

function manifests(): KubeObject[] {
  const app = new App();
  const chart = new Chart(app, 'redis-manager', { disableResourceNameHashes: true });
  new ApiObject(chart, 'password', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'redis-password' }, stringData: { password: PASSWORD } });
  new ZonalRedisCluster(chart, 'redis', {
    name: NAME,
    topology: new ZoneTopology({ zones: [...info.zones] }),
    masters: 3,
    replicasPerMaster: 1,
    password: { name: 'redis-password', key: 'password' },
    storage: { size: '1Gi' },
    clusterNodeTimeout: Duration.millis(NODE_TIMEOUT_MS),
    controllerInstalledElsewhere: true, // the test runs the controller as a process
  });
  return chart.toJson();
}

/**
 * Runs what the pod's container would run, on this machine: its command and args with `$(VAR)` expanded
 * from its env (the downward API's status.podIP, the Secret's key), its volume mounts mapped to folders
 * (the ConfigMap's files written out; the data volume one folder per pod, as a PersistentVolume would be).
 * redis-server listens on the pod's IP and its `redis` container port.
 */
async function runPod(pod: any, configMap: any, secrets: Map<string, any>): Promise<void> {
  const container = pod.spec.containers[0];
  expect(container.command).toEqual(['redis-server']);
  const env = new Map<string, string>();
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    const field = e.valueFrom?.fieldRef?.fieldPath;
    if (ref) env.set(e.name, Buffer.from(secrets.get(ref.name).data[ref.key], 'base64').toString('utf8'));
    else if (field === 'status.podIP') env.set(e.name, pod.status.podIP);
    else if (e.value !== undefined) env.set(e.name, e.value);
    else throw new Error(`env ${e.name} of ${pod.metadata.name}: not emulated (${JSON.stringify(e.valueFrom)})`);
  }
  const podDir = path.join(redis.root, pod.metadata.name); // the same folders for the pod's successor: its volume
  const mounts = (container.volumeMounts as any[]).map((m) => {
    const volume = pod.spec.volumes?.find((v: any) => v.name === m.name);
    const dir = path.join(podDir, m.name);
    fs.mkdirSync(dir, { recursive: true });
    if (volume?.configMap) {
      expect(volume.configMap.name).toBe(configMap.metadata.name);
      for (const [file, text] of Object.entries<string>(configMap.data)) fs.writeFileSync(path.join(dir, file), text);
    }
    return { from: m.mountPath as string, to: dir };
  });
  const local = (arg: string) => {
    const m = mounts.find((x) => arg === x.from || arg.startsWith(`${x.from}/`));
    return m ? m.to + arg.slice(m.from.length) : arg;
  };
  const args = (container.args as string[])
    .map((a) => a.replace(/\$\((\w+)\)/g, (_, v) => env.get(v) ?? `$(${v})`))
    .map(local);
  const port = container.ports.find((p: any) => p.name === 'redis').containerPort;
  const data = args[args.indexOf('--dir') + 1];
  expect(data.startsWith(podDir)).toBe(true); // on a mounted volume
  await redis.add({
    name: pod.metadata.name.slice(NAME.length + 1),
    zone: zoneOfNode(info, pod.spec.nodeName)!,
    address: `${pod.status.podIP}:${port}`,
  }, data, args);
}

async function status(): Promise<Status | undefined> {
  const cm = await client.find<any>('v1', 'ConfigMap', statusConfigMapName(NAME), ns);
  return cm ? JSON.parse(cm.data[STATUS_KEY]) : undefined;
}

/** Waits until the status ConfigMap, written after `since`, says what `check` wants; on timeout shows the last status. */
async function statusWhere(what: string, since: Date, check: (s: Status) => boolean, timeoutMs = 120_000): Promise<Status> {
  return waitFor(`the status ConfigMap to report ${what}`, async () => {
    controller?.assertRunning();
    const s = await status();
    const state = JSON.stringify(s && { healthy: s.healthy, mastersPerZone: s.mastersPerZone, issues: s.issues, skippedPods: s.skippedPods });
    return { done: !!s && new Date(s.updated) > since && check(s), value: s, state };
  }, { timeoutMs, intervalMs: 500 });
}

const address = (name: string) => redis.inventory.find((n) => n.name === name)!.address;
/** The steps the controller has taken so far (its log), of one kind. */
const steps = (kind: string): any[] => controller!.logs.filter((l) => l.msg === 'redis step' && (l.step as any)?.kind === kind).map((l) => l.step);

/** The cluster as planned: each shard's slots on its planned master (as redis-server itself says), replicas in other zones. */
async function expectPlanned(s: Status): Promise<void> {
  expect({ healthy: s.healthy, issues: s.issues, nextSteps: s.nextSteps, skippedPods: s.skippedPods })
    .toEqual({ healthy: true, issues: [], nextSteps: [], skippedPods: [] });
  expect(s.slotsServed).toBe(16384);
  expect(s.mastersPerZone).toEqual(Object.fromEntries(info.zones.map((z) => [z, 1])));
  expect(s.nodes.map((n) => [n.name, n.zone, n.address, n.reachable, n.role]))
    .toEqual(layout.nodes.map((p) => [p.name, p.zone, address(p.name), true, p.role]));
  for (const n of s.nodes.filter((x) => x.role === RedisRole.REPLICA)) {
    const master = layout.node(n.master!);
    expect([n.name, master.shard, master.role]).toEqual([n.name, n.plannedShard, RedisRole.MASTER]);
    expect(master.zone).not.toBe(n.zone);
  }
  const owners = await slotOwners(redis.inventory[0].address, PASSWORD);
  for (const shard of layout.shards) {
    expect([shard.index, new Set(owners.slice(shard.slotStart, shard.slotEnd + 1))]).toEqual([shard.index, new Set([address(shard.master)])]);
  }
}

afterAll(async () => {
  await controller?.stop();
  await redis.close();
  await deleteNamespace(client, ns);
  client.close();
});

test('the pods of a ZonalRedisCluster run as real redis-server processes on their kwok pod IPs', async () => {
  const { applied, rejections, warnings } = await applyManifests(client, manifests(), ns);
  expect({ rejections, warnings }).toEqual({ rejections: [], warnings: [] });
  await waitForRollout(client, applied);
  const pods = await livePods(client, ns, `${REDIS_CLUSTER_LABEL}=${NAME}`);
  expect(pods.map((p) => p.metadata.name).sort()).toEqual(['zone-a-0', 'zone-a-1', 'zone-b-0', 'zone-b-1', 'zone-c-0', 'zone-c-1'].map((n) => `${NAME}-${n}`));
  for (const p of pods) expect([p.metadata.name, p.status.phase, p.status.podIP]).toEqual([p.metadata.name, 'Running', expect.stringMatching(/^127\./)]);

  layout = RedisShardLayout.fromJson((await client.get<any>('v1', 'ConfigMap', layoutConfigMapName(NAME), ns)).data[LAYOUT_KEY]);
  const configMap = await client.get<any>('v1', 'ConfigMap', `${NAME}-config`, ns);
  const secrets = new Map([['redis-password', await client.get<any>('v1', 'Secret', 'redis-password', ns)]]);
  for (const p of pods) await runPod(p, configMap, secrets);
  // each pod is in its planned zone (the StatefulSet of the zone pins it there)
  expect(redis.inventory.map((n) => [n.name, n.zone]).sort()).toEqual(layout.nodes.map((n) => [n.name, n.zone]).sort());
  // not a cluster yet: every node knows only itself
  expect(await slotOwners(redis.inventory[0].address, PASSWORD)).toEqual(new Array(16384).fill(undefined));
});

test('the reconciler bootstraps the planned layout and reports it healthy in the status ConfigMap', async () => {
  const since = new Date();
  controller = await ControllerProcess.start(info, 'redis-manager', ['--reconcilers', 'redis']);
  const s = await statusWhere('a healthy cluster', since, (x) => x.healthy);
  await expectPlanned(s);
  const { written, acked: replicated } = await writeKeys(await slotOwners(redis.inventory[0].address, PASSWORD), 'before', 2000, PASSWORD);
  expect([written.size, replicated.size]).toEqual([2000, 2000]);
  for (const [k, v] of replicated) acked.set(k, v);
  expect(steps('forget')).toEqual([]); // nothing to forget in a new cluster (a node in handshake is not a lost node)
});

test('zone-a\'s redis-servers killed: writes succeed on every slot, no acknowledged key lost, the status reports the loss', async () => {
  const since = new Date();
  const lost = await redis.killZone('zone-a');
  expect(lost.sort()).toEqual(['zone-a-0', 'zone-a-1']);
  // resolves once 300 keys were written to every slot's master (those whose replica lives on are acknowledged too)
  const { acked: during } = await untilServedAndWritable(redis, 'during-zone-a-loss', 60_000);
  expect(await missingKeys(redis.live(), acked, PASSWORD)).toEqual([]);
  for (const [k, v] of during) acked.set(k, v);

  const s = await statusWhere('zone-a lost', since, (x) => x.issues.filter((i) => i.kind === 'unreachable').length === 2 && x.slotsServed === 16384);
  expect(s.healthy).toBe(false);
  expect(s.issues.filter((i) => i.kind === 'unreachable').map((i) => i.message))
    .toEqual([`zone-a-0 (${address('zone-a-0')}, zone zone-a) does not answer`, `zone-a-1 (${address('zone-a-1')}, zone zone-a) does not answer`]);
  expect(s.nodes.filter((n) => !n.reachable).map((n) => n.name)).toEqual(['zone-a-0', 'zone-a-1']);
  // the replica of zone-a's master took over: its zone now holds 2 of the 3 masters, reported
  const shard = layout.shards.find((x) => layout.node(x.master).zone === 'zone-a')!;
  const heir = layout.node(shard.replicas[0]).zone;
  expect(s.mastersPerZone).toEqual({ ...Object.fromEntries(info.zones.map((z) => [z, 1])), 'zone-a': 0, [heir]: 2 });
  expect(s.issues.map((i) => i.kind)).toContain('zone-majority');
});

test('zone-a back: the reconciler fails masters back so that no zone holds a majority', async () => {
  const since = new Date();
  await redis.start('zone-a-0');
  await redis.start('zone-a-1');
  const s = await statusWhere('masters failed back, healthy', since, (x) => x.healthy);
  await expectPlanned(s);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
  // one failover: zone-a's planned master, back as a replica in sync, took its shard back
  expect(steps('failover').map((f) => f.on)).toEqual(layout.shards.filter((x) => layout.node(x.master).zone === 'zone-a').map((x) => x.master));
  expect(controller!.logs.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
});

test('zone-a\'s nodes deleted: its pods wait Pending (reported); back on new pods with their volumes, the reconciler restores the layout', async () => {
  const zoneA = redis.inventory.filter((n) => n.zone === 'zone-a').map((n) => n.name);
  const ids = new Map((await status())!.nodes.map((n) => [n.name, n.id]));
  let since = new Date();
  const outage = await zoneOutage(cluster, 'zone-a', OutageMode.DELETE_NODES);
  try {
    for (const name of zoneA) await redis.remove(name); // their containers went with the nodes
    await untilServedAndWritable(redis, 'during-zone-a-outage', 60_000);
    expect(await missingKeys(redis.live(), acked, PASSWORD)).toEqual([]);
    const s = await statusWhere('zone-a\'s pods Pending', since, (x) => x.skippedPods.length === 2 && x.slotsServed === 16384);
    expect(s.skippedPods).toEqual(zoneA.map((n) => `${NAME}-${n}: no pod IP yet`));
    expect(s.nodes.map((n) => n.name)).toEqual(layout.nodes.filter((n) => n.zone !== 'zone-a').map((n) => n.name));
    expect(s.issues.map((i) => i.kind)).toContain('zone-majority');
  } finally {
    await outage.restore();
  }
  since = new Date();
  const pods = await waitFor('zone-a\'s pods Running again with IPs', async () => {
    const live = (await livePods(client, ns, `${REDIS_CLUSTER_LABEL}=${NAME}`)).filter((p) => zoneOfNode(info, p.spec.nodeName) === 'zone-a');
    return { done: live.length === 2 && live.every((p) => p.status?.phase === 'Running' && p.status.podIP), value: live };
  });
  const configMap = await client.get<any>('v1', 'ConfigMap', `${NAME}-config`, ns);
  const secrets = new Map([['redis-password', await client.get<any>('v1', 'Secret', 'redis-password', ns)]]);
  for (const p of pods) await runPod(p, configMap, secrets);
  const s = await statusWhere('zone-a\'s new pods in the planned layout, healthy', since, (x) => x.healthy);
  await expectPlanned(s);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
  // zone-a's nodes came back with their volumes: the same cluster ids (never forgotten while away), new pods
  expect(s.nodes.map((n) => [n.name, n.id])).toEqual(s.nodes.map((n) => [n.name, ids.get(n.name)]));
  expect(steps('forget')).toEqual([]);
  expect(controller!.logs.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
});
