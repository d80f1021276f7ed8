/**
 * The zone-disruption-budget reconciler: keeps every ZoneDisruptionBudget's status (per zone expected,
 * healthy, disruptions allowed) current on the leader, and serves the validating admission webhook on
 * `pods/eviction` on every replica: an eviction passes only when no other zone has an unavailable or
 * missing pod and its own zone's budget allows it.
 *
 * Anyone who reaches the webhook port can post a review, so a request alone changes nothing: verdicts
 * come from what the API server shows (pods not Ready, terminating, missing). An allowed eviction of an
 * available pod that a budget covers becomes a *reservation* for a short window (default 3 s): the
 * API server confirms it by deleting the pod (the pod cache shows a deletionTimestamp or the pod gone,
 * and from then on the observed state counts it), or it expires and is released, changing nothing. A
 * request for a pod of the same namespace first waits until no reservation is pending, but never longer
 * than one window after it arrived: so what was pending when it arrived has settled, a forged review
 * (never confirmed) delays later evictions by one window at most and changes none of their verdicts, and
 * two legitimate evictions in two zones cannot both pass (the second waits for the first's reservation,
 * sees the pod going and is refused). A reservation made while a request waited and still pending when
 * its window ends counts as unavailable for that request: evictions deciding at the same time (a drain
 * evicts a node's pods together) cannot together exceed a budget; a flood of forged reviews can at worst
 * turn verdicts into "retry later" (429) while it lasts, never let an unsafe eviction through.
 * Reservations are per replica: two replicas serving the webhook do not share them.
 */
import { ZONE_DISRUPTION_BUDGET, ZONE_DISRUPTION_BUDGET_RULES } from '../../../src/contract/reconcilers';
import { EVICTION_WEBHOOK_PATH } from '../../../src/contract/rollout';
import { ZONE_IN_SERVICE_CONDITION, zonesTaintedByShift } from '../../../src/contract/zone-shift';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { AdmissionRequest, AdmissionVerdict, AdmissionWebhook } from '../admission';
import { defineReconciler, SharedCaches } from '../define-reconciler';
import { KubeObject, keyOf } from '../kube/api';
import { byNamespace, delay } from '../kube/informer';
import { slimMeta, slimPod, slimTaintedNode, withoutManagedFields } from '../kube/transforms';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { Caches, Change, WatchedCaches, Watches } from '../watches';
import { patchStatus, statusHolds } from './status';
import { budgetOf, budgetStatus, BudgetWorld, decideEviction, SELECTED_NODE_ANNOTATION, zoneOfNode } from './zone-disruption-budget-decision';
import { CLAIMS, NODES, PODS, REPLICASETS, STATEFULSETS, ZONE_DISRUPTION_BUDGETS } from '../resources';

const NAME = ZONE_DISRUPTION_BUDGET;

/**
 * How long a review waits for the caches' first list before it is answered 500 (the API server then
 * applies the failure policy): with a confirm window on top, well within the webhook's 10 s timeout.
 */
const SYNC_WAIT_MS = 4_000;

export interface ZoneDisruptionBudgetTuning {
  /** How often every budget's status is recomputed without a change. @default 0: never (its changes suffice) */
  readonly resyncMs?: number;
  /**
   * How long an allowed eviction stays reserved when the API server does not confirm it (a forged review,
   * or another admission step refusing the eviction), and the longest a review waits for reservations.
   * Keep it well under the webhook's timeoutSeconds. @default 3_000
   */
  readonly confirmWindowMs?: number;
  /** The most pods whose last zone is remembered. @default 100_000 */
  readonly rememberedPods?: number;
}

interface Reservation {
  readonly namespace: string;
  readonly settled: Promise<void>;
  readonly settle: () => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Evictions the webhook allowed that the API server has not confirmed yet: at most one per pod, each
 * confirmed (`confirm`, when the pod cache shows the pod going) or expired within `windowMs`.
 */
export class EvictionReservations {
  private readonly pending = new Map<string, Reservation>();

  constructor(private readonly windowMs: number, private readonly onExpired: (key: string) => void = () => undefined) {}

  /** The pods (namespace/name) with a pending reservation: one each at most. */
  pendingPods(): string[] {
    return [...this.pending.keys()];
  }

  /** Reserves the eviction of pod `key` (namespace/name) unless one is pending already. */
  reserve(namespace: string, key: string): void {
    if (this.pending.has(key)) return;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => { settle = resolve; });
    const timer = setTimeout(() => { if (this.release(key)) this.onExpired(key); }, this.windowMs);
    timer.unref();
    this.pending.set(key, { namespace, settled, settle, timer });
  }

  /** The API server deleted the pod (or is deleting it): the observed state counts it from now on. */
  confirm(key: string): void {
    this.release(key);
  }

  /**
   * Calls `decide` once no reservation of `namespace` is pending, or `windowMs` after now at the latest,
   * with the keys still pending then. `decide` runs in the same turn as that check, so nothing can come
   * between what it sees and what it reserves.
   */
  async decideWhenSettled<T>(namespace: string, decide: (reserved: ReadonlySet<string>) => T): Promise<T> {
    const deadline = Date.now() + this.windowMs;
    for (;;) {
      const pending = [...this.pending].filter(([, r]) => r.namespace === namespace);
      const left = deadline - Date.now();
      if (pending.length === 0 || left <= 0) return decide(new Set(pending.map(([key]) => key)));
      const timeout = new AbortController();
      await Promise.race([Promise.all(pending.map(([, r]) => r.settled)), delay(left, timeout.signal)]);
      timeout.abort();
    }
  }

  private release(key: string): boolean {
    const r = this.pending.get(key);
    if (!r) return false;
    clearTimeout(r.timer);
    this.pending.delete(key);
    r.settle();
    return true;
  }
}

/** What the eviction webhook reads: the caches (a fake in unit tests) and the reservations they confirm. */
export interface EvictionView {
  /** Resolves once the caches hold a first list. */
  readonly synced: Promise<unknown>;
  readonly reservations: EvictionReservations;
  pod(key: string): KubeObject | undefined;
  budgetsIn(namespace: string): KubeObject[];
  world(namespace: string): BudgetWorld;
}

/** What the budgets read of a StatefulSet or ReplicaSet (`kind` set: list items carry none). */
function budgetOwner(kind: 'StatefulSet' | 'ReplicaSet'): (obj: KubeObject) => KubeObject {
  return (o) => ({
    kind,
    metadata: slimMeta(o.metadata),
    spec: {
      replicas: o.spec?.replicas,
      ordinals: o.spec?.ordinals,
      template: { metadata: { labels: o.spec?.template?.metadata?.labels } },
      volumeClaimTemplates: o.spec?.volumeClaimTemplates?.map(
        (t: KubeObject) => ({ metadata: { name: t.metadata?.name } }),
      ),
    },
  });
}

/** The watches of the budgets, by name. */
type BudgetWatch = 'budgets' | 'pods' | 'statefulSets' | 'replicaSets' | 'claims' | 'nodes';

/**
 * What the budgets watch, and which budgets a change concerns: a budget itself; any change of a pod, a
 * StatefulSet, a ReplicaSet or a claim, every budget of its namespace (their status counts them). Nodes are
 * only read (a pod's zone, a zonal shift's taint). `onPod` sees every pod change first (the webhook's reservations
 * and last zones).
 */
export function zoneDisruptionBudgetWatches(
  resyncMs: number | undefined, onPod: (change: Change) => void = () => undefined,
): Watches<BudgetWatch> {
  const ofNamespace = {
    indexes: { namespace: byNamespace },
    keys: ({ obj }: Change, c: Caches<BudgetWatch>) => budgetsIn(c, obj.metadata.namespace ?? ''),
  };
  return {
    budgets: {
      resource: ZONE_DISRUPTION_BUDGETS,
      transform: withoutManagedFields,
      indexes: { namespace: byNamespace },
      resyncMs,
      keys: ({ obj }) => [keyOf(obj)],
    },
    pods: {
      resource: PODS,
      transform: (pod) => slimPod(pod, { labels: 'all', conditions: ['Ready', 'ContainersReady', ZONE_IN_SERVICE_CONDITION] }),
      ...ofNamespace,
      keys: (change, c) => {
        onPod(change);
        return ofNamespace.keys(change, c);
      },
    },
    statefulSets: { resource: STATEFULSETS, transform: budgetOwner('StatefulSet'), ...ofNamespace },
    replicaSets: { resource: REPLICASETS, transform: budgetOwner('ReplicaSet'), ...ofNamespace },
    claims: {
      resource: CLAIMS,
      transform: (claim) => ({ metadata: slimMeta(claim.metadata, { annotations: [SELECTED_NODE_ANNOTATION] }) }),
      ...ofNamespace,
    },
    nodes: { resource: NODES, transform: slimTaintedNode },
  };
}

const budgetsIn = (c: Caches<BudgetWatch>, namespace: string) => c.byIndex('budgets', 'namespace', namespace).map(keyOf);

/** The tuning with its defaults: the one place each is given. */
type BudgetSettings = Required<Omit<ZoneDisruptionBudgetTuning, 'resyncMs'>>
  & Pick<ZoneDisruptionBudgetTuning, 'resyncMs'>;

function budgetSettings(tuning: ZoneDisruptionBudgetTuning): BudgetSettings {
  return {
    resyncMs: tuning.resyncMs,
    confirmWindowMs: tuning.confirmWindowMs ?? 3_000,
    rememberedPods: tuning.rememberedPods ?? 100_000,
  };
}

/**
 * The caches both halves use: started once per replica for the webhook (leader or not); the leader's status
 * loop takes the keys their changes map to.
 */
class BudgetCaches implements EvictionView, SharedCaches<BudgetWatch> {
  readonly lastZones = new Map<string, string>();
  readonly reservations: EvictionReservations;
  readonly caches: WatchedCaches<BudgetWatch>;
  readonly synced: Promise<unknown>;
  readonly done: Promise<unknown>;
  /** Where changes' keys go: the leader's status loop, while it runs. */
  private enqueue: ((key: string) => void) | undefined;

  constructor(private readonly ctx: ReconcilerContext, signal: AbortSignal, private readonly settings: BudgetSettings) {
    const log = ctx.log.with({ reconciler: NAME });
    this.reservations = new EvictionReservations(settings.confirmWindowMs, (pod) => {
      ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'reservation-expired' });
      log.info('eviction reservation expired: the API server did not delete the pod', { pod });
    });
    const watches = zoneDisruptionBudgetWatches(settings.resyncMs, (change) => this.podChanged(change));
    this.caches = new WatchedCaches(ctx.kube, log, watches, (key) => this.enqueue?.(key));
    const { caches = [], primaries = [] } = this.caches.sources();
    const all = [...caches, ...primaries];
    this.done = Promise.all(all.map((i) => i.run(signal)));
    this.synced = Promise.race([Promise.all(all.map((i) => i.synced)), this.done]);
  }

  route(enqueue: ((key: string) => void) | undefined): void {
    this.enqueue = enqueue;
  }

  private podChanged({ type, obj: pod }: Change): void {
    const key = keyOf(pod);
    if (type === 'deleted' || isTerminating(pod)) this.reservations.confirm(key);
    const zone = zoneOfNode(this.worldBase(), pod.spec?.nodeName);
    if (zone !== undefined && type !== 'deleted') this.remember(key, zone);
  }

  private remember(key: string, zone: string): void {
    this.lastZones.delete(key);
    this.lastZones.set(key, zone);
    if (this.lastZones.size > this.settings.rememberedPods) this.lastZones.delete(this.lastZones.keys().next().value!);
  }

  private worldBase() {
    return {
      nodeLabels: (node: string) => this.caches.get('nodes', node)?.metadata.labels,
      topologyKeys: this.ctx.settings.topologyKeys,
    };
  }

  pod(key: string): KubeObject | undefined {
    return this.caches.get('pods', key);
  }

  /** What the decisions see of one namespace. */
  world(namespace: string): BudgetWorld {
    const c = this.caches;
    return {
      ...this.worldBase(),
      pods: c.byIndex('pods', 'namespace', namespace),
      owners: [...c.byIndex('statefulSets', 'namespace', namespace), ...c.byIndex('replicaSets', 'namespace', namespace)],
      claims: c.byIndex('claims', 'namespace', namespace),
      lastZones: this.lastZones,
      shiftedZones: zonesTaintedByShift(c.list('nodes')),
    };
  }

  budgetsIn(namespace: string): KubeObject[] {
    return this.caches.byIndex('budgets', 'namespace', namespace);
  }
}

/**
 * The budgets' status on the leader, over the caches the eviction webhook started on every replica (the leader
 * only waits for them and takes the keys of their changes).
 */
export function zoneDisruptionBudgets(tuning: ZoneDisruptionBudgetTuning = {}): Reconciler {
  let shared: BudgetCaches | undefined;
  const settings = budgetSettings(tuning);
  const cachesFor = (ctx: ReconcilerContext, signal: AbortSignal) =>
    (shared ??= new BudgetCaches(ctx, signal, settings));
  return defineReconciler({
    name: NAME,
    summary: 'per-zone disruption budgets: status and the pods/eviction admission webhook (ZoneDisruptionBudget)',
    rbac: ZONE_DISRUPTION_BUDGET_RULES,
    settings: () => settings,
    declare: (ctx, _settings, _caches, run) => {
      const view = cachesFor(ctx, run.signal);
      return {
        shared: view,
        loop: { concurrency: 2 },
        reconcile: (key) => reconcileStatus(ctx, view, key),
        seed: () => view.caches.list('budgets').map(keyOf),
      };
    },
    webhooks: (ctx, signal) => [evictionWebhook(ctx, cachesFor(ctx, signal))],
  });
}

/** Resolves once `view` is synced; throws after SYNC_WAIT_MS. */
async function synced(view: EvictionView): Promise<void> {
  const timeout = new AbortController();
  const inTime = await Promise.race([
    view.synced.then(() => true),
    delay(SYNC_WAIT_MS, timeout.signal).then(() => false),
  ]);
  timeout.abort();
  if (!inTime) throw new Error('the caches are not synced yet');
}

/** The `pods/eviction` webhook over `view`. */
export function evictionWebhook(ctx: Pick<ReconcilerContext, 'log' | 'metrics' | 'events'>, view: EvictionView): AdmissionWebhook {
  const log = ctx.log.with({ webhook: NAME });

  /** The verdict from what the caches show, and the reservation of an allowed eviction. Synchronous on purpose. */
  const decide = (
    namespace: string,
    name: string | undefined,
    dryRun: boolean,
    reserved: ReadonlySet<string>,
  ): AdmissionVerdict => {
    const key = `${namespace}/${name}`;
    const pod = view.pod(key);
    if (!pod) return { allowed: true, message: `pod ${key} is not known (the eviction will find out)` };
    const decision = decideEviction(pod, view.budgetsIn(namespace), { ...view.world(namespace), reserved });
    if (decision.budgets.length === 0) return { allowed: true, zone: decision.zone, message: decision.message };
    for (const denial of decision.dryRunDenials) {
      ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'would-deny' });
      log.warn('dry run: eviction would be denied', { pod: key, denial });
      void ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', 'EvictionWouldBeDenied', denial);
    }
    if (!decision.allowed) {
      log.info('eviction denied', { pod: key, zone: decision.zone, message: decision.message, reserved: [...reserved] });
      // 429 tells eviction clients (kubectl drain, the cluster autoscaler) to retry later.
      return { allowed: false, code: 429, zone: decision.zone, message: decision.message };
    }
    const reserve = !dryRun && decision.available;
    if (reserve) view.reservations.reserve(namespace, key);
    log.info('eviction allowed', { pod: key, zone: decision.zone, budgets: decision.budgets, reserved: reserve });
    return { allowed: true, zone: decision.zone, message: decision.message, warnings: decision.dryRunDenials };
  };

  return {
    name: NAME,
    path: EVICTION_WEBHOOK_PATH,
    synced: view.synced,
    async handle(request: AdmissionRequest): Promise<AdmissionVerdict> {
      if (request.resource.resource !== 'pods' || request.subResource !== 'eviction' || request.operation !== 'CREATE') {
        return { allowed: true, message: 'not a pod eviction' };
      }
      await synced(view);
      const namespace = request.namespace ?? '';
      return view.reservations.decideWhenSettled(
        namespace,
        (reserved) => decide(namespace, request.name, request.dryRun === true, reserved),
      );
    },
  };
}

/** Makes budget `key`'s status current, from the caches the webhook started. */
async function reconcileStatus(ctx: ReconcilerContext, view: BudgetCaches, key: string): Promise<void> {
  const zdb = view.caches.get('budgets', key);
  if (!zdb) return;
  const namespace = zdb.metadata.namespace!;
  const status = budgetStatus(zdb, budgetOf(zdb, view.world(namespace)).budget);
  if (!statusHolds(zdb.status, status)) await patchStatus(ctx.kube, ZONE_DISRUPTION_BUDGETS, zdb, status);
}
