// fast-check is a dev dependency of the workspace root, whose jest runs these tests
// eslint-disable-next-line import/no-extraneous-dependencies
import * as fc from 'fast-check';
import { converge, inventoryOf, three } from './redis-decide-fixtures';
import { FakeCluster } from './redis-fake-cluster';
import { RedisShardLayout } from '../../src/redis/layout';
import { decide, DecideOptions, summarize } from '../src/redis/decide';
import { assignStandIns, ShardCover, StandIn } from '../src/redis/stand-ins';

const fast: DecideOptions = { zoneLossFailoverAfterMs: 250 };

/** The cluster as planned, its zone `lost` gone, its masters failed over to replicas in other zones. */
function zoneLost(layout: RedisShardLayout, lost: string): FakeCluster {
  const fake = new FakeCluster(inventoryOf(layout), { failAfterMs: 1500 });
  converge(fake, layout);
  for (const n of layout.nodes.filter((p) => p.zone === lost)) fake.kill(n.name);
  fake.advance(1500);
  converge(fake, layout, fast);
  return fake;
}

/** Each of `names` stands in (fresh, empty) in the zone `placement` gives it, at an address of its own. */
function standIn(fake: FakeCluster, placement: ReadonlyMap<string, string>): void {
  [...placement].forEach(([name, zone], i) => fake.standIn(name, zone, `10.1.0.${i}:6379`));
}

/** Where the fake cluster keeps a copy of each shard's data: its master's zone and its replicas' zones. */
function copies(fake: FakeCluster, layout: RedisShardLayout) {
  const nodes = [...fake.nodes.values()].filter((n) => n.up);
  return layout.shards.map((shard) => {
    const slot = shard.slotStart;
    const master = nodes.find((n) => n.id === fake.owner[slot])!;
    const replicas = nodes.filter((n) => n.masterId === master.id);
    return { shard: shard.index, master, replicas, outside: replicas.filter((r) => r.zone !== master.zone).length };
  });
}

describe('Redis cluster manager decisions: stand-ins (a lost zone\'s nodes brought back in other zones)', () => {
  test('a lost zone\'s nodes standing in elsewhere each replicate a master in another zone, never their own planned shard by rote', () => {
    // a-0 (shard 0's master) and a-1 (shard 2's replica) lost; b-0 took shard 0 over; both stand in, a-0 in zone b
    // (shard 0's master's zone) and a-1 in zone c (shard 2's master's zone): replicating their planned shards would
    // put each copy beside its master
    const fake = zoneLost(three, 'a');
    standIn(fake, new Map([['a-0', 'b'], ['a-1', 'c']]));
    const rounds = converge(fake, three, fast);
    expect(rounds.flat().filter((s) => s.kind === 'replicate').map((s) => [s.on, (s as any).master]))
      .toEqual([['a-0', 'c-1'], ['a-1', 'b-0']]);
    expect(rounds.flat().filter((s) => s.kind.includes('failover'))).toEqual([]);
    for (const c of copies(fake, three)) expect([c.shard, c.outside]).toEqual([c.shard, 1]);
    const state = summarize(three, fake.observe(), decide(three, fake.observe(), fast));
    expect(state.healthy).toBe(false);
    expect(state.issues.filter((i) => i.kind === 'stand-in').map((i) => i.message)).toEqual([
      'a-0, planned in zone a, stands in in zone b: in shard 2, whose master c-1 is in zone c',
      'a-1, planned in zone a, stands in in zone c: in shard 0, whose master b-0 is in zone b',
    ]);
    expect(state.nodes.find((n) => n.name === 'a-0'))
      .toMatchObject({ zone: 'b', plannedZone: 'a', role: 'replica', master: 'c-1' });
  });

  test('a stand-in that is its shard\'s planned master is never failed back to; its zone keeps the masters it has', () => {
    const fake = zoneLost(three, 'a');
    standIn(fake, new Map([['a-0', 'c'], ['a-1', 'b']]));
    converge(fake, three, fast);
    // a-0 replicates shard 0 (its planned shard: its master b-0 is in another zone), in sync, and stays a replica
    expect(fake.role('a-0')).toBe('replica');
    expect(fake.byName('a-0').masterId).toBe(fake.byName('b-0').id);
    expect(decide(three, fake.observe(), { ...fast, mode: 'rebalance' }).steps).toEqual([]);
    const state = summarize(three, fake.observe(), decide(three, fake.observe(), fast));
    expect(state.mastersPerZone).toEqual({ a: 0, b: 2, c: 1 });
  });

  test('a zone shift fails a master over to a stand-in only where no other replica of it is outside the zone', () => {
    // 2 replicas per master: the lost zone's 3 nodes stand in, in every placement over zones b and c; then zone b is
    // shifted
    const layout = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 2 });
    const lostNodes = layout.nodes.filter((n) => n.zone === 'a').map((n) => n.name);
    let choices = 0;
    const placements = lostNodes.reduce<string[][]>((all) => all.flatMap((p) => [[...p, 'b'], [...p, 'c']]), [[]]);
    for (const placement of placements) {
      const fake = zoneLost(layout, 'a');
      standIn(fake, new Map(lostNodes.map((name, i) => [name, placement[i]])));
      converge(fake, layout, fast);
      const steps = decide(layout, fake.observe(), { ...fast, outOfServiceZones: new Set(['b']) }).steps;
      for (const step of steps.filter((s) => s.kind === 'failover')) {
        const heir = fake.byName(step.on);
        const others = [...fake.nodes.values()].filter((n) => n.up && n.masterId === heir.masterId && n.zone !== 'b'
          && !lostNodes.includes(n.name));
        if (others.length > 0) choices++;
        expect([step.on, lostNodes.includes(step.on) && others.length > 0]).toEqual([step.on, false]);
      }
    }
    expect(choices).toBeGreaterThan(0); // some placement gave the shift a choice
  });

  test('stand-ins all in one zone: they replicate masters elsewhere; a shard whose master is in their zone keeps no copy outside it', () => {
    const fake = zoneLost(three, 'a');
    standIn(fake, new Map([['a-0', 'c'], ['a-1', 'c']]));
    converge(fake, three, fast);
    // masters: b-0 (shard 0) and b-1 (shard 1) in b, c-1 (shard 2) in c
    const masterOf = (name: string) => [...fake.nodes.values()].find((n) => n.id === fake.byName(name).masterId)!;
    for (const name of ['a-0', 'a-1']) expect([name, masterOf(name).zone]).toEqual([name, 'b']);
    expect(copies(fake, three).filter((c) => c.outside === 0).map((c) => c.shard)).toEqual([2]);
  });

  test('a stand-in with no master outside its own zone is stranded, and the status says so', () => {
    // both stand in on zone b, replicating shard 2 (its master c-1 is the only one outside b); zone c is shifted, and
    // shard 2 has no replica but them: a-0 takes it over, so every master is in zone b
    const fake = zoneLost(three, 'a');
    standIn(fake, new Map([['a-0', 'b'], ['a-1', 'b']]));
    converge(fake, three, fast);
    converge(fake, three, { ...fast, outOfServiceZones: new Set(['c']) });
    const issues = decide(three, fake.observe(), fast).issues.filter((i) => i.kind === 'stand-in').map((i) => i.message);
    expect(issues).toEqual([
      'a-0, planned in zone a, stands in in zone b: master of shard 2',
      'a-1, planned in zone a, stands in in zone b: in shard 2, whose master a-0 is in zone b (no shard has its master ' +
        'outside zone b: this copy does not survive losing it)',
    ]);
  });

  test('property: over layouts, lost zones and placements, the manager converges with every slot served, no stand-in a master, ' +
    'and as many shards with a copy outside their master\'s zone as any assignment gives', () => {
    const cases = fc.record({
      zones: fc.integer({ min: 3, max: 4 }),
      masters: fc.integer({ min: 3, max: 7 }),
      replicasPerMaster: fc.integer({ min: 1, max: 2 }),
      lost: fc.nat(),
      placement: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    });
    fc.assert(fc.property(cases, (k) => {
      const zones = ['a', 'b', 'c', 'd'].slice(0, k.zones);
      let layout: RedisShardLayout;
      try {
        layout = RedisShardLayout.plan({ zones, masters: k.masters, replicasPerMaster: k.replicasPerMaster });
      } catch {
        return; // a layout the planner refuses (too few zones for the replicas): nothing to stand in for
      }
      const lost = zones[k.lost % zones.length];
      const others = zones.filter((z) => z !== lost);
      const lostNodes = layout.nodes.filter((n) => n.zone === lost).map((n) => n.name);
      const placement = new Map(lostNodes.map((name, i) => [name, others[k.placement[i % 8] % others.length]]));
      const fake = zoneLost(layout, lost);
      standIn(fake, placement);
      converge(fake, layout, fast);
      const up = new Set([...fake.nodes.values()].filter((n) => n.up).map((n) => n.id));
      expect(fake.owner.every((o) => o !== undefined && up.has(o))).toBe(true);
      for (const name of lostNodes) expect([name, fake.role(name)]).toEqual([name, 'replica']);
      const got = copies(fake, layout).filter((c) => c.outside > 0).length;
      expect(got).toBe(bestCover(fake, layout, lostNodes));
      // settled: a further pass has nothing to do (no stand-in moved back and forth)
      expect(decide(layout, fake.observe(), fast).steps).toEqual([]);
    }), { numRuns: 150 });
  });
});

/** The most shards with a copy outside their master's zone that any assignment of stand-ins gives (brute force). */
function bestCover(fake: FakeCluster, layout: RedisShardLayout, standIns: readonly string[]): number {
  const base = copies(fake, layout).map((c) => ({
    masterZone: c.master.zone,
    outside: c.replicas.filter((r) => !standIns.includes(r.name) && r.zone !== c.master.zone).length,
  }));
  let best = 0;
  const visit = (i: number, cover: number[]) => {
    if (i === standIns.length) {
      best = Math.max(best, cover.filter((n) => n > 0).length);
      return;
    }
    const zone = fake.byName(standIns[i]).zone;
    base.forEach((b, shard) => {
      const next = [...cover];
      if (b.masterZone !== zone) next[shard]++;
      visit(i + 1, next);
    });
  };
  visit(0, base.map((b) => b.outside));
  return best;
}

describe('assignStandIns', () => {
  const shards: ShardCover[] = [
    { index: 0, masterZone: 'b', outsideReplicas: 0 },
    { index: 1, masterZone: 'b', outsideReplicas: 1 },
    { index: 2, masterZone: 'c', outsideReplicas: 0 },
  ];

  test('covers as many shards as it can: the stand-in that alone reaches a shard gets it, though another came first by name', () => {
    // x (zone a) reaches every shard, y (zone c) only zone b's; x first by name, planned in shard 0: a greedy x would
    // take shard 0 and leave y shard 0's master zone... y must cover shard 0, x shard 2
    const standIns: StandIn[] = [{ name: 'x', zone: 'a', plannedShard: 0 }, { name: 'y', zone: 'c', plannedShard: 2 }];
    expect(assignStandIns(standIns, shards)).toEqual({ shards: new Map([['x', 2], ['y', 0]]), stranded: [] });
  });

  test('an assignment already best is kept: a stand-in keeps the shard it replicates where that ties', () => {
    const standIns: StandIn[] = [
      { name: 'x', zone: 'a', plannedShard: 0, replicating: 2 },
      { name: 'y', zone: 'a', plannedShard: 0, replicating: 0 },
      { name: 'z', zone: 'a', plannedShard: 0, replicating: 1 },
    ];
    expect(assignStandIns(standIns, shards).shards).toEqual(new Map([['x', 2], ['y', 0], ['z', 1]]));
  });

  test('a stand-in with no master outside its zone keeps its planned shard, stranded; a shard with no master is no choice', () => {
    const standIns: StandIn[] = [{ name: 'x', zone: 'b', plannedShard: 1 }];
    const noMaster: ShardCover[] = [{ index: 0, outsideReplicas: 0 }, { index: 1, masterZone: 'b', outsideReplicas: 1 }];
    expect(assignStandIns(standIns, noMaster)).toEqual({ shards: new Map([['x', 1]]), stranded: ['x'] });
  });
});
