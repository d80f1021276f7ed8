// fast-check is a dev dependency of the workspace root, whose jest runs these tests
// eslint-disable-next-line import/no-extraneous-dependencies
import * as fc from 'fast-check';
import { FakeCluster } from './redis-fake-cluster';
import { RedisRole, RedisShardLayout } from '../../src/redis/layout';
import { decide, DecideOptions, summarize } from '../src/redis/decide';
import { parseClusterNodes, replicationOffset } from '../src/redis/executor';
import { parseInventory } from '../src/redis/inventory';

const zones = ['a', 'b', 'c'];
const three = RedisShardLayout.plan({ zones, masters: 3, replicasPerMaster: 1 });
const inventoryOf = (layout: RedisShardLayout) => layout.nodes.map((n, i) => ({
  name: n.name,
  zone: n.zone,
  address: `10.0.0.${i}:6379`,
}));

function cluster(layout = three): FakeCluster {
  const fake = new FakeCluster(inventoryOf(layout));
  fake.run((nodes) => decide(layout, nodes));
  return fake;
}
const converge = (fake: FakeCluster, layout = three, options: DecideOptions = {}) =>
  fake.run((nodes) => decide(layout, nodes, options));
const kinds = (rounds: { kind: string }[][]) => rounds.map((r) => [...new Set(r.map((s) => s.kind))].join('+'));

/**
 * The fake matches the plan: roles as planned, replicas of their shard's master, each master serving its shard's
 * range.
 */
function expectPlanned(fake: FakeCluster, layout = three) {
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

  describe('zone loss with the fast path (zoneLossFailoverAfterMs)', () => {
    const fast: DecideOptions = { zoneLossFailoverAfterMs: 250 };
    /** What the decision says about zones: its zone issues and its steps. */
    const onZones = (d: ReturnType<typeof decide>) => ({
      zoneIssues: d.issues.filter((i) => i.kind.startsWith('zone-')).map((i) => i.kind),
      steps: d.steps,
    });
    const nothing = { zoneIssues: [], steps: [] };
    /**
     * The cluster as planned, whose nodes flag a stopped node failed 1.5 s after it stopped (Redis with a 1 s node
     * timeout).
     */
    const redisLike = (layout = three) => {
      const fake = new FakeCluster(inventoryOf(layout), { failAfterMs: 1500 });
      converge(fake, layout);
      return fake;
    };

    test('the zone falls silent: the manager watches; silent for the setting: its master fails over (FORCE), long before Redis would', () => {
      const fake = redisLike();
      fake.kill('a-0');
      fake.kill('a-1');
      // just stopped: the masters have not missed an answer yet (nothing tells a cut-off manager from a lost zone)
      expect(onZones(decide(three, fake.observe(), fast))).toEqual(nothing);
      fake.advance(100);
      const silent = decide(three, fake.observe(), fast);
      expect(silent).toMatchObject({ steps: [], waiting: true });
      expect(silent.issues.filter((i) => i.kind.startsWith('zone-')).map((i) => i.message))
        .toEqual(['zone a does not answer and has been silent to every surviving master for 100 ms: its masters fail over at 250 ms']);
      fake.advance(150);
      const lost = decide(three, fake.observe(), fast);
      // only a-0 is a master in zone a; b-0, its replica in zone b, takes over
      expect(lost.steps).toEqual([{ kind: 'force-failover', on: 'b-0', master: 'a-0', zone: 'a' }]);
      expect(lost.issues.find((i) => i.kind === 'zone-lost')!.message)
        .toBe('zone a is lost: no node answers and every surviving master (b-1, c-1) has heard nothing from them for 250 ms or more: ' +
          'its masters fail over to replicas in other zones');
      for (const step of lost.steps) fake.apply(step);
      const after = summarize(three, fake.observe(), decide(three, fake.observe(), fast));
      expect([after.slotsServed, after.mastersPerZone, after.nextSteps]).toEqual([16384, { a: 0, b: 2, c: 1 }, []]);

      // zone a back: its old master rejoins as a replica and is failed back gracefully (never FORCE, never TAKEOVER)
      fake.start('a-0');
      fake.start('a-1');
      expect(converge(fake, three, fast)).toEqual([[{ kind: 'failover', on: 'a-0', takeover: false }]]);
      expectPlanned(fake);
    });

    test('zones that Redis already flags failed fail over at once; without the setting the manager leaves them to Redis', () => {
      const fake = redisLike();
      fake.kill('c-1');
      fake.kill('c-0');
      fake.advance(1500);
      expect(decide(three, fake.observe()).steps).toEqual([]);
      expect(decide(three, fake.observe(), fast).steps).toEqual([{ kind: 'force-failover', on: 'a-1', master: 'c-1', zone: 'c' }]);
      expect(decide(three, fake.observe(), { ...fast, mode: 'rebalance' }).steps).toEqual([]);
    });

    test('the manager cut off from a zone the masters still hear: nothing to do', () => {
      const fake = redisLike();
      const cutOff = fake.observe().map((n) => (n.zone === 'a'
        ? { name: n.name, zone: n.zone, address: n.address, reachable: false }
        : n));
      expect(onZones(decide(three, cutOff, fast))).toEqual(nothing);
    });

    test('two zones dark to the manager: no loss the layout survives, left to Redis', () => {
      const fake = redisLike();
      fake.kill('a-0');
      fake.kill('a-1');
      fake.advance(1000);
      const cutOff = fake.observe().map((n) => (n.zone === 'b'
        ? { name: n.name, zone: n.zone, address: n.address, reachable: false }
        : n));
      const d = decide(three, cutOff, fast);
      expect(d.steps).toEqual([]);
      expect(d.issues.find((i) => i.kind === 'zone-silent')!.message).toMatch(/^zones a, b do not answer: more than one zone is no loss the layout survives/);
    });

    test('a minority of masters answering the manager: a forced failover could not be elected, none is tried', () => {
      const fake = redisLike();
      fake.kill('a-0');
      fake.kill('a-1');
      fake.advance(1000);
      const cutOff = fake.observe().map((n) => (n.name === 'c-1'
        ? { name: n.name, zone: n.zone, address: n.address, reachable: false }
        : n));
      const d = decide(three, cutOff, fast);
      expect(d.steps).toEqual([]);
      expect(d.issues.find((i) => i.kind === 'zone-silent')!.message)
        .toBe('zone a does not answer, but only 1 of 3 masters do: a forced failover could not be elected, left to Redis');
    });

    test('one surviving master still hears from a node of the zone: not lost', () => {
      const fake = redisLike();
      fake.kill('a-0');
      fake.kill('a-1');
      fake.advance(1000);
      const a1 = fake.byName('a-1').address;
      const observed = fake.observe().map((n) => (n.name !== 'c-1' ? n : {
        ...n,
        view: n.view!.map((e) => (e.address === a1
          ? { ...e, flags: e.flags.filter((f) => f !== 'fail'), pingPendingSinceMs: undefined }
          : e)),
      }));
      expect(onZones(decide(three, observed, fast))).toEqual(nothing);
    });

    test('the heir is the reachable replica with the most replication offset; each of the zone\'s masters fails over', () => {
      const layout = RedisShardLayout.plan({ zones, masters: 6, replicasPerMaster: 2 });
      const fake = redisLike(layout);
      const lostMasters = layout.shards.filter((s) => layout.node(s.master).zone === 'a');
      // (each zone lists its masters and first replicas, then its second replicas)
      expect(lostMasters.map((s) => [s.master, s.replicas])).toEqual([['a-0', ['b-0', 'c-4']], ['a-2', ['b-2', 'c-5']]]);
      fake.byName('c-4').replOffset = 900;
      fake.byName('b-0').replOffset = 800;
      fake.byName('b-2').replOffset = 500;
      fake.byName('c-5').replOffset = 400;
      for (const n of layout.nodesInZone('a')) fake.kill(n.name);
      fake.advance(300);
      expect(decide(layout, fake.observe(), fast).steps).toEqual([
        { kind: 'force-failover', on: 'c-4', master: 'a-0', zone: 'a' },
        { kind: 'force-failover', on: 'b-2', master: 'a-2', zone: 'a' },
      ]);
    });
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

  describe('a zone out of service (ZoneShift)', () => {
    const masterZones = (fake: FakeCluster, layout = three) => layout.nodes
      .filter((n) => fake.role(n.name) === 'master')
      .map((n) => n.zone);

    test('its masters fail over gracefully to a replica in another zone, and not back while the shift lasts; back once it ends', () => {
      const fake = cluster();
      const shifted = { outOfServiceZones: new Set(['a']) };
      expect(decide(three, fake.observe(), shifted).steps).toEqual([{ kind: 'failover', on: 'b-0', takeover: false }]);
      converge(fake, three, shifted);
      expect(masterZones(fake)).not.toContain('a');
      expect(decide(three, fake.observe(), shifted).steps).toEqual([]);
      expect(converge(fake)).toEqual([[{ kind: 'failover', on: 'a-0', takeover: false }]]);
      expectPlanned(fake);
    });

    test('a master with no replica in sync elsewhere stays, and the issue says so', () => {
      const fake = cluster();
      fake.kill('b-0'); // shard 0's only replica
      const d = decide(three, fake.observe(), { outOfServiceZones: new Set(['a']) });
      expect(d.steps.filter((s) => s.kind === 'failover')).toEqual([]);
      expect(d.issues).toContainEqual({ kind: 'zone-shifted', message: 'master a-0 stays in zone a, out of service: no replica of it in sync in another zone' });
    });

    test('property: any zone shifted, after any failovers: every master leaves it, the data stays served, and all comes back to plan when it ends', () => {
      const layout = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
      fc.assert(fc.property(fc.constantFrom(...zones), fc.subarray(zones, { maxLength: 1 }), (zone, lostBefore) => {
        const fake = new FakeCluster(inventoryOf(layout));
        converge(fake, layout);
        for (const z of lostBefore) { // an earlier zone loss left masters off plan
          const names = layout.nodes.filter((n) => n.zone === z).map((n) => n.name);
          names.forEach((n) => fake.kill(n));
          fake.autoFailover();
          names.forEach((n) => fake.start(n));
        }
        const shifted = { outOfServiceZones: new Set([zone]) };
        converge(fake, layout, shifted);
        expect(masterZones(fake, layout)).not.toContain(zone);
        expect(fake.owner.every((o) => o !== undefined)).toBe(true);
        converge(fake, layout);
        expectPlanned(fake, layout);
      }), { numRuns: 30 });
    });
  });

  test('parses CLUSTER NODES', () => {
    expect(parseClusterNodes([
      'e7d1 127.0.0.1:30004@40004,host-a myself,slave 67ed 0 1426238317239 4 connected',
      '67ed 127.0.0.1:30002@40002 master,fail - 0 1426238316232 2 connected 0-5460 5462 [5461->-e7d1] [7000-<-c3d4]',
      'a0b1 :0@0 noaddr,master - 0 0 0 disconnected',
      'c3d4 127.0.0.1:30005@40005 master,fail? - 1426238318000 1426238316900 5 disconnected 5463-6000',
    ].join('\n'))).toEqual([
      { id: 'e7d1', address: '127.0.0.1:30004', flags: ['myself', 'slave'], masterId: '67ed', connected: true, slots: [] },
      // open slots of a resharding: migrating 5461 to e7d1, importing 7000 from c3d4
      {
        id: '67ed',
        address: '127.0.0.1:30002',
        flags: ['master', 'fail'],
        masterId: undefined,
        connected: true,
        slots: [[0, 5460], [5462, 5462]],
        migrating: [[5461, 'e7d1']],
        importing: [[7000, 'c3d4']],
      },
      { id: 'a0b1', address: ':0', flags: ['noaddr', 'master'], masterId: undefined, connected: false, slots: [] },
      // ping-sent set: a ping it has not answered yet
      {
        id: 'c3d4',
        address: '127.0.0.1:30005',
        flags: ['master', 'fail?'],
        connected: false,
        slots: [[5463, 6000]],
        pingPendingSinceMs: 1426238318000,
      },
    ]);
    // Redis prints an IPv6 host bare; the inventory (a pod's address) brackets it
    expect(parseClusterNodes('e7d1 fd00::a:6379@16379 myself,master - 0 0 1 connected 0-16383')[0].address)
      .toBe('[fd00::a]:6379');
    expect(replicationOffset('# Replication\r\nrole:slave\r\nslave_repl_offset:4242\r\nmaster_repl_offset:4242\r\n')).toBe(4242);
    expect(replicationOffset('# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_repl_offset:17\r\n')).toBe(17);
  });

  test('the static inventory: layout re-planned and checked, zones must match the plan', () => {
    const text = (nodes: object[]) => JSON.stringify({ layout: JSON.parse(three.toJson()), nodes });
    expect(parseInventory(text(inventoryOf(three))).nodes).toHaveLength(6);
    expect(() => parseInventory(text([{ name: 'a-0', zone: 'b', address: '1.2.3.4:1' }])))
      .toThrow('redis inventory: node a-0 runs in zone b but the layout plans it in a');
    expect(() => parseInventory(text([{ name: 'a-0', zone: 'a', address: 'nowhere' }]))).toThrow('must be host:port');
    expect(() => parseInventory('{}')).toThrow('expected {"layout"');
  });
});
