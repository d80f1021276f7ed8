/**
 * A zone lost for good, with real redis-server processes (docs/runbooks/zone-lost.md): 3 masters x 1 replica
 * over zones a, b, c hold keys acknowledged by replicas; zone c's nodes are killed and never come back (their
 * volumes gone with the zone). The layout is then planned over zones a, b, d (the topology with c replaced),
 * d's nodes start empty, and the manager, given the new layout and the live nodes, restores the plan: c's
 * nodes forgotten everywhere, d's nodes in their planned shards and roles, one master per zone, no key lost.
 */
import { missingKeys, slotOwners, untilServedAndWritable, writeKeys } from './redis-keys';
import { AWKWARD_PASSWORD, RedisProcesses } from './redis-processes';
import { createLogger } from '../../../controller/src/log';
import { failoverOptions, RedisClusterManager } from '../../../controller/src/redis/manager';
import { RedisShardLayout } from '../../../src/redis/layout';

const NODE_TIMEOUT_MS = 1000;
const before = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 });
const after = RedisShardLayout.plan({ zones: ['a', 'b', 'd'], masters: 3, replicasPerMaster: 1 });
const password = AWKWARD_PASSWORD;
const redis = new RedisProcesses(NODE_TIMEOUT_MS, password);
const managers: RedisClusterManager[] = [];
const acked = new Map<string, string>();

const manager = (layout: RedisShardLayout) => {
  const m = new RedisClusterManager(layout, redis.inventory, {
    timeoutMs: 60_000, password, ...failoverOptions(redis.layoutConfigMap), log: createLogger({ level: 'warn' }),
  });
  managers.push(m);
  return m;
};

afterAll(async () => {
  managers.forEach((m) => m.close());
  await redis.close();
});

test('zones a, b, c: bootstrapped, keys acknowledged by replicas', async () => {
  await redis.addLayout(before);
  expect((await manager(before).converge()).healthy).toBe(true);
  const owners = await slotOwners(redis.inventory[0].address, password);
  const { acked: replicated } = await writeKeys(owners, 'before', 3000, password);
  expect(replicated.size).toBe(3000);
  for (const [k, v] of replicated) acked.set(k, v);
});

test('zone c lost for good: its master fails over, its nodes are gone with their volumes', async () => {
  const m = manager(before);
  expect(await redis.killZone('c')).toEqual(['c-0', 'c-1']);
  for (const n of ['c-0', 'c-1']) await redis.remove(n);
  m.inventory = redis.inventory;
  const state = await m.converge({ timeoutMs: 15_000 });
  expect(state.slotsServed).toBe(16384);
  const { acked: during } = await untilServedAndWritable(redis, 'without-c');
  for (const [k, v] of during) acked.set(k, v);
  expect(await missingKeys(redis.live(), acked, password)).toEqual([]);
});

test('the topology with zone d instead of c: d\'s empty nodes take c\'s places in the plan, c\'s are forgotten, nothing is lost', async () => {
  // the nodes of a and b keep their names, shards and roles in the new plan: only c's are replaced
  const sameNodes = (layout: RedisShardLayout) => layout.nodes
    .filter((n) => n.zone !== 'c' && n.zone !== 'd')
    .map((n) => [n.name, n.shard, n.role]);
  expect(sameNodes(after)).toEqual(sameNodes(before));
  await redis.addLayout(after);
  expect(redis.inventory.map((n) => n.name).sort()).toEqual(['a-0', 'a-1', 'b-0', 'b-1', 'd-0', 'd-1']);
  const state = await manager(after).converge();
  expect({ healthy: state.healthy, issues: state.issues }).toEqual({ healthy: true, issues: [] });
  expect(state.nodes.map((n) => [n.name, n.role])).toEqual(after.nodes.map((n) => [n.name, n.role]));
  expect(state.mastersPerZone).toEqual({ a: 1, b: 1, d: 1 });
  // every live node's view holds exactly the six live nodes: c's are forgotten
  const addresses = new Set(redis.inventory.map((n) => n.address));
  for (const n of redis.inventory) {
    const known = ((await managers[managers.length - 1].redis.call(n.address, 'CLUSTER', 'NODES')) as string)
      .trim().split('\n').map((line) => line.split(' ')[1].split('@')[0]);
    expect([n.name, new Set(known)]).toEqual([n.name, addresses]);
  }
  const owners = await slotOwners(redis.inventory[0].address, password);
  for (const shard of after.shards) {
    const master = redis.inventory.find((n) => n.name === shard.master)!.address;
    const servedBy = new Set(owners.slice(shard.slotStart, shard.slotEnd + 1));
    expect([shard.index, servedBy]).toEqual([shard.index, new Set([master])]);
  }
  expect(await missingKeys(redis.inventory, acked, password)).toEqual([]);
});
