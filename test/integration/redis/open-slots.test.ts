/**
 * An interrupted resharding, with real redis-server processes: a slot's migration from shard 0's master to
 * shard 1's stops half way (the keys split between the two nodes, the slot left MIGRATING and/or IMPORTING),
 * as when the manager or a node is killed during a `migrate`. The manager closes the slot (completing the
 * move, as `redis-cli --cluster fix` does), its reshard phase moves the slot back to its planned shard, and no
 * key is lost. Three ways to be left open: both sides, only the owner's MIGRATING, only the target's
 * IMPORTING.
 */
import { missingKeys, slotOwners, writeKeys } from './redis-keys';
import { AWKWARD_PASSWORD, RedisProcesses } from './redis-processes';
import { createLogger } from '../../../controller/src/log';
import { splitAddress } from '../../../controller/src/redis/executor';
import { RedisClusterManager } from '../../../controller/src/redis/manager';
import { RedisShardLayout } from '../../../src/redis/layout';

const layout = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 });
const password = AWKWARD_PASSWORD;
const redis = new RedisProcesses(1000, password);
const logged: any[] = [];
let manager: RedisClusterManager;
const keys = new Map<string, string>();

/** The masters of shards 0 and 1: a migration between them is interrupted. */
const [SRC, DST] = [layout.shards[0].master, layout.shards[1].master];
const address = (name: string) => redis.inventory.find((n) => n.name === name)!.address;
const call = (name: string, ...args: (string | number)[]) => manager.redis.call(address(name), ...args);
const myId = async (name: string) => (await call(name, 'CLUSTER', 'MYID')) as string;
const openSlots = async () => {
  const open: string[] = [];
  for (const n of redis.inventory) {
    const nodes = (await call(n.name, 'CLUSTER', 'NODES')) as string;
    const mine = nodes.split('\n').find((l) => l.includes('myself'))!;
    open.push(...mine.split(' ').filter((t) => t.startsWith('[')).map((t) => `${n.name} ${t}`));
  }
  return open;
};

beforeAll(async () => {
  await redis.addLayout(layout);
  const log = createLogger({ write: (line) => logged.push(JSON.parse(line)) });
  manager = new RedisClusterManager(layout, redis.inventory, { timeoutMs: 60_000, password, log });
  expect((await manager.converge()).healthy).toBe(true);
  const { acked } = await writeKeys(await slotOwners(address(SRC), password), 'k', 20_000, password);
  expect(acked.size).toBe(20_000);
  for (const [k, v] of acked) keys.set(k, v);
});
afterAll(async () => {
  manager?.close();
  await redis.close();
});

/** The slot of shard 0 (on SRC) holding the most keys, for a migration to interrupt. */
async function busiestSlotOfSrc(): Promise<number> {
  const shard = layout.shards[0];
  let best = shard.slotStart;
  let most = -1;
  for (let s = shard.slotStart; s <= shard.slotEnd; s += 1) {
    const count = Number(await call(SRC, 'CLUSTER', 'COUNTKEYSINSLOT', s));
    if (count > most) [best, most] = [s, count];
  }
  expect(most).toBeGreaterThan(1);
  return best;
}

/** Moves half the keys of `slot` from SRC to DST, as an interrupted `migrate` leaves them. */
async function moveHalf(slot: number): Promise<number> {
  const slotKeys = (await call(SRC, 'CLUSTER', 'GETKEYSINSLOT', slot, 1000)) as string[];
  const half = slotKeys.slice(0, Math.ceil(slotKeys.length / 2));
  const [host, port] = splitAddress(address(DST));
  await call(SRC, 'MIGRATE', host, port, '', 0, 10_000, 'AUTH', password, 'KEYS', ...half);
  return half.length;
}

test.each([
  ['MIGRATING on the owner and IMPORTING on the target', true, true],
  ['only MIGRATING on the owner (the target cleared its state)', true, false],
  ['only IMPORTING on the target (the owner restarted its migration state away)', false, true],
])('a migration interrupted with %s: closed, the slot back on its planned shard, no key lost', async (_, migrating, importing) => {
  const slot = await busiestSlotOfSrc();
  const [srcId, dstId] = [await myId(SRC), await myId(DST)];
  await call(DST, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', srcId);
  await call(SRC, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', dstId);
  expect(await moveHalf(slot)).toBeGreaterThan(0);
  if (!importing) await call(DST, 'CLUSTER', 'SETSLOT', slot, 'STABLE');
  if (!migrating) await call(SRC, 'CLUSTER', 'SETSLOT', slot, 'STABLE');
  expect((await openSlots()).length).toBeGreaterThan(0);

  logged.length = 0;
  const state = await manager.converge();
  expect({ healthy: state.healthy, issues: state.issues }).toEqual({ healthy: true, issues: [] });
  expect(await openSlots()).toEqual([]);
  const steps = logged.filter((l) => l.msg === 'redis step').map((l) => l.step);
  // closed towards DST, then moved back to SRC by the reshard phase
  expect(steps).toEqual([
    { kind: 'migrate', from: SRC, to: DST, toId: dstId, ranges: [[slot, slot]] },
    { kind: 'migrate', from: DST, to: SRC, toId: srcId, ranges: [[slot, slot]] },
  ]);
  expect((await slotOwners(address('c-0'), password))[slot]).toBe(address(SRC));
  expect(await missingKeys(redis.inventory, keys, password)).toEqual([]);
  // the slot's keys are all on SRC again, none left on DST
  expect([Number(await call(SRC, 'CLUSTER', 'COUNTKEYSINSLOT', slot)) > 1, Number(await call(DST, 'CLUSTER', 'COUNTKEYSINSLOT', slot))]).toEqual([true, 0]);
});
