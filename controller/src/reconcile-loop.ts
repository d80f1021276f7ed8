/**
 * The loop every reconciler runs: watches put keys in, `reconcile(key)` runs on the WorkQueue (a key at
 * most once at a time, a failure counted, logged and retried with backoff), and what it returns says when
 * to look at the key again without an event (`requeueAfter`: a paused rollout, a polled Redis cluster).
 */
import { ReconcilerContext } from './reconciler';
import { WorkQueue } from './work-queue';

export interface ReconcileResult {
  /** Reconcile the key again after this many milliseconds, whether or not a watch reports a change. */
  readonly requeueAfter?: number;
}

/** What feeds a loop: an Informer, or caches started elsewhere. */
export interface Watch {
  /** Resolves once the watch holds a first list. */
  readonly synced: Promise<unknown>;
  /** Watches until `signal` aborts. */
  run(signal: AbortSignal): Promise<unknown>;
}

export interface ReconcileLoopOptions {
  /** The reconciler's name, in metrics and logs. */
  readonly name: string;
  /** Makes the cluster match the object `key` names; throws to be retried. */
  readonly reconcile: (key: string) => Promise<ReconcileResult | void>;
  /** Keys reconciled at once. @default 4 */
  readonly concurrency?: number;
  /** First retry delay after a failure. @default 200 */
  readonly retryMs?: number;
  /** @default 60_000 */
  readonly maxRetryMs?: number;
}

export interface LoopSources {
  /** What reconciles read: started first, and no key is reconciled before all of them hold a first list. */
  readonly caches?: readonly Watch[];
  /**
   * The watches of the reconciled objects themselves: started once the caches are synced; keys wait for their first
   * list too.
   */
  readonly primaries?: readonly Watch[];
  /** Keys to reconcile once the caches are synced (for what no watch reports). */
  readonly seed?: () => Iterable<string>;
  /** Logged with `started`. */
  readonly startedFields?: Record<string, unknown>;
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted
    ? resolve()
    : signal.addEventListener('abort', () => resolve(), { once: true })));
}

export class ReconcileLoop {
  private readonly queue: WorkQueue;
  /** Keys enqueued before the caches and the primaries synced: reconciled once they are. */
  private early: Set<string> | undefined = new Set();

  constructor(
    private readonly ctx: Pick<ReconcilerContext, 'log' | 'metrics' | 'readiness'>,
    private readonly opts: ReconcileLoopOptions,
  ) {
    const log = ctx.log.with({ reconciler: opts.name });
    this.queue = new WorkQueue(async (key) => {
      const result = await opts.reconcile(key);
      ctx.metrics.reconciles.inc({ reconciler: opts.name });
      if (result?.requeueAfter !== undefined) this.queue.addAfter(key, result.requeueAfter);
    }, {
      concurrency: opts.concurrency,
      retryMs: opts.retryMs,
      maxRetryMs: opts.maxRetryMs,
      onError: (key, error, failures) => {
        ctx.metrics.reconcileErrors.inc({ reconciler: opts.name });
        log.warn('reconcile failed, retrying', { key, error, failures });
      },
    });
  }

  /** Reconciles `key` soon (once, however often it is called before it runs). */
  enqueue(key: string): void {
    if (this.early) this.early.add(key);
    else this.queue.add(key);
  }

  /**
   * Runs the watches and reconciles until `signal` aborts; then lets the reconciles in progress finish. A loop
   * stopped before its caches synced never starts (nor says so after the process said it is stopping).
   */
  async run(signal: AbortSignal, sources: LoopSources): Promise<void> {
    const stopped = aborted(signal);
    const caches = sources.caches ?? [];
    const primaries = sources.primaries ?? [];
    this.ctx.readiness?.waitFor(`reconciler ${this.opts.name}`, Promise.all([...caches, ...primaries].map((w) => w.synced)));
    const cacheRuns = caches.map((w) => w.run(signal));
    // Deciding on a half-listed cache would act on objects that only look missing.
    await Promise.race([Promise.all(caches.map((w) => w.synced)), Promise.all(cacheRuns), stopped]);
    if (!signal.aborted) {
      // A key may read a primary's cache too (a node's key reads the ZoneShifts): none runs before their first list.
      const primaryRuns = primaries.map((w) => w.run(signal));
      await Promise.race([Promise.all(primaries.map((w) => w.synced)), Promise.all(primaryRuns), stopped]);
    }
    if (!signal.aborted) {
      const early = this.early ?? [];
      this.early = undefined;
      for (const key of [...early, ...sources.seed?.() ?? []]) this.enqueue(key);
      this.ctx.log.info('started', { reconciler: this.opts.name, ...sources.startedFields });
    } else {
      this.ctx.log.info('stopped before its caches synced', { reconciler: this.opts.name });
    }
    // Watches end with `signal` (those started elsewhere may outlive it: a webhook's caches).
    await stopped;
    this.queue.stop();
    await this.queue.idle();
  }
}
