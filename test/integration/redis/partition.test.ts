/**
 * A zone cut off, not killed, with real redis-server processes: 3 masters x 1 replica over zones a, b, c
 * (started as the synthesized pods start them, with the password), each zone on its own loopback address
 * behind proxies the test partitions (zone-network.ts). Zone a's nodes run on and keep their data; a client
 * inside zone a still reaches them, but nothing passes between zone a and the rest: the manager (with the
 * synthesized layout ConfigMap's failover policy) and a client on the majority side. Both clients write
 * throughout, a write acknowledged when a replica confirms it (WAIT 1), or by the master's OK where it has no
 * replica left.
 *
 * The manager fails zone a's master over (CLUSTER FAILOVER FORCE, elected by the majority's masters) before
 * Redis would; when the partition heals, the old master rejoins as a replica and the manager fails it back.
 * No acknowledged write is lost; the writes lost are exactly some of those zone a's master took while cut off,
 * which no replica acknowledged: Redis's documented limit.
 */
import { ContinuousWriter } from './continuous-writer';
import { missingKeys, nodeClient, slotOwners } from './redis-keys';
import { keepConverging } from './redis-manager-runs';
import { AWKWARD_PASSWORD, RedisProcesses } from './redis-processes';
import { ZoneNetwork } from './zone-network';
import { createLogger } from '../../../controller/src/log';
import { ClusterState } from '../../../controller/src/redis/decide';
import { parseClusterNodes } from '../../../controller/src/redis/executor';
import { failoverBudgetMs } from '../../../controller/src/redis/graceful-failover';
import { failoverOptions, RedisClusterManager } from '../../../controller/src/redis/manager';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';
import { waitFor } from '../processes';

// the construct's default: the manager acts after 1.25 s of silence, Redis alone after about 8.7 s
const NODE_TIMEOUT_MS = 5000;
// healed, zone a's old master hears it lost its slots and syncs as a replica (gossip reaches every node within the
// node timeout; a few thousand keys), then the fail-back may take a graceful failover's budget (one retry included)
const FAIL_BACK_BOUND_MS = 2 * NODE_TIMEOUT_MS + failoverBudgetMs(NODE_TIMEOUT_MS);
const zones = ['a', 'b', 'c'];
const layout = RedisShardLayout.plan({ zones, masters: 3, replicasPerMaster: 1 });
const password = AWKWARD_PASSWORD;
const network = new ZoneNetwork(zones);
const redis = new RedisProcesses(NODE_TIMEOUT_MS, password, network);
const logged: any[] = [];
let manager: RedisClusterManager;

const address = (name: string) => redis.inventory.find((n) => n.name === name)!.address;
const addresses = (inZones: string[]) => redis.inventory.filter((n) => inZones.includes(n.zone)).map((n) => n.address);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const steps = () => logged.filter((l) => l.msg === 'redis step').map((l) => l.step);

beforeAll(async () => {
  await redis.addLayout(layout);
  manager = new RedisClusterManager(layout, redis.inventory, {
    timeoutMs: 60_000,
    password,
    ...failoverOptions(redis.layoutConfigMap),
    log: createLogger({ write: (line) => logged.push(JSON.parse(line)) }),
  });
  expect((await manager.converge()).healthy).toBe(true);
  logged.length = 0; // the bootstrap's steps
});
afterAll(async () => {
  manager?.close();
  await redis.close();
  await network.close();
});

test('the nodes talk through the zones\' proxies: each zone on its own address, as the nodes announce it', async () => {
  for (const n of redis.inventory) {
    const zoneAddress = network.address(n.zone).replace(/\./g, '\\.');
    expect([n.name, n.address]).toEqual([n.name, expect.stringMatching(`^${zoneAddress}:`)]);
  }
  const owners = await slotOwners(address('b-1'), password);
  for (const shard of layout.shards) {
    expect([shard.index, owners[shard.slotStart]]).toEqual([shard.index, address(shard.master)]);
  }
});

test('zone a cut off while clients write: failed over by the manager, healed, no acknowledged write lost', async () => {
  const shard0 = layout.shards[0];
  expect([shard0.master, shard0.replicas]).toEqual(['a-0', ['b-0']]);
  const majority = await ContinuousWriter.start({
    seeds: () => addresses(['b', 'c']), ranges: layout.shards.map((s) => [s.slotStart, s.slotEnd]), prefix: 'majority', password,
  });
  const minority = await ContinuousWriter.start({
    seeds: () => addresses(['a']),
    ranges: [[shard0.slotStart, shard0.slotEnd]],
    prefix: 'minority',
    password,
    Connector: network.clientFrom('a'),
  });
  const [slot0] = [...majority.tags.keys()].filter((s) => s >= shard0.slotStart && s <= shard0.slotEnd);
  const ofShard0 = (keys: Iterable<string>) => [...keys].filter((k) => k.startsWith(`{${majority.tags.get(slot0)}}:`));
  const running = keepConverging(manager);
  const survivors = layout.shards.filter((s) => s !== shard0).map((s) => s.master);
  let failedOverAt: number;
  let unansweredSince: number[];
  let shard0AckedWhileCut: string[];
  try {
    // both write, acknowledged by replicas (however slow the machine: no fixed time)
    const bothAcked = async () => (majority.acked.size > 0 && minority.acked.size > 0 ? true : undefined);
    await waitFor('writes of both clients acknowledged', NODE_TIMEOUT_MS, bothAcked);

    const cut = Date.now();
    network.isolate('a');
    const ackedAtCut = new Set(majority.acked.keys());
    const writtenAtCut = new Set(minority.written.keys());
    while ((await slotOwners(address('b-1'), password))[slot0] !== address('b-0')) {
      if (Date.now() - cut > 20_000) throw new Error('shard 0 not failed over to b-0 after 20 s');
      await sleep(20);
    }
    failedOverAt = Date.now();
    unansweredSince = await Promise.all(survivors.map((m) => pingUnansweredSince(m, 'a-0')));
    // writes go on: the majority's to b-0, the minority's to zone a's old master (which no replica confirms)
    await waitFor('writes on both sides of the cut', NODE_TIMEOUT_MS, async () => {
      const majoritySide = ofShard0(majority.acked.keys()).some((k) => !ackedAtCut.has(k));
      return majoritySide && [...minority.written.keys()].some((k) => !writtenAtCut.has(k)) ? true : undefined;
    });
    shard0AckedWhileCut = ofShard0(majority.acked.keys()).filter((k) => !ackedAtCut.has(k));
    await minority.stop(); // its acknowledged writes are checked below: none after the cut
    network.heal();
    await untilPlanned('the planned layout again (zone a\'s master failed back)', FAIL_BACK_BOUND_MS, logged.length);
    await sleep(1000); // writes to the failed-back master, acknowledged by b-0, its replica again
  } finally {
    await running.stop();
    await majority.stop();
    await minority.stop();
  }

  // The manager failed the master over sooner than Redis can: Redis flags a master failing once a majority of the
  // masters has had a ping to it unanswered for the node timeout, and elects a replica at least 500 ms later
  // (counted from the same pings, which Redis sends up to half a node timeout after the cut). Back, the old master
  // rejoined as a replica in sync and was failed back gracefully.
  expect(steps()).toEqual([{ kind: 'force-failover', on: 'b-0', master: 'a-0', zone: 'a' }, { kind: 'failover', on: 'a-0', takeover: false }]);
  expect(logged.filter((l) => l.msg === 'redis failover').map((l) => [l.on, l.outcome])).toEqual([['b-0', 'promoted'], ['a-0', 'promoted']]);
  expect(logged.filter((l) => l.level === 'warn')).toEqual([]);
  expect(failedOverAt - Math.max(...unansweredSince)).toBeLessThan(NODE_TIMEOUT_MS + 500);
  expect(shard0AckedWhileCut.length).toBeGreaterThan(0); // shard 0 took writes again while zone a was cut off
  const state = await manager.state();
  expect(state.nodes.map((n) => [n.name, n.role])).toEqual(layout.nodes.map((n) => [n.name, n.role]));
  expect(state.nodes.find((n) => n.name === 'b-0')).toMatchObject({ role: RedisRole.REPLICA, master: 'a-0' });

  // No acknowledged write is lost, on either side.
  expect(await missingKeys(redis.inventory, majority.acked, password)).toEqual([]);
  expect(await missingKeys(redis.inventory, minority.acked, password)).toEqual([]);
  // Writes zone a's old master took while cut off were confirmed by no replica, and are gone: Redis's
  // asynchronous replication loses what a master partitioned away took without replicating it.
  const lost = await missingKeys(redis.inventory, minority.written, password);
  expect(lost.length).toBeGreaterThan(0);
  expect(lost.filter((k) => minority.acked.has(k))).toEqual([]);
});

/**
 * Waits until the manager sees the cluster healthy with every node in its planned role; on timeout, fails with
 * the manager's last state and its log from line `logFrom` on (what it tried, what Redis answered).
 */
async function untilPlanned(what: string, timeoutMs: number, logFrom: number): Promise<void> {
  let last: ClusterState | undefined;
  await waitFor(what, timeoutMs, async () => {
    last = await manager.state();
    return last.healthy && last.nodes.every((n) => n.role === n.plannedRole) ? true : undefined;
  }).catch((error: Error) => {
    const roles = last?.nodes.map((n) => `${n.name}: ${n.role ?? 'unreachable'} (planned ${n.plannedRole})`);
    const state = { issues: last?.issues, nextSteps: last?.nextSteps, roles };
    const logSince = logged.slice(logFrom).map((l) => JSON.stringify(l)).join('\n');
    throw new Error(`${error.message}\nmanager's state: ${JSON.stringify(state, undefined, 2)}\nits log since: ${logSince}`);
  });
}

/** Since when (its clock, ms) master `viewer`'s ping to node `name` has gone unanswered (CLUSTER NODES). */
async function pingUnansweredSince(viewer: string, name: string): Promise<number> {
  const client = nodeClient(address(viewer), password);
  try {
    const entry = parseClusterNodes(await client.call('CLUSTER', 'NODES') as string).find((e) => e.address === address(name));
    if (entry?.pingPendingSinceMs === undefined) throw new Error(`${viewer} has no ping to ${name} pending, though ${name} is cut off`);
    return entry.pingPendingSinceMs;
  } finally {
    client.disconnect();
  }
}
