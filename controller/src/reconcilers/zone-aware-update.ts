/**
 * The zone-aware-update reconciler: for every ZoneAwareUpdate, watches its StatefulSet, the pods and the
 * nodes, asks the decision (and through it the library's planner) what to do, deletes the batch it names,
 * and writes the status (per-zone old replicas, step, phase) through the status subresource. The step is
 * persisted in the status, so a restarted controller (or the other replica taking the Lease) resumes the
 * ramp where it was.
 */
import { ROLLOUT_API_VERSION, ZONE_AWARE_UPDATE_PLURAL, ZONE_AWARE_UPDATE_RBAC } from '../../../src/rollout/crds';
import { isStatus, KubeObject, keyOf, NODES, PODS, Resource, resourcePath } from '../kube/api';
import { Informer } from '../kube/informer';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { WorkQueue } from '../work-queue';
import { decideZoneAwareUpdate, ZauAction } from './zone-aware-update-decision';

const NAME = 'zone-aware-update';
export const ZONE_AWARE_UPDATES: Resource = { apiVersion: ROLLOUT_API_VERSION, plural: ZONE_AWARE_UPDATE_PLURAL, namespaced: true };
export const STATEFULSETS: Resource = { apiVersion: 'apps/v1', plural: 'statefulsets', namespaced: true };

export interface ZoneAwareUpdateTuning {
  /** @default 300_000 */
  readonly resyncMs?: number;
  /** How often a paused or dry-run rollout is looked at again (Prometheus is polled this often). @default 15_000 */
  readonly recheckMs?: number;
  /** Timeout of one Prometheus query. @default 5_000 */
  readonly queryTimeoutMs?: number;
}

export function zoneAwareUpdater(tuning: ZoneAwareUpdateTuning = {}): Reconciler {
  return {
    name: NAME,
    summary: 'roll OnDelete StatefulSets zone by zone in growing batches (ZoneAwareUpdate)',
    rbac: ZONE_AWARE_UPDATE_RBAC,
    run: (ctx, signal) => runZoneAwareUpdates(ctx, signal, tuning),
  };
}

/** Why a Prometheus pause query holds: a non-empty result, or a failure (fail safe); undefined when it does not. */
export async function prometheusPause(url: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { Accept: 'application/json' } });
    if (!res.ok) return `Prometheus query ${url} failed: HTTP ${res.status}`;
    const body = await res.json() as { status?: string; data?: { result?: unknown } };
    if (body.status !== 'success') return `Prometheus query ${url} failed: status ${body.status}`;
    const result = body.data?.result;
    const size = Array.isArray(result) ? result.length : result === undefined || result === null ? 0 : 1;
    return size > 0 ? `Prometheus query ${url} returned ${size} series` : undefined;
  } catch (err) {
    return `Prometheus query ${url} failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function sameStatus(current: any, next: object): boolean {
  if (!current) return false;
  return Object.entries(next).every(([k, v]) => JSON.stringify(current[k]) === JSON.stringify(v));
}

async function runZoneAwareUpdates(ctx: ReconcilerContext, signal: AbortSignal, tuning: ZoneAwareUpdateTuning): Promise<void> {
  const log = ctx.log.with({ reconciler: NAME });
  const recheckMs = tuning.recheckMs ?? 15_000;
  /** Pods deleted per ZoneAwareUpdate whose deletion the pod cache does not show yet (uid). */
  const inFlight = new Map<string, Set<string>>();
  /**
   * The status this process last wrote per ZoneAwareUpdate: the cache may not show it yet, and deciding on
   * an older status would regress the step.
   */
  const written = new Map<string, object>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (key: string) => {
    const t = setTimeout(() => { timers.delete(t); queue.add(key); }, recheckMs);
    timers.add(t);
  };
  /** ZoneAwareUpdates naming a StatefulSet, for pod and StatefulSet changes. */
  const byWorkload = (namespace: string | undefined, sts: string) => zaus.list()
    .filter((z) => z.metadata.namespace === namespace && z.spec?.statefulset === sts)
    .map((z) => keyOf(z));

  const zaus: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(ZONE_AWARE_UPDATES), resyncMs: tuning.resyncMs, log,
    onChange: (type, zau) => {
      if (type === 'deleted') {
        inFlight.delete(keyOf(zau));
        written.delete(keyOf(zau));
      } else {
        queue.add(keyOf(zau));
      }
    },
  });
  const statefulSets: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(STATEFULSETS), resyncMs: 0, log,
    onChange: (_type, sts) => byWorkload(sts.metadata.namespace, sts.metadata.name).forEach((k) => queue.add(k)),
  });
  const pods: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(PODS), resyncMs: 0, log,
    onChange: (_type, pod) => {
      const owner = pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'StatefulSet');
      if (owner) byWorkload(pod.metadata.namespace, owner.name).forEach((k) => queue.add(k));
    },
  });
  const nodes: Informer<KubeObject> = new Informer(ctx.kube, { path: resourcePath(NODES), resyncMs: 0, log, onChange: () => undefined });

  const queue = new WorkQueue(async (key) => {
    const cached = zaus.get(key);
    if (!cached) return;
    const zau = written.has(key) ? { ...cached, status: { ...cached.status, ...written.get(key) } } : cached;
    const namespace = zau.metadata.namespace!;
    const nsPods = pods.list().filter((p) => p.metadata.namespace === namespace);
    // Deleted pods the cache still shows alive: deciding now would delete the next batch too early.
    const pending = inFlight.get(key);
    if (pending) {
      const alive = nsPods.filter((p) => pending.has(p.metadata.uid ?? '') && !p.metadata.deletionTimestamp);
      if (alive.length > 0) return; // their watch events requeue this key
      inFlight.delete(key);
    }
    const url: string | undefined = zau.spec?.pauseCondition?.prometheusQueryUrl;
    const action: ZauAction = decideZoneAwareUpdate({
      zau,
      statefulSet: zau.spec?.statefulset ? statefulSets.get(`${namespace}/${zau.spec.statefulset}`) : undefined,
      pods: nsPods,
      nodeLabels: (node) => nodes.get(node)?.metadata.labels,
      topologyKeys: ctx.settings.topologyKeys,
      prometheusPause: url ? await prometheusPause(url, tuning.queryTimeoutMs ?? 5_000) : undefined,
    });
    ctx.metrics.reconciles.inc({ reconciler: NAME });

    if (action.kind === 'delete') {
      const uids = new Set<string>();
      for (const name of action.pods) {
        const pod = nsPods.find((p) => p.metadata.name === name);
        if (pod?.metadata.uid) uids.add(pod.metadata.uid);
      }
      inFlight.set(key, uids);
      // All at once: the batch is one step, not a sequence.
      await Promise.all(action.pods.map((name) => ctx.kube.delete(resourcePath(PODS, namespace, name)).catch((err) => {
        if (!isStatus(err, 404)) throw err;
      })));
      ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'delete-batch' });
      log.info('deleted a batch', { zoneAwareUpdate: key, zone: action.zone, pods: action.pods, step: action.status.step - 1 });
      await ctx.events.record(zau, 'Normal', 'DeletedBatch', `zone ${action.zone || '<unknown>'}: deleted ${action.pods.join(', ')} (${action.status.message})`);
    } else if (action.kind === 'dry-run') {
      ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'dry-run' });
      log.info('dry run: would delete a batch', { zoneAwareUpdate: key, zone: action.zone, pods: action.pods });
      await ctx.events.record(zau, 'Normal', 'DryRun', action.status.message);
      later(key);
    } else {
      const phase = action.status.phase;
      if (phase === 'Paused') later(key);
      if (phase === 'Paused' || phase === 'Error') {
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: phase.toLowerCase() });
        if (!sameStatus(zau.status, action.status)) {
          log.warn(phase === 'Paused' ? 'rollout paused' : 'cannot roll', { zoneAwareUpdate: key, message: action.status.message });
          await ctx.events.record(zau, 'Warning', phase === 'Paused' ? 'Paused' : 'InvalidTarget', action.status.message);
        }
      }
    }
    if (sameStatus(zau.status, action.status) && sameStatus(cached.status, action.status)) return;
    try {
      await ctx.kube.patch(resourcePath(ZONE_AWARE_UPDATES, namespace, zau.metadata.name, 'status'), { status: action.status }, 'merge');
      written.set(key, action.status);
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
  }, {
    concurrency: 4,
    onError: (key, err, failures) => {
      ctx.metrics.reconcileErrors.inc({ reconciler: NAME });
      log.warn('reconcile failed, retrying', { zoneAwareUpdate: key, error: err, failures });
    },
  });

  // Decide only once every cache is full: a half-listed pod cache would look like missing pods.
  const runs = [nodes, statefulSets, pods].map((i) => i.run(signal));
  await Promise.race([Promise.all([nodes.synced, statefulSets.synced, pods.synced]), Promise.all(runs)]);
  const zausRun = zaus.run(signal);
  log.info('started', { topologyKeys: ctx.settings.topologyKeys });
  await Promise.all([...runs, zausRun]);
  for (const t of timers) clearTimeout(t);
  queue.stop();
  await queue.idle();
}
