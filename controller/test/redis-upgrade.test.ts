import { FakeCluster } from './redis-fake-cluster';
import { RedisShardLayout } from '../../src/redis/layout';
import { decide, summarize } from '../src/redis/decide';
import { decideScale } from '../src/redis/scale';
import { decideUpgrade, outdatedNodes, Replacement } from '../src/redis/upgrade';

const zones = ['a', 'b', 'c'];
const three = RedisShardLayout.plan({ zones, masters: 3, replicasPerMaster: 1 });
const inventoryOf = (layout: RedisShardLayout) => layout.nodes.map((n, i) => ({
  name: n.name,
  zone: n.zone,
  address: `10.0.0.${i}:6379`,
}));

function planned(layout = three): FakeCluster {
  const fake = new FakeCluster(inventoryOf(layout));
  fake.run((nodes) => decide(layout, nodes));
  return fake;
}

function upgrade(fake: FakeCluster, outdated: Iterable<string>, layout = three, maxPerPass?: number) {
  const nodes = fake.observe();
  const healthy = summarize(layout, nodes, decide(layout, nodes)).healthy;
  return decideUpgrade({ layout, nodes, healthy, outdated: new Set(outdated), maxPerPass });
}

/**
 * Runs the rollout on the fake as the reconciler does: a replaced pod comes back at once with its data (a
 * replaced master, already failed over, rejoins as a replica), the manager converges (fails it back), next pass.
 * Returns what each pass replaced.
 */
function rollout(fake: FakeCluster, layout: RedisShardLayout, maxPerPass?: number): Replacement[][] {
  const outdated = new Set(layout.nodes.map((n) => n.name));
  const passes: Replacement[][] = [];
  for (let i = 0; i < 50 && outdated.size > 0; i++) {
    const d = upgrade(fake, outdated, layout, maxPerPass);
    expect(d.issues).toEqual([]);
    expect(d.replace.length).toBeGreaterThan(0);
    passes.push(d.replace);
    for (const r of d.replace) {
      if (r.kind === 'master') fake.apply({ kind: 'failover', on: r.heir, takeover: false });
      expect(fake.role(r.node)).toBe('replica'); // never deleted while a master
      fake.kill(r.node);
      // while it is away: nothing else is replaced
      expect(upgrade(fake, outdated, layout, maxPerPass)).toMatchObject({ replace: [], waiting: expect.any(String) });
    }
    for (const r of d.replace) {
      fake.start(r.node);
      outdated.delete(r.node);
    }
    fake.run((nodes) => decide(layout, nodes));
  }
  return passes;
}

describe('replacing out-of-date Redis pods', () => {
  test('nothing out of date: nothing to do, no waiting', () => {
    expect(upgrade(planned(), [])).toEqual({ outdated: [], replace: [], issues: [] });
  });

  test('one pod per pass by default: replicas first, zone after zone, then each master after a failover to a replica in another zone', () => {
    const fake = planned();
    const passes = rollout(fake, three);
    expect(passes).toEqual([
      [{ kind: 'replica', node: 'a-1', zone: 'a' }],
      [{ kind: 'replica', node: 'b-0', zone: 'b' }],
      [{ kind: 'replica', node: 'c-0', zone: 'c' }],
      [{ kind: 'master', node: 'a-0', zone: 'a', heir: 'b-0' }],
      [{ kind: 'master', node: 'b-1', zone: 'b', heir: 'c-0' }],
      [{ kind: 'master', node: 'c-1', zone: 'c', heir: 'a-1' }],
    ]);
    // the planned masters are restored at the end
    const nodes = fake.observe();
    expect(summarize(three, nodes, decide(three, nodes)))
      .toMatchObject({ healthy: true, mastersPerZone: { a: 1, b: 1, c: 1 } });
  });

  test('a per-pass limit above one: several pods of one zone at once, never two zones, never two of one shard', () => {
    const layout = RedisShardLayout.plan({ zones, masters: 6, replicasPerMaster: 2 });
    const passes = rollout(planned(layout), layout, 3);
    for (const pass of passes) {
      expect(pass.length).toBeLessThanOrEqual(3);
      expect(new Set(pass.map((r) => r.zone)).size).toBe(1);
      const shards = pass.map((r) => layout.node(r.node).shard);
      expect(new Set(shards).size).toBe(shards.length);
    }
    // replicas (12) before masters (6)
    const kinds = passes.flat().map((r) => r.kind);
    expect(kinds.lastIndexOf('replica')).toBeLessThan(kinds.indexOf('master'));
    expect(kinds.length).toBe(18);
    expect(passes.length).toBeLessThan(18);
  });

  test('waits while the cluster is not healthy, or a planned node is away', () => {
    const fake = planned();
    fake.kill('c-0');
    expect(upgrade(fake, ['a-1'])).toMatchObject({ replace: [], waiting: expect.stringContaining('not healthy') });
    const nodes = fake.observe().filter((n) => n.name !== 'c-0'); // its pod gone (no IP yet): not in the inventory
    expect(decideUpgrade({ layout: three, nodes, healthy: true, outdated: new Set(['a-1']) }))
      .toMatchObject({ replace: [], waiting: 'planned nodes away: c-0' });
  });

  test('an out-of-date master waits for its replica to be replaced first; one with no replica at all is reported, never deleted', () => {
    const fake = planned();
    // replicas done, but b-0 (a-0's replica) is still out of date: a-0 has no heir
    expect(upgrade(fake, ['a-0', 'b-0']).replace).toEqual([{ kind: 'replica', node: 'b-0', zone: 'b' }]);
    const nodes = fake.observe();
    // a-0 alone: its replica b-0 detached (as if it had been made a master of nothing)
    const b0 = fake.byName('b-0');
    const detached = nodes.map((n) => (n.name !== 'b-0' ? n : {
      ...n, view: n.view!.map((e) => (e.id === b0.id ? { ...e, flags: ['myself', 'master'], masterId: undefined } : e)),
    }));
    const d = decideUpgrade({ layout: three, nodes: detached, healthy: true, outdated: new Set(['a-0']) });
    expect(d).toEqual({
      outdated: ['a-0'],
      replace: [],
      waiting: 'no out-of-date master can fail over',
      issues: [{ kind: 'upgrade-blocked', message: 'master a-0 is out of date but has no replica: deleting it would lose its slots\' keys, so it is not replaced' }],
    });
  });
});

describe('which pods are out of date', () => {
  const sts = (name: string, generation: number, observedGeneration: number, updateRevision?: string) =>
    ({ metadata: { name, generation }, status: { observedGeneration, updateRevision } });

  test('a pod whose revision label differs from its StatefulSet\'s updateRevision', () => {
    expect(outdatedNodes([sts('r-a', 2, 2, 'r-a-new'), sts('r-b', 1, 1, 'r-b-1')], [
      { node: 'a-0', statefulSet: 'r-a', revision: 'r-a-old' },
      { node: 'a-1', statefulSet: 'r-a', revision: 'r-a-new' },
      { node: 'b-0', statefulSet: 'r-b', revision: 'r-b-1' },
      { node: 'b-1', statefulSet: 'r-b' }, // no label yet: not the update revision
    ])).toEqual(new Set(['a-0', 'b-1']));
  });

  test('unknown while a StatefulSet has not observed its latest generation (its updateRevision may be stale)', () => {
    expect(outdatedNodes([sts('r-a', 3, 2, 'r-a-old')], [{ node: 'a-0', statefulSet: 'r-a', revision: 'r-a-old' }])).toBeUndefined();
    expect(outdatedNodes([sts('r-a', 1, 1)], [])).toBeUndefined();
  });
});

describe('the StatefulSets\' replicas, owned by the manager', () => {
  const five = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
  const slug = (z: string) => z;
  const replicasOf = (layout: RedisShardLayout) => zones.map((zone) => ({
    zone,
    statefulSet: `r-${zone}`,
    replicas: layout.nodesPerZone[zone],
  }));

  test('scaled up to the layout at once (a new cluster\'s StatefulSets start at 1)', () => {
    const d = decideScale(three, zones.map((zone) => ({ zone, statefulSet: `r-${zone}`, replicas: 1 })), [], slug);
    expect(d).toEqual({
      changes: zones.map((zone) => ({ zone, statefulSet: `r-${zone}`, replicas: 1, to: 2 })),
      waiting: [],
    });
    expect(decideScale(three, replicasOf(three), planned().observe(), slug)).toEqual({ changes: [], waiting: [] });
  });

  test('masters 5 -> 3: scaled down only once the nodes it would delete are drained of slots and forgotten', () => {
    const fake = planned(five);
    // the new plan, before the manager moved anything: shards 3 and 4 still serve slots, their replicas are known
    let d = decideScale(three, replicasOf(five), fake.observe(), slug);
    expect(d.changes).toEqual([]);
    expect(d.waiting).toEqual([
      'r-a stays at 3 replicas until a-2 still serves 3277 slots',
      'r-b stays at 4 replicas until b-2 is still known by 6 planned node(s) (a-0, ...), b-3 still serves 3277 slots',
      'r-c stays at 3 replicas until c-2 is still known by 6 planned node(s) (a-0, ...)',
    ]);
    // the manager reshards and retires them
    fake.run((nodes) => decide(three, nodes));
    d = decideScale(three, replicasOf(five), fake.observe(), slug);
    expect(d).toEqual({ changes: replicasOf(five).map((z) => ({ ...z, to: 2 })), waiting: [] });
  });

  test('a node already gone (its pod deleted, unknown to the cluster) does not hold a scale-down', () => {
    const fake = planned(three);
    const d = decideScale(three, [{ zone: 'a', statefulSet: 'r-a', replicas: 3 }], fake.observe(), slug);
    expect(d.changes).toEqual([{ zone: 'a', statefulSet: 'r-a', replicas: 3, to: 2 }]);
  });
});
