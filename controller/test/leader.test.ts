import { decideLease, LeaderElector, LeaseRecord, LeaseStore, microTime, StoredLease } from '../src/kube/leader';
import { createLogger } from '../src/log';

const log = createLogger({ write: () => {} });

/** A lease store with the API server's optimistic concurrency: writes carry the version they read. */
class FakeLeaseStore implements LeaseStore {
  lease: StoredLease | undefined;
  private version = 0;
  failing = false;
  async get() {
    if (this.failing) throw new Error('API server unreachable');
    return this.lease && { record: { ...this.lease.record }, resourceVersion: this.lease.resourceVersion };
  }
  async create(record: LeaseRecord) {
    if (this.failing) throw new Error('API server unreachable');
    if (this.lease) throw new Error('409 AlreadyExists');
    this.lease = { record, resourceVersion: String(++this.version) };
  }
  async update(record: LeaseRecord, resourceVersion: string) {
    if (this.failing) throw new Error('API server unreachable');
    if (this.lease?.resourceVersion !== resourceVersion) throw new Error('409 Conflict');
    this.lease = { record, resourceVersion: String(++this.version) };
  }
}

describe('decideLease', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  test('no lease: create it as holder', () => {
    expect(decideLease(undefined, 'a', 15, t0, t0)).toEqual({
      action: 'create',
      record: {
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-01T00:00:00.000000Z',
        renewTime: '2026-01-01T00:00:00.000000Z',
        leaseTransitions: 0,
      },
    });
  });
  test('own lease: renew, keeping acquireTime and transitions', () => {
    const held = {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: microTime(t0),
      renewTime: microTime(t0),
      leaseTransitions: 3,
    };
    expect(decideLease(held, 'a', 15, t0 + 2000, t0))
      .toEqual({ action: 'update', record: { ...held, renewTime: microTime(t0 + 2000) } });
  });
  test('another holder: wait while its record changed within the duration (own clock), take over after', () => {
    const other = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: '1999-01-01T00:00:00.000000Z', leaseTransitions: 1 };
    // renewTime is from another clock and ignored: only when this candidate last saw the record change counts
    expect(decideLease(other, 'a', 15, t0 + 14_999, t0)).toEqual({ action: 'wait', holder: 'b' });
    expect(decideLease(other, 'a', 15, t0 + 15_000, t0)).toEqual({
      action: 'update',
      record: {
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: microTime(t0 + 15_000),
        renewTime: microTime(t0 + 15_000),
        leaseTransitions: 2,
      },
    });
  });
  test('a released lease (empty holder) is taken at once', () => {
    expect(decideLease({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 4 }, 'a', 15, t0, t0))
      .toMatchObject({ action: 'update', record: { holderIdentity: 'a', leaseTransitions: 5 } });
  });
});

describe('LeaderElector', () => {
  test('two candidates on one store: exactly one leads; the other takes over once the leader stops renewing', async () => {
    const store = new FakeLeaseStore();
    let now = 0;
    const a = new LeaderElector(store, { identity: 'a', leaseDurationSeconds: 15, log, now: () => now });
    const b = new LeaderElector(store, { identity: 'b', leaseDurationSeconds: 15, log, now: () => now });
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    for (now = 2000; now <= 30_000; now += 2000) { // a keeps renewing: b never gets it
      expect(await a.tryAcquireOrRenew()).toBe(true);
      expect(await b.tryAcquireOrRenew()).toBe(false);
    }
    // a dies: b sees the record unchanged from 30 s and takes over at 45 s, not before
    now = 44_000;
    expect(await b.tryAcquireOrRenew()).toBe(false);
    now = 45_000;
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(store.lease!.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    // a comes back: it is not the holder any more
    expect(await a.tryAcquireOrRenew()).toBe(false);
  });

  test('a lost race (the lease changed between read and write) is not leadership', async () => {
    const store = new FakeLeaseStore();
    const a = new LeaderElector(store, { identity: 'a', log, now: () => 0 });
    const realGet = store.get.bind(store);
    store.get = async () => {
      const seen = await realGet();
      await store.create({ holderIdentity: 'b', leaseDurationSeconds: 15 }); // b wins meanwhile
      return seen;
    };
    await expect(a.tryAcquireOrRenew()).rejects.toThrow('409 AlreadyExists');
    expect(store.lease!.record.holderIdentity).toBe('b');
  });

  test('run: leads, stops its work before releasing on shutdown; the release lets the other take over at once', async () => {
    const store = new FakeLeaseStore();
    const events: string[] = [];
    const shutdown = new AbortController();
    const a = new LeaderElector(store, { identity: 'a', retryPeriodMs: 10, log });
    const running = a.run(shutdown.signal, {
      onStartedLeading: (leading) => new Promise<void>((resolve) => {
        events.push('started');
        const stopWork = () => {
          events.push(`work stopped, holder ${store.lease!.record.holderIdentity}`);
          resolve();
        };
        leading.addEventListener('abort', () => setTimeout(stopWork, 20));
      }),
      onStoppedLeading: () => events.push('lost'),
    });
    while (!a.isLeader) await new Promise((r) => setTimeout(r, 5));
    shutdown.abort();
    await running;
    expect(events).toEqual(['started', 'work stopped, holder a']);
    expect(store.lease!.record.holderIdentity).toBe('');
    expect(await new LeaderElector(store, { identity: 'b', log }).tryAcquireOrRenew()).toBe(true);
  });

  test('run: a leader that cannot renew within the deadline stops leading', async () => {
    const store = new FakeLeaseStore();
    let now = 0;
    const shutdown = new AbortController();
    const events: string[] = [];
    const a = new LeaderElector(store, { identity: 'a', retryPeriodMs: 5, renewDeadlineMs: 100, log, now: () => now });
    const running = a.run(shutdown.signal, {
      onStartedLeading: async (leading) => {
        events.push('started');
        await new Promise((r) => leading.addEventListener('abort', r));
        events.push('work stopped');
      },
      onStoppedLeading: () => { events.push('lost'); shutdown.abort(); },
    });
    while (!a.isLeader) await new Promise((r) => setTimeout(r, 5));
    store.failing = true;
    now = 50;
    await new Promise((r) => setTimeout(r, 30));
    expect(events).toEqual(['started']); // within the deadline: still leading
    now = 100;
    await running;
    expect(events).toEqual(['started', 'work stopped', 'lost']);
  });
});
