/**
 * The `redis` reconciler (the Kubernetes mode of the Redis cluster manager) end to end, with real
 * redis-server processes: a synthesized ZonalRedisCluster (3 masters x 1 replica over the tier's 3 zones)
 * is applied to the real API server; kwok makes its pods Running with IPs inside 127.0.0.0/8 (loopback on
 * Linux, see nodes.ts), and the test runs each pod as its kubelet would, on that pod's IP: its init container
 * (real `sh`) turns the Secret key mounted as a file into the auth.conf that redis-server includes, then the
 * pod's own command line (the ConfigMap's redis.conf, `--include` of that file, `--cluster-announce-ip $(POD_IP)`).
 * The real controller (`run --reconcilers redis --redis-namespaces <ns>`) finds its StatefulSets' pods by label
 * and their zones from their own zone label, reads the layout ConfigMap and the Secret the pods mount, drives the
 * cluster and writes the status ConfigMap. A labelled pod of no StatefulSet is never sent the password.
 *
 * Two zone losses: zone-a's Redis processes killed while kwok keeps its pods Running (a crash or a network
 * cut the kubelet has not seen yet: the reconciler finds them at the same addresses, not answering); then
 * zone-a's nodes deleted, so its pods are recreated Pending and come back on new pods, their servers started
 * on the data folders of the old ones (their volumes).
 *
 * Then the manual operations, each asked by annotating the layout ConfigMap: refused ones, fix, rebalance,
 * forget-lost-nodes and a confirmed reset; and an interrupted resharding (a slot left open half way) repaired
 * by the reconciler's own pass.
 */
import * as net from 'net';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace, restrictedNamespace, waitForRollout } from './examples';
import { RedisOnKwok, RedisStatus } from './redis-on-kwok';
import { livePods, RESTRICTED_PAUSE_POD, testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { OutageMode, zoneOutage } from './zone-outage';
import { splitAddress } from '../../../controller/src/redis/executor';
import { FINALIZED_AFTER_PASSES } from '../../../controller/src/redis/health';
import {
  LAYOUT_KEY, REDIS_CLUSTER_LABEL, REDIS_OPERATION_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION, redisResetConfirmation,
  layoutConfigMapName,
} from '../../../src/contract/redis';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';
import { keySlots, missingKeys, slotOwners, untilServedAndWritable, writeKeys } from '../redis/redis-keys';
import { AWKWARD_PASSWORD, exposesPassword } from '../redis/redis-processes';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('redis-manager');
const NAME = 'cache';
const PASSWORD = AWKWARD_PASSWORD;
const NODE_TIMEOUT_MS = 1000;
const onKwok = new RedisOnKwok(client, info, ns, { name: NAME, password: PASSWORD, nodeTimeoutMs: NODE_TIMEOUT_MS });
const { redis } = onKwok;
let controller: ControllerProcess | undefined;
let layout: RedisShardLayout;
const acked = new Map<string, string>();

type Status = RedisStatus;

/** The reasons of the Events about the cluster (on its layout ConfigMap), oldest first. */
async function clusterEvents(): Promise<{ type: string; reason: string; message: string }[]> {
  const events = await client.list<any>('v1', 'Event', { namespace: ns, fieldSelector: `involvedObject.name=${layoutConfigMapName(NAME)}` });
  return events
    .sort((a, b) => (a.firstTimestamp < b.firstTimestamp ? -1 : 1))
    .map((e) => ({ type: e.type, reason: e.reason, message: e.message }));
}

const status = () => onKwok.status();
/** Waits until the status ConfigMap, written after `since`, says what `check` wants (redis-on-kwok.ts). */
const statusWhere = (what: string, since: Date, check: (s: Status) => boolean) =>
  onKwok.statusWhere(what, since, check, controller);
const address = (name: string) => onKwok.address(name);
/** The steps the controller has taken so far (its log), of one kind. */
const steps = (kind: string): any[] => controller!.logs
  .filter((l) => l.msg === 'redis step' && (l.step as any)?.kind === kind)
  .map((l) => l.step);

/**
 * The cluster as planned: each shard's slots on its planned master (as redis-server itself says), replicas in other
 * zones.
 */
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
    const servedBy = new Set(owners.slice(shard.slotStart, shard.slotEnd + 1));
    expect([shard.index, servedBy]).toEqual([shard.index, new Set([address(shard.master)])]);
  }
}

afterAll(async () => {
  await controller?.stop();
  await onKwok.close();
  await deleteNamespace(client, ns);
  client.close();
});

/** When the controller started. */
let started: Date;

test('the manager scales the StatefulSets (which hold no replicas) to the layout; their pods run as real redis-server processes on their kwok pod IPs', async () => {
  const { applied, rejections, warnings } = await applyManifests(client, onKwok.manifests(), ns);
  expect({ rejections, warnings }).toEqual({ rejections: [], warnings: [] });
  // a full pass every second: the health counters move faster than with the default 15 s
  started = new Date();
  controller = await ControllerProcess.start(info, 'redis-manager', ['--reconcilers', 'redis', '--redis-namespaces', ns, '--redis-interval', '1s']);
  const sets = await waitFor('the manager to scale each zone\'s StatefulSet to the layout', async () => {
    const all = await client.list<any>('apps/v1', 'StatefulSet', { namespace: ns });
    return {
      done: all.length === 3 && all.every((x) => x.spec.replicas === 2),
      value: all,
      state: JSON.stringify(all.map((x) => x.spec.replicas)),
    };
  });
  expect(sets.map((x) => [x.metadata.name, x.spec.replicas])).toEqual(info.zones.map((z) => [`${NAME}-${z}`, 2]));
  await waitForRollout(client, applied);
  const pods = await livePods(client, ns, `${REDIS_CLUSTER_LABEL}=${NAME}`);
  expect(pods.map((p) => p.metadata.name).sort()).toEqual(['zone-a-0', 'zone-a-1', 'zone-b-0', 'zone-b-1', 'zone-c-0', 'zone-c-1'].map((n) => `${NAME}-${n}`));
  for (const p of pods) {
    expect([p.metadata.name, p.status.phase, p.status.podIP])
      .toEqual([p.metadata.name, 'Running', expect.stringMatching(/^127\./)]);
  }
  expect((await clusterEvents()).filter((e) => e.reason === 'RedisScaled').map((e) => e.message).sort())
    .toEqual(info.zones.map((z) => `StatefulSet ${NAME}-${z} scaled from 1 to 2 replicas (to the layout)`));

  layout = RedisShardLayout.fromJson((await client.get<any>('v1', 'ConfigMap', layoutConfigMapName(NAME), ns)).data[LAYOUT_KEY]);
  await onKwok.runPods(pods);
  for (const n of redis.inventory) {
    expect([n.name, exposesPassword(redis.pid(n.name)!, PASSWORD)]).toEqual([n.name, [false, false]]);
  }
  // each pod is in its planned zone (the StatefulSet of the zone pins it there)
  expect(redis.inventory.map((n) => [n.name, n.zone]).sort()).toEqual(layout.nodes.map((n) => [n.name, n.zone]).sort());
});

test('the reconciler bootstraps the planned layout and reports it healthy in the status ConfigMap', async () => {
  const since = started;
  const s = await statusWhere('a healthy cluster', since, (x) => x.healthy);
  await expectPlanned(s);
  // healthy for 10 full passes in a row: finalized, in the status, an Event and the metrics
  const settled = await statusWhere('finalized', since, (x) => x.health?.finalized === true);
  expect(settled.health).toMatchObject({ phase: 'healthy', unhealthyPasses: 0, finalized: true });
  expect(settled.health.healthyPasses).toBeGreaterThanOrEqual(FINALIZED_AFTER_PASSES);
  // (the first pass may bootstrap it to healthy in one go: then no phase Event before)
  const reasons = (await clusterEvents()).map((e) => `${e.type} ${e.reason}`);
  expect([reasons.filter((r) => r.startsWith('Warning')), reasons[reasons.length - 1]]).toEqual([[], 'Normal RedisFinalized']);
  expect(await controller!.metric(`cdk8s_zones_redis_cluster_finalized{namespace="${ns}",cluster="${NAME}"}`)).toBe(1);
  expect(await controller!.metric(`cdk8s_zones_redis_cluster_phase{namespace="${ns}",cluster="${NAME}",phase="healthy"}`)).toBe(1);
  const owners = await slotOwners(redis.inventory[0].address, PASSWORD);
  const { written, acked: replicated } = await writeKeys(owners, 'before', 2000, PASSWORD);
  expect([written.size, replicated.size]).toEqual([2000, 2000]);
  for (const [k, v] of replicated) acked.set(k, v);
  expect(steps('forget')).toEqual([]); // nothing to forget in a new cluster (a node in handshake is not a lost node)
});

test('labelled pods the controller must not manage: one of no StatefulSet is skipped and never sent the password; another namespace is never listed', async () => {
  const since = new Date();
  const impostor = `${NAME}-zone-a-9`;
  const labels = { [REDIS_CLUSTER_LABEL]: NAME, 'cdk8s-zones.dev/zone': 'zone-a' };
  const impostorIn = (namespace: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: impostor, namespace, labels },
    spec: RESTRICTED_PAUSE_POD,
  });
  await client.create(impostorIn(ns));
  const other = `${ns}-other`;
  await restrictedNamespace(client, other);
  await client.create(impostorIn(other));
  const ip = await waitFor('the impostor\'s pod IP', async () => {
    const p = await client.get<any>('v1', 'Pod', impostor, ns);
    return { done: !!p.status?.podIP, value: p.status?.podIP };
  });
  // a listener where its redis-server would be: the manager must never connect to it (what it is sent is kept)
  const connections: string[] = [];
  const listener = net.createServer((socket) => {
    const i = connections.push('') - 1;
    socket.on('data', (chunk) => { connections[i] += chunk.toString(); });
    socket.on('error', () => undefined);
    setTimeout(() => socket.destroy(), 1000);
  });
  await new Promise<void>((resolve) => listener.listen(6379, ip, resolve));
  try {
    const s = await statusWhere('the impostor skipped', since, (x) => x.skippedPods.length > 0 && x.healthy);
    expect(s.skippedPods).toEqual([`${impostor}: not controlled by a StatefulSet: not sent the password`]);
    expect({ ip, connections }).toEqual({ ip, connections: [] });
  } finally {
    listener.close();
    await client.delete('v1', 'Pod', impostor, ns, { gracePeriodSeconds: 0 });
    await deleteNamespace(client, other);
  }
  // the other namespace's labelled pod was never listed: no pass over a cluster there (it would fail: no layout
  // ConfigMap)
  expect(controller!.logs.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  await statusWhere('no pod skipped any more', new Date(), (x) => x.skippedPods.length === 0);
});

test('zone-a\'s redis-servers killed: the reconciler fails its master over within the node timeout; no acknowledged key lost, the status reports the loss', async () => {
  const since = new Date();
  const lost = await redis.killZone('zone-a');
  expect(lost.sort()).toEqual(['zone-a-0', 'zone-a-1']);
  // resolves once 300 keys were written to every slot's master (those whose replica lives on are acknowledged too)
  const { acked: during, ms } = await untilServedAndWritable(redis, 'during-zone-a-loss', 60_000);
  expect(await missingKeys(redis.live(), acked, PASSWORD)).toEqual([]);
  // The layout ConfigMap's policy (zoneLossFailoverAfter: a quarter of the node timeout) makes the reconciler watch
  // the cluster between listings and force the failover itself; Redis alone needs about 1.6 x the node timeout + 0.7 s.
  const zoneAShard = layout.shards.find((x) => layout.node(x.master).zone === 'zone-a')!;
  expect(steps('force-failover')).toEqual([{ kind: 'force-failover', on: zoneAShard.replicas[0], master: zoneAShard.master, zone: 'zone-a' }]);
  expect(ms).toBeLessThan(1.5 * NODE_TIMEOUT_MS);
  for (const [k, v] of during) acked.set(k, v);

  const s = await statusWhere(
    'zone-a lost',
    since,
    (x) => x.issues.filter((i) => i.kind === 'unreachable').length === 2 && x.slotsServed === 16384,
  );
  expect(s.healthy).toBe(false);
  expect(s.issues.filter((i) => i.kind === 'unreachable').map((i) => i.message))
    .toEqual([`zone-a-0 (${address('zone-a-0')}, zone zone-a) does not answer`, `zone-a-1 (${address('zone-a-1')}, zone zone-a) does not answer`]);
  expect(s.nodes.filter((n) => !n.reachable).map((n) => n.name)).toEqual(['zone-a-0', 'zone-a-1']);
  // the replica of zone-a's master took over: its zone now holds 2 of the 3 masters, reported
  const shard = layout.shards.find((x) => layout.node(x.master).zone === 'zone-a')!;
  const heir = layout.node(shard.replicas[0]).zone;
  expect(s.mastersPerZone).toEqual({ ...Object.fromEntries(info.zones.map((z) => [z, 1])), 'zone-a': 0, [heir]: 2 });
  expect(s.issues.map((i) => i.kind)).toContain('zone-majority');
  // not finalized any more; a warning Event says why
  expect(s.health).toMatchObject({ phase: 'recovering', healthyPasses: 0, finalized: false });
  expect((await clusterEvents()).filter((e) => e.reason === 'RedisRecovering')).toEqual([
    { type: 'Warning', reason: 'RedisRecovering', message: expect.stringContaining(`phase recovering (was healthy): zone-a-0 (${address('zone-a-0')}, zone zone-a) does not answer`) },
  ]);
});

test('zone-a back: the reconciler fails masters back so that no zone holds a majority', async () => {
  const since = new Date();
  await redis.start('zone-a-0');
  await redis.start('zone-a-1');
  const s = await statusWhere('masters failed back, healthy', since, (x) => x.healthy);
  await expectPlanned(s);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
  // one failover: zone-a's planned master, back as a replica in sync, took its shard back
  const zoneAMasters = layout.shards
    .filter((x) => layout.node(x.master).zone === 'zone-a')
    .map((x) => x.master);
  expect(steps('failover').map((f) => f.on)).toEqual(zoneAMasters);
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
    const live = (await livePods(client, ns, `${REDIS_CLUSTER_LABEL}=${NAME}`))
      .filter((p) => zoneOfNode(info, p.spec.nodeName) === 'zone-a');
    return { done: live.length === 2 && live.every((p) => p.status?.phase === 'Running' && p.status.podIP), value: live };
  });
  await onKwok.runPods(pods);
  const s = await statusWhere('zone-a\'s new pods in the planned layout, healthy', since, (x) => x.healthy);
  await expectPlanned(s);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
  // zone-a's nodes came back with their volumes: the same cluster ids (never forgotten while away), new pods
  expect(s.nodes.map((n) => [n.name, n.id])).toEqual(s.nodes.map((n) => [n.name, ids.get(n.name)]));
  expect(steps('forget')).toEqual([]);
  expect(controller!.logs.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
});

/** Annotates the layout ConfigMap (null removes an annotation), as `kubectl annotate` does. */
async function annotate(annotations: Record<string, string | null>): Promise<void> {
  await client.patch('v1', 'ConfigMap', layoutConfigMapName(NAME), { metadata: { annotations } }, ns);
}

/** The status once it reports `operation` asked after `since`, and `check` holds. */
async function operationReported(
  operation: string,
  since: Date,
  check: (s: Status) => boolean = () => true,
): Promise<Status> {
  return statusWhere(`operation ${operation} reported`, since, (x) =>
    x.lastOperation?.operation === operation && new Date(x.lastOperation.at) > since && check(x));
}

test('manual operations by annotation: an unknown one and a reset without its confirmation are refused, nothing destroyed, the annotations removed', async () => {
  for (const [asked, extra, message] of [
    ['defrag', {}, 'unknown operation "defrag": one of fix, rebalance, forget-lost-nodes, force-reconcile, reset'],
    ['reset', { [REDIS_RESET_CONFIRM_ANNOTATION]: 'yes' }, `it also needs the annotation ${REDIS_RESET_CONFIRM_ANNOTATION}=${redisResetConfirmation(NAME)}`],
  ] as const) {
    const since = new Date();
    await annotate({ [REDIS_OPERATION_ANNOTATION]: asked, ...extra });
    const s = await operationReported(asked, since);
    expect(s.lastOperation).toMatchObject({ operation: asked, result: 'refused', message: expect.stringContaining(message) });
    const annotations = (await client.get<any>('v1', 'ConfigMap', layoutConfigMapName(NAME), ns)).metadata.annotations ?? {};
    const remaining = [annotations[REDIS_OPERATION_ANNOTATION], annotations[REDIS_RESET_CONFIRM_ANNOTATION]];
    expect(remaining).toEqual([undefined, undefined]);
  }
  expect((await clusterEvents()).filter((e) => e.reason === 'RedisOperationRefused').map((e) => e.type)).toEqual(['Warning', 'Warning']);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
});

test('fix by annotation: a shard\'s master and replica replaced by empty nodes; the reconciler reports the slots unserved, fix serves them again', async () => {
  const shard = layout.shards[0];
  const replaced = [shard.master, ...shard.replicas];
  for (const n of replaced) await redis.kill(n);
  for (const n of replaced) await redis.start(n, true); // a new id, no data: as new volumes would
  let since = new Date();
  // the replaced nodes are forgotten (another id answers at their addresses): their slots belong to no master,
  // and reconcile never gives them away
  const lost = await statusWhere('the shard\'s slots unassigned', since, (x) => x.issues.some((i) => i.kind === 'slots-unassigned'));
  expect(lost.slotsServed).toBe(16384 - (shard.slotEnd - shard.slotStart + 1));
  expect(lost.issues.find((i) => i.kind === 'slots-unassigned')!.message).toContain(`${shard.slotStart}-${shard.slotEnd}`);
  since = new Date();
  await annotate({ [REDIS_OPERATION_ANNOTATION]: 'fix' });
  const fixed = await operationReported('fix', since, (x) => x.healthy);
  await expectPlanned(fixed);
  // only the keys of that shard are gone
  const missing = await missingKeys(redis.inventory, acked, PASSWORD);
  expect(missing.length).toBeGreaterThan(0);
  const slots = await keySlots(address(shard.master), missing, PASSWORD);
  expect(slots.filter((s) => s < shard.slotStart || s > shard.slotEnd)).toEqual([]);
  for (const k of missing) acked.delete(k);
  expect((await clusterEvents()).filter((e) => e.reason === 'RedisOperation').map((e) => e.message)).toEqual(['fix: the cluster ended healthy']);
});

/** One command on the planned node `name` (a client of that node alone). */
const call = (name: string, ...args: (string | number)[]) => onKwok.call(name, ...args);

/** The open slots (`[slot->-id]`, `[slot-<-id]`) each live node reports of itself. */
async function openSlots(): Promise<string[]> {
  const open: string[] = [];
  for (const n of redis.live()) {
    const mine = ((await call(n.name, 'CLUSTER', 'NODES')) as string).split('\n').find((l) => l.includes('myself'))!;
    open.push(...mine.split(' ').filter((t) => t.startsWith('[')).map((t) => `${n.name} ${t}`));
  }
  return open;
}

test('an interrupted resharding (a slot left MIGRATING and IMPORTING, half its keys moved) is repaired by the reconciler in the cluster: the slot closed and back on its shard, no key lost', async () => {
  const [src, dst] = [layout.shards[1].master, layout.shards[2].master];
  const shard = layout.shards[1];
  // 200 keys in one slot of shard 1 (a hash tag whose slot it serves), written to its master.
  let tag = 0;
  while (Number(await call(src, 'CLUSTER', 'KEYSLOT', `{open-${tag}}`)) < shard.slotStart
    || Number(await call(src, 'CLUSTER', 'KEYSLOT', `{open-${tag}}`)) > shard.slotEnd) tag++;
  const slot = Number(await call(src, 'CLUSTER', 'KEYSLOT', `{open-${tag}}`));
  for (let i = 0; i < 200; i++) {
    const key = `{open-${tag}}-${i}`;
    expect(await call(src, 'SET', key, `v${i}`)).toBe('OK');
    acked.set(key, `v${i}`);
  }
  const [srcId, dstId] = [await call(src, 'CLUSTER', 'MYID'), await call(dst, 'CLUSTER', 'MYID')];
  // Counted before the slot opens: the reconciler (a pass a second) may close it before the test could look at it.
  const since = new Date();
  const movesOf = () => steps('migrate').filter((m) => JSON.stringify(m.ranges) === JSON.stringify([[slot, slot]]));
  const before = movesOf().length;
  // What a migration killed half way leaves: both sides open, the keys split between them.
  const importing = await call(dst, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', srcId);
  const migrating = await call(src, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', dstId);
  const keys = (await call(src, 'CLUSTER', 'GETKEYSINSLOT', slot, 1000)) as string[];
  const [host, port] = splitAddress(address(dst));
  const half = keys.slice(0, Math.ceil(keys.length / 2));
  const migrated = await call(src, 'MIGRATE', host, port, '', 0, 10_000, 'AUTH', PASSWORD, 'KEYS', ...half);
  expect([importing, migrating]).toEqual(['OK', 'OK']);
  // NOKEY: the reconciler, seeing the slot open, moved those keys itself before this MIGRATE ran
  expect(['OK', 'NOKEY']).toContain(migrated);
  expect(keys.length).toBeGreaterThanOrEqual(200);
  // A pass that began before the slot was opened may still report healthy: wait for the moves of this slot.
  const closed = await statusWhere('the open slot closed', since, (x) => x.healthy && movesOf().length >= before + 2);
  await expectPlanned(closed);
  expect(await openSlots()).toEqual([]);
  expect((await slotOwners(address(src), PASSWORD))[slot]).toBe(address(src));
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
  // closed towards dst, then back to its planned shard
  expect(movesOf().slice(before).map((m) => [m.from, m.to])).toEqual([[src, dst], [dst, src]]);
});

/**
 * `CLUSTER FAILOVER` on `replica` until it is seen serving `slot`, asked again every 10 s: Redis answers OK at once
 * and drops a manual failover it cannot finish within its own 5 s (votes late on a loaded machine), and the
 * reconciler's own pass fails the shard back to its planned master within seconds, so a slow look can miss it.
 */
async function failOverByHand(replica: string, slot: number): Promise<void> {
  let polls = 0;
  await waitFor(`${replica} serving slot ${slot} after CLUSTER FAILOVER`, async () => {
    if ((await slotOwners(address(replica), PASSWORD))[slot] === address(replica)) return { done: true };
    if (polls++ % 100 === 0) await call(replica, 'CLUSTER', 'FAILOVER');
    const mine = ((await call(replica, 'CLUSTER', 'NODES')) as string).split('\n').find((l) => l.includes('myself'));
    return { done: false, state: `asked ${Math.ceil(polls / 100)} times; ${replica} says: ${mine}` };
  }, { intervalMs: 100 });
}

test('rebalance by annotation: a master failed over by hand to its replica in another zone is failed back as planned (by the annotation\'s pass or the reconciler\'s own)', async () => {
  const shard = layout.shards[1];
  const [replica] = shard.replicas;
  await failOverByHand(replica, shard.slotStart);
  const since = new Date();
  await annotate({ [REDIS_OPERATION_ANNOTATION]: 'rebalance' });
  const masterZone = layout.node(shard.master).zone;
  const s = await operationReported('rebalance', since, (x) => x.healthy && x.mastersPerZone[masterZone] === 1);
  expect(s.lastOperation).toMatchObject({ result: 'done' });
  await expectPlanned(s);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
});

test('forget-lost-nodes by annotation: a replica whose server is gone for good is forgotten by every node; a new node in its place joins as planned', async () => {
  const shard = layout.shards[2];
  const [gone] = shard.replicas;
  const goneId = await call(gone, 'CLUSTER', 'MYID');
  await redis.kill(gone);
  const others = redis.live().map((n) => n.name).filter((n) => n !== gone);
  await waitFor(`${gone} flagged failed`, async () => {
    const views = await Promise.all(others.map((n) => call(n, 'CLUSTER', 'NODES') as Promise<string>));
    const flagsGoneFailed = (line: string) => line.startsWith(goneId) && line.split(' ')[2].split(',').includes('fail');
    return { done: views.every((v) => v.split('\n').some(flagsGoneFailed)) };
  });
  const since = new Date();
  await annotate({ [REDIS_OPERATION_ANNOTATION]: 'forget-lost-nodes' });
  const s = await operationReported('forget-lost-nodes', since);
  expect(s.lastOperation).toMatchObject({ result: 'done' });
  for (const n of others) expect(((await call(n, 'CLUSTER', 'NODES')) as string).includes(goneId)).toBe(false);
  // A new volume in its place: a new node id, which the reconciler meets and attaches to the shard's master.
  const back = new Date();
  await redis.start(gone, true);
  await expectPlanned(await statusWhere('the new node attached as planned', back, (x) => x.healthy));
  expect(await call(gone, 'CLUSTER', 'MYID')).not.toBe(goneId);
  expect(await missingKeys(redis.inventory, acked, PASSWORD)).toEqual([]);
});

test('reset by annotation, confirmed: every key destroyed, the cluster bootstrapped again as planned', async () => {
  const since = new Date();
  await annotate({ [REDIS_OPERATION_ANNOTATION]: 'reset', [REDIS_RESET_CONFIRM_ANNOTATION]: redisResetConfirmation(NAME) });
  const s = await operationReported('reset', since, (x) => x.healthy);
  await expectPlanned(s);
  expect(s.lastOperation).toMatchObject({ result: 'done' });
  expect((await missingKeys(redis.inventory, acked, PASSWORD)).length).toBe(acked.size);
});
