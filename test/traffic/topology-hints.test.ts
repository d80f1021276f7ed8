/**
 * The EndpointSlice controller's topology-aware hints, counted per zone (src/traffic/topology-hints.ts), worked by
 * hand from its allotment rules: each zone's desired count is its CPU share of the ready endpoints, its minimum
 * that over 1.2 rounded up; the controller refuses when the minimums add up to more than the endpoints.
 * (The tier test kubernetes/traffic-hints.test.ts holds the same against the real controller.)
 */
import { fewestHintedEndpoints, topologyHints } from '../../src/traffic/topology-hints';

const equal3 = [1 / 3, 1 / 3, 1 / 3];

describe('topologyHints', () => {
  test('6 endpoints all in one of 3 equal zones: it keeps 2 and gives 2 to each other zone', () => {
    expect(topologyHints([6, 0, 0], equal3)).toEqual({ outcomes: [{ kept: [2, 0, 0], hinted: [2, 2, 2] }] });
  });

  test('an even layout is hinted as it is', () => {
    expect(topologyHints([2, 2, 2], equal3)).toEqual({ outcomes: [{ kept: [2, 2, 2], hinted: [2, 2, 2] }] });
  });

  test('7 endpoints in one zone: 2.33 desired each; the receiving zones get 2 each, the rest stays', () => {
    expect(topologyHints([7, 0, 0], equal3)).toEqual({ outcomes: [{ kept: [3, 0, 0], hinted: [3, 2, 2] }] });
  });

  test('equal zones tied to give: either may give its endpoint (Go map order), so both outcomes are kept', () => {
    const hints = topologyHints([3, 3, 1], equal3);
    expect('outcomes' in hints && hints.outcomes.map((o) => o.hinted).sort()).toEqual([[2, 3, 2], [3, 2, 2]]);
  });

  test('5 endpoints over 3 equal zones: minimums of 2 each need 6, so no hints', () => {
    expect(topologyHints([5, 0, 0], equal3)).toEqual({ fellBack: expect.stringContaining('minimums add up to 6') });
  });

  test('fewer endpoints than zones, and nodes in one zone only, fall back', () => {
    expect(topologyHints([1, 1, 0], equal3)).toEqual({ fellBack: 'fewer ready endpoints (2) than zones with ready nodes (3)' });
    expect(topologyHints([4, 0, 0], [1, 0, 0])).toEqual({ fellBack: 'the ready nodes are in one zone only' });
  });

  test('CPU shares decide the allotment: a zone with half the CPU gets half the endpoints', () => {
    expect(topologyHints([4, 4, 4], [0.5, 0.25, 0.25])).toEqual({ outcomes: [{ kept: [4, 3, 3], hinted: [6, 3, 3] }] });
  });

  test('the fewest endpoints hinted from a count on: 3 equal zones take 3 (1 each), not 4 or 5 (minimums of 2), then 6 on', () => {
    expect(fewestHintedEndpoints(1, equal3)).toBe(3);
    expect(topologyHints([2, 1, 1], equal3)).toHaveProperty('fellBack');
    expect(fewestHintedEndpoints(4, equal3)).toBe(6);
    expect(fewestHintedEndpoints(7, equal3)).toBe(7);
    expect(fewestHintedEndpoints(1, 'no CPU')).toBeUndefined();
  });
});
