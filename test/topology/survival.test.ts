import * as fc from 'fast-check';
import { Quorum, Survival } from '../../src';
import { majorityOf, ringWriteSurvival } from '../../src/topology/survival';

describe('Quorum', () => {
  test.each([[1, 1], [2, 2], [3, 2], [4, 3], [5, 3], [6, 4]])('majority of %i is %i', (total, required) => {
    expect(Quorum.majority().required(total)).toBe(required);
  });
  test('atLeast', () => {
    expect(Quorum.atLeast(2).required(10)).toBe(2);
    expect(() => Quorum.atLeast(0)).toThrow('Quorum.atLeast: count=0 must be an integer >= 1');
  });
});

describe('Survival.check', () => {
  test.each([
    // layout, quorum, zones lost, survives, worst-case zones, remaining, required
    [{ a: 1, b: 1, c: 1 }, Quorum.majority(), 1, true, ['a'], 2, 2],
    [{ a: 2, b: 1 }, Quorum.majority(), 1, false, ['a'], 1, 2],
    [{ a: 1, b: 1 }, Quorum.majority(), 1, false, ['a'], 1, 2],
    [{ a: 2, b: 2, c: 1 }, Quorum.majority(), 1, true, ['a'], 3, 3],
    [{ a: 2, b: 2, c: 2 }, Quorum.majority(), 1, true, ['a'], 4, 4],
    [{ a: 2, b: 1, c: 1 }, Quorum.majority(), 1, false, ['a'], 2, 3],
    [{ a: 1, b: 1, c: 1, d: 1, e: 1 }, Quorum.majority(), 2, true, ['a', 'b'], 3, 3],
    [{ a: 2, b: 2, c: 2 }, Quorum.atLeast(2), 2, true, ['a', 'b'], 2, 2],
    [{ z: 3, y: 3, x: 0 }, Quorum.atLeast(3), 1, true, ['y'], 3, 3],
    [{ a: 1, b: 1, c: 1 }, Quorum.majority(), 0, true, [], 3, 2],
    [{ a: 1, b: 1, c: 1 }, Quorum.majority(), 3, false, ['a', 'b', 'c'], 0, 2],
  ])('%j %s k=%i', (layout, quorum, k, survives, worst, remaining, required) => {
    const v = Survival.check(layout, quorum, k);
    expect(v).toMatchObject({ survives, worstCaseZones: worst, remaining, required, zonesLost: k });
  });

  test('the reason names the lost zones, what remains and what the quorum needs', () => {
    expect(Survival.check({ a: 2, b: 1 }, Quorum.majority()).reason)
      .toBe('losing zone a (2 of 3 replicas) leaves 1; the quorum (majority) needs 2');
    expect(Survival.check({ a: 1, b: 1 }, Quorum.atLeast(3), 0).reason)
      .toBe('losing no zone leaves 2; the quorum (at least 3) needs 3 (the layout is below quorum even with every zone up)');
  });

  test.each([
    [{ a: -1 }, 1, 'Survival.check: replicasPerZone["a"]=-1 must be an integer >= 0'],
    [{ a: 1.5 }, 1, 'replicasPerZone["a"]=1.5 must be an integer >= 0'],
    [{ a: 1 }, -1, 'Survival.check: zonesLost=-1 must be an integer >= 0'],
  ])('rejects %j with k=%i', (layout, k, message) => {
    expect(() => Survival.check(layout, Quorum.majority(), k)).toThrow(message);
  });

  test.each([[3, 1], [4, 1], [5, 2], [6, 2], [7, 3]])('maxPerZone for %i replicas under majority is %i', (total, max) => {
    expect(Survival.maxPerZone(total, Quorum.majority())).toBe(max);
  });

  function subsets<T>(items: T[], k: number): T[][] {
    if (k === 0) return [[]];
    if (items.length < k) return [];
    const [first, ...rest] = items;
    return [...subsets(rest, k - 1).map((s) => [first, ...s]), ...subsets(rest, k)];
  }

  test('property: the verdict agrees with trying every set of k lost zones', () => {
    const layouts = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.nat(6), { minKeys: 1 });
    const quorums = fc.oneof(
      fc.constant(Quorum.majority()),
      fc.integer({ min: 1, max: 12 }).map((n) => Quorum.atLeast(n)),
    );
    fc.assert(fc.property(layouts, quorums, fc.nat(5), (layout, quorum, k) => {
      const zones = Object.keys(layout);
      const total = zones.reduce((s, z) => s + layout[z], 0);
      const needed = quorum.required(total);
      const lossSets = subsets(zones, Math.min(k, zones.length));
      const remainingAfter = (lost: string[]) => total - lost.reduce((s, z) => s + layout[z], 0);
      const bruteForce = lossSets.every((lost) => remainingAfter(lost) >= needed);
      const verdict = Survival.check(layout, quorum, k);
      expect(verdict.survives).toBe(bruteForce);
      expect(verdict.remaining).toBe(Math.min(...lossSets.map(remainingAfter)));
    }));
  });

  test('property: zones filled up to maxPerZone survive; moving one more replica into a zone does not', () => {
    fc.assert(fc.property(fc.integer({ min: 3, max: 40 }), (total) => {
      const max = Survival.maxPerZone(total, Quorum.majority());
      const layout: { [zone: string]: number } = {};
      for (let i = 0, left = total; left > 0; i++, left -= max) layout[`z${i}`] = Math.min(max, left);
      expect(Survival.check(layout, Quorum.majority()).survives).toBe(true);
      const zones = Object.keys(layout);
      const last = zones[zones.length - 1];
      layout[last] -= 1;
      layout.z0 += 1;
      expect(Survival.check(layout, Quorum.majority()).survives).toBe(false);
    }));
  });
});

describe('the majority and a zone-aware ring (one home for Loki\'s construct and the zone check)', () => {
  test('majorityOf is more than half', () => {
    expect([1, 2, 3, 4, 5, 6].map(majorityOf)).toEqual([1, 2, 2, 3, 3, 4]);
  });

  test('property: a ring survives a zone loss exactly when every item keeps a write majority, by brute force', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 7 }), (factor, zones) => {
      const names = Array.from({ length: zones }, (_, i) => `z${i}`);
      // an item has one replica in each of min(factor, zones) zones; lose any one zone of the ring
      const replicas = Math.min(factor, zones);
      const worst = replicas === 0 ? 0 : replicas - 1;
      const verdict = ringWriteSurvival(factor, names);
      expect(verdict.survives).toBe(worst * 2 > factor);
      expect(verdict.required).toBe(Math.floor(factor / 2) + 1);
    }));
  });
});
