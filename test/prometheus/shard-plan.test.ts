import * as fc from 'fast-check';
import { ShardAssignment, ShardPlan, ZoneTopology } from '../../src';
import { operatorTopologyShards } from '../../src/prometheus/operator-formula';

const abc = new ZoneTopology({ zones: ['a', 'b', 'c'] });
const brief = (shards: ShardAssignment[]) => shards.map((s) => `${s.index}:${s.zone}${s.inZoneIndex}/${s.zoneShards}`);

describe('ShardPlan', () => {
  test.each([
    [3, ['0:a0/1', '1:b0/1', '2:c0/1']],
    [6, ['0:a0/2', '1:b0/2', '2:c0/2', '3:a1/2', '4:b1/2', '5:c1/2']],
    // not a multiple of 3: zone a has 3 shards, modulus 3 (prometheus-operator would use floor(7/3) = 2)
    [7, ['0:a0/3', '1:b0/2', '2:c0/2', '3:a1/3', '4:b1/2', '5:c1/2', '6:a2/3']],
    [10, ['0:a0/4', '1:b0/3', '2:c0/3', '3:a1/4', '4:b1/3', '5:c1/3', '6:a2/4', '7:b2/3', '8:c2/3', '9:a3/4']],
  ])('%d shards over [a, b, c]', (shards, expected) => {
    expect(brief(ShardPlan.plan({ topology: abc, shards }).shards)).toEqual(expected);
  });

  test('weights: zones with more targets get more shards, still dealt round-robin', () => {
    const plan = ShardPlan.plan({ topology: abc, shards: 6, shardsPerZone: { a: 3, b: 2, c: 1 } });
    expect(brief(plan.shards)).toEqual(['0:a0/3', '1:b0/2', '2:c0/1', '3:a1/3', '4:b1/2', '5:a2/3']);
    expect(plan.shardsInZone('a').map((s) => s.index)).toEqual([0, 3, 5]);
    expect(plan.shardFor('b', 1).index).toBe(4);
    expect(() => plan.shardFor('c', 1)).toThrow('ShardPlan.shardFor: zone/bucket="c/1" is not scraped by any shard of this plan');
  });

  test.each([
    [{ shards: 2 }, 'ShardPlan: shards=2 is less than the 3 zones [a, b, c]: zone(s) c would not be scraped (every zone needs at least one shard)'],
    [{ shards: 0 }, 'ShardPlan: shards=0 must be an integer from 1 to 2147483647'],
    [{ shards: 2.5 }, 'ShardPlan: shards=2.5 must be an integer from 1 to 2147483647'],
    [{ shards: 6, shardsPerZone: { a: 2, b: 2, c: 1 } }, 'ShardPlan: shardsPerZone={"a":2,"b":2,"c":1} sums to 5, not to shards=6'],
    [{ shards: 6, shardsPerZone: { a: 2, b: 2, c: 1, d: 1 } }, 'ShardPlan: shardsPerZone["d"]=1 names a zone that is not in the topology [a, b, c]'],
    [{ shards: 6, shardsPerZone: { a: 4, b: 2, c: 0 } }, 'ShardPlan: shardsPerZone["c"]=0 must be an integer from 1 to 2147483647: a zone without a shard is not scraped'],
    [{ shards: 6, shardsPerZone: { a: 4, b: 2 } }, 'ShardPlan: shardsPerZone={"a":4,"b":2} has no entry for zone(s) c: every zone of the topology needs at least one shard'],
  ])('%j is refused', (props, message) => {
    expect(() => ShardPlan.plan({ topology: abc, ...props })).toThrow(message);
  });

  const layouts = fc.integer({ min: 1, max: 6 }).chain((zoneCount) => fc.record({
    zones: fc.constant(Array.from({ length: zoneCount }, (_, i) => `zone-${i}`)),
    weights: fc.option(
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: zoneCount, maxLength: zoneCount }),
      { nil: undefined },
    ),
    extra: fc.integer({ min: 0, max: 4 * zoneCount + 3 }),
  }));

  test('property: every (zone, hash bucket) pair has exactly one shard, and no shard is idle', () => {
    fc.assert(fc.property(layouts, ({ zones, weights, extra }) => {
      const topology = new ZoneTopology({ zones });
      const shardsPerZone = weights && Object.fromEntries(zones.map((z, i) => [z, weights[i]]));
      const shards = weights ? weights.reduce((a, b) => a + b, 0) : zones.length + extra;
      const plan = ShardPlan.plan({ topology, shards, shardsPerZone });
      expect(plan.shards.map((s) => s.index)).toEqual(Array.from({ length: shards }, (_, i) => i));
      for (const zone of zones) {
        const inZone = plan.shardsInZone(zone);
        expect(inZone.length).toBeGreaterThan(0);
        if (shardsPerZone) expect(inZone.length).toBe(shardsPerZone[zone]);
        // the buckets 0..m-1 of the zone's modulus m: each owned by exactly one shard, none left over
        for (const s of inZone) expect(s.zoneShards).toBe(inZone.length);
        expect(inZone.map((s) => s.inZoneIndex)).toEqual(Array.from({ length: inZone.length }, (_, i) => i));
      }
    }));
  });

  test('property: without weights shard i is in zone i % Z, and raising shards never moves a shard', () => {
    fc.assert(fc.property(layouts, fc.integer({ min: 1, max: 10 }), ({ zones, extra }, more) => {
      const topology = new ZoneTopology({ zones });
      const before = ShardPlan.plan({ topology, shards: zones.length + extra }).shards;
      const after = ShardPlan.plan({ topology, shards: zones.length + extra + more }).shards;
      before.forEach((s, i) => {
        expect(s.zone).toBe(zones[i % zones.length]);
        const { zone, inZoneIndex } = after[i];
        expect({ zone, inZoneIndex }).toEqual({ zone: s.zone, inZoneIndex: s.inZoneIndex });
      });
    }));
  });

  test("property: prometheus-operator's formula leaves shards idle exactly when shards is not a multiple of the zones; ours never", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 30 }), (zoneCount, extra) => {
      const zones = Array.from({ length: zoneCount }, (_, i) => `z${i}`);
      const shards = zoneCount + extra;
      const idle = operatorTopologyShards(zones, shards).filter((s) => s.idle).map((s) => s.index);
      expect(idle.length).toBe(shards % zoneCount);
      const ours = ShardPlan.plan({ topology: new ZoneTopology({ zones }), shards }).shards;
      expect(ours.filter((s) => s.inZoneIndex >= s.zoneShards)).toEqual([]);
    }));
  });
});
