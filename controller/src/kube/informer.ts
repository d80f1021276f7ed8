/**
 * A cache of one kind of object kept current by list + watch: the list gives a resourceVersion, the watch
 * resumes from it (bookmarks keep it fresh), a watch the server ends is resumed, an error is retried with
 * exponential backoff, and 410 Gone (the version was compacted away) relists. Every `resyncMs` the
 * handler sees every cached object again, so a reconcile that failed quietly is retried.
 *
 * The cache holds what `transform` keeps of each object (the fields its reconcilers read: a pod as the API
 * server sends it is ten times larger), and `indexes` find objects by a secondary key (namespace, owner)
 * without a scan of the whole cache.
 */
import { Logger } from '../log';
import { controllerOf, KubeApi, KubeApiError, KubeObject, keyOf, ListOptions, WatchEvent } from './api';

export type ChangeType = 'added' | 'modified' | 'deleted' | 'resync';

/** The secondary keys of an object under one index (none: not in that index). */
export type IndexFn<T> = (obj: T) => readonly string[];

export interface InformerOptions<T extends KubeObject, I extends string = never> {
  /** The collection's path, e.g. `resourcePath(PODS)` for pods in every namespace. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * What the cache keeps of each object (keep `metadata.resourceVersion`: relists compare it).
   * @default the whole object
   */
  readonly transform?: (obj: KubeObject) => T;
  /** Named secondary keys; `byIndex(name, key)` lists the objects under one. */
  readonly indexes?: Readonly<Record<I, IndexFn<T>>>;
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

/** The objects of a cache by one secondary key: key -> (cache key -> object). */
class Index<T> {
  private readonly buckets = new Map<string, Map<string, T>>();

  constructor(private readonly keysOf: IndexFn<T>) {}

  add(cacheKey: string, obj: T): void {
    for (const k of this.keysOf(obj)) {
      let bucket = this.buckets.get(k);
      if (!bucket) this.buckets.set(k, (bucket = new Map()));
      bucket.set(cacheKey, obj);
    }
  }

  remove(cacheKey: string, obj: T): void {
    for (const k of this.keysOf(obj)) {
      const bucket = this.buckets.get(k);
      if (bucket?.delete(cacheKey) && bucket.size === 0) this.buckets.delete(k);
    }
  }

  get(k: string): T[] {
    const bucket = this.buckets.get(k);
    return bucket ? [...bucket.values()] : [];
  }
}

/** Index by namespace (`''` for cluster-scoped objects). */
export const byNamespace: IndexFn<KubeObject> = (obj) => [obj.metadata.namespace ?? ''];

/** Index by the uid of the object's controller (a pod's StatefulSet or ReplicaSet, a ReplicaSet's Deployment). */
export const byController: IndexFn<KubeObject> = (obj) => {
  const uid = controllerOf(obj)?.uid;
  return uid ? [uid] : [];
};

export class Informer<T extends KubeObject, I extends string = never> {
  private readonly cache = new Map<string, T>();
  private readonly indexes: ReadonlyMap<I, Index<T>>;
  private resourceVersion: string | undefined;
  private markSynced!: () => void;
  /** Resolves once the first list is in the cache. */
  readonly synced = new Promise<void>((resolve) => { this.markSynced = resolve; });

  constructor(private readonly api: KubeApi, private readonly opts: InformerOptions<T, I>) {
    const fns = Object.entries(opts.indexes ?? {}) as Array<[I, IndexFn<T>]>;
    this.indexes = new Map(fns.map(([name, fn]) => [name, new Index(fn)]));
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  /** A copy of the whole cache: for small caches (custom resources), never pods. */
  list(): T[] {
    return [...this.cache.values()];
  }

  /** The cached objects under `key` of index `index`. */
  byIndex(index: I, key: string): T[] {
    return this.indexes.get(index)!.get(key);
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
          await this.api.watch(this.opts.path, {
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
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        limit: this.opts.pageSize ?? 500,
        continue: cont,
      };
      const page = await this.api.list(this.opts.path, opts);
      for (const item of page.items) fresh.set(keyOf(item), this.shape(item));
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion;
    } while (cont);
    for (const [key, old] of this.cache) {
      if (!fresh.has(key)) {
        this.remove(key);
        this.opts.onChange('deleted', old);
      }
    }
    for (const [key, obj] of fresh) {
      const old = this.put(key, obj);
      if (!old) this.opts.onChange('added', obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.opts.onChange('modified', obj, old);
    }
    this.resourceVersion = rv;
    this.markSynced();
  }

  private apply(e: WatchEvent): void {
    if (e.type === 'ERROR') {
      const status = e.object as unknown as { code?: number; reason?: string; message?: string };
      throw new KubeApiError('WATCH', this.opts.path, status.code ?? 0, status.reason ?? '', status.message ?? '');
    }
    this.resourceVersion = e.object.metadata.resourceVersion ?? this.resourceVersion;
    if (e.type === 'BOOKMARK') return;
    const key = keyOf(e.object);
    const obj = this.shape(e.object);
    if (e.type === 'DELETED') {
      this.opts.onChange('deleted', obj, this.remove(key));
    } else {
      const old = this.put(key, obj);
      this.opts.onChange(old ? 'modified' : 'added', obj, old);
    }
  }

  private shape(obj: KubeObject): T {
    return this.opts.transform ? this.opts.transform(obj) : obj as T;
  }

  /** Caches `obj` under `key` (and its index keys); returns what it replaces. */
  private put(key: string, obj: T): T | undefined {
    const old = this.remove(key);
    this.cache.set(key, obj);
    for (const index of this.indexes.values()) index.add(key, obj);
    return old;
  }

  /** Drops `key` from the cache and the indexes; returns what was there. */
  private remove(key: string): T | undefined {
    const old = this.cache.get(key);
    if (old === undefined) return undefined;
    this.cache.delete(key);
    for (const index of this.indexes.values()) index.remove(key, old);
    return old;
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
