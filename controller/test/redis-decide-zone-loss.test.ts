import { converge, expectPlanned, inventoryOf, three, zones } from './redis-decide-fixtures';
import { FakeCluster } from './redis-fake-cluster';
import { RedisShardLayout } from '../../src/redis/layout';
import { decide, DecideOptions, summarize } from '../src/redis/decide';

describe('Redis cluster manager decisions: zone loss with the fast path (zoneLossFailoverAfterMs)', () => {
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
