/**
 * The zone-disruption-budget reconciler: keeps every ZoneDisruptionBudget's status (per zone expected,
 * healthy, disruptions allowed) current on the leader, and serves the validating admission webhook on
 * `pods/eviction` on every replica: an eviction passes only when no other zone has an unavailable or
 * missing pod and its own zone's budget allows it. Evictions it allowed count as unavailable until the
 * pod cache shows the pod going, so two evictions racing each other cannot both pass in two zones (per
 * replica: two replicas serving the webhook do not share this memory).
 */
import { ZONE_DISRUPTION_BUDGET, ZONE_DISRUPTION_BUDGET_RULES } from '../../../src/contract/reconcilers';
import { EVICTION_WEBHOOK_PATH, ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_PLURAL } from '../../../src/contract/rollout';
import { AdmissionRequest, AdmissionVerdict, AdmissionWebhook } from '../admission';
import { isStatus, KubeObject, keyOf, NODES, PODS, Resource, resourcePath } from '../kube/api';
import { Informer } from '../kube/informer';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { WorkQueue } from '../work-queue';
import { budgetOf, budgetStatus, BudgetWorld, decideEviction, zoneOfNode } from './zone-disruption-budget-decision';

const NAME = ZONE_DISRUPTION_BUDGET;
export const ZONE_DISRUPTION_BUDGETS: Resource = { apiVersion: ROLLOUT_API_VERSION, plural: ZONE_DISRUPTION_BUDGET_PLURAL, namespaced: true };
const STATEFULSETS: Resource = { apiVersion: 'apps/v1', plural: 'statefulsets', namespaced: true };
const REPLICASETS: Resource = { apiVersion: 'apps/v1', plural: 'replicasets', namespaced: true };
const CLAIMS: Resource = { apiVersion: 'v1', plural: 'persistentvolumeclaims', namespaced: true };

export interface ZoneDisruptionBudgetTuning {
  /** @default 300_000 */
  readonly resyncMs?: number;
  /** How long an allowed eviction counts as unavailable when the cache never shows the pod go. @default 60_000 */
  readonly evictionMemoryMs?: number;
  /** The most pods whose last zone is remembered. @default 100_000 */
  readonly rememberedPods?: number;
}

/** The caches both halves use (the webhook on every replica, the status writer on the leader). */
class BudgetCaches {
  readonly lastZones = new Map<string, string>();
  readonly evicted = new Map<string, number>();
  private readonly listeners: Array<(namespace: string) => void> = [];
  readonly budgets: Informer<KubeObject>;
  readonly pods: Informer<KubeObject>;
  readonly owners: Array<Informer<KubeObject>>;
  readonly claims: Informer<KubeObject>;
  readonly nodes: Informer<KubeObject>;
  readonly synced: Promise<unknown>;
  readonly done: Promise<unknown>;

  constructor(private readonly ctx: ReconcilerContext, signal: AbortSignal, private readonly tuning: ZoneDisruptionBudgetTuning) {
    const log = ctx.log.with({ reconciler: NAME });
    const changed = (obj: KubeObject) => this.listeners.forEach((l) => l(obj.metadata.namespace ?? ''));
    const informer = (resource: Resource, resyncMs = 0, onChange: (type: string, obj: KubeObject) => void = (_t, o) => changed(o)) =>
      new Informer<KubeObject>(ctx.kube, { path: resourcePath(resource), resyncMs, log, onChange });
    this.budgets = informer(ZONE_DISRUPTION_BUDGETS, tuning.resyncMs);
    this.pods = informer(PODS, 0, (type, pod) => {
      const key = keyOf(pod);
      if (type === 'deleted' || pod.metadata.deletionTimestamp) this.evicted.delete(key);
      const zone = zoneOfNode(this.worldBase(), pod.spec?.nodeName);
      if (zone !== undefined && type !== 'deleted') this.remember(key, zone);
      changed(pod);
    });
    this.owners = [informer(STATEFULSETS), informer(REPLICASETS)];
    this.claims = informer(CLAIMS);
    this.nodes = informer(NODES, 0, () => undefined);
    const all = [this.nodes, this.pods, ...this.owners, this.claims, this.budgets];
    const runs = all.map((i) => i.run(signal));
    this.done = Promise.all(runs);
    this.synced = Promise.race([Promise.all(all.map((i) => i.synced)), this.done]);
  }

  onNamespaceChange(listener: (namespace: string) => void): void {
    this.listeners.push(listener);
  }

  private remember(key: string, zone: string): void {
    this.lastZones.delete(key);
    this.lastZones.set(key, zone);
    if (this.lastZones.size > (this.tuning.rememberedPods ?? 100_000)) this.lastZones.delete(this.lastZones.keys().next().value!);
  }

  private worldBase() {
    return { nodeLabels: (node: string) => this.nodes.get(node)?.metadata.labels, topologyKeys: this.ctx.settings.topologyKeys };
  }

  /** What the decisions see of one namespace. */
  world(namespace: string): BudgetWorld {
    const now = Date.now();
    for (const [key, until] of this.evicted) if (until < now) this.evicted.delete(key);
    const inNs = (o: KubeObject) => o.metadata.namespace === namespace;
    return {
      ...this.worldBase(),
      pods: this.pods.list().filter(inNs),
      owners: this.owners.flatMap((i) => i.list().filter(inNs).map((o) => ({ ...o, kind: i === this.owners[0] ? 'StatefulSet' : 'ReplicaSet' }))),
      claims: this.claims.list().filter(inNs),
      lastZones: this.lastZones,
      evicted: new Set(this.evicted.keys()),
    };
  }

  budgetsIn(namespace: string): KubeObject[] {
    return this.budgets.list().filter((b) => b.metadata.namespace === namespace);
  }
}

export function zoneDisruptionBudgets(tuning: ZoneDisruptionBudgetTuning = {}): Reconciler {
  let caches: BudgetCaches | undefined;
  const cachesFor = (ctx: ReconcilerContext, signal: AbortSignal) => (caches ??= new BudgetCaches(ctx, signal, tuning));
  return {
    name: NAME,
    summary: 'per-zone disruption budgets: status and the pods/eviction admission webhook (ZoneDisruptionBudget)',
    rbac: ZONE_DISRUPTION_BUDGET_RULES,
    run: (ctx, signal) => runStatus(ctx, signal, cachesFor(ctx, signal)),
    webhooks: (ctx, signal) => [evictionWebhook(ctx, cachesFor(ctx, signal), tuning)],
  };
}

function evictionWebhook(ctx: ReconcilerContext, caches: BudgetCaches, tuning: ZoneDisruptionBudgetTuning): AdmissionWebhook {
  const log = ctx.log.with({ webhook: NAME });
  return {
    name: NAME,
    path: EVICTION_WEBHOOK_PATH,
    async handle(request: AdmissionRequest): Promise<AdmissionVerdict> {
      if (request.resource.resource !== 'pods' || request.subResource !== 'eviction' || request.operation !== 'CREATE') {
        return { allowed: true, message: 'not a pod eviction' };
      }
      await caches.synced;
      const namespace = request.namespace ?? '';
      const pod = caches.pods.get(`${namespace}/${request.name}`);
      if (!pod) return { allowed: true, message: `pod ${namespace}/${request.name} is not known (the eviction will find out)` };
      const decision = decideEviction(pod, caches.budgetsIn(namespace), caches.world(namespace));
      if (decision.budgets.length === 0) return { allowed: true, zone: decision.zone, message: decision.message };
      for (const denial of decision.dryRunDenials) {
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'would-deny' });
        log.warn('dry run: eviction would be denied', { pod: keyOf(pod), denial });
        void ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', 'EvictionWouldBeDenied', denial);
      }
      if (!decision.allowed) {
        log.info('eviction denied', { pod: keyOf(pod), zone: decision.zone, message: decision.message });
        // 429 tells eviction clients (kubectl drain, the cluster autoscaler) to retry later.
        return { allowed: false, code: 429, zone: decision.zone, message: decision.message };
      }
      if (!request.dryRun) caches.evicted.set(keyOf(pod), Date.now() + (tuning.evictionMemoryMs ?? 60_000));
      log.info('eviction allowed', { pod: keyOf(pod), zone: decision.zone, budgets: decision.budgets });
      return { allowed: true, zone: decision.zone, message: decision.message, warnings: decision.dryRunDenials };
    },
  };
}

async function runStatus(ctx: ReconcilerContext, signal: AbortSignal, caches: BudgetCaches): Promise<void> {
  const log = ctx.log.with({ reconciler: NAME });
  const queue = new WorkQueue(async (key) => {
    const zdb = caches.budgets.get(key);
    if (!zdb) return;
    const namespace = zdb.metadata.namespace!;
    const status = budgetStatus(zdb, budgetOf(zdb, caches.world(namespace)).budget) as Record<string, unknown>;
    ctx.metrics.reconciles.inc({ reconciler: NAME });
    if (zdb.status && Object.entries(status).every(([k, v]) => JSON.stringify(zdb.status[k]) === JSON.stringify(v))) return;
    try {
      await ctx.kube.patch(resourcePath(ZONE_DISRUPTION_BUDGETS, namespace, zdb.metadata.name, 'status'), { status }, 'merge');
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
  }, {
    concurrency: 2,
    onError: (key, err, failures) => {
      ctx.metrics.reconcileErrors.inc({ reconciler: NAME });
      log.warn('status update failed, retrying', { zoneDisruptionBudget: key, error: err, failures });
    },
  });
  caches.onNamespaceChange((namespace) => caches.budgetsIn(namespace).forEach((b) => queue.add(keyOf(b))));
  await caches.synced;
  caches.budgets.list().forEach((b) => queue.add(keyOf(b)));
  log.info('started');
  await Promise.race([caches.done, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
  queue.stop();
  await queue.idle();
}
