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
import { RedisLayoutGauges } from './redis-layout-metrics';
import { prepare, WatchedCluster } from './redis-prepare';
import { acknowledge, forgetHealthMetrics, report } from './redis-status';
import { ClusterWatching, listRedisPods, RedisWatch, redisWatches } from './redis-watching';
import { driveWorkloads } from './redis-workloads';
import { REDIS_MANAGER, REDIS_MANAGER_RULES, REDIS_UNNAMED_CLUSTER_RULES } from '../../../src/contract/reconcilers';
import { RedisOperation } from '../../../src/contract/redis';
import { outOfServiceZones } from '../../../src/contract/zone-shift';
import { defineReconciler } from '../define-reconciler';
import { KubeObject } from '../kube/api';
import { ReconcileResult } from '../reconcile-loop';
import { ControllerSettings, Reconciler, ReconcilerContext } from '../reconciler';
import type { ClusterState } from '../redis/decide';
import type { RedisClusterManager } from '../redis/manager';
import { operationRequest, pauseRequest } from '../redis/operations';
import { DEFAULT_REPLACED_PER_PASS } from '../redis/upgrade';
import { Caches } from '../watches';

const NAME = REDIS_MANAGER;
/** The key of the pod listing that finds the clusters (never a `namespace/cluster`: no namespace is named `*`). */
const DISCOVER = '*';
/** How soon a cluster being upgraded or scaled gets its next full pass. */
const SETTLING_MS = 1000;
/** How long one pass may drive one cluster. */
const PASS_TIMEOUT_MS = 60_000;

/** How often the pods are listed and every cluster gets a full pass, unless `--redis-interval` says otherwise. */
export const DEFAULT_REDIS_INTERVAL_MS = 15_000;

/** The reconciler's settings, each with its one default. */
export interface RedisSettings {
  /** The namespaces whose clusters it manages (`--redis-namespaces`); empty: every namespace. */
  readonly namespaces: readonly string[];
  /** How often the pods are listed and every cluster gets a full pass (`--redis-interval`). */
  readonly intervalMs: number;
  /** Out-of-date pods replaced per pass (`--redis-replaced-per-pass`). */
  readonly replacedPerPass: number;
  /** Whether ZoneShifts are honoured (the zone-shift reconciler runs). */
  readonly zoneShifts: boolean;
}

export function redisSettings(run: ControllerSettings): RedisSettings {
  return {
    namespaces: run.redisNamespaces ?? [],
    intervalMs: run.redisIntervalMs ?? DEFAULT_REDIS_INTERVAL_MS,
    replacedPerPass: run.redisReplacedPerPass ?? DEFAULT_REPLACED_PER_PASS,
    zoneShifts: run.zoneShifts ?? false,
  };
}

export function redisReconciler(): Reconciler {
  return defineReconciler({
    name: NAME,
    summary: 'bootstrap and heal ZonalRedisClusters to their planned layout; state in <cluster>-status',
    // The ConfigMaps and Secrets are granted by name, per cluster (redisClusterRules), where ZoneController knows
    // them.
    rbac: [...REDIS_MANAGER_RULES, ...REDIS_UNNAMED_CLUSTER_RULES],
    settings: redisSettings,
    declare: (ctx, settings, caches: Caches<RedisWatch>, run) => {
      const watching = new ClusterWatching(ctx, caches, run.signal);
      const clusters = new RedisClusters(ctx, settings, watching, caches, run.enqueue);
      return {
        watches: redisWatches(settings.namespaces, settings.zoneShifts, () => watching.keys()),
        // Clusters are independent: one busy resharding never delays another's failover (a key is never run twice
        // at once).
        loop: { concurrency: 4, retryMs: Math.min(settings.intervalMs, 1000), maxRetryMs: settings.intervalMs },
        reconcile: (key) => clusters.reconcile(key),
        seed: () => [DISCOVER],
        fromWatch: (key, enqueue) => watching.changed(key, enqueue),
        close: () => clusters.close(),
      };
    },
  });
}

/**
 * The passes over the clusters. Its keys: DISCOVER (the listing, every `intervalMs`) and `namespace/cluster`
 * (from a watch event, the listing, or its own requeue).
 */
class RedisClusters {
  private readonly watched = new Map<string, WatchedCluster>();
  private readonly log: ReconcilerContext['log'];
  private readonly layoutGauges: RedisLayoutGauges;

  constructor(
    private readonly ctx: ReconcilerContext, private readonly settings: RedisSettings,
    private readonly watching: ClusterWatching, private readonly caches: Caches<RedisWatch>,
    private readonly enqueue: (key: string) => void,
  ) {
    this.log = ctx.log.with({ reconciler: NAME });
    this.layoutGauges = new RedisLayoutGauges(ctx.metrics);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    if (key === DISCOVER) return this.discover();
    const members = this.watching.membersOf(key);
    if (!members) return {}; // gone from the last listing
    const [namespace, cluster] = key.split('/');
    const last = this.watched.get(key);
    const settled = last?.fullPassAt === undefined || Date.now() < last.fullPassAt;
    const full = this.watching.takeDue(key) || !last || !settled;
    const w = full ? await prepare(this.ctx, namespace, cluster, members, PASS_TIMEOUT_MS, last) : last;
    this.watched.set(key, w);
    const request = full ? operationRequest(w.subject.metadata.annotations, cluster) : undefined;
    const pause = pauseRequest(w.subject.metadata.annotations);
    for (const [node, until] of w.heldFailBack) if (until <= Date.now()) w.heldFailBack.delete(node);
    const options = { holdFailBack: new Set(w.heldFailBack.keys()), outOfServiceZones: this.outOfService(namespace) };
    let converged: ClusterState;
    if (request && 'operation' in request) converged = await runOperation(w.manager, request.operation);
    else converged = pause.paused ? await w.manager.state(options) : await w.manager.converge(options);
    if (full && !pause.paused) await this.driveWorkloads(namespace, cluster, members, w, converged.healthy);
    const issues = [...converged.issues, ...(w.workloads?.issues ?? []), ...(pause.issue ? [pause.issue] : [])];
    const state = { ...converged, paused: pause.paused, issues };
    if (request) await acknowledge(this.ctx, namespace, cluster, w, request, state);
    await report(this.ctx, key, w, state, full, this.settings.intervalMs);
    this.layoutGauges.show(key, state);
    // pods being replaced or a StatefulSet being scaled: the next step waits for Redis (a replica to sync), which
    // no watch reports, so the next full pass comes soon rather than at the poll
    if (full) w.fullPassAt = w.workloads?.upgrading || w.workloads?.scaling ? Date.now() + SETTLING_MS : undefined;
    if (w.fullPassAt !== undefined) return { requeueAfter: Math.min(SETTLING_MS, w.watchMs ?? SETTLING_MS) };
    return w.watchMs === undefined ? {} : { requeueAfter: w.watchMs };
  }

  /** The zones out of service for `namespace` (ZoneShifts in force). */
  private outOfService(namespace: string): Set<string> {
    if (!this.settings.zoneShifts) return new Set();
    return outOfServiceZones(this.caches.list('shifts'), namespace, Date.now());
  }

  /** Lists the labelled pods, forgets the clusters gone, and queues a full pass of each. */
  private async discover(): Promise<ReconcileResult> {
    const { pods: listed, failures } = await listRedisPods(this.ctx.kube, this.settings.namespaces);
    for (const [namespace, error] of failures) this.log.warn('listing redis pods failed', { namespace, error });
    const keys = this.watching.listed(listed, this.enqueue);
    for (const [key, w] of this.watched) {
      if (this.watching.membersOf(key) || failures.length > 0) continue;
      w.manager.close();
      this.watched.delete(key);
      this.watching.forget(key);
      forgetHealthMetrics(this.ctx, key);
      this.layoutGauges.forget(key);
    }
    for (const key of keys) this.enqueue(key);
    return { requeueAfter: this.settings.intervalMs };
  }

  /** A full pass's scaling and pod replacements. */
  private async driveWorkloads(
    namespace: string, cluster: string, pods: KubeObject[], w: WatchedCluster, healthy: boolean,
  ): Promise<void> {
    w.workloads = await driveWorkloads({
      ctx: this.ctx,
      namespace,
      cluster,
      manager: w.manager,
      pods,
      healthy,
      subject: w.subject,
      maxPerPass: this.settings.replacedPerPass,
      growing: w.growing,
      deleted: w.deleted,
      heldFailBack: w.heldFailBack,
    });
    // its inventory lost the deleted pods: rebuilt at the next full pass, whatever the listing shows then
    if (w.workloads.upgrade.replaced.length > 0) w.inputs = '';
  }

  close(): void {
    this.watching.close();
    for (const w of this.watched.values()) w.manager.close();
  }
}

/** Runs a manual operation (the manager's modes; reset destroys every key first; force-reconcile is a plain pass). */
async function runOperation(manager: RedisClusterManager, operation: RedisOperation): Promise<ClusterState> {
  if (operation === 'reset') return manager.resetDestroyingData();
  if (operation === 'force-reconcile') return manager.converge();
  return manager.converge({ mode: operation });
}
