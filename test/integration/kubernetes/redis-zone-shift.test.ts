/**
 * The Redis part of a zonal shift (docs/runbooks/zone-impaired.md) end to end: a ZonalRedisCluster (3 masters x 1
 * replica over the tier's 3 zones) whose pods run as real redis-server processes on their kwok pod IPs
 * (redis-on-kwok.ts), driven by the real controller with the `redis` and `zone-shift` reconcilers. A ZoneShift of
 * one zone, as the CLI writes it, makes the manager fail the zone's master over gracefully (CLUSTER FAILOVER) to
 * its replica in another zone, under continuous writes each acknowledged by `WAIT 1`: not one acknowledged write
 * is lost. No master goes back into the zone while the shift lasts, a controller restart included; once the shift
 * is cancelled, the masters fail back as planned. And the same without a person: the zone's kubelets fall silent,
 * the controller's autoshift shifts the zone by itself, its master fails over gracefully under the same writes, and
 * once the kubelets are back the shift ends and the masters fail back; not one acknowledged write lost.
 */
import { Duration } from 'cdk8s';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { RedisOnKwok, RedisStatus } from './redis-on-kwok';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { WaitAckedWriter } from './wait-acked-writer';
import { silenceZone } from './zone-outage';
import { AUTOSHIFT_POLICY_LABEL } from '../../../src/contract/zone-autoshift';
import { zoneAutoshiftCrd } from '../../../src/contract/zone-autoshift-crd';
import { ZONE_SHIFT_TAINT_KEY } from '../../../src/contract/zone-shift';
import { zoneShiftCrd } from '../../../src/contract/zone-shift-crd';
import { RedisRole } from '../../../src/redis/layout';
import { autoshiftSpec } from '../../../src/zone-controller/autoshift';
import { missingKeys, slotOwners } from '../redis/redis-keys';
import { AWKWARD_PASSWORD } from '../redis/redis-processes';

const { client, info } = testCluster();
const ns = uniqueName('redis-zone-shift');
const NAME = 'cache';
const PASSWORD = AWKWARD_PASSWORD;
const NODE_TIMEOUT_MS = 2000;
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const ZONE = info.zones[0];
const SHIFT = `${ZONE}-impaired`;
const REDIS_INTERVAL_S = 1;
const cluster = new RedisOnKwok(client, info, ns, {
  name: NAME,
  password: PASSWORD,
  nodeTimeoutMs: NODE_TIMEOUT_MS,
  zoneShift: true,
});
const CONTROLLER_ARGS = ['--reconcilers', 'redis,zone-shift', '--redis-namespaces', ns, '--redis-interval', `${REDIS_INTERVAL_S}s`];

/**
 * How soon after the shift's creation its zone must hold no master: the redis reconciler's debounce of a watch
 * event (250 ms, reconcilers/redis-watching.ts), or else its poll (REDIS_INTERVAL_S); a full pass (three API
 * reads, the nodes observed); a first CLUSTER FAILOVER that Redis may abort after its CLUSTER_MF_TIMEOUT (5 s)
 * when the votes come late on a loaded machine; the wait before the replica may stand for election again
 * (Redis's auth_retry_time, 4 x cluster-node-timeout); a second attempt (5 s); and 3 s for the passes' API reads
 * and observations.
 */
const MASTERS_OUT_BOUND_MS = 250 + REDIS_INTERVAL_S * 1000 + 5000 + 4 * NODE_TIMEOUT_MS + 5000 + 3000;

let controller: ControllerProcess | undefined;

/** The ZoneShift `zone impaired` as the CLI writes it: the zone, an expiry a few minutes ahead, a reason. */
const shiftObject = (minutes: number): KubeObject => ({
  apiVersion: GROUP,
  kind: 'ZoneShift',
  metadata: { name: SHIFT },
  spec: {
    zone: ZONE,
    expiresAt: new Date(Date.now() + minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    reason: `${ZONE} impaired (redis-zone-shift.test.ts)`,
  },
});

/** The steps the controller has taken so far (its log), of one kind. */
const steps = (kind: string, c = controller): any[] => c!.logs
  .filter((l) => l.msg === 'redis step' && (l.step as any)?.kind === kind)
  .map((l) => l.step);
/** A graceful failover step to `name`, as the controller logs it. */
const failoverTo = (name: string) => ({ kind: 'failover', on: name, takeover: false });
/** The distinct steps (a step retried after Redis aborted it is logged again). */
const distinct = (xs: readonly object[]) => [...new Set(xs.map((x) => JSON.stringify(x)))].map((x) => JSON.parse(x));
const zoneOf = (name: string) => cluster.redis.inventory.find((n) => n.name === name)!.zone;

interface Masters {
  /** Each node that says it is a master serving slots, with its slot ranges. */
  readonly masters: Map<string, [number, number][]>;
  /** How many slots some master says it serves (each once). */
  readonly served: number;
}

/** The masters as the real processes say of themselves (their own line of CLUSTER NODES). */
async function masters(): Promise<Masters> {
  const views = await cluster.selfViews();
  const found = [...views]
    .filter(([, e]) => e.flags.includes('master') && e.slots.length > 0)
    .map(([name, e]) => [name, e.slots] as const);
  const slots = new Set(found.flatMap(([, ranges]) => ranges.flatMap(([a, b]) =>
    Array.from({ length: b - a + 1 }, (_, i) => a + i))));
  return { masters: new Map(found), served: slots.size };
}

const describeMasters = (m: Masters) => {
  const described = [...m.masters].map(([n, r]) => `${n} (${zoneOf(n)}) ${JSON.stringify(r)}`);
  return `${m.served} slots served; masters: ${described.join(', ')}`;
};
const inZone = (m: Masters) => [...m.masters.keys()].filter((n) => zoneOf(n) === ZONE);

/** Until no master is in the zone and every slot is served (by masters elsewhere, then); the time it took. */
async function untilMastersOut(timeoutMs: number): Promise<number> {
  const started = Date.now();
  await waitFor(`no master in ${ZONE}, every slot served`, async () => {
    controller?.assertRunning();
    const m = await masters();
    return { done: inZone(m).length === 0 && m.served === 16384, state: describeMasters(m) };
  }, { timeoutMs, intervalMs: 50 });
  return Date.now() - started;
}

/** Samples the masters until stopped; keeps every sample with a master in the zone. */
function watchZoneMasters(): { stop(): Promise<string[]> } {
  const seen: string[] = [];
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const m = await masters().catch(() => undefined);
      if (m && inZone(m).length > 0) seen.push(`${new Date().toISOString()} ${describeMasters(m)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { stop: async () => { stopped = true; await running; return seen; } };
}

/**
 * The cluster as planned: healthy, each shard's slots on its planned master (as redis-server says), one master per
 * zone.
 */
async function expectPlanned(s: RedisStatus): Promise<void> {
  const { layout } = cluster;
  expect({ healthy: s.healthy, issues: s.issues, slotsServed: s.slotsServed })
    .toEqual({ healthy: true, issues: [], slotsServed: 16384 });
  expect(s.mastersPerZone).toEqual(Object.fromEntries(info.zones.map((z) => [z, 1])));
  expect(s.nodes.map((n) => [n.name, n.role])).toEqual(layout.nodes.map((p) => [p.name, p.role]));
  const owners = await slotOwners(cluster.redis.inventory[0].address, PASSWORD);
  for (const shard of layout.shards) {
    const servedBy = new Set(owners.slice(shard.slotStart, shard.slotEnd + 1));
    expect([shard.index, servedBy]).toEqual([shard.index, new Set([cluster.address(shard.master)])]);
  }
}

/** A writer over every shard's slots, from `prefix`. */
function startWriter(prefix: string): Promise<WaitAckedWriter> {
  return WaitAckedWriter.start({
    seeds: () => cluster.redis.live().map((n) => n.address),
    password: PASSWORD,
    ranges: cluster.layout.shards.map((s) => [s.slotStart, s.slotEnd]),
    prefix,
  });
}

/** Stops the writer and reads every acknowledged key back: none may be missing. */
async function expectNoAcknowledgedWriteLost(writer: WaitAckedWriter, what: string): Promise<void> {
  await writer.stop();
  const missing = await missingKeys(cluster.redis.inventory, writer.acked, PASSWORD);
  console.log(`${what}: ${writer.summary()}; acknowledged writes lost: ${missing.length}`);
  expect(writer.acked.size).toBeGreaterThan(0);
  expect(missing).toEqual([]);
}

/** Nodes by name with the shift's taint. */
async function taintedNodes(): Promise<string[]> {
  const nodes = await client.list<any>('v1', 'Node');
  return nodes
    .filter((n) => (n.spec.taints ?? []).some((t: any) => t.key === ZONE_SHIFT_TAINT_KEY))
    .map((n) => n.metadata.name)
    .sort();
}

afterAll(async () => {
  await controller?.stop();
  await client.delete(GROUP, 'ZoneShift', SHIFT).catch(() => undefined);
  await client.delete(GROUP, 'ZoneAutoshift', POLICY).catch(() => undefined);
  for (const s of await autoshifts().catch(() => [])) {
    await client.delete(GROUP, 'ZoneShift', s.metadata.name).catch(() => undefined);
  }
  await cluster.close();
  await deleteNamespace(client, ns);
  client.close();
});

let shardOfZone: { master: string; heir: string };

/** The last test's autoshift policy: the defaults (a Lease stale after 40 s, impaired for 20 s), a short recovery. */
const POLICY = uniqueName('redis-autoshift');
const autoshifts = () => client.list<any>(GROUP, 'ZoneShift', { labelSelector: `${AUTOSHIFT_POLICY_LABEL}=${POLICY}` });

test('the cluster runs as planned: real redis-server processes on their kwok pod IPs, the controller with the redis and zone-shift reconcilers', async () => {
  const manifests = [zoneShiftCrd() as KubeObject, ...cluster.manifests()];
  const { applied, rejections } = await applyManifests(client, manifests, ns);
  expect(rejections).toEqual([]);
  const started = new Date();
  controller = await ControllerProcess.start(info, 'redis-zone-shift', CONTROLLER_ARGS);
  await cluster.runAllPods(applied, controller);
  await expectPlanned(await cluster.statusWhere('a healthy cluster', started, (x) => x.healthy, controller));
  const shard = cluster.layout.shards.find((x) => cluster.layout.node(x.master).zone === ZONE)!;
  shardOfZone = { master: shard.master, heir: shard.replicas[0] };
  expect(zoneOf(shardOfZone.heir)).not.toBe(ZONE);
});

test(`a ZoneShift of ${ZONE}: its master fails over gracefully within the bound, every slot served, and stays out; no acknowledged write lost`, async () => {
  const writer = await startWriter('shift');
  try {
    await writer.untilMoreAcked(300);
    const failoversBefore = steps('failover').length;
    await client.create(shiftObject(10));
    const ms = await untilMastersOut(MASTERS_OUT_BOUND_MS);
    console.log(`shift of ${ZONE}: no master there, every slot served, ${ms} ms after the ZoneShift was created (bound ${MASTERS_OUT_BOUND_MS} ms)`);
    // graceful failovers (one, or a retry of one Redis aborted), to the replica of the zone's master (in another
    // zone); no forced one
    expect(distinct(steps('failover').slice(failoversBefore))).toEqual([failoverTo(shardOfZone.heir)]);
    expect(steps('force-failover')).toEqual([]);
    const since = new Date();
    await writer.untilMoreAcked(500); // writes go on, to the new master
    // held while the shift lasts: five more full passes, no master back in the zone
    const watch = watchZoneMasters();
    let passes = 0;
    let last = since;
    const s = await cluster.statusWhere(`${ZONE} without a master for 5 passes`, since, (x) => {
      if (new Date(x.updated) > last) [passes, last] = [passes + 1, new Date(x.updated)];
      return x.mastersPerZone[ZONE] === 0 && passes >= 5;
    }, controller);
    expect(await watch.stop()).toEqual([]);
    expect(s.slotsServed).toBe(16384);
    expect(s.nodes.filter((n) => n.role === RedisRole.MASTER).map((n) => n.zone)).not.toContain(ZONE);
    const shift = await client.get<any>(GROUP, 'ZoneShift', SHIFT);
    expect(shift.status).toMatchObject({ phase: 'Active' });
  } finally {
    await expectNoAcknowledgedWriteLost(writer, `shift of ${ZONE}`);
  }
});

test('a controller restart mid-shift moves no master back into the zone', async () => {
  const writer = await startWriter('restart');
  const watch = watchZoneMasters();
  try {
    await writer.untilMoreAcked(100);
    await controller!.stop();
    const restarted = new Date();
    controller = await ControllerProcess.start(info, 'redis-zone-shift-2', CONTROLLER_ARGS);
    let passes = 0;
    let last = restarted;
    await cluster.statusWhere('3 passes of the restarted controller', restarted, (x) => {
      if (new Date(x.updated) > last) [passes, last] = [passes + 1, new Date(x.updated)];
      return passes >= 3;
    }, controller);
    await writer.untilMoreAcked(100);
    expect(await watch.stop()).toEqual([]);
    expect(steps('failover')).toEqual([]);
    expect(controller.logs.filter((l) => l.reconciler === 'redis' && (l.level === 'warn' || l.level === 'error'))).toEqual([]);
  } finally {
    await watch.stop();
    await expectNoAcknowledgedWriteLost(writer, 'controller restart mid-shift');
  }
});

test('the shift cancelled: the masters fail back as planned, the taints go, then the shift; no acknowledged write lost', async () => {
  const writer = await startWriter('cancel');
  try {
    await writer.untilMoreAcked(100);
    const since = new Date();
    await client.delete(GROUP, 'ZoneShift', SHIFT);
    await expectPlanned(await cluster.statusWhere('the masters back as planned, healthy', since, (x) => x.healthy, controller));
    // the zone's planned master, a replica in sync during the shift, took its shard back (gracefully; a retry allowed)
    expect(distinct(steps('failover'))).toEqual([failoverTo(shardOfZone.master)]);
    await waitFor('the cancelled shift gone (its finalizer removed once undone)', async () => ({ done: !(await client.find(GROUP, 'ZoneShift', SHIFT)) }));
    expect(await taintedNodes()).toEqual([]);
    await writer.untilMoreAcked(100);
  } finally {
    await expectNoAcknowledgedWriteLost(writer, 'cancel');
  }
});

test(`an autoshift: ${ZONE}'s kubelets fall silent, the controller shifts it by itself, its master fails over gracefully; back once healthy; no acknowledged write lost`, async () => {
  const policy = {
    apiVersion: GROUP,
    kind: 'ZoneAutoshift',
    metadata: { name: POLICY },
    spec: autoshiftSpec('redis-zone-shift.test.ts', { recoveredFor: Duration.seconds(10), minDuration: Duration.seconds(10) }),
  };
  expect((await applyManifests(client, [zoneAutoshiftCrd() as KubeObject, policy], ns)).rejections).toEqual([]);
  await controller!.stop();
  const args = CONTROLLER_ARGS.map((a) => (a === 'redis,zone-shift' ? 'redis,zone-shift,zone-autoshift' : a));
  controller = await ControllerProcess.start(info, 'redis-zone-shift-auto', [...args, '--autoshift-policy', POLICY]);
  const writer = await startWriter('autoshift');
  try {
    await writer.untilMoreAcked(300);
    const outage = await silenceZone({ client, info }, ZONE);
    const silenced = Date.now();
    try {
      const shift = await waitFor(`the autoshift of ${ZONE}`, async () => {
        controller!.assertRunning();
        const found = await autoshifts();
        return { done: found.length > 0, value: found[0] };
      }, { timeoutMs: 150_000, intervalMs: 250 });
      expect(shift.spec.zone).toBe(ZONE);
      const ms = await untilMastersOut(MASTERS_OUT_BOUND_MS);
      console.log(`autoshift of ${ZONE}: shifted ${((Date.now() - silenced - ms) / 1000).toFixed(1)} s after its kubelets fell silent; ` +
        `no master there ${ms} ms later`);
      expect(distinct(steps('failover'))).toEqual([failoverTo(shardOfZone.heir)]);
      expect(steps('force-failover')).toEqual([]);
      await writer.untilMoreAcked(300);
    } finally {
      await outage.restore();
    }
    const back = new Date();
    await waitFor('the autoshift ended and undone', async () => ({ done: (await autoshifts()).length === 0 }), { timeoutMs: 120_000 });
    await expectPlanned(await cluster.statusWhere('the masters back as planned, healthy', back, (x) => x.healthy, controller));
    expect(distinct(steps('failover'))).toEqual([failoverTo(shardOfZone.heir), failoverTo(shardOfZone.master)]);
  } finally {
    await expectNoAcknowledgedWriteLost(writer, `autoshift of ${ZONE}`);
  }
});
