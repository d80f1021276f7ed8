import * as fc from 'fast-check';
import { LokiStackSize, ZoneTopology } from '../../src';
import { OPERATOR_INGESTERS } from '../../src/loki/options';
import { writeSurvival } from '../../src/loki/replication';
import { fewestZonesWithPods } from '../../src/topology/spread';
import { only } from '../util';
import { operator } from './loki-fixtures';

function placements(ingesters: number, zones: number, maxSkew: number): number[][] {
  const found: number[][] = [];
  const place = (left: number, counts: number[]) => {
    if (counts.length === zones) {
      if (left === 0 && Math.max(...counts) - Math.min(...counts) <= maxSkew) found.push(counts);
      return;
    }
    for (let n = 0; n <= left; n++) place(left - n, [...counts, n]);
  };
  place(ingesters, []);
  return found;
}

describe('operator sizes x zones x replication factor', () => {
  /**
   * Brute force, independent of the construct's formula: every placement of `ingesters` over the zones that
   * a hard zone spread of maxSkew allows, every stream replica set dskit can pick (one ingester per occupied
   * zone, up to RF), every zone lost: the write quorum floor(RF/2)+1 must remain.
   */
  function survivesEveryPlacement(ingesters: number, zones: number, maxSkew: number, rf: number): boolean {
    const subsets = (items: number[], k: number): number[][] =>
      (k === 0 ? [[]] : items.flatMap((x, i) => subsets(items.slice(i + 1), k - 1).map((rest) => [x, ...rest])));
    return placements(ingesters, zones, maxSkew).every((counts) => {
      const occupied = counts.map((n, z) => (n > 0 ? z : -1)).filter((z) => z >= 0);
      const streams = subsets(occupied, Math.min(rf, occupied.length));
      const quorum = Math.floor(rf / 2) + 1;
      return streams.every((stream) => counts.every((_, lost) => stream.filter((z) => z !== lost).length >= quorum));
    });
  }

  const sizes = Object.values(LokiStackSize);
  const cases = sizes.flatMap((size) => [2, 3, 4].flatMap((zones) => [1, 2, 3, 4, 5].flatMap((rf) =>
    [undefined, 1, 2, 3, 4, 6].flatMap((ingesterReplicas) =>
      [1, 2].map((maxSkew) => ({ size, zones, rf, ingesterReplicas, maxSkew }))))));

  test.each(cases)('%j: accepted exactly when every placement keeps writing with a zone down, refused saying why', ({ size, zones, rf, ingesterReplicas, maxSkew }) => {
    const topo = new ZoneTopology({ zones: Array.from({ length: zones }, (_, i) => `z${i}`) });
    let stack: any;
    let error: Error | undefined;
    try {
      stack = only(operator({ topology: topo, size, replicationFactor: rf, ingesterReplicas, maxSkew }), 'LokiStack');
    } catch (e) {
      error = e as Error;
    }
    if (stack) {
      const ingesters = stack.spec.template.ingester.replicas;
      expect(survivesEveryPlacement(ingesters, zones, maxSkew, rf)).toBe(true);
      if (ingesterReplicas !== undefined) expect(ingesters).toBe(ingesterReplicas);
      // The default is the size's own count unless that one would stop writes with a zone down.
      const sized = OPERATOR_INGESTERS[size];
      const defaultSurvives = ingesterReplicas === undefined && survivesEveryPlacement(sized, zones, maxSkew, rf);
      if (defaultSurvives) expect(ingesters).toBe(sized);
      return;
    }
    // Refused: the given count really loses writes; without one, no count from the size's up could help.
    const counts = ingesterReplicas !== undefined ? [ingesterReplicas]
      : Array.from({ length: zones * maxSkew + 3 }, (_, i) => OPERATOR_INGESTERS[size] + i);
    expect(counts.filter((n) => survivesEveryPlacement(n, zones, maxSkew, rf))).toEqual([]);
    expect(error!.message).toMatch(/^ZoneAwareLokiStack 'test\/loki': (replicationFactor|operator.ingesterReplicas)=\d+ with /);
    expect(error!.message).toContain(`size ${size}`);
    expect(error!.message).toContain(`replicationFactor ${rf}`);
    expect(error!.message).toContain(`over ${zones} zone(s)`);
    expect(error!.message).toMatch(/ingester/);
    expect(error!.message).toMatch(/Set operator.ingesterReplicas to \d+ or more|use replicationFactor/);
  });

  test('the default for replicationFactor 3 over 3 zones survives for every size (1x.small runs 2 ingesters: 3 are set)', () => {
    for (const size of sizes) {
      const ingesters = only(operator({ size }), 'LokiStack').spec.template.ingester.replicas;
      expect(survivesEveryPlacement(ingesters, 3, 1, 3)).toBe(true);
    }
    expect(only(operator({ size: LokiStackSize.ONE_X_SMALL }), 'LokiStack').spec.template.ingester.replicas).toBe(3);
    expect(only(operator({ size: LokiStackSize.ONE_X_MEDIUM }), 'LokiStack').spec.template.ingester.replicas).toBe(3);
  });

  test('two ingesters over three zones with replicationFactor 3 is refused, naming size, ingesters, zones and factor', () => {
    expect(() => operator({ size: LokiStackSize.ONE_X_SMALL, ingesterReplicas: 2 })).toThrow(
      "ZoneAwareLokiStack 'test/loki': operator.ingesterReplicas=2 with 2 ingesters (size 1x.small), replicationFactor 3 and maxSkew 1 over 3 zone(s) " +
      '[zone-a, zone-b, zone-c] does not keep writes going with a zone down: 2 ingester(s) may occupy only 2 of the 3 zones, so a stream ' +
      'may have only 2 replica(s); losing zone zone-a (1 of 2 replicas) leaves 1; the quorum (at least 2) needs 2. Set operator.ingesterReplicas to 3 or more');
  });
});

describe('write survival (survival math)', () => {
  test('property: the fewest zones holding ingesters is the fewest over every placement the spread allows', () => {
    const ingesterCounts = fc.integer({ min: 1, max: 12 });
    const zoneCounts = fc.integer({ min: 1, max: 5 });
    const skews = fc.integer({ min: 1, max: 4 });
    fc.assert(fc.property(ingesterCounts, zoneCounts, skews, (n, zones, skew) => {
      const occupied = placements(n, zones, skew).map((counts) => counts.filter((c) => c > 0).length);
      expect(fewestZonesWithPods(n, zones, skew)).toBe(Math.min(...occupied));
    }));
  });

  test('a zone outage leaves rf-1 replicas of each stream: enough for the quorum exactly when rf >= 3', () => {
    for (let rf = 1; rf <= 7; rf++) {
      const zones = Array.from({ length: rf }, (_, i) => `z${i}`);
      expect(writeSurvival(rf, zones, rf).survives).toBe(rf >= 3);
      expect(rf - 1 >= Math.floor(rf / 2) + 1).toBe(rf >= 3);
    }
  });
});
