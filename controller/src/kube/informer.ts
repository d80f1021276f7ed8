/**
 * A cache of one kind of object kept current by list + watch: the list gives a resourceVersion, the watch
 * resumes from it (bookmarks keep it fresh), a watch the server ends is resumed, an error is retried with
 * exponential backoff, and 410 Gone (the version was compacted away) relists. Every `resyncMs` the
 * handler sees every cached object again, so a reconcile that failed quietly is retried.
 */
import { Logger } from '../log';
import { KubeApi, KubeApiError, KubeObject, keyOf, ListOptions, WatchEvent } from './api';

export type ChangeType = 'added' | 'modified' | 'deleted' | 'resync';

export interface InformerOptions<T extends KubeObject> {
  /** The collection's path, e.g. `resourcePath(PODS)` for pods in every namespace. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Called for every change, after the cache holds it (for `deleted`, the last known object). */
  readonly onChange: (type: ChangeType, obj: T, old?: T) => void;
  /** @default 300_000 (5 min); 0 turns it off */
  readonly resyncMs?: number;
  /** The API server ends each watch after about this long; the informer resumes it. @default 300 */
  readonly watchTimeoutSeconds?: number;
  /** First retry delay after an error, doubled up to `maxBackoffMs`. @default 500 */
  readonly backoffMs?: number;
  /** @default 30_000 */
  readonly maxBackoffMs?: number;
  /** Items per list page. @default 500 */
  readonly pageSize?: number;
  readonly log: Logger;
}

export class Informer<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private resourceVersion: string | undefined;
  private markSynced!: () => void;
  /** Resolves once the first list is in the cache. */
  readonly synced = new Promise<void>((resolve) => { this.markSynced = resolve; });

  constructor(private readonly api: KubeApi, private readonly opts: InformerOptions<T>) {}

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  get size(): number {
    return this.cache.size;
  }

  /** Lists and watches until `signal` aborts. Never rejects: errors are logged and retried. */
  async run(signal: AbortSignal): Promise<void> {
    const resyncMs = this.opts.resyncMs ?? 300_000;
    const timer = resyncMs > 0 ? setInterval(() => this.resync(), resyncMs) : undefined;
    let backoff = this.opts.backoffMs ?? 500;
    try {
      while (!signal.aborted) {
        try {
          if (this.resourceVersion === undefined) await this.relist();
          await this.api.watch<T>(this.opts.path, {
            labelSelector: this.opts.labelSelector,
            fieldSelector: this.opts.fieldSelector,
            resourceVersion: this.resourceVersion,
            timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300,
          }, (e) => this.apply(e), signal);
          backoff = this.opts.backoffMs ?? 500; // a watch that ran to its end: resume at once
        } catch (err) {
          if (signal.aborted) break;
          if (err instanceof KubeApiError && err.status === 410) {
            this.resourceVersion = undefined;
            this.opts.log.info('watch expired, relisting', { path: this.opts.path });
            continue;
          }
          this.opts.log.warn('watch failed, retrying', { path: this.opts.path, error: err, retryInMs: backoff });
          await delay(backoff, signal);
          backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 30_000);
        }
      }
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  /** Replaces the cache with a fresh list; reports what changed while no watch was running. */
  private async relist(): Promise<void> {
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv: string | undefined;
    do {
      const opts: ListOptions = {
        labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector, limit: this.opts.pageSize ?? 500, continue: cont,
      };
      const page = await this.api.list<T>(this.opts.path, opts);
      for (const item of page.items) fresh.set(keyOf(item), item);
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion;
    } while (cont);
    for (const [key, old] of this.cache) {
      if (!fresh.has(key)) {
        this.cache.delete(key);
        this.opts.onChange('deleted', old);
      }
    }
    for (const [key, obj] of fresh) {
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (!old) this.opts.onChange('added', obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.opts.onChange('modified', obj, old);
    }
    this.resourceVersion = rv;
    this.markSynced();
  }

  private apply(e: WatchEvent<T>): void {
    if (e.type === 'ERROR') {
      const status = e.object as unknown as { code?: number; reason?: string; message?: string };
      throw new KubeApiError('WATCH', this.opts.path, status.code ?? 0, status.reason ?? '', status.message ?? '');
    }
    this.resourceVersion = e.object.metadata.resourceVersion ?? this.resourceVersion;
    if (e.type === 'BOOKMARK') return;
    const key = keyOf(e.object);
    const old = this.cache.get(key);
    if (e.type === 'DELETED') {
      this.cache.delete(key);
      this.opts.onChange('deleted', e.object, old);
    } else {
      this.cache.set(key, e.object);
      this.opts.onChange(old ? 'modified' : 'added', e.object, old);
    }
  }

  private resync(): void {
    for (const obj of this.cache.values()) this.opts.onChange('resync', obj);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
