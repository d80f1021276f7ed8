/**
 * The `redis` reconciler: for every `ZonalRedisCluster` (pods labelled `cdk8s-zones.dev/redis-cluster`, in
 * the namespaces of `--redis-namespaces`, else in all), reads the planned layout ConfigMap, builds the
 * inventory from the cluster's StatefulSet pods and their zone labels, gets the one password Secret they
 * mount (by name: never a list of Secrets), runs the same manager as the `redis` CLI (bootstrap, heal,
 * reshard, rebalance; never gives lost slots away), then scales the cluster's StatefulSets to the layout and
 * replaces out-of-date pods (redis-workloads.ts), and writes the state to the ConfigMap `<cluster>-status`
 * (key `state.json`).
 *
 * What starts a full pass of a cluster (the layout ConfigMap and the Secret read again, the manager rebuilt if
 * they or the pods changed, the cluster driven, the status written):
 * - a watch event: a change of one of its pods (a pod of the served namespaces, by label) or of its layout
 *   ConfigMap (watched by name: a manual operation is an annotation there), debounced by DEBOUNCE_MS;
 * - the poll, a backstop: the key DISCOVER lists the labelled pods every `intervalMs` and queues every cluster.
 * Between full passes, a cluster whose layout ConfigMap turns on the zone-loss failover is watched closely:
 * quick passes with the same manager (its connections kept; no API request) every `watchMs`, so a lost zone's
 * masters fail over within the policy's delay rather than at the next listing. A quick pass writes the status
 * only when it changed, and never scales nor replaces pods.
 */
import { ZONE_LABEL } from '../../../src/contract/labels';
import { REDIS_MANAGER, REDIS_MANAGER_RULES, REDIS_UNNAMED_CLUSTER_RULES } from '../../../src/contract/reconcilers';
import {
  CONTROLLER_REVISION_LABEL, LAYOUT_KEY, REDIS_CLUSTER_LABEL, REDIS_OPERATION_ANNOTATION, REDIS_PASSWORD_VOLUME, REDIS_RESET_CONFIRM_ANNOTATION,
  RedisOperation, STATUS_KEY, layoutConfigMapName, statusConfigMapName,
} from '../../../src/contract/redis';
import { outOfServiceZones } from '../../../src/contract/zone-shift';
import { RedisShardLayout } from '../../../src/redis/layout';
import { isStatus, KubeApi, KubeObject, resourcePath } from '../kube/api';
import { EventSubject } from '../kube/events';
import { Informer } from '../kube/informer';
import { slimMeta } from '../kube/transforms';
import { ReconcileLoop, ReconcileResult } from '../reconcile-loop';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { driveWorkloads, WorkloadReport } from './redis-workloads';
import type { ClusterState } from '../redis/decide';
import { healthEvents, nextHealth, phaseOf, RedisHealth, RedisPhase } from '../redis/health';
import type { RedisClusterManager } from '../redis/manager';
import { clearRequestPatch, OperationRequest, operationRequest } from '../redis/operations';
import { passwordFromBytes } from '../redis/password';
import { inventoryFromPods, SecretKey, withoutDeletedPods } from '../redis/pods';
import { CONFIGMAPS, PODS, SECRETS, ZONE_SHIFTS } from '../resources';

const NAME = REDIS_MANAGER;
/** The key of the pod listing that finds the clusters (never a `namespace/cluster`: no namespace is named `*`). */
const DISCOVER = '*';
/** How long a watch event waits for the events that come with it (a pod deleted, recreated, given an IP) before its pass. */
const DEBOUNCE_MS = 250;
/** How soon a cluster being upgraded or scaled gets its next full pass. */
const SETTLING_MS = 1000;

/** How often the pods are listed and every cluster gets a full pass, unless `--redis-interval` says otherwise. */
export const DEFAULT_REDIS_INTERVAL_MS = 15_000;

export interface RedisReconcilerTuning {
  /** How long one pass may drive one cluster. @default 60_000 */
  readonly passTimeoutMs?: number;
  /** Out-of-date pods replaced per pass. @default DEFAULT_REPLACED_PER_PASS (redis/upgrade.ts) */
  readonly replacedPerPass?: number;
}

export function redisReconciler(tuning: RedisReconcilerTuning = {}): Reconciler {
  return {
    name: NAME,
    summary: 'bootstrap and heal ZonalRedisClusters to their planned layout; state in <cluster>-status',
    // The ConfigMaps and Secrets are granted by name, per cluster (redisClusterRules), where ZoneController knows them.
    rbac: [...REDIS_MANAGER_RULES, ...REDIS_UNNAMED_CLUSTER_RULES],
    run: (ctx, signal) => runRedis(ctx, signal, tuning),
  };
}

/**
 * The clusters the reconciler knows and what each pass keeps of them. Its keys: DISCOVER (the listing, every
 * `intervalMs`) and `namespace/cluster`; what maps a change to a key: `clusterKey` of a watched pod, the
 * cluster of a watched layout ConfigMap.
 */
class RedisClusters {
  /** Each cluster's pods as the last listing showed them, by `namespace/cluster`. */
  private clusters = new Map<string, KubeObject[]>();
  /** The clusters a listing or a watch event found since their last full pass. */
  private readonly due = new Set<string>();
  private readonly watched = new Map<string, WatchedCluster>();
  private readonly debounce = new Map<string, NodeJS.Timeout>();
  private readonly layouts = new Map<string, AbortController>();
  private readonly log: ReconcilerContext['log'];
  /** The ZoneShifts (with the zone-shift reconciler): a shift starting or ending concerns every cluster. */
  private readonly shifts?: Informer<KubeObject, never>;
  readonly intervalMs: number;

  constructor(private readonly ctx: ReconcilerContext, private readonly signal: AbortSignal, private readonly tuning: RedisReconcilerTuning) {
    this.log = ctx.log.with({ reconciler: NAME });
    this.intervalMs = ctx.settings.redisIntervalMs ?? DEFAULT_REDIS_INTERVAL_MS;
    if (ctx.settings.zoneShifts) {
      this.shifts = new Informer<KubeObject, never>(ctx.kube, {
        path: resourcePath(ZONE_SHIFTS),
        onChange: (type) => {
          if (type !== 'resync') for (const key of this.clusters.keys()) this.changed(key);
        },
        resyncMs: 0,
        log: this.log,
      });
    }
  }

  /** Where keys go: the reconciler's loop. */
  enqueue: (key: string) => void = () => undefined;

  /**
   * The zonal shifts, listed before any pass: a pass that read them before their first list would see no zone out
   * of service and fail masters back into a shifted zone (a controller restarted mid-shift), and out again after.
   */
  caches() {
    const shifts = this.shifts;
    return shifts ? [{ synced: shifts.synced, run: (signal: AbortSignal) => shifts.run(signal) }] : [];
  }

  /** The watches that start passes: the served namespaces' labelled pods (a shift's change starts them too, `caches`). */
  watches() {
    return this.podWatches();
  }

  /** The watches of the served namespaces' labelled pods: a change concerns the pod's cluster. */
  private podWatches() {
    return watchPods(this.ctx, this.ctx.settings.redisNamespaces ?? [], (key, members) => {
      if (members.length > 0) this.clusters.set(key, members);
      this.changed(key);
    });
  }

  /** A watch event about cluster `key`: a full pass soon, once the events that come with it are in. */
  private changed(key: string): void {
    this.due.add(key);
    if (this.debounce.has(key) || this.signal.aborted) return;
    this.debounce.set(key, setTimeout(() => {
      this.debounce.delete(key);
      this.enqueue(key);
    }, DEBOUNCE_MS));
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    if (key === DISCOVER) return this.discover();
    const members = this.clusters.get(key);
    if (!members) return {}; // gone from the last listing
    const [namespace, cluster] = key.split('/');
    const last = this.watched.get(key);
    const full = this.due.delete(key) || !last || (last.fullPassAt !== undefined && Date.now() >= last.fullPassAt);
    const w = full ? await prepare(this.ctx, namespace, cluster, members, this.tuning.passTimeoutMs ?? 60_000, last) : last;
    this.watched.set(key, w);
    const request = full ? operationRequest(w.subject.metadata.annotations, cluster) : undefined;
    for (const [node, until] of w.heldFailBack) if (until <= Date.now()) w.heldFailBack.delete(node);
    const converged = request && 'operation' in request
      ? await runOperation(w.manager, request.operation)
      : await w.manager.converge({ holdFailBack: new Set(w.heldFailBack.keys()), outOfServiceZones: this.outOfService(namespace) });
    if (full) await this.driveWorkloads(namespace, cluster, members, w, converged.healthy);
    const state = { ...converged, issues: [...converged.issues, ...(w.workloads?.issues ?? [])] };
    if (request) await acknowledge(this.ctx, namespace, cluster, w, request, state);
    await this.report(key, w, state, full);
    // pods being replaced or a StatefulSet being scaled: the next step waits for Redis (a replica to sync), which
    // no watch reports, so the next full pass comes soon rather than at the poll
    if (full) w.fullPassAt = w.workloads?.upgrading || w.workloads?.scaling ? Date.now() + SETTLING_MS : undefined;
    if (w.fullPassAt !== undefined) return { requeueAfter: Math.min(SETTLING_MS, w.watchMs ?? SETTLING_MS) };
    return w.watchMs === undefined ? {} : { requeueAfter: w.watchMs };
  }

  /** The zones out of service for `namespace` (ZoneShifts in force). */
  private outOfService(namespace: string): Set<string> {
    return this.shifts ? outOfServiceZones(this.shifts.list(), namespace, Date.now()) : new Set();
  }

  /** Lists the labelled pods, forgets the clusters gone, and queues a full pass of each. */
  private async discover(): Promise<ReconcileResult> {
    const { pods: listed, failures } = await listRedisPods(this.ctx.kube, this.ctx.settings.redisNamespaces ?? []);
    for (const [namespace, error] of failures) this.log.warn('listing redis pods failed', { namespace, error });
    this.clusters = new Map();
    for (const pod of listed) {
      const key = clusterKey(pod);
      this.clusters.set(key, [...(this.clusters.get(key) ?? []), pod]);
    }
    for (const [key, w] of this.watched) {
      if (this.clusters.has(key) || failures.length > 0) continue;
      w.manager.close();
      this.watched.delete(key);
      this.layouts.get(key)?.abort();
      this.layouts.delete(key);
      forgetHealthMetrics(this.ctx, key);
    }
    for (const key of this.clusters.keys()) {
      if (!this.layouts.has(key)) this.layouts.set(key, watchLayout(this.ctx, key, this.signal, () => this.changed(key)));
      this.due.add(key);
      this.enqueue(key);
    }
    return { requeueAfter: this.intervalMs };
  }

  /** A full pass's scaling and pod replacements. */
  private async driveWorkloads(namespace: string, cluster: string, pods: KubeObject[], w: WatchedCluster, healthy: boolean): Promise<void> {
    w.workloads = await driveWorkloads({
      ctx: this.ctx,
      namespace,
      cluster,
      manager: w.manager,
      pods,
      healthy,
      subject: w.subject,
      maxPerPass: this.tuning.replacedPerPass ?? this.ctx.settings.redisReplacedPerPass,
      growing: w.growing,
      deleted: w.deleted,
      heldFailBack: w.heldFailBack,
    });
    // its inventory lost the deleted pods: rebuilt at the next full pass, whatever the listing shows then
    if (w.workloads.upgrade.replaced.length > 0) w.inputs = '';
  }

  /** The health counters (their Events and metrics) and the status ConfigMap, after a pass. */
  private async report(key: string, w: WatchedCluster, state: ClusterState, full: boolean): Promise<void> {
    const [namespace, cluster] = key.split('/');
    // A pass counts towards the health counters when it is a full one, or when the phase changed since the last.
    const activity = { upgrading: w.workloads?.upgrading, scaling: w.workloads?.scaling };
    if (full || phaseOf(state, w.health?.phase, activity) !== w.health?.phase) {
      const health = nextHealth(w.health, state, new Date(), activity);
      for (const e of healthEvents(w.health, health, state)) await this.ctx.events.record(w.subject, e.type, e.reason, e.message);
      w.health = health;
      recordHealthMetrics(this.ctx, key, health);
    }
    const { upgrade, statefulSets, scaleWaiting } = w.workloads ?? {};
    const report = { ...state, health: w.health, lastOperation: w.lastOperation, skippedPods: w.skipped, upgrade, statefulSets, scaleWaiting };
    const status = JSON.stringify(report);
    if (full || status !== w.lastStatus || Date.now() - w.writtenAt >= this.intervalMs) {
      await writeStatus(this.ctx, namespace, cluster, { ...report, updated: new Date().toISOString() });
      w.lastStatus = status;
      w.writtenAt = Date.now();
    }
  }

  close(): void {
    for (const t of this.debounce.values()) clearTimeout(t);
    for (const w of this.watched.values()) w.manager.close();
  }
}

async function runRedis(ctx: ReconcilerContext, signal: AbortSignal, tuning: RedisReconcilerTuning): Promise<void> {
  const clusters = new RedisClusters(ctx, signal, tuning);
  const loop = new ReconcileLoop(ctx, {
    name: NAME,
    // Clusters are independent: one busy resharding never delays another's failover (a key is never run twice at once).
    concurrency: 4,
    retryMs: Math.min(clusters.intervalMs, 1000),
    maxRetryMs: clusters.intervalMs,
    reconcile: (key) => clusters.reconcile(key),
  });
  clusters.enqueue = (key) => loop.enqueue(key);
  try {
    await loop.run(signal, { caches: clusters.caches(), seed: () => [DISCOVER], primaries: clusters.watches() });
  } finally {
    clusters.close();
  }
}

/** `namespace/cluster` of a labelled pod. */
function clusterKey(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.labels![REDIS_CLUSTER_LABEL]}`;
}

/** What the pod caches keep: what the inventory and the revision check read. */
function redisPodShape(pod: KubeObject): KubeObject {
  return {
    metadata: slimMeta(pod.metadata, { labels: [REDIS_CLUSTER_LABEL, ZONE_LABEL, CONTROLLER_REVISION_LABEL] }),
    spec: { volumes: (pod.spec?.volumes ?? []).filter((v: any) => v.name === REDIS_PASSWORD_VOLUME) },
    status: { podIP: pod.status?.podIP },
  };
}

/**
 * Watches the labelled pods of the served namespaces (one watch each, as namespaced Roles allow; every
 * namespace when none is named): `onChange(key, members)` with a cluster's pods as cached, on each change.
 * A namespace that cannot be watched is retried by its informer without holding the others.
 */
function watchPods(ctx: ReconcilerContext, namespaces: readonly string[], onChange: (key: string, members: KubeObject[]) => void) {
  const scopes = namespaces.length === 0 ? [undefined] : namespaces;
  return scopes.map((ns) => {
    const informer: Informer<KubeObject, 'cluster'> = new Informer(ctx.kube, {
      path: resourcePath(PODS, ns),
      labelSelector: REDIS_CLUSTER_LABEL,
      transform: redisPodShape,
      indexes: { cluster: (pod) => [clusterKey(pod)] },
      onChange: (type, pod) => {
        if (type !== 'resync') onChange(clusterKey(pod), informer.byIndex('cluster', clusterKey(pod)));
      },
      resyncMs: 0, // the poll is the backstop
      log: ctx.log.with({ reconciler: NAME }),
    });
    // never blocks the loop: a namespace that cannot be watched still has its poll
    return { synced: Promise.resolve(), run: (signal: AbortSignal) => informer.run(signal) };
  });
}

/**
 * Watches the layout ConfigMap of cluster `key` by name (list and watch with `metadata.name=`, which a Role
 * rule naming it allows): `onChange` on each change (a manual operation's annotation, a new layout), until the
 * cluster is gone or `signal` aborts.
 */
function watchLayout(ctx: ReconcilerContext, key: string, signal: AbortSignal, onChange: () => void): AbortController {
  const [namespace, cluster] = key.split('/');
  const stop = new AbortController();
  signal.addEventListener('abort', () => stop.abort(), { once: true });
  const informer = new Informer(ctx.kube, {
    path: resourcePath(CONFIGMAPS, namespace),
    fieldSelector: `metadata.name=${layoutConfigMapName(cluster)}`,
    transform: (cm) => ({ metadata: slimMeta(cm.metadata, { annotations: [REDIS_OPERATION_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION] }) }),
    onChange: (type) => {
      if (type !== 'resync') onChange();
    },
    resyncMs: 0,
    log: ctx.log.with({ reconciler: NAME, cluster: key }),
  });
  void informer.run(stop.signal);
  return stop;
}

/** What a cluster's full pass set up, and its quick passes reuse. */
interface WatchedCluster {
  readonly manager: RedisClusterManager;
  /** What the manager was built from (layout, inventory, password, policy): a new manager when it changes. */
  inputs: string;
  readonly skipped: string[];
  /** How often the cluster is observed between full passes; undefined: only at full passes. */
  readonly watchMs?: number;
  /** The layout ConfigMap: the object the cluster's Events are about. */
  readonly subject: EventSubject;
  /** The status last written, without its time. */
  lastStatus?: string;
  writtenAt: number;
  /** The health over the passes so far (carried over from the status ConfigMap when the controller starts). */
  health?: RedisHealth;
  /** The last manual operation asked by annotation, and how it went. */
  lastOperation?: OperationReport;
  /** What the last full pass did to the StatefulSets and pods. */
  workloads?: WorkloadReport;
  /** Nodes a scale-up added, until the cluster is first healthy with them. */
  readonly growing: Set<string>;
  /** Pods deleted to replace them (node -> uid), until a listing shows their successors. */
  readonly deleted: Map<string, string>;
  /** Planned masters an upgrade failed over away from and has not replaced yet: no fail-back to them until then (ms). */
  readonly heldFailBack: Map<string, number>;
  /** When the next full pass is due without a watch event (while pods are replaced or a StatefulSet scaled). */
  fullPassAt?: number;
}

/** A manual operation in the status ConfigMap. */
interface OperationReport {
  readonly operation: string;
  readonly result: 'done' | 'refused';
  /** Why it was refused, or whether the cluster ended healthy. */
  readonly message: string;
  readonly at: string;
}

/** Runs a manual operation (the manager's modes; reset destroys every key first; force-reconcile is a plain pass). */
async function runOperation(manager: RedisClusterManager, operation: RedisOperation): Promise<ClusterState> {
  if (operation === 'reset') return manager.resetDestroyingData();
  if (operation === 'force-reconcile') return manager.converge();
  return manager.converge({ mode: operation });
}

/** Removes the request's annotations and reports it: in the status (`lastOperation`), in the log and as an Event. */
async function acknowledge(
  ctx: ReconcilerContext, namespace: string, cluster: string, w: WatchedCluster, request: OperationRequest, state: ClusterState,
): Promise<void> {
  await ctx.kube.patch(resourcePath(CONFIGMAPS, namespace, layoutConfigMapName(cluster)), clearRequestPatch());
  const report: OperationReport = 'operation' in request
    ? { operation: request.operation, result: 'done', message: state.healthy ? 'the cluster ended healthy' : 'the cluster is not healthy yet (see issues)', at: new Date().toISOString() }
    : { operation: request.asked, result: 'refused', message: request.refused, at: new Date().toISOString() };
  w.lastOperation = report;
  ctx.log.with({ reconciler: NAME, cluster }).info('redis operation', { ...report });
  await ctx.events.record(w.subject, report.result === 'done' ? 'Normal' : 'Warning',
    report.result === 'done' ? 'RedisOperation' : 'RedisOperationRefused', `${report.operation}: ${report.message}`);
}

const PHASES: readonly RedisPhase[] = ['initializing', 'healthy', 'recovering', 'scaling', 'upgrading'];

/** The cluster's health as gauges: its phase (1 for the current one), consecutive passes by result, finalized. */
function recordHealthMetrics(ctx: ReconcilerContext, key: string, health: RedisHealth): void {
  const [namespace, cluster] = key.split('/');
  for (const phase of PHASES) ctx.metrics.redisPhase.set({ namespace, cluster, phase }, phase === health.phase ? 1 : 0);
  ctx.metrics.redisPasses.set({ namespace, cluster, result: 'healthy' }, health.healthyPasses);
  ctx.metrics.redisPasses.set({ namespace, cluster, result: 'unhealthy' }, health.unhealthyPasses);
  ctx.metrics.redisFinalized.set({ namespace, cluster }, health.finalized ? 1 : 0);
}

function forgetHealthMetrics(ctx: ReconcilerContext, key: string): void {
  const [namespace, cluster] = key.split('/');
  for (const phase of PHASES) ctx.metrics.redisPhase.remove({ namespace, cluster, phase });
  for (const result of ['healthy', 'unhealthy']) ctx.metrics.redisPasses.remove({ namespace, cluster, result });
  ctx.metrics.redisFinalized.remove({ namespace, cluster });
}

/**
 * What a status ConfigMap recorded that outlives the controller process: the health counters and the last
 * manual operation (each undefined when absent or malformed).
 */
export function recordedStatus(statusMap: KubeObject | undefined): { health?: RedisHealth; lastOperation?: OperationReport } {
  let recorded: any;
  try {
    recorded = JSON.parse(statusMap?.data?.[STATUS_KEY] ?? 'null');
  } catch {
    return {};
  }
  const { health, lastOperation: op } = recorded ?? {};
  const counts = ['healthyPasses', 'unhealthyPasses'].every((k) => Number.isInteger(health?.[k]) && health[k] >= 0);
  return {
    health: counts && PHASES.includes(health.phase) && typeof health.finalized === 'boolean' ? health : undefined,
    lastOperation: typeof op?.operation === 'string' && (op.result === 'done' || op.result === 'refused') ? op : undefined,
  };
}

/**
 * How often a cluster with a zone-loss failover delay of `afterMs` is observed: twice within the delay, so the
 * manager notices a silent zone early enough to act when it expires (and no more often than every 100 ms).
 */
export function watchIntervalMs(afterMs: number | undefined): number | undefined {
  return afterMs === undefined ? undefined : Math.max(100, Math.floor(afterMs / 2));
}

/** Reads the cluster's layout ConfigMap and password Secret, and (re)builds its manager when they or the pods changed. */
async function prepare(
  ctx: ReconcilerContext, namespace: string, cluster: string, pods: KubeObject[], timeoutMs: number, last: WatchedCluster | undefined,
): Promise<WatchedCluster> {
  // Loaded on the first cluster: the Redis client is the largest module the controller has, and most runs never need it.
  const { failoverOptions, RedisClusterManager: Manager } = await import('../redis/manager.js');
  const layoutMap = await ctx.kube.get(resourcePath(CONFIGMAPS, namespace, layoutConfigMapName(cluster)));
  const data: Record<string, string> | undefined = (layoutMap as any).data;
  const layout = RedisShardLayout.fromJson(data?.[LAYOUT_KEY] ?? '');
  const failover = failoverOptions(data);
  const counted = withoutDeletedPods(cluster, pods, last?.deleted ?? new Map(), new Set(layout.nodes.map((n) => n.name)));
  const inventory = inventoryFromPods(cluster, layout.zones, counted.pods);
  const ref = inventory.passwordSecret;
  const password = ref && passwordOf(namespace, ref, await ctx.kube.get(resourcePath(SECRETS, namespace, ref.name)));
  const inputs = JSON.stringify([data?.[LAYOUT_KEY], failover, inventory.nodes, password]);
  const statusMap = last ? undefined : await ctx.kube.get(resourcePath(CONFIGMAPS, namespace, statusConfigMapName(cluster))).catch((err) => {
    if (isStatus(err, 404)) return undefined;
    throw err;
  });
  const recorded = last ?? recordedStatus(statusMap);
  const rest = {
    subject: { ...layoutMap, apiVersion: 'v1', kind: 'ConfigMap' },
    health: recorded.health,
    lastOperation: recorded.lastOperation,
    skipped: [...counted.skipped, ...inventory.skipped],
    watchMs: watchIntervalMs(failover.zoneLossFailoverAfterMs),
    lastStatus: last?.lastStatus,
    writtenAt: last?.writtenAt ?? 0,
    growing: last?.growing ?? new Set<string>(),
    deleted: counted.pending,
    heldFailBack: last?.heldFailBack ?? new Map<string, number>(),
  };
  // force-reconcile: everything afresh, new connections included (after a change made by hand)
  const forced = operationRequest(layoutMap.metadata.annotations, cluster);
  if (last && last.inputs === inputs && !(forced && 'operation' in forced && forced.operation === 'force-reconcile')) return { ...last, ...rest };
  last?.manager.close();
  const manager = new Manager(layout, inventory.nodes, { password, timeoutMs, ...failover, log: ctx.log.with({ reconciler: NAME, cluster }) });
  return { manager, inputs, ...rest };
}

/**
 * The labelled pods of every namespace (`namespaces` empty), else of each of `namespaces`: one list each,
 * as namespaced Roles allow; a namespace that cannot be listed is reported without hiding the others.
 */
export async function listRedisPods(kube: KubeApi, namespaces: readonly string[]): Promise<{ pods: KubeObject[]; failures: [string, unknown][] }> {
  const scopes = namespaces.length === 0 ? [undefined] : namespaces;
  const lists = await Promise.allSettled(scopes.map((ns) => kube.list(resourcePath(PODS, ns), { labelSelector: REDIS_CLUSTER_LABEL })));
  return {
    pods: lists.flatMap((l) => (l.status === 'fulfilled' ? l.value.items : [])),
    failures: lists.flatMap((l, i): [string, unknown][] => (l.status === 'rejected' ? [[scopes[i] ?? '(every namespace)', l.reason]] : [])),
  };
}

/** The password in the Secret key `ref` of `secret`, or why there is none usable (the Secret is made by hand). */
export function passwordOf(namespace: string, ref: SecretKey, secret: KubeObject): string {
  const what = `Secret ${namespace}/${ref.name} key ${JSON.stringify(ref.key)}`;
  const value: string | undefined = secret.data?.[ref.key];
  if (value === undefined) throw new Error(`${what} does not exist: the Redis pods read their password from it`);
  return passwordFromBytes(Buffer.from(value, 'base64'), what);
}

async function writeStatus(ctx: ReconcilerContext, namespace: string, cluster: string, state: object): Promise<void> {
  const name = statusConfigMapName(cluster);
  const body = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { [REDIS_CLUSTER_LABEL]: cluster } },
    data: { [STATUS_KEY]: JSON.stringify(state, undefined, 2) },
  };
  try {
    await ctx.kube.replace(resourcePath(CONFIGMAPS, namespace, name), body);
  } catch (err) {
    if (!isStatus(err, 404)) throw err;
    await ctx.kube.create(resourcePath(CONFIGMAPS, namespace), body);
  }
}
