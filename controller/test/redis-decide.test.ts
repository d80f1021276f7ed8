// fast-check is a dev dependency of the workspace root, whose jest runs these tests
// eslint-disable-next-line import/no-extraneous-dependencies
import * as fc from 'fast-check';
import { cluster, converge, expectPlanned, inventoryOf, kinds, three, zones } from './redis-decide-fixtures';
import { FakeCluster } from './redis-fake-cluster';
import { RedisRole, RedisShardLayout } from '../../src/redis/layout';
import { decide, summarize } from '../src/redis/decide';

describe('Redis cluster manager decisions (fake cluster)', () => {
  test('bootstrap: meet everyone, assign each shard its slots, then attach the replicas', () => {
    const fake = new FakeCluster(inventoryOf(three));
    const rounds = converge(fake);
    expect(kinds(rounds)).toEqual(['meet', 'add-slots', 'replicate']);
    expect(rounds[1]).toEqual([
      { kind: 'add-slots', on: 'a-0', ranges: [[0, 5460]] },
      { kind: 'add-slots', on: 'b-1', ranges: [[5461, 10921]] },
      { kind: 'add-slots', on: 'c-1', ranges: [[10922, 16383]] },
    ]);
    expectPlanned(fake);
  });

  test('no bootstrap while a planned master is missing', () => {
    const fake = new FakeCluster(inventoryOf(three));
    fake.kill('b-1');
    const d = decide(three, fake.observe());
    expect(d.steps.map((s) => s.kind)).toEqual(['meet', 'meet', 'meet', 'meet']);
    for (const s of d.steps) fake.apply(s);
    const next = decide(three, fake.observe());
    expect(next.steps).toEqual([]);
    expect(next.issues.map((i) => i.kind)).toEqual(['unreachable', 'not-bootstrapped']);
  });

  test('zone loss: the failover is Redis\'s own (manager waits); zone back: masters fail back by CLUSTER FAILOVER, never TAKEOVER', () => {
    const fake = cluster();
    fake.kill('a-0');
    fake.kill('a-1');
    const during = decide(three, fake.observe());
    expect(during.steps).toEqual([]);
    expect(during.waiting).toBe(true);
    expect(during.issues.map((i) => i.kind)).toEqual(['unreachable', 'unreachable', 'failover-pending']);

    fake.autoFailover(); // b-0 takes over shard 0
    const after = summarize(three, fake.observe(), decide(three, fake.observe()));
    expect(after.slotsServed).toBe(16384);
    expect(after.mastersPerZone).toEqual({ a: 0, b: 2, c: 1 });
    expect(after.issues.map((i) => i.kind)).toEqual(['unreachable', 'unreachable', 'zone-majority']);

    fake.start('a-0');
    fake.start('a-1');
    expect(fake.role('a-0')).toBe('replica'); // rejoined as replica of b-0
    const rounds = converge(fake);
    expect(rounds).toEqual([[{ kind: 'failover', on: 'a-0', takeover: false }]]);
    expectPlanned(fake);
  });


  test('masters 5 -> 3 with shard 2\'s planned master adrift (Redis 7 made the emptied master a replica of its last slot\'s taker): reset, met again, given its slots', () => {
    const five = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
    const fake = new FakeCluster(inventoryOf(five));
    converge(fake, five);
    // shard 2's old range (6553-9829) is all within shard 1's new one: c-1 loses every slot to b-1 and follows it
    const b1 = fake.byName('b-1');
    const c1 = fake.byName('c-1');
    fake.owner.forEach((o, slot) => { if (o === c1.id) fake.owner[slot] = b1.id; });
    c1.masterId = b1.id;
    const d = decide(three, fake.observe());
    expect(d.steps).toEqual([{ kind: 'retire', on: 'c-1', id: c1.id }]);
    expect(d.issues.map((i) => i.message)).toContain('shard 2 has no master: its planned master c-1 is a replica of b-1 (another shard): reset as an empty master');
    const rounds = converge(fake, three);
    expect(kinds(rounds).slice(0, 3)).toEqual(['retire', 'meet', 'migrate']);
    expectPlanned(fake);
  });

  test('rebalance mode only fails over; takeover only when asked', () => {
    const fake = cluster();
    fake.kill('b-1');
    fake.autoFailover();
    fake.start('b-1');
    expect(decide(three, fake.observe(), { mode: 'rebalance' }).steps).toEqual([{ kind: 'failover', on: 'b-1', takeover: false }]);
    expect(decide(three, fake.observe(), { mode: 'rebalance', takeover: true }).steps)
      .toEqual([{ kind: 'failover', on: 'b-1', takeover: true }]);
  });

  test('no failover back to a planned master an upgrade holds (failed over away from, not replaced yet)', () => {
    const fake = cluster();
    fake.kill('b-1');
    fake.autoFailover();
    fake.start('b-1');
    const heldB1 = decide(three, fake.observe(), { holdFailBack: new Set(['b-1']) });
    expect(heldB1.steps.filter((s) => s.kind === 'failover')).toEqual([]);
    expect(decide(three, fake.observe(), { holdFailBack: new Set(['a-1']) }).steps)
      .toEqual([{ kind: 'failover', on: 'b-1', takeover: false }]);
  });

  test('no failover back while the planned master is not in sync', () => {
    const fake = cluster();
    fake.kill('b-1');
    fake.autoFailover();
    fake.start('b-1');
    const observed = fake.observe().map((n) => (n.name === 'b-1' ? { ...n, linkUp: false } : n));
    const d = decide(three, observed);
    expect(d.steps).toEqual([]);
    expect(d.waiting).toBe(true);
    expect(d.issues.map((i) => i.kind)).toEqual(['zone-majority', 'replica-syncing']);
  });

  test('a node that refuses queries (cluster_state:fail, as a rejoined master for a while) keeps the cluster unhealthy, with nothing to do but look again', () => {
    const fake = cluster();
    const observed = fake.observe().map((n) => (n.name === 'b-0' ? { ...n, stateOk: false } : { ...n, stateOk: true }));
    const d = decide(three, observed);
    expect(d.steps).toEqual([]);
    expect(d.waiting).toBe(true);
    expect(d.issues).toEqual([{ kind: 'refusing-queries', message: 'nodes that answer CLUSTERDOWN (cluster_state:fail) until they rejoin: b-0' }]);
    expect(summarize(three, observed, d).healthy).toBe(false);
    const ok = fake.observe().map((n) => ({ ...n, stateOk: true }));
    expect(summarize(three, ok, decide(three, ok)).healthy).toBe(true);
  });

  test('a master and all its replicas lost: reported; reconcile never gives the slots away; fix does, to replaced nodes', () => {
    const fake = cluster();
    fake.kill('c-1');
    fake.kill('a-1');
    fake.autoFailover();
    const d = decide(three, fake.observe());
    expect(d.steps).toEqual([]);
    expect(d.issues.find((i) => i.kind === 'slots-lost')!.message)
      .toMatch(/^master c-1 failed with no replica left: slots 10922-16383 are not served and their keys are lost/);

    fake.start('c-1', true);
    fake.start('a-1', true);
    const rounds = converge(fake);
    // the old ids at the replaced addresses are forgotten (their slots with them), the new nodes met and attached;
    // the slots stay unserved
    expect(kinds(rounds)).toEqual(['forget', 'meet', 'replicate']);
    expect(decide(three, fake.observe()).issues.map((i) => i.kind)).toEqual(['slots-unassigned']);

    const fixed = converge(fake, three, { mode: 'fix' });
    expect(fixed).toEqual([[{ kind: 'add-slots', on: 'c-1', ranges: [[10922, 16383]] }]]);
    expectPlanned(fake);
  });

  test('a replaced replica (new id at the same address) is forgotten under its old id, met and attached', () => {
    const fake = cluster();
    const oldId = fake.byName('c-0').id;
    fake.kill('c-0');
    fake.start('c-0', true);
    const rounds = converge(fake);
    expect(kinds(rounds)).toEqual(['forget', 'meet', 'replicate']);
    expect(rounds[0]).toEqual([{ kind: 'forget', id: oldId, address: fake.byName('c-0').address, on: ['a-0', 'a-1', 'b-0', 'b-1', 'c-1'] }]);
    expectPlanned(fake);
  });

  test('a pod replaced with its volume (same id, new IP): no step and not healthy until every node sees it at its new address', () => {
    const fake = cluster();
    const before = fake.byName('b-0').address;
    fake.kill('b-0');
    fake.start('b-0');
    fake.move('b-0', '10.0.1.2:6379');
    const d = decide(three, fake.observe());
    expect(d.steps).toEqual([]);
    expect(d.waiting).toBe(true);
    const others = ['a-0', 'a-1', 'b-1', 'c-0', 'c-1'];
    const stale = others.map((n) => `${n} sees b-0 at ${before}, not at 10.0.1.2:6379`);
    expect(d.issues).toEqual([{ kind: 'converging', message: `nodes do not all know each other yet: ${stale.join(', ')}` }]);
    expect(summarize(three, fake.observe(), d).healthy).toBe(false);

    fake.spreadAddresses();
    expect(decide(three, fake.observe())).toMatchObject({ steps: [], issues: [] });
    expectPlanned(fake);
  });

  test('a node in handshake (temporary id at a known address, after CLUSTER MEET) is never forgotten', () => {
    const fake = cluster();
    const observed = fake.observe().map((n) => (n.name !== 'b-0' ? n : {
      ...n,
      view: [...n.view!, {
        id: 'f00d',
        address: fake.byName('c-0').address,
        flags: ['master', 'handshake'],
        connected: false,
        slots: [] as [number, number][],
      }],
    }));
    expect(decide(three, observed).steps.filter((s) => s.kind === 'forget')).toEqual([]);
  });

  test('a failed node at an address no inventory node has is forgotten only once every planned node answers (a rescheduled pod may come back)', () => {
    const fake = cluster();
    const oldId = fake.byName('a-0').id;
    const oldAddress = fake.byName('a-0').address;
    fake.kill('a-0');
    fake.autoFailover();
    const forgets = (nodes: ReturnType<FakeCluster['observe']>) => decide(three, nodes).steps.filter((s) => s.kind === 'forget');
    // its pod is Pending (no address: not in the inventory), then rescheduled at a new address, not answering yet
    expect(forgets(fake.observe().filter((n) => n.name !== 'a-0'))).toEqual([]);
    expect(forgets(fake.observe().map((n) => (n.name === 'a-0' ? { ...n, address: '10.0.9.9:6379' } : n)))).toEqual([]);
    // it answers at the new address with a new id (an empty volume): the old id is gone for good
    fake.start('a-0', true);
    const newId = fake.byName('a-0').id;
    const moved = fake.observe().map((n) => ({
      ...n,
      address: n.name === 'a-0' ? '10.0.9.9:6379' : n.address,
      view: n.view?.map((e) => (e.id === newId ? { ...e, address: '10.0.9.9:6379' } : e)),
    }));
    expect(forgets(moved)).toEqual([{ kind: 'forget', id: oldId, address: oldAddress, on: ['a-1', 'b-0', 'b-1', 'c-0', 'c-1'] }]);
  });

  test('forget-lost-nodes forgets failed nodes the inventory still lists; reconcile keeps them (they may come back)', () => {
    const fake = cluster();
    fake.kill('c-0');
    expect(decide(three, fake.observe()).steps).toEqual([]);
    const forget = decide(three, fake.observe(), { mode: 'forget-lost-nodes' }).steps;
    expect(forget).toEqual([{
      kind: 'forget',
      id: fake.byName('c-0').id,
      address: fake.byName('c-0').address,
      on: ['a-0', 'a-1', 'b-0', 'b-1', 'c-1'],
    }]);
  });

  test('scale-up 3 -> 5 masters: new nodes join, every slot moves to its planned shard, masters stay where planned', () => {
    const five = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
    const fake = cluster();
    for (const n of inventoryOf(five).slice(0)) if (!fake.nodes.has(n.name)) fake.add({ ...n, address: `10.0.1.${n.name}:6379` });
    const rounds = converge(fake, five);
    expect(kinds(rounds)).toEqual(['meet', 'replicate', 'migrate']);
    const moved = rounds[2].flatMap((s) => (s.kind === 'migrate' ? s.ranges : []));
    // every slot whose shard changed moves exactly once
    const changed = Array.from({ length: 16384 }, (_, s) => s).filter((s) => {
      const oldShard = three.shards.findIndex((x) => s >= x.slotStart && s <= x.slotEnd);
      const newShard = five.shards.findIndex((x) => s >= x.slotStart && s <= x.slotEnd);
      return three.shards[oldShard].master !== five.shards[newShard].master;
    });
    expect(moved.reduce((sum, [a, b]) => sum + b - a + 1, 0)).toBe(changed.length);
    expectPlanned(fake, five);
  });

  test('scale-down 5 -> 3: slots drain from the removed shards, then their nodes are retired', () => {
    const five = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
    const fake = new FakeCluster(inventoryOf(five));
    converge(fake, five);
    const rounds = converge(fake, three);
    expect(kinds(rounds)).toEqual(['migrate', 'retire']);
    expect(rounds[1].map((s) => (s.kind === 'retire' ? s.on : ''))).toEqual(['a-2', 'b-2', 'b-3', 'c-2']);
    for (const n of ['a-2', 'b-2', 'b-3', 'c-2']) expect(fake.slotsOf(fake.byName(n).id)).toEqual([]);
    expectPlanned(fake);
  });

  test.each([
    ['Redis fails over alone', {}],
    ['the manager fails lost zones over', { zoneLossFailoverAfterMs: 250 }],
  ])('property: after any sequence of zone losses, node losses and returns, the manager brings every node back to the plan (%s)', (_, options) => {
    const layout = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
    const names = layout.nodes.map((n) => n.name);
    const event = fc.oneof(
      fc.record({ kind: fc.constant('zone' as const), zone: fc.constantFrom(...zones) }),
      fc.record({ kind: fc.constant('node' as const), name: fc.constantFrom(...names), fresh: fc.boolean() }),
    );
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 6 }), (events) => {
      const fake = new FakeCluster(inventoryOf(layout));
      converge(fake, layout);
      for (const e of events) {
        const lost = e.kind === 'zone' ? layout.nodes.filter((n) => n.zone === e.zone).map((n) => n.name) : [e.name];
        lost.forEach((n) => fake.kill(n));
        fake.advance(250);
        // while down: nothing harmful (a lost zone's masters fail over with the fast path)
        converge(fake, layout, options);
        fake.autoFailover(); // whatever is left to Redis
        converge(fake, layout, options);
        for (const n of lost) fake.start(n, e.kind === 'node' && e.fresh && fake.role(n) === RedisRole.REPLICA);
        converge(fake, layout, options);
      }
      expectPlanned(fake, layout);
    }), { numRuns: 25 });
  });

});
