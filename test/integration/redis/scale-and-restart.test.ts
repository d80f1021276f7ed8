/**
 * Resharding and rolling restarts with real redis-server processes: 3 masters grow to 5 (the manager
 * moves slots with their keys to the new shards; no key is lost), then every node is restarted, replicas
 * first, each master after a failover, while every slot stays served. Every process requires the awkward
 * password (started as the synthesized pods start them); the manager authenticates.
 */
import { missingKeys, slotOwners, slotsClaimedByNone, writeKeys } from './redis-keys';
import { AWKWARD_PASSWORD, RedisProcesses } from './redis-processes';
import { createLogger } from '../../../controller/src/log';
import { RedisClusterManager } from '../../../controller/src/redis/manager';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';

const zones = ['a', 'b', 'c'];
const three = RedisShardLayout.plan({ zones, masters: 3, replicasPerMaster: 1 });
const five = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
const password = AWKWARD_PASSWORD;
const redis = new RedisProcesses(1000, password);
const managers: RedisClusterManager[] = [];
const keys = new Map<string, string>();
const manager = (layout: RedisShardLayout) => {
  const m = new RedisClusterManager(layout, redis.inventory, {
    timeoutMs: 60_000,
    password,
    log: createLogger({ level: 'warn' }),
  });
  managers.push(m);
  return m;
};
const address = (name: string) => redis.inventory.find((n) => n.name === name)!.address;

afterAll(async () => {
  managers.forEach((m) => m.close());
  await redis.close();
});

test('3 masters, bootstrapped with keys acknowledged by replicas', async () => {
  await redis.addLayout(three);
  const state = await manager(three).converge();
  expect(state.healthy).toBe(true);
  const { acked } = await writeKeys(await slotOwners(address('a-0'), password), 'k', 5000, password);
  expect(acked.size).toBe(5000);
  for (const [k, v] of acked) keys.set(k, v);
});

test('scale-up to 5 masters: new nodes join, slots move to the new shards with their keys', async () => {
  await redis.addLayout(five);
  expect(redis.inventory).toHaveLength(10);
  const state = await manager(five).converge();
  expect({ healthy: state.healthy, issues: state.issues }).toEqual({ healthy: true, issues: [] });
  const owners = await slotOwners(address('a-0'), password);
  for (const shard of five.shards) {
    expect(new Set(owners.slice(shard.slotStart, shard.slotEnd + 1))).toEqual(new Set([address(shard.master)]));
  }
  for (const n of state.nodes) expect([n.name, n.role]).toEqual([n.name, n.plannedRole]);
  expect(Math.max(...Object.values(state.mastersPerZone))).toBeLessThanOrEqual(five.maxMastersPerZone);
  expect(await missingKeys(redis.inventory, keys, password)).toEqual([]);
});

test('rolling restart: replicas first, masters after a failover; every slot served throughout, nothing lost', async () => {
  const m = manager(five);
  const pids = new Map(redis.inventory.map((n) => [n.name, redis.pid(n.name)]));
  const order: string[] = [];
  const unserved: number[] = [];
  let watching = true;
  // each slot's owner, as the live masters claim their own slots: another node's view can lag a failover
  const watcher = (async () => {
    while (watching) {
      const live = redis.inventory.filter((n) => redis.pid(n.name) !== undefined).map((n) => n.address);
      const none = await slotsClaimedByNone(live, password);
      if (none !== undefined) unserved.push(none);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const final = await m.rollingRestart(async (node) => {
    order.push(node.name);
    await redis.kill(node.name);
    await redis.start(node.name);
  });
  watching = false;
  await watcher;

  expect(final.healthy).toBe(true);
  expect([...order].sort()).toEqual(redis.inventory.map((n) => n.name).sort());
  // replicas (planned) came first
  const replicas = five.nodes.filter((n) => n.role === RedisRole.REPLICA).map((n) => n.name);
  expect(order.slice(0, replicas.length).sort()).toEqual([...replicas].sort());
  for (const n of redis.inventory) expect(redis.pid(n.name)).not.toBe(pids.get(n.name));
  expect(unserved.length).toBeGreaterThan(0);
  expect(Math.max(...unserved)).toBe(0);
  expect(await missingKeys(redis.inventory, keys, password)).toEqual([]);
});
