/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it, so two replicas are safe: the
 * holder renews every `retryPeriodMs`; a candidate takes the lease over only when it was released or its
 * record has not changed for `leaseDurationSeconds` as measured on the candidate's own clock (no clock
 * skew between nodes matters); writes use the lease's resourceVersion, so two candidates cannot both win.
 * A leader that cannot renew within `renewDeadlineMs` stops leading (the caller exits, as client-go
 * advises). On shutdown the leader releases the lease so the other replica takes over at once.
 */
import { setMaxListeners } from 'events';
import { Logger } from '../log';
import { isStatus, KubeApi, resourcePath } from './api';
import { MAX_SIGNAL_LISTENERS } from './connect';
import { delay } from './informer';
import { LEASES } from '../resources';

/** The fields of a Lease's spec that leader election uses. */
export interface LeaseRecord {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

export interface StoredLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/** Where the lease lives: the API server in production, a map in tests. */
export interface LeaseStore {
  get(): Promise<StoredLease | undefined>;
  /** Rejects when the lease exists already. */
  create(record: LeaseRecord): Promise<void>;
  /** Rejects when the lease changed since `resourceVersion` (someone else wrote it). */
  update(record: LeaseRecord, resourceVersion: string): Promise<void>;
}

export type LeaseDecision =
  | { readonly action: 'create'; readonly record: LeaseRecord }
  | { readonly action: 'update'; readonly record: LeaseRecord }
  | { readonly action: 'wait'; readonly holder: string };

/** Kubernetes MicroTime: RFC 3339 with exactly 6 fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/**
 * What a candidate does with the lease it sees: create it, renew it (its own), take it over (released, or
 * unchanged since `observedAtMs` for longer than its duration), or wait.
 */
export function decideLease(
  current: LeaseRecord | undefined, identity: string, durationSeconds: number, nowMs: number, observedAtMs: number,
): LeaseDecision {
  const now = microTime(nowMs);
  const acquired = (leaseTransitions: number): LeaseRecord =>
    ({
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions,
    });
  if (!current) {
    return { action: 'create', record: acquired(0) };
  }
  if (current.holderIdentity === identity) {
    return { action: 'update', record: { ...current, leaseDurationSeconds: durationSeconds, renewTime: now } };
  }
  const released = !current.holderIdentity;
  const expired = observedAtMs + (current.leaseDurationSeconds ?? durationSeconds) * 1000 <= nowMs;
  if (released || expired) {
    return { action: 'update', record: acquired((current.leaseTransitions ?? 0) + 1) };
  }
  return { action: 'wait', holder: current.holderIdentity! };
}

export interface LeaderElectionOptions {
  readonly identity: string;
  /** @default 15 */
  readonly leaseDurationSeconds?: number;
  /** A leader that has not renewed for this long stops leading. @default 10_000 */
  readonly renewDeadlineMs?: number;
  /** How often the leader renews and candidates retry. @default 2_000 */
  readonly retryPeriodMs?: number;
  /** How long the leader's work may take to stop before the lease is released anyway. @default 10_000 */
  readonly stopGraceMs?: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface LeaderCallbacks {
  /**
   * Leadership won; `leading` aborts when it is lost or at shutdown. The work it returns is awaited
   * (up to `stopGraceMs`) before the lease is released, so two leaders never work at once.
   */
  onStartedLeading(leading: AbortSignal): Promise<void>;
  /** Leadership lost without shutdown (the lease could not be renewed in time). */
  onStoppedLeading(): void;
}

export class LeaderElector {
  private observed: { key: string; atMs: number } | undefined;
  private leading: AbortController | undefined;
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly store: LeaseStore, private readonly opts: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading !== undefined;
  }

  /** Campaigns, leads and renews until `signal` aborts; then releases the lease if it holds it. */
  async run(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<void> {
    const retry = this.opts.retryPeriodMs ?? 2_000;
    const renewDeadline = this.opts.renewDeadlineMs ?? 10_000;
    let lastRenewMs = 0;
    while (!signal.aborted) {
      const ok = await this.tryAcquireOrRenew().catch((err) => {
        this.opts.log.warn('lease update failed', { error: err });
        return false;
      });
      const now = this.now();
      if (ok) {
        lastRenewMs = now;
        if (!this.leading) {
          this.leading = new AbortController();
          setMaxListeners(MAX_SIGNAL_LISTENERS, this.leading.signal); // one per open watch and request
          this.opts.log.info('became the leader', { identity: this.opts.identity });
          this.work = callbacks.onStartedLeading(this.leading.signal);
        }
      } else if (this.leading && now - lastRenewMs >= renewDeadline) {
        this.opts.log.error('lost the lease: could not renew it in time', { identity: this.opts.identity, renewDeadlineMs: renewDeadline });
        await this.stopLeading();
        callbacks.onStoppedLeading();
      }
      await delay(retry, signal);
    }
    if (this.leading) {
      await this.stopLeading();
      await this.release().catch((err) => this.opts.log.warn('could not release the lease', { error: err }));
    }
  }

  private async stopLeading(): Promise<void> {
    this.leading!.abort();
    this.leading = undefined;
    const grace = new AbortController();
    await Promise.race([this.work, delay(this.opts.stopGraceMs ?? 10_000, grace.signal)]);
    grace.abort();
  }

  /** True when this candidate holds the lease after the call. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const current = await this.store.get();
    const now = this.now();
    if (current) {
      const key = `${current.record.holderIdentity}|${current.record.renewTime}|${current.resourceVersion}`;
      if (this.observed?.key !== key) this.observed = { key, atMs: now };
    }
    const decision = decideLease(
      current?.record,
      this.opts.identity,
      this.opts.leaseDurationSeconds ?? 15,
      now,
      this.observed?.atMs ?? now,
    );
    if (decision.action === 'wait') return false;
    if (decision.action === 'create') await this.store.create(decision.record);
    else await this.store.update(decision.record, current!.resourceVersion);
    if (current?.record.holderIdentity !== this.opts.identity) {
      const previousHolder = current?.record.holderIdentity || undefined;
      this.opts.log.info('acquired the lease', { identity: this.opts.identity, previousHolder });
    }
    return true;
  }

  /** Gives the lease up (empty holder), so another candidate takes it at its next retry. */
  async release(): Promise<void> {
    const current = await this.store.get();
    if (!current || current.record.holderIdentity !== this.opts.identity) return;
    const now = microTime(this.now());
    const released = { ...current.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now };
    await this.store.update(released, current.resourceVersion);
    this.opts.log.info('released the lease', { identity: this.opts.identity });
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}

/** The Lease `namespace/name` on the API server. */
export function kubeLeaseStore(api: KubeApi, namespace: string, name: string): LeaseStore {
  const collection = resourcePath(LEASES, namespace);
  const one = resourcePath(LEASES, namespace, name);
  return {
    async get() {
      try {
        const lease = await api.get(one);
        return { record: (lease.spec ?? {}) as LeaseRecord, resourceVersion: lease.metadata.resourceVersion! };
      } catch (err) {
        if (isStatus(err, 404)) return undefined;
        throw err;
      }
    },
    async create(record) {
      await api.create(collection, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: record });
    },
    async update(record, resourceVersion) {
      const metadata = { name, namespace, resourceVersion };
      await api.replace(one, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec: record });
    },
  };
}
