/** Properties of the ZoneAwareUpdate planner on random workloads, rolled to completion like the controller does. */
import * as fc from 'fast-check';
import { planUpdate, RolloutPod, RolloutState, UNKNOWN_ZONE } from '../../src/rollout/update-plan';

const caseArb = fc.record({
  pods: fc.array(
    fc.record({ zone: fc.constantFrom(undefined, 'a', 'b', 'c', 'd'), old: fc.boolean() }),
    { minLength: 1, maxLength: 40 },
  ),
  maxUnavailable: fc.integer({ min: 1, max: 12 }),
  exponentialFactor: fc.constantFrom(0, 1, 1.5, 2, 3, 10),
});

/** The planner's input: `pods` rolled to revision v2 within case `c`'s limits. */
const inputOf = (c: { maxUnavailable: number; exponentialFactor: number }, pods: RolloutPod[]) => ({
  pods,
  replicas: pods.length,
  updateRevision: 'v2',
  maxUnavailable: c.maxUnavailable,
  exponentialFactor: c.exponentialFactor,
});

describe('ZoneAwareUpdate planner properties', () => {
  test('one zone per batch, never more than maxUnavailable, zones in order, every old pod deleted exactly once', () => {
    fc.assert(fc.property(caseArb, (c) => {
      let pods: RolloutPod[] = c.pods.map((p, i) => ({
        name: `p-${i}`, order: i, zone: p.zone, revision: p.old ? 'v1' : 'v2', ready: true, terminating: false,
      }));
      const oldNames = pods.filter((p) => p.revision === 'v1').map((p) => p.name);
      const deleted: string[] = [];
      const zonesSeen: string[] = [];
      const sizes: number[] = [];
      let state: RolloutState | undefined;
      for (let i = 0; i <= oldNames.length; i++) {
        const d = planUpdate({ ...inputOf(c, pods), state });
        expect(d.action).not.toBe('wait');
        state = d.state;
        if (d.action === 'done') break;
        if (d.action !== 'delete') throw new Error('unreachable');
        expect(d.pods.length).toBeGreaterThan(0);
        expect(d.pods.length).toBeLessThanOrEqual(c.maxUnavailable);
        const zones = new Set(d.pods.map((n) => pods.find((p) => p.name === n)!.zone ?? UNKNOWN_ZONE));
        expect([...zones]).toEqual([d.zone]);
        if (zonesSeen[zonesSeen.length - 1] !== d.zone) {
          expect(zonesSeen).not.toContain(d.zone); // never comes back to a zone
          zonesSeen.push(d.zone);
        }
        sizes.push(d.pods.length);
        deleted.push(...d.pods);
        pods = pods.map((p) => d.pods.includes(p.name) ? { ...p, revision: 'v2' } : p);
      }
      expect([...deleted].sort()).toEqual([...oldNames].sort());
      expect(new Set(deleted).size).toBe(deleted.length);
      // Known zones alphabetically, the unknown zone last.
      const known = zonesSeen.filter((z) => z !== UNKNOWN_ZONE);
      expect(known).toEqual([...known].sort());
      if (zonesSeen.includes(UNKNOWN_ZONE)) expect(zonesSeen[zonesSeen.length - 1]).toBe(UNKNOWN_ZONE);
      // The step number equals the number of batches deleted.
      expect(state!.step).toBe(sizes.length);
    }), { numRuns: 300 });
  });

  test('zones out of service: no batch there; every other old pod rolled, then a wait; the rest once the shift ends', () => {
    fc.assert(fc.property(caseArb, fc.subarray(['a', 'b', 'c', 'd'], { minLength: 1 }), (c, out) => {
      let pods: RolloutPod[] = c.pods.map((p, i) => ({
        name: `p-${i}`, order: i, zone: p.zone, revision: p.old ? 'v1' : 'v2', ready: true, terminating: false,
      }));
      const held = (p: RolloutPod) => p.zone !== undefined && out.includes(p.zone);
      let state: RolloutState | undefined;
      const roll = (outOfServiceZones: string[]) => {
        for (let i = 0; i <= pods.length; i++) {
          const d = planUpdate({ ...inputOf(c, pods), state, outOfServiceZones });
          state = d.state;
          if (d.action !== 'delete') return d;
          expect(outOfServiceZones).not.toContain(d.zone);
          pods = pods.map((p) => d.pods.includes(p.name) ? { ...p, revision: 'v2' } : p);
        }
        throw new Error('no end');
      };
      const during = roll(out);
      const left = pods.filter((p) => p.revision === 'v1');
      expect(left.every(held)).toBe(true);
      if (left.length > 0) expect(during).toMatchObject({ action: 'wait', reason: expect.stringMatching(/^waiting for a zonal shift to end/) });
      expect(roll([]).action).toBe('done');
    }), { numRuns: 200 });
  });

  test('batch sizes never shrink except at the end of a zone, and factor 0 always uses maxUnavailable when possible', () => {
    fc.assert(fc.property(caseArb, (c) => {
      let pods: RolloutPod[] = c.pods.map((p, i) => ({
        name: `p-${i}`, order: i, zone: p.zone ?? 'a', revision: 'v1', ready: true, terminating: false,
      }));
      let state: RolloutState | undefined;
      let previous = 0;
      for (;;) {
        const d = planUpdate({ ...inputOf(c, pods), state });
        if (d.action !== 'delete') break;
        state = d.state;
        const leftInZone = pods.filter((p) => p.revision === 'v1' && p.zone === d.zone).length;
        if (d.pods.length < leftInZone) {
          // Not cut short by the zone's end: the ramp is monotonic.
          expect(d.pods.length).toBeGreaterThanOrEqual(previous);
          if (c.exponentialFactor === 0) expect(d.pods.length).toBe(c.maxUnavailable);
        }
        previous = d.pods.length;
        pods = pods.map((p) => d.pods.includes(p.name) ? { ...p, revision: 'v2' } : p);
      }
    }), { numRuns: 300 });
  });

  test('nothing is deleted while a pod terminates or an updated pod is not Ready', () => {
    fc.assert(fc.property(caseArb, fc.nat(), fc.boolean(), (c, pick, terminating) => {
      const pods: RolloutPod[] = c.pods.map((p, i) => ({
        name: `p-${i}`, order: i, zone: p.zone, revision: p.old ? 'v1' : 'v2', ready: true, terminating: false,
      }));
      const i = pick % pods.length;
      pods[i] = terminating ? { ...pods[i], terminating: true } : { ...pods[i], revision: 'v2', ready: false };
      const d = planUpdate(inputOf(c, pods));
      expect(d.action).toBe('wait');
    }), { numRuns: 200 });
  });

  test('with otherZonesReady, no batch is planned while a pod outside its zone is not Ready; without a sick pod elsewhere it rolls as before', () => {
    const sickArb = fc.record({ c: caseArb, ready: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }) });
    fc.assert(fc.property(sickArb, ({ c, ready }) => {
      const pods: RolloutPod[] = c.pods.map((p, i) => ({
        name: `p-${i}`, order: i, zone: p.zone, revision: p.old ? 'v1' : 'v2', ready: ready[i], terminating: false,
      }));
      const input = inputOf(c, pods);
      const guarded = planUpdate({ ...input, otherZonesReady: true });
      const plain = planUpdate(input);
      if (guarded.action === 'delete') {
        expect(pods.filter((p) => !p.ready && (p.zone ?? UNKNOWN_ZONE) !== guarded.zone)).toEqual([]);
        expect(guarded).toEqual(plain);
      } else if (plain.action === 'delete') {
        const unready = pods.filter((p) => !p.ready && (p.zone ?? UNKNOWN_ZONE) !== plain.zone).map((p) => p.name);
        expect(unready.length).toBeGreaterThan(0);
        expect(guarded).toMatchObject({ action: 'wait', reason: expect.stringContaining(unready[0]) });
      } else {
        expect(guarded).toEqual(plain);
      }
    }), { numRuns: 500 });
  });
});
