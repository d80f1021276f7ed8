/**
 * A keyed work queue, as client-go's: a key queued twice before it is processed is processed once; a key
 * is never processed by two workers at once (queued again while in work, it runs once more afterwards);
 * a failure is retried with a per-key exponential backoff; `addAfter` queues a key later.
 */
export interface WorkQueueOptions {
  /** Keys processed at once. @default 4 */
  readonly concurrency?: number;
  /** First retry delay, doubled per failure up to `maxRetryMs`. @default 200 */
  readonly retryMs?: number;
  /** @default 60_000 */
  readonly maxRetryMs?: number;
  /** Called when processing a key throws (before the retry is scheduled). */
  readonly onError?: (key: string, err: unknown, failures: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly again = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly later = new Map<string, NodeJS.Timeout>();
  private running = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly process: (key: string) => Promise<void>, private readonly opts: WorkQueueOptions = {}) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.again.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Queues `key` in `delayMs`; a second call before then replaces the first. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.later.get(key));
    this.later.set(key, setTimeout(() => { this.later.delete(key); this.add(key); }, delayMs));
  }

  get length(): number {
    return this.queue.length + this.active.size;
  }

  /** Resolves when nothing is queued or in work (retries waiting on their backoff do not count). */
  idle(): Promise<void> {
    if (this.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops what is queued and scheduled; work in progress finishes. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.queued.clear();
    for (const t of [...this.timers.values(), ...this.later.values()]) clearTimeout(t);
    this.timers.clear();
    this.later.clear();
  }

  private pump(): void {
    const concurrency = this.opts.concurrency ?? 4;
    while (this.running < concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.work(key);
    }
    if (this.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async work(key: string): Promise<void> {
    try {
      await this.process(key);
      this.failures.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      this.opts.onError?.(key, err, n);
      if (!this.stopped && !this.timers.has(key)) {
        const wait = Math.min((this.opts.retryMs ?? 200) * 2 ** (n - 1), this.opts.maxRetryMs ?? 60_000);
        this.timers.set(key, setTimeout(() => { this.timers.delete(key); this.add(key); }, wait));
      }
    } finally {
      this.active.delete(key);
      this.running--;
      if (this.again.delete(key)) this.add(key);
      this.pump();
    }
  }
}
