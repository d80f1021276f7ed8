import * as fc from 'fast-check';
import { BudgetPod, computeBudget, evictionVerdict, missingPods, UNKNOWN_BUDGET_ZONE } from '../../src/rollout/disruption-budget';
import { checkMaxUnavailable, scaleMaxUnavailable } from '../../src/rollout/max-unavailable';

const healthy = (name: string, zone?: string): BudgetPod => ({ name, zone, healthy: true });
const down = (name: string, zone?: string): BudgetPod => ({ name, zone, healthy: false });

/** A 9-pod StatefulSet `db` over zones a, b, c (db-0 in a, db-1 in b, ...). */
function db(except: string[] = [], unhealthy: string[] = []): BudgetPod[] {
  return [...Array(9).keys()]
    .map((i) => ({ name: `db-${i}`, zone: 'abc'[i % 3] }))
    .filter((p) => !except.includes(p.name))
    .map((p) => unhealthy.includes(p.name) ? down(p.name, p.zone) : healthy(p.name, p.zone));
}

describe('ZoneDisruptionBudget budget', () => {
  test('all healthy: each zone may lose maxUnavailable pods', () => {
    const budget = computeBudget({ pods: db(), missing: [], maxUnavailable: 2 });
    expect(budget.zones).toEqual([
      { zone: 'a', expected: 3, healthy: 3, unavailable: 0, disruptionsAllowed: 2, shifted: false, outByShift: 0 },
      { zone: 'b', expected: 3, healthy: 3, unavailable: 0, disruptionsAllowed: 2, shifted: false, outByShift: 0 },
      { zone: 'c', expected: 3, healthy: 3, unavailable: 0, disruptionsAllowed: 2, shifted: false, outByShift: 0 },
    ]);
  });

  test('an unhealthy pod in one zone leaves 0 disruptions everywhere else', () => {
    const budget = computeBudget({ pods: db([], ['db-1']), missing: [], maxUnavailable: 2 });
    expect(budget.zones.map((z) => [z.zone, z.disruptionsAllowed])).toEqual([['a', 0], ['b', 1], ['c', 0]]);
    expect(evictionVerdict(budget, healthy('db-4', 'b')).allowed).toBe(true);
    expect(evictionVerdict(budget, healthy('db-0', 'a'))).toEqual({
      allowed: false, zone: 'a', reason: 'zone(s) b (1 unavailable) already disrupted; only evictions in the same zone may proceed',
    });
  });

  test('bug 28: a deleted, not yet recreated StatefulSet pod is unavailable in its zone', () => {
    // db-1 (zone b) was evicted and is not back yet. Upstream sees 8 healthy pods and allows zone a.
    const owners = [{
      kind: 'StatefulSet' as const,
      name: 'db',
      replicas: 9,
      activePods: db(['db-1']).map((p) => p.name),
      knownZones: { 'db-1': 'b' },
    }];
    const missing = missingPods(owners);
    expect(missing).toEqual([{ name: 'db-1', zone: 'b' }]);
    const budget = computeBudget({ pods: db(['db-1']), missing, maxUnavailable: 2 });
    expect(budget.zones.find((z) => z.zone === 'b'))
      .toMatchObject({ zone: 'b', expected: 3, healthy: 2, unavailable: 1, disruptionsAllowed: 1, shifted: false });
    expect(evictionVerdict(budget, healthy('db-0', 'a')).allowed).toBe(false);
    expect(evictionVerdict(budget, healthy('db-4', 'b')).allowed).toBe(true);
    // Upstream's count (missing pods ignored) would have allowed the second-zone eviction:
    const upstreamBudget = computeBudget({ pods: db(['db-1']), missing: [], maxUnavailable: 2 });
    expect(evictionVerdict(upstreamBudget, healthy('db-0', 'a')).allowed).toBe(true);
  });

  test('a missing pod of unknown zone blocks every zone', () => {
    const owners = [{ kind: 'StatefulSet' as const, name: 'db', replicas: 9, activePods: db(['db-1']).map((p) => p.name) }];
    const budget = computeBudget({ pods: db(['db-1']), missing: missingPods(owners), maxUnavailable: 2 });
    expect(budget.zones.map((z) => [z.zone, z.unavailable, z.disruptionsAllowed]))
      .toEqual([['a', 0, 0], ['b', 0, 0], ['c', 0, 0], [UNKNOWN_BUDGET_ZONE, 1, 0]]);
    expect(evictionVerdict(budget, healthy('db-0', 'a')).reason).toMatch(/<unknown> \(1 unavailable\) already disrupted/);
  });

  test('ReplicaSet owners: fewer active pods than replicas are missing in an unknown zone', () => {
    const missing = missingPods([{ kind: 'ReplicaSet', name: 'web-7d9', replicas: 3, activePods: ['web-7d9-a', 'web-7d9-b'] }]);
    expect(missing).toEqual([{ name: 'ReplicaSet web-7d9 (3 of 3)' }]);
  });

  test('StatefulSet owners: a terminating pod is unhealthy, not missing; spec.ordinals.start is honoured', () => {
    expect(missingPods([{ kind: 'StatefulSet', name: 'db', replicas: 3, startOrdinal: 5, activePods: ['db-5'], terminatingPods: ['db-6'] }]))
      .toEqual([{ name: 'db-7', zone: undefined }]);
  });

  test('the zone budget is used up: no more evictions in it', () => {
    const budget = computeBudget({ pods: db([], ['db-0', 'db-3']), missing: [], maxUnavailable: 2 });
    expect(evictionVerdict(budget, healthy('db-6', 'a'))).toEqual({
      allowed: false, zone: 'a', reason: 'zone a has 2 unavailable pod(s), maxUnavailable 2: no disruption allowed',
    });
    // An already unavailable pod may go: it lowers nothing.
    expect(evictionVerdict(budget, down('db-0', 'a')).allowed).toBe(true);
  });

  test('a pod without a zone is never evicted', () => {
    const pods = [...db(), healthy('stray')];
    const budget = computeBudget({ pods, missing: [], maxUnavailable: 2 });
    expect(evictionVerdict(budget, healthy('stray')).allowed).toBe(false);
    expect(evictionVerdict(budget, healthy('stray')).reason).toMatch(/has no zone/);
    expect(evictionVerdict(budget, healthy('db-0', 'a')).allowed).toBe(true); // a healthy zoneless pod blocks nothing
  });

  test('property: an allowed eviction never leaves two zones with unavailable pods, nor a zone above maxUnavailable', () => {
    const podArb = fc.record({ zone: fc.constantFrom(undefined, 'a', 'b', 'c'), healthy: fc.boolean() });
    fc.assert(fc.property(
      fc.array(podArb, { minLength: 1, maxLength: 20 }), fc.array(fc.constantFrom(undefined, 'a', 'b'), { maxLength: 3 }),
      fc.integer({ min: 1, max: 4 }), fc.nat(),
      (specs, missingZones, maxUnavailable, pick) => {
        const pods = specs.map((s, i) => ({ name: `p${i}`, zone: s.zone, healthy: s.healthy }));
        const missing = missingZones.map((zone, i) => ({ name: `m${i}`, zone }));
        const pod = pods[pick % pods.length];
        const verdict = evictionVerdict(computeBudget({ pods, missing, maxUnavailable }), pod);
        if (!verdict.allowed) return;
        const rest = pods.filter((p) => p !== pod);
        const withPodMissing = [...missing, { name: pod.name, zone: pod.zone }];
        const after = computeBudget({ pods: rest, missing: withPodMissing, maxUnavailable });
        const disrupted = after.zones.filter((z) => z.unavailable > 0);
        expect(disrupted.map((z) => z.zone)).toEqual([pod.zone]);
        if (pod.healthy) expect(disrupted[0].unavailable).toBeLessThanOrEqual(maxUnavailable);
      }), { numRuns: 500 });
  });
});

describe('ZoneDisruptionBudget budget during a zonal shift: the shifted zone is the one disrupted', () => {
  /** db with zone a shifted: db-0, db-3, db-6 out of service by the shift (their gate False). */
  const shiftedOut = (name: string, zone: string): BudgetPod => ({ name, zone, healthy: false, outByShift: true });
  const dbShifted = (): BudgetPod[] => db().map((p) => (p.zone === 'a' ? shiftedOut(p.name, 'a') : p));

  test('the pods a shift took out count as no disruption, and may always be evicted', () => {
    const budget = computeBudget({ pods: dbShifted(), missing: [], maxUnavailable: 1 });
    expect(budget.zones.map((z) => [z.zone, z.shifted, z.outByShift, z.unavailable, z.disruptionsAllowed]))
      .toEqual([['a', true, 3, 0, 1], ['b', false, 0, 0, 1], ['c', false, 0, 0, 1]]);
    expect(evictionVerdict(budget, shiftedOut('db-0', 'a'))).toEqual({
      allowed: true, zone: 'a', reason: 'pod db-0 is out of service by a zonal shift of zone a: evicting it lowers nothing that serves',
    });
  });

  test('a drain in another zone goes on, paced by maxUnavailable, one zone at a time', () => {
    const budget = computeBudget({ pods: dbShifted(), missing: [], maxUnavailable: 1 });
    expect(evictionVerdict(budget, healthy('db-1', 'b')).allowed).toBe(true);
    // db-1 evicted, not yet back: zone b used its budget, and zone c waits for it
    const withoutDb1 = dbShifted().filter((p) => p.name !== 'db-1');
    const after = computeBudget({ pods: withoutDb1, missing: [{ name: 'db-1', zone: 'b' }], maxUnavailable: 1 });
    expect(evictionVerdict(after, healthy('db-4', 'b')).reason).toBe('zone b has 1 unavailable pod(s), maxUnavailable 1: no disruption allowed');
    expect(evictionVerdict(after, healthy('db-2', 'c')).reason)
      .toBe('zone(s) b (1 unavailable) already disrupted; only evictions in the same zone may proceed');
    // the shifted zone's own missing pods (evicted out of service, not back) hold no other zone back
    const aEvicted = computeBudget({
      pods: dbShifted().filter((p) => p.name !== 'db-0'), missing: [{ name: 'db-0', zone: 'a' }], maxUnavailable: 1,
    });
    expect(evictionVerdict(aEvicted, healthy('db-1', 'b')).allowed).toBe(true);
  });

  test('a shifted zone\'s pods that still serve (kept by the fail-safe, or not opted in) are paced as any', () => {
    const pods = dbShifted().map((p) => (p.name === 'db-6' ? healthy('db-6', 'a') : p));
    const budget = computeBudget({ pods, missing: [], maxUnavailable: 1 });
    expect(evictionVerdict(budget, healthy('db-6', 'a')).allowed).toBe(true);
    const db1Down = pods.map((p) => (p.name === 'db-1' ? down('db-1', 'b') : p));
    const b = computeBudget({ pods: db1Down, missing: [], maxUnavailable: 1 });
    expect(evictionVerdict(b, healthy('db-6', 'a')).allowed).toBe(false);
  });

  test('a zone is shifted by its nodes\' taint too, once its pods are gone', () => {
    const pods = db().filter((p) => p.zone !== 'a');
    const missing = ['db-0', 'db-3', 'db-6'].map((name) => ({ name, zone: 'a' }));
    expect(evictionVerdict(computeBudget({ pods, missing, maxUnavailable: 1 }), healthy('db-1', 'b')).allowed).toBe(false);
    const shifted = computeBudget({ pods, missing, maxUnavailable: 1, shiftedZones: new Set(['a']) });
    expect(evictionVerdict(shifted, healthy('db-1', 'b')).allowed).toBe(true);
  });

  test('property: an allowed eviction of a serving pod leaves no zone but its own and shifted ones disrupted, its own within maxUnavailable', () => {
    const zoneArb = fc.constantFrom(undefined, 'a', 'b', 'c');
    const podArb = fc.record({ zone: zoneArb, state: fc.constantFrom('healthy', 'down', 'out') });
    fc.assert(fc.property(
      fc.array(podArb, { minLength: 1, maxLength: 20 }), fc.array(zoneArb, { maxLength: 3 }),
      fc.constantFrom(undefined, 'a', 'b'), fc.integer({ min: 1, max: 4 }), fc.nat(),
      (specs, missingZones, shiftedZone, maxUnavailable, pick) => {
        // a shift takes pods out in its zone only
        const pods: BudgetPod[] = specs.map((s, i) => ({
          name: `p${i}`,
          zone: s.zone,
          healthy: s.state === 'healthy',
          outByShift: s.state === 'out' && s.zone === shiftedZone && s.zone !== undefined,
        }));
        const missing = missingZones.map((zone, i) => ({ name: `m${i}`, zone }));
        const shiftedZones = new Set(shiftedZone ? [shiftedZone] : []);
        const pod = pods[pick % pods.length];
        const verdict = evictionVerdict(computeBudget({ pods, missing, maxUnavailable, shiftedZones }), pod);
        if (pod.outByShift) expect(verdict.allowed).toBe(true);
        if (!verdict.allowed || pod.outByShift) return;
        const rest = pods.filter((p) => p !== pod);
        const withPodMissing = [...missing, { name: pod.name, zone: pod.zone }];
        const after = computeBudget({ pods: rest, missing: withPodMissing, maxUnavailable, shiftedZones });
        const disrupted = after.zones.filter((z) => z.unavailable > 0 && (!z.shifted || z.zone === pod.zone));
        expect(disrupted.filter((z) => z.zone !== pod.zone)).toEqual([]);
        if (pod.healthy) expect(disrupted[0].unavailable).toBeLessThanOrEqual(maxUnavailable);
      }), { numRuns: 1000 });
  });
});

describe('maxUnavailable', () => {
  test('percentages scale against the total: ZoneAwareUpdate rounds down, ZoneDisruptionBudget up, never below 1', () => {
    expect(scaleMaxUnavailable('33%', 30, 'down')).toBe(9);
    expect(scaleMaxUnavailable('33%', 30, 'up')).toBe(10);
    expect(scaleMaxUnavailable('10%', 5, 'down')).toBe(1);
    expect(scaleMaxUnavailable('100%', 7, 'up')).toBe(7);
    expect(scaleMaxUnavailable(3, 100, 'up')).toBe(3);
    expect(scaleMaxUnavailable('50%', 0, 'up')).toBe(0);
  });

  test.each([0, -1, 1.5, '0%', '101%', 'a', '5', '10.5%'])('refuses %p', (value) => {
    expect(() => checkMaxUnavailable("ZoneAwareUpdate 'x'", 'maxUnavailable', value)).toThrow(/^ZoneAwareUpdate 'x': maxUnavailable=/);
  });
});
