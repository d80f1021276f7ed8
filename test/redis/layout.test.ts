import * as fc from 'fast-check';
import { RedisNodePlan, RedisRole, RedisShardLayout } from '../../src';
import { shardOfSlot, slotRange } from '../../src/redis/slots';

const abc = ['a', 'b', 'c'];
const brief = (nodes: RedisNodePlan[]) => nodes.map((n) => `${n.name}:${n.role === RedisRole.MASTER ? 'M' : 'R'}${n.shard}`);

/** Brute force: does a Redis Cluster with these nodes keep every slot after losing `zone`? */
function survivesLosing(nodes: RedisNodePlan[], masters: number, zone: string): boolean {
  const lost = nodes.filter((n) => n.zone === zone);
  const lostMasters = lost.filter((n) => n.role === RedisRole.MASTER);
  const majority = masters - lostMasters.length > masters / 2;
  const everyLostMasterHasAReplica = lostMasters
    .every((m) => nodes.some((n) => n.shard === m.shard && n.role === RedisRole.REPLICA && n.zone !== zone));
  return majority && everyLostMasterHasAReplica;
}

/** Brute force: is there ANY assignment of masters to zones that keeps a majority after any one zone loss? */
function anyMasterPlacementSurvives(masters: number, zones: number): boolean {
  const perZone = new Array(zones).fill(0);
  const search = (left: number, from: number): boolean => {
    if (left === 0) return perZone.every((c) => masters - c > masters / 2);
    for (let z = from; z < zones; z++) {
      perZone[z]++;
      if (search(left - 1, z)) return true;
      perZone[z]--;
    }
    return false;
  };
  return search(masters, 0);
}

describe('RedisShardLayout', () => {
  test.each([
    [3, 1, ['a-0:M0', 'a-1:R2', 'b-0:R0', 'b-1:M1', 'c-0:R1', 'c-1:M2']],
    // tier 0 (masters and first replicas) by shard, then tier 1 (second replicas) by shard
    [3, 2, ['a-0:M0', 'a-1:R2', 'a-2:R1', 'b-0:R0', 'b-1:M1', 'b-2:R2', 'c-0:R1', 'c-1:M2', 'c-2:R0']],
    [5, 1, ['a-0:M0', 'a-1:R2', 'a-2:M3', 'b-0:R0', 'b-1:M1', 'b-2:R3', 'b-3:M4', 'c-0:R1', 'c-1:M2', 'c-2:R4']],
  ])('%d masters x %d replicas over [a, b, c]', (masters, replicasPerMaster, expected) => {
    const layout = RedisShardLayout.plan({ zones: abc, masters, replicasPerMaster });
    expect(brief(layout.nodes)).toEqual(expected);
    expect(layout.survival.survives).toBe(true);
  });

  test('6 masters x 1 replica: 2 masters per zone (the most allowed), 4 pods per zone, shards split the 16384 slots', () => {
    const layout = RedisShardLayout.plan({ zones: abc, masters: 6, replicasPerMaster: 1 });
    expect(layout.maxMastersPerZone).toBe(2);
    expect(layout.mastersPerZone).toEqual({ a: 2, b: 2, c: 2 });
    expect(layout.nodesPerZone).toEqual({ a: 4, b: 4, c: 4 });
    expect(layout.shards.map((s) => [s.slotStart, s.slotEnd])).toEqual([
      [0, 2729], [2730, 5460], [5461, 8191], [8192, 10921], [10922, 13652], [13653, 16383],
    ]);
    expect(layout.shards[0]).toMatchObject({ master: 'a-0', replicas: ['b-0'] });
    expect(layout.survival).toMatchObject({ survives: true, remaining: 4, required: 4 });
  });

  test('3 replicas over 3 zones: a replica shares a zone with a sibling, never with its master', () => {
    const layout = RedisShardLayout.plan({ zones: abc, masters: 3, replicasPerMaster: 3 });
    expect(layout.replicasInDistinctZones).toBe(false);
    for (const shard of layout.shards) {
      const masterZone = layout.node(shard.master).zone;
      expect(shard.replicas.map((r) => layout.node(r).zone)).not.toContain(masterZone);
    }
  });

  test('raising masters appends nodes to each zone and never changes an existing node', () => {
    const small = RedisShardLayout.plan({ zones: abc, masters: 3, replicasPerMaster: 1 });
    const big = RedisShardLayout.plan({ zones: abc, masters: 5, replicasPerMaster: 1 });
    for (const n of small.nodes) expect(big.node(n.name)).toEqual(n);
  });

  test('the JSON form reads back, and a tampered one is refused', () => {
    const layout = RedisShardLayout.plan({ zones: abc, masters: 5, replicasPerMaster: 1 });
    expect(RedisShardLayout.fromJson(layout.toJson()).nodes).toEqual(layout.nodes);
    const tampered = JSON.parse(layout.toJson());
    tampered.nodes[0].role = 'replica';
    expect(() => RedisShardLayout.fromJson(JSON.stringify(tampered))).toThrow(/is not the plan of its own zones/);
  });

  test.each([
    [{ zones: abc, masters: 4, replicasPerMaster: 1 },
      'RedisShardLayout: masters=4 over 3 zones puts 2 masters in one zone; losing that zone loses the majority of masters a failover needs (need at most 1 per zone, floor((masters - 1) / 2)). Use 3, 5, 6 or more masters'],
    [{ zones: ['a', 'b'], masters: 3, replicasPerMaster: 1 }, /zones=\["a","b"\] has 2 zone\(s\): a Redis Cluster over fewer than 3 zones never survives losing one .* Use 3 or more zones/],
    [{ zones: abc, masters: 2, replicasPerMaster: 1 }, 'RedisShardLayout: masters=2 must be an integer from 3 to 16384'],
    [{ zones: abc, masters: 3, replicasPerMaster: -1 }, 'RedisShardLayout: replicasPerMaster=-1 must be an integer >= 0'],
    [{ zones: abc, masters: 3, replicasPerMaster: 0 }, /replicasPerMaster=0 leaves the slots of a lost zone's masters with no replica/],
    [{ zones: ['a', 'a', 'b'], masters: 3, replicasPerMaster: 1 }, /zones=\["a","a","b"\] must be a list of distinct/],
    [{ zones: ['a', 'b', 'c', 'd'], masters: 4, replicasPerMaster: 1 }, /masters=4 over 4 zones puts 1 masters .*|/],
  ])('refuses %j', (props, message) => {
    if (props.zones.length === 4) {
      // 4 masters over 4 zones is fine: 1 per zone, losing one leaves 3 of 4
      expect(RedisShardLayout.plan(props).survival.survives).toBe(true);
      return;
    }
    expect(() => RedisShardLayout.plan(props)).toThrow(message);
  });

  test('slot ranges cover 0..16383 exactly once and shardOfSlot inverts them', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 16383 }), (shards, slot) => {
      const ranges = Array.from({ length: shards }, (_, i) => slotRange(i, shards));
      expect(ranges[0][0]).toBe(0);
      expect(ranges[shards - 1][1]).toBe(16383);
      for (let i = 1; i < shards; i++) expect(ranges[i][0]).toBe(ranges[i - 1][1] + 1);
      const s = shardOfSlot(slot, shards);
      expect(ranges[s][0] <= slot && slot <= ranges[s][1]).toBe(true);
    }));
  });

  test('property: a layout survives every single-zone loss (brute force), or it is an error exactly when none can', () => {
    const zoneCounts = fc.integer({ min: 1, max: 6 });
    const masterCounts = fc.integer({ min: 1, max: 12 });
    const replicaCounts = fc.integer({ min: 0, max: 4 });
    fc.assert(fc.property(zoneCounts, masterCounts, replicaCounts, (zoneCount, masters, replicasPerMaster) => {
      const zones = Array.from({ length: zoneCount }, (_, i) => `z${i}`);
      const possible = zoneCount >= 3
        && masters >= 3
        && replicasPerMaster >= 1
        && anyMasterPlacementSurvives(masters, zoneCount);
      let layout: RedisShardLayout;
      try {
        layout = RedisShardLayout.plan({ zones, masters, replicasPerMaster });
      } catch (e) {
        expect(possible).toBe(false);
        expect((e as Error).message).toMatch(/^RedisShardLayout: (zones|masters|replicasPerMaster)=/);
        return;
      }
      expect(possible).toBe(true);
      expect(layout.nodes).toHaveLength(masters * (1 + replicasPerMaster));
      for (const zone of zones) expect(survivesLosing(layout.nodes, masters, zone)).toBe(true);
      for (const shard of layout.shards) {
        const zonesOfShard = [shard.master, ...shard.replicas].map((n) => layout.node(n).zone);
        // replicas never with their master; with each other only when zones run out
        expect(zonesOfShard.slice(1)).not.toContain(zonesOfShard[0]);
        expect(new Set(zonesOfShard).size).toBe(Math.min(zonesOfShard.length, zoneCount));
      }
      for (const zone of zones) {
        expect(layout.nodesInZone(zone).map((n) => n.ordinal)).toEqual(layout.nodesInZone(zone).map((_, i) => i));
        expect(layout.mastersPerZone[zone]).toBeLessThanOrEqual(Math.floor((masters - 1) / 2));
      }
    }), { numRuns: 500 });
  });

  /**
   * True when every node of `small` is in `big` with the same zone, ordinal, shard and role, and `big` only adds higher
   * ordinals.
   */
  function extends_(small: RedisShardLayout, big: RedisShardLayout): boolean {
    return small.nodes.every((n) => JSON.stringify(big.nodes.find((b) => b.name === n.name)) === JSON.stringify(n))
      && small.zones.every((z) => big.nodesInZone(z).length >= small.nodesInZone(z).length);
  }
  const validMasters = (zones: number) => fc.integer({ min: 3, max: 40 })
    .filter((m) => Math.ceil(m / zones) <= Math.floor((m - 1) / 2));

  test('property: changing replicasPerMaster only adds or removes the highest ordinals of each zone; every other node keeps shard and role', () => {
    fc.assert(fc.property(fc.integer({ min: 3, max: 6 }).chain((z) => fc.tuple(fc.constant(z), validMasters(z))),
      fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), ([zoneCount, masters], r1, r2) => {
        const zones = Array.from({ length: zoneCount }, (_, i) => `z${i}`);
        const plan = (replicasPerMaster: number) => RedisShardLayout.plan({ zones, masters, replicasPerMaster });
        const [low, high] = [Math.min(r1, r2), Math.max(r1, r2)].map(plan);
        expect(extends_(low, high)).toBe(true);
      }), { numRuns: 300 });
  });

  test('property: with 1 replica per master, changing masters only adds or removes the highest ordinals of each zone', () => {
    const zonesAndTwoMasterCounts = fc.integer({ min: 3, max: 6 })
      .chain((z) => fc.tuple(fc.constant(z), validMasters(z), validMasters(z)));
    fc.assert(fc.property(zonesAndTwoMasterCounts,
      ([zoneCount, m1, m2]) => {
        const zones = Array.from({ length: zoneCount }, (_, i) => `z${i}`);
        const plan = (masters: number) => RedisShardLayout.plan({ zones, masters, replicasPerMaster: 1 });
        const [low, high] = [Math.min(m1, m2), Math.max(m1, m2)].map(plan);
        expect(extends_(low, high)).toBe(true);
      }), { numRuns: 300 });
  });

  test('with 2 replicas per master, changing masters moves second replicas: the plan is not stable (documented)', () => {
    const three = RedisShardLayout.plan({ zones: abc, masters: 3, replicasPerMaster: 2 });
    const five = RedisShardLayout.plan({ zones: abc, masters: 5, replicasPerMaster: 2 });
    // a-2 is shard 1's second replica with 3 masters; shard 3's master (a new tier-0 node) takes ordinal 2 with 5
    expect([brief([three.node('a-2')]), brief([five.node('a-2')])]).toEqual([['a-2:R1'], ['a-2:M3']]);
    expect(extends_(three, five)).toBe(false);
  });

  test('the stable cases of the issue: 1 -> 2 -> 1 replicas at 5 masters, and 5 -> 3 masters at 1 replica', () => {
    const plan = (masters: number, replicasPerMaster: number) =>
      RedisShardLayout.plan({ zones: abc, masters, replicasPerMaster });
    expect(extends_(plan(5, 1), plan(5, 2))).toBe(true);
    expect(extends_(plan(3, 1), plan(5, 1))).toBe(true);
    expect(brief(plan(5, 2).nodes.filter((n) => !plan(5, 1).nodes.some((o) => o.name === n.name))))
      .toEqual(['a-3:R1', 'a-4:R4', 'b-4:R2', 'c-3:R0', 'c-4:R3']);
  });
});
