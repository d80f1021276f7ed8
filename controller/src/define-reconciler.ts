/**
 * How every reconciler is declared and started, as controller-runtime's builder does it: a reconciler names
 * itself, takes its own settings from the run's (each default in its settings function, nowhere else) and, for
 * one run, declares what it watches (For: the `primary` watch; Owns and Watches: the others, each mapping a
 * change to the keys it concerns), its loop's options and its reconcile of one key. `defineReconciler` turns that
 * into the Reconciler that `run` starts: the one place that builds the caches, the loop, and runs them.
 */
import { AdmissionWebhook } from './admission';
import { ReconcileLoop, ReconcileLoopOptions, ReconcileResult, Watch } from './reconcile-loop';
import { ControllerSettings, Reconciler, ReconcilerContext } from './reconciler';
import { Caches, WatchedCaches, Watches } from './watches';
import type { ControllerRule } from '../../src/contract/rbac';

/** Caches a reconciler's webhooks started on every replica: the leader's loop waits for them and takes their keys. */
export interface SharedCaches<W extends string> {
  readonly caches: WatchedCaches<W>;
  /** Resolves once every cache holds its first list. */
  readonly synced: Promise<unknown>;
  /** Resolves when the caches stop. */
  readonly done: Promise<unknown>;
  /** Where the keys of the caches' changes go (the leader's loop, while it runs; undefined: nowhere). */
  route(enqueue: ((key: string) => void) | undefined): void;
}

/** What `declare` gets of its run besides the caches. */
export interface Run {
  /** Aborts when the run stops (leadership lost or shutdown). */
  readonly signal: AbortSignal;
  /** Queues a key on the run's loop at once (a key the reconcile itself finds, past any `fromWatch`). */
  readonly enqueue: (key: string) => void;
}

/** What a reconciler declares for one run. */
export interface Declaration<W extends string> {
  /** Every cache it reads, and the keys a change of one of their objects enqueues. */
  readonly watches?: Watches<W>;
  /** Instead of `watches`: the caches its webhooks started. */
  readonly shared?: SharedCaches<W>;
  /** Keys reconciled at once, and the retries of a failed one (ReconcileLoopOptions). */
  readonly loop?: Pick<ReconcileLoopOptions, 'concurrency' | 'retryMs' | 'maxRetryMs'>;
  /** Makes the cluster match what `key` names; reads the caches given to `declare`. */
  readonly reconcile: (key: string) => Promise<ReconcileResult | void>;
  /** Keys reconciled once the caches are synced (for what no watch reports). */
  readonly seed?: () => Iterable<string>;
  /** How a key a watch reports reaches the loop (a debounce). @default at once */
  readonly fromWatch?: (key: string, enqueue: (key: string) => void) => void;
  /** Logged with `started`. */
  readonly startedFields?: Record<string, unknown>;
  /** Called once the loop has stopped. */
  readonly close?: () => void;
}

export interface ReconcilerDefinition<W extends string, S> {
  /** The name on the command line (`--reconcilers`) and in metrics and logs. */
  readonly name: string;
  readonly summary: string;
  /** The API access it needs (src/contract/reconcilers.ts). */
  readonly rbac: readonly ControllerRule[];
  /** Its settings, from the run's: every default of a setting it reads is given here. */
  readonly settings: (run: ControllerSettings) => S;
  /**
   * Declares one run. `caches` reads the caches of the watches it declares (only once running: in a mapping or
   * a reconcile).
   */
  readonly declare: (ctx: ReconcilerContext, settings: S, caches: Caches<W>, run: Run) => Declaration<W>;
  /** Admission webhooks every replica serves (leader or not). */
  readonly webhooks?: (ctx: ReconcilerContext, signal: AbortSignal) => readonly AdmissionWebhook[];
}

/** Caches bound once they exist: a declaration's mappings and reconcile read them, and come first. */
class LateCaches<W extends string> implements Caches<W> {
  target: Caches<W> | undefined;
  get(watch: W, key: string) {
    return this.bound().get(watch, key);
  }
  byIndex(watch: W, index: string, key: string) {
    return this.bound().byIndex(watch, index, key);
  }
  list(watch: W) {
    return this.bound().list(watch);
  }
  private bound(): Caches<W> {
    if (!this.target) throw new Error('the caches are read before they exist');
    return this.target;
  }
}

/** The caches of `declaration`, started by the loop or shared, and where their keys go. */
function cachesOf<W extends string>(
  ctx: ReconcilerContext, name: string, declaration: Declaration<W>, enqueue: (key: string) => void,
): { caches: Caches<W>; sources: { caches?: readonly Watch[]; primaries?: readonly Watch[] }; unroute: () => void } {
  const { shared } = declaration;
  if (shared) {
    shared.route(enqueue);
    const started: Watch = { synced: shared.synced, run: () => shared.done };
    return { caches: shared.caches, sources: { caches: [started] }, unroute: () => shared.route(undefined) };
  }
  const log = ctx.log.with({ reconciler: name });
  const caches = new WatchedCaches(ctx.kube, log, declaration.watches ?? ({} as Watches<W>), enqueue);
  return { caches, sources: caches.sources(), unroute: () => undefined };
}

/** Runs a declared reconciler until `signal` aborts: its caches, then its loop over them. */
async function runDeclared<W extends string, S>(
  def: ReconcilerDefinition<W, S>, ctx: ReconcilerContext, signal: AbortSignal,
) {
  const late = new LateCaches<W>();
  let loop: ReconcileLoop | undefined;
  // the loop needs the declaration's reconcile, and the declaration this way into the loop: bound once both exist
  const toLoop = (key: string) => loop!.enqueue(key);
  const declaration = def.declare(ctx, def.settings(ctx.settings), late, { signal, enqueue: toLoop });
  loop = new ReconcileLoop(ctx, { name: def.name, reconcile: declaration.reconcile, ...declaration.loop });
  const fromWatch = declaration.fromWatch;
  const enqueue = fromWatch ? (key: string) => fromWatch(key, toLoop) : toLoop;
  const { caches, sources, unroute } = cachesOf(ctx, def.name, declaration, enqueue);
  late.target = caches;
  try {
    await loop.run(signal, { ...sources, seed: declaration.seed, startedFields: declaration.startedFields });
  } finally {
    unroute();
    declaration.close?.();
  }
}

/** The Reconciler `run` starts, from its declaration. */
export function defineReconciler<W extends string, S>(def: ReconcilerDefinition<W, S>): Reconciler {
  return {
    name: def.name,
    summary: def.summary,
    rbac: def.rbac,
    run: (ctx, signal) => runDeclared(def, ctx, signal),
    webhooks: def.webhooks,
  };
}
