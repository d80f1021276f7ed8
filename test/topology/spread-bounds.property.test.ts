/**
 * The placement bounds against a brute-force enumeration of every order the scheduler could place the pods in,
 * written from the scheduling rules only (a pod goes to a zone with room whose count + 1 - min stays within
 * maxSkew), not from the bounds' reasoning.
 */
import * as fc from 'fast-check';
import { HardSpread, placementBounds } from '../../src/topology/spread-bounds';

/** Every final layout reachable by placing `replicas` pods one at a time (memoized by layout). */
function finalLayouts(replicas: number, caps: number[], spread?: HardSpread): number[][] {
  const finals = new Map<string, number[]>();
  const seen = new Set<string>();
  const visit = (counts: number[]) => {
    const key = counts.join(',');
    if (seen.has(key)) return;
    seen.add(key);
    const placed = counts.reduce((a, b) => a + b, 0);
    const domainCounts = counts.filter((_, z) => spread?.domains[z]);
    const min = !spread || spread.minIsZero || domainCounts.length === 0 ? 0 : Math.min(...domainCounts);
    const allowed = (z: number) => !spread || (spread.domains[z] && counts[z] + 1 - min <= spread.maxSkew);
    const next = counts.map((_, z) => z).filter((z) => counts[z] < caps[z] && allowed(z));
    if (placed === replicas || next.length === 0) {
      finals.set(key, counts);
      return;
    }
    for (const z of next) visit(counts.map((c, i) => (i === z ? c + 1 : c)));
  };
  visit(caps.map(() => 0));
  return [...finals.values()];
}

const caseArb = fc.integer({ min: 1, max: 4 }).chain((zones) => fc.record({
  replicas: fc.integer({ min: 0, max: 9 }),
  caps: fc.array(
    fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(Infinity)),
    { minLength: zones, maxLength: zones },
  ),
  spread: fc.option(fc.record({
    maxSkew: fc.integer({ min: 1, max: 3 }),
    minIsZero: fc.boolean(),
    domains: fc.array(fc.boolean(), { minLength: zones, maxLength: zones }),
  }), { nil: undefined }),
}));

test('placed, lo and hi are exactly what the final layouts of every placement order give', () => {
  fc.assert(fc.property(caseArb, ({ replicas, caps, spread }) => {
    // the model: a zone outside a hard spread's domains has no room for the pods
    const room = caps.map((c, z) => (spread && !spread.domains[z] ? 0 : c));
    const finals = finalLayouts(replicas, room.map((c) => Math.min(c, replicas)), spread);
    const b = placementBounds(replicas, caps, spread);
    const sums = finals.map((f) => f.reduce((x, y) => x + y, 0));
    expect(new Set(sums)).toEqual(new Set([b.placed]));
    caps.forEach((_, z) => {
      expect(b.lo[z]).toBe(Math.min(...finals.map((f) => f[z])));
      expect(b.hi[z]).toBe(Math.max(...finals.map((f) => f[z])));
    });
  }), { numRuns: 2000 });
});

test('a table: 6 pods, 3 zones, maxSkew 1: 2 each; 7 pods: one zone 3; a zone with room for 1: 1 + 2 + 2, one Pending', () => {
  const spread = (domains = [true, true, true]) => ({ maxSkew: 1, minIsZero: false, domains });
  const unbounded = [Infinity, Infinity, Infinity];
  expect(placementBounds(6, unbounded, spread())).toEqual({ placed: 6, lo: [2, 2, 2], hi: [2, 2, 2] });
  expect(placementBounds(7, unbounded, spread())).toEqual({ placed: 7, lo: [2, 2, 2], hi: [3, 3, 3] });
  expect(placementBounds(6, [1, Infinity, Infinity], spread())).toEqual({ placed: 5, lo: [1, 2, 2], hi: [1, 2, 2] });
  expect(placementBounds(6, [Infinity, Infinity, Infinity])).toEqual({ placed: 6, lo: [0, 0, 0], hi: [6, 6, 6] });
});
