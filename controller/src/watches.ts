/**
 * A reconciler's watches, declared as controller-runtime's builder declares them (For, Owns, Watches): each
 * names a resource, what its cache keeps and indexes, and how a change of one of its objects maps to the keys
 * to reconcile. A mapping is a function of the change and the caches alone, so it is unit-tested over
 * `cachesOf` (lists, no API server); `WatchedCaches` runs the declarations as Informers that feed a
 * ReconcileLoop, and `reconcile(key)` reads the same caches.
 */
import { KubeApi, KubeObject, keyOf, Resource, resourcePath } from './kube/api';
import { ChangeType, IndexFn, Informer } from './kube/informer';
import { slimMeta, withoutManagedFields } from './kube/transforms';
import { Logger } from './log';
import { LoopSources, Watch } from './reconcile-loop';
import { LEASES, ZONE_SHIFTS } from './resources';
import { NODE_LEASE_NAMESPACE } from '../../src/contract/rbac';

/** One change an Informer reports (`old`: the object before a modification). */
export interface Change {
  readonly type: ChangeType;
  readonly obj: KubeObject;
  readonly old?: KubeObject;
}

/** What a mapping and a reconcile read: each watch's cache, by the watch's name. */
export interface Caches<W extends string> {
  get(watch: W, key: string): KubeObject | undefined;
  byIndex(watch: W, index: string, key: string): KubeObject[];
  list(watch: W): KubeObject[];
}

export interface WatchDeclaration<W extends string> {
  readonly resource: Resource;
  /** One watch in each (as namespaced Roles allow), one cache over them all. @default every namespace, one watch */
  readonly namespaces?: readonly string[];
  readonly labelSelector?: string;
  /** What the cache keeps of each object (keep `metadata.resourceVersion`). @default the whole object */
  readonly transform?: (obj: KubeObject) => KubeObject;
  /** Named secondary keys, for `Caches.byIndex`. */
  readonly indexes?: Readonly<Record<string, IndexFn<KubeObject>>>;
  /** Every cached object seen again this often. @default 0: never (the primary's resync revisits its objects) */
  readonly resyncMs?: number;
  /** The reconciled objects themselves: watched once every other cache holds its first list. @default false */
  readonly primary?: boolean;
  /**
   * Whether reconciles wait for its first list. false: a namespace that cannot be watched holds nothing up (a
   * reconciler that polls as well). @default true
   */
  readonly awaitFirstList?: boolean;
  /** The keys a change enqueues. @default none: a cache that reconciles only read */
  readonly keys?: (change: Change, caches: Caches<W>) => Iterable<string>;
}

/** The declarations by name; one left out is not watched (a feature turned off), and reading its cache is an error. */
export type Watches<W extends string> = Readonly<Partial<Record<W, WatchDeclaration<W>>>>;

/** The declarations as Informers, each change mapped to keys for `enqueue`. */
export class WatchedCaches<W extends string> implements Caches<W> {
  /** Each watch's Informers: one, or one per namespace it names. */
  private readonly informers = new Map<W, Informer<KubeObject, string>[]>();

  constructor(kube: KubeApi, log: Logger, private readonly watches: Watches<W>, enqueue: (key: string) => void) {
    for (const [name, w] of Object.entries(watches) as [W, WatchDeclaration<W>][]) {
      const scopes = w.namespaces?.length ? w.namespaces : [undefined];
      this.informers.set(name, scopes.map((namespace) => new Informer<KubeObject, string>(kube, {
        path: resourcePath(w.resource, namespace),
        labelSelector: w.labelSelector,
        transform: w.transform,
        indexes: w.indexes ?? {},
        resyncMs: w.resyncMs ?? 0,
        log,
        onChange: (type, obj, old) => {
          for (const key of w.keys?.({ type, obj, old }, this) ?? []) enqueue(key);
        },
      })));
    }
  }

  get(watch: W, key: string): KubeObject | undefined {
    for (const informer of this.informersOf(watch)) {
      const found = informer.get(key);
      if (found) return found;
    }
    return undefined;
  }

  byIndex(watch: W, index: string, key: string): KubeObject[] {
    return this.informersOf(watch).flatMap((i) => i.byIndex(index, key));
  }

  list(watch: W): KubeObject[] {
    return this.informersOf(watch).flatMap((i) => i.list());
  }

  /** What the ReconcileLoop runs: the caches first, the primaries once those are synced. */
  sources(): Pick<LoopSources, 'caches' | 'primaries'> {
    const of = (primary: boolean) => [...this.informers]
      .filter(([name]) => (this.watches[name]!.primary ?? false) === primary)
      .flatMap(([name, informers]) => informers.map((i) => this.watchOf(name, i)));
    return { caches: of(false), primaries: of(true) };
  }

  private watchOf(name: W, informer: Informer<KubeObject, string>): Watch {
    if (this.watches[name]!.awaitFirstList ?? true) return informer;
    return { synced: Promise.resolve(), run: (signal) => informer.run(signal) };
  }

  private informersOf(watch: W): Informer<KubeObject, string>[] {
    const informers = this.informers.get(watch);
    if (!informers) throw new Error(`watch ${watch} is not declared (a feature turned off?)`);
    return informers;
  }
}

/**
 * Watches one object by name (a list and a watch with `metadata.name=`, which a Role rule naming it allows):
 * `onChange` on each change but a resync, until `signal` aborts. For an object a reconciler learns of while it
 * runs (a Redis cluster's layout ConfigMap), where a declared watch of every object would need more access.
 */
export function watchObject(
  kube: KubeApi,
  log: Logger,
  object: { resource: Resource; namespace?: string; name: string; transform?: (obj: KubeObject) => KubeObject },
  onChange: () => void,
  signal: AbortSignal,
): void {
  const informer = new Informer(kube, {
    path: resourcePath(object.resource, object.namespace),
    fieldSelector: `metadata.name=${object.name}`,
    transform: object.transform,
    onChange: (type) => {
      if (type !== 'resync') onChange();
    },
    resyncMs: 0,
    log,
  });
  void informer.run(signal);
}

/**
 * Caches holding `objects` as the declarations' Informers would (transformed and indexed): what a mapping or a
 * decision sees, without an API server.
 */
export function cachesOf<W extends string>(
  watches: Watches<W>,
  objects: Partial<Record<W, readonly KubeObject[]>>,
): Caches<W> {
  const held = (watch: W) => (objects[watch] ?? []).map((o) => watches[watch]?.transform?.(o) ?? o);
  return {
    get: (watch, key) => held(watch).find((o) => keyOf(o) === key),
    byIndex: (watch, index, key) => {
      const keysOf = watches[watch]?.indexes?.[index];
      if (!keysOf) throw new Error(`watch ${watch} has no index ${index}`);
      return held(watch).filter((o) => keysOf(o).includes(key));
    },
    list: (watch) => held(watch),
  };
}

/**
 * Whether `change` can alter what `inputs` reads of its object: an addition or a deletion always (a deletion carries
 * the last known object as both `obj` and `old`), a modification when the inputs differ.
 */
export function inputsChanged(change: Change, inputs: (obj: KubeObject) => string): boolean {
  const { type, obj, old } = change;
  return type === 'added' || type === 'deleted' || old === undefined || inputs(old) !== inputs(obj);
}

/**
 * The watch of the ZoneShifts, for every reconciler that honours them: `keys` says which of its keys a shift's
 * change concerns.
 */
export function shiftsWatch<W extends string>(
  keys: (change: Change, caches: Caches<W>) => Iterable<string>,
): WatchDeclaration<W> {
  return { resource: ZONE_SHIFTS, transform: withoutManagedFields, keys };
}

/**
 * The watch of the nodes' Leases (their last renewal), in their one namespace. It queues nothing: a Lease renews every
 * 10 s, and its staleness is a matter of time, which the reconcilers that read it look at every few seconds anyway.
 */
export function nodeLeasesWatch<W extends string>(): WatchDeclaration<W> {
  return {
    resource: LEASES,
    namespaces: [NODE_LEASE_NAMESPACE],
    transform: (lease) => ({ metadata: slimMeta(lease.metadata), spec: { renewTime: lease.spec?.renewTime } }),
  };
}

/** When node `node`'s Lease was last renewed (ms), as a `nodeLeasesWatch` named `leases` holds it, if known. */
export function nodeLeaseRenewedMs(caches: Pick<Caches<'leases'>, 'get'>, node: string): number | undefined {
  const ms = Date.parse(caches.get('leases', `${NODE_LEASE_NAMESPACE}/${node}`)?.spec?.renewTime ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}
