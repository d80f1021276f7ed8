import { FakeCluster } from './redis-fake-cluster';
import { RedisShardLayout } from '../../src/redis/layout';
import { decide, DecideOptions, summarize } from '../src/redis/decide';

/** What the Redis manager's decision tests share: a planned layout, its inventory, a fake cluster converged on it. */
export const zones = ['a', 'b', 'c'];
export const three = RedisShardLayout.plan({ zones, masters: 3, replicasPerMaster: 1 });
export const inventoryOf = (layout: RedisShardLayout) => layout.nodes.map((n, i) => ({
  name: n.name,
  zone: n.zone,
  address: `10.0.0.${i}:6379`,
}));

export function cluster(layout = three): FakeCluster {
  const fake = new FakeCluster(inventoryOf(layout));
  fake.run((nodes) => decide(layout, nodes));
  return fake;
}
export const converge = (fake: FakeCluster, layout = three, options: DecideOptions = {}) =>
  fake.run((nodes) => decide(layout, nodes, options));
export const kinds = (rounds: { kind: string }[][]) => rounds.map((r) => [...new Set(r.map((s) => s.kind))].join('+'));

/**
 * The fake matches the plan: roles as planned, replicas of their shard's master, each master serving its shard's
 * range.
 */
export function expectPlanned(fake: FakeCluster, layout = three) {
  for (const n of layout.nodes) expect([n.name, fake.role(n.name)]).toEqual([n.name, n.role]);
  for (const shard of layout.shards) {
    const master = fake.byName(shard.master);
    const shardSlots = Array.from({ length: shard.slotEnd - shard.slotStart + 1 }, (_, i) => shard.slotStart + i);
    expect(fake.slotsOf(master.id)).toEqual(shardSlots);
    for (const r of shard.replicas) expect(fake.byName(r).masterId).toBe(master.id);
  }
  const state = summarize(layout, fake.observe(), decide(layout, fake.observe()));
  expect({ healthy: state.healthy, issues: state.issues }).toEqual({ healthy: true, issues: [] });
}
