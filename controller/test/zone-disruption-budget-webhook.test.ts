/**
 * The eviction webhook's reservations over a fake pod cache, with fake timers: what a forged review can
 * and cannot change, how a confirmed eviction holds back another zone, dry runs, memory.
 */
import { all, pod, world, zdb } from './zone-disruption-budget-fixtures';
import { AdmissionRequest, AdmissionVerdict } from '../src/admission';
import { KubeObject } from '../src/kube/api';
import { createLogger } from '../src/log';
import { createMetrics } from '../src/metrics';
import { EvictionReservations, evictionWebhook } from '../src/reconcilers/zone-disruption-budget';

const WINDOW = 3_000;
const ctx = {
  log: createLogger({ write: () => {} }),
  metrics: createMetrics({ defaultMetrics: false }),
  events: { record: async () => undefined },
};

/** The namespace's pods as the cache holds them, the webhook over them, and what the API server does. */
function cluster(maxUnavailable = 2) {
  const pods = new Map(all().map((p) => [`ns/${p.metadata.name}`, p]));
  const reservations = new EvictionReservations(WINDOW);
  const webhook = evictionWebhook(ctx, {
    synced: Promise.resolve(),
    pod: (key) => pods.get(key) as any,
    budgetsIn: () => [zdb(maxUnavailable) as any],
    world: () => world([...pods.values()]),
    reservations,
  });
  return {
    reservations,
    /** Asks the webhook about evicting db-i; `settled()` says whether it has answered yet. */
    evict(i: number, dryRun = false) {
      const request: AdmissionRequest = {
        uid: `uid-${i}-${Math.random()}`,
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        subResource: 'eviction',
        name: `db-${i}`,
        namespace: 'ns',
        operation: 'CREATE',
        dryRun,
      };
      let answered = false;
      const verdict = webhook.handle(request).finally(() => { answered = true; });
      return Object.assign(verdict, { settled: () => answered });
    },
    /** The API server deletes db-i (a deletionTimestamp), and the informer, having cached it, confirms. */
    delete(i: number) {
      const going: KubeObject = pod(i, { terminating: true });
      pods.set(`ns/db-${i}`, going);
      reservations.confirm(`ns/db-${i}`);
    },
  };
}

const zoneOf = (key: string) => ['zone-a', 'zone-b', 'zone-c'][Number(key.split('-').pop()) % 3];

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** Lets the webhook's promises run, and `ms` of fake time pass. */
const pass = (ms = 0) => jest.advanceTimersByTimeAsync(ms);

describe('eviction reservations', () => {
  test('a forged allowed review delays a later eviction in another zone by one window at most, and does not change its verdict', async () => {
    const honest = cluster();
    const expected: AdmissionVerdict = await honest.evict(1);
    expect(expected).toMatchObject({ allowed: true, zone: 'zone-b' });

    const forged = cluster();
    expect(await forged.evict(0)).toMatchObject({ allowed: true, zone: 'zone-a' });
    expect(forged.reservations.pendingPods()).toEqual(['ns/db-0']);
    const legit = forged.evict(1);
    await pass(WINDOW - 1);
    expect(legit.settled()).toBe(false);
    await pass(1);
    expect(legit.settled()).toBe(true);
    expect(await legit).toEqual(expected);
    // the forged reservation expired and left nothing behind; the legit one is now the only one
    expect(forged.reservations.pendingPods()).toEqual(['ns/db-1']);
  });

  test('the API server confirming an eviction in zone a: an eviction in zone b waited for it, and is denied', async () => {
    const c = cluster();
    expect(await c.evict(0)).toMatchObject({ allowed: true, zone: 'zone-a' });
    const other = c.evict(1);
    await pass(50);
    expect(other.settled()).toBe(false);
    c.delete(0);
    await pass();
    expect(await other).toEqual({
      allowed: false, code: 429, zone: 'zone-b', message: expect.stringMatching(/zone\(s\) zone-a \(1 unavailable\) already disrupted/),
    });
    expect(c.reservations.pendingPods()).toEqual([]);
    // the same zone may go on
    expect(await c.evict(3)).toMatchObject({ allowed: true, zone: 'zone-a' });
  });

  test('evictions deciding together cannot exceed a budget, even before the API server confirms either', async () => {
    const c = cluster(1);
    await c.evict(1); // a review nobody confirms: the next two arrive while it is pending
    const [a, b] = [c.evict(0), c.evict(3)]; // both zone-a, one disruption allowed there
    await pass(WINDOW);
    const verdicts = [await a, await b].map((v) => ({ allowed: v.allowed, code: v.code }));
    expect(verdicts).toContainEqual({ allowed: true, code: undefined });
    expect(verdicts).toContainEqual({ allowed: false, code: 429 });
  });

  test('dry runs never reserve: the next eviction is decided at once', async () => {
    const c = cluster();
    expect(await c.evict(0, true)).toMatchObject({ allowed: true, zone: 'zone-a' });
    expect(c.reservations.pendingPods()).toEqual([]);
    const next = c.evict(1);
    await pass();
    expect(next.settled()).toBe(true);
    expect(await next).toMatchObject({ allowed: true, zone: 'zone-b' });
  });

  test('memory: at most one reservation per pod, all in one zone at any time, none once their windows pass', async () => {
    const c = cluster();
    const floods = [0, 1, 2, 3, 4, 5].flatMap((i) => Array.from({ length: 50 }, () => c.evict(i)));
    for (let t = 0; t < 4 * WINDOW; t += WINDOW / 4) {
      await pass(WINDOW / 4);
      const pending = c.reservations.pendingPods();
      expect(pending.length).toBeLessThanOrEqual(2);
      expect(new Set(pending.map(zoneOf)).size).toBeLessThanOrEqual(1);
    }
    expect(floods.every((f) => f.settled())).toBe(true);
    await pass(WINDOW);
    expect(c.reservations.pendingPods()).toEqual([]);
  });
});
