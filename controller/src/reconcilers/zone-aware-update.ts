/**
 * The zone-aware-update reconciler: for every ZoneAwareUpdate, watches its StatefulSet, the pods and the
 * nodes, asks the decision (and through it the library's planner) what to do, deletes the batch it names,
 * and writes the status (per-zone old replicas, step, phase) through the status subresource. The step is
 * persisted in the status, so a restarted controller (or the other replica taking the Lease) resumes the
 * ramp where it was.
 */
import { ZONE_AWARE_UPDATE, ZONE_AWARE_UPDATE_RULES } from '../../../src/contract/reconcilers';
import { ROLLOUT_API_VERSION, ZONE_AWARE_UPDATE_KIND, ZONE_AWARE_UPDATE_PLURAL } from '../../../src/contract/rollout';
import { isStatus, KubeObject, keyOf, NODES, PODS, Resource, resourcePath } from '../kube/api';
import { Informer } from '../kube/informer';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { WorkQueue } from '../work-queue';
import { decideZoneAwareUpdate, ZauAction } from './zone-aware-update-decision';
import { BATCH_DELETION_COST, DELETION_COST_ANNOTATION } from './zone-aware-update-deployment';

const NAME = ZONE_AWARE_UPDATE;
export const ZONE_AWARE_UPDATES: Resource = { apiVersion: ROLLOUT_API_VERSION, plural: ZONE_AWARE_UPDATE_PLURAL, namespaced: true };
export const STATEFULSETS: Resource = { apiVersion: 'apps/v1', plural: 'statefulsets', namespaced: true };
export const DEPLOYMENTS: Resource = { apiVersion: 'apps/v1', plural: 'deployments', namespaced: true };
export const REPLICASETS: Resource = { apiVersion: 'apps/v1', plural: 'replicasets', namespaced: true };

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
    summary: 'roll OnDelete StatefulSets and paused Deployments zone by zone in growing batches (ZoneAwareUpdate)',
    rbac: ZONE_AWARE_UPDATE_RULES,
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
  /**
   * Per ZoneAwareUpdate, a test that is true while the caches do not show the last action yet (deleted
   * pods still alive, ReplicaSets not at their new scale): deciding then would repeat the batch.
   */
  const inFlight = new Map<string, () => boolean>();
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
  /** ZoneAwareUpdates naming a workload, for pod and workload changes. */
  const byWorkload = (namespace: string | undefined, field: 'statefulset' | 'deployment', name: string) => zaus.list()
    .filter((z) => z.metadata.namespace === namespace && z.spec?.[field] === name)
    .map((z) => keyOf(z));
  const ownerOf = (obj: KubeObject) => obj.metadata.ownerReferences?.find((o) => o.controller);
  /** The ZoneAwareUpdates a pod's change matters to: through its StatefulSet, or its ReplicaSet's Deployment. */
  const forPod = (pod: KubeObject): string[] => {
    const owner = ownerOf(pod);
    if (owner?.kind === 'StatefulSet') return byWorkload(pod.metadata.namespace, 'statefulset', owner.name);
    if (owner?.kind !== 'ReplicaSet') return [];
    const rsOwner = ownerOf(replicaSets.get(`${pod.metadata.namespace}/${owner.name}`) ?? { metadata: { name: '' } });
    return rsOwner?.kind === 'Deployment' ? byWorkload(pod.metadata.namespace, 'deployment', rsOwner.name) : [];
  };

  const zaus: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(ZONE_AWARE_UPDATES),
    resyncMs: tuning.resyncMs,
    log,
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
    path: resourcePath(STATEFULSETS),
    resyncMs: 0,
    log,
    onChange: (_type, sts) => byWorkload(sts.metadata.namespace, 'statefulset', sts.metadata.name).forEach((k) => queue.add(k)),
  });
  const deployments: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(DEPLOYMENTS),
    resyncMs: 0,
    log,
    onChange: (_type, dep) => byWorkload(dep.metadata.namespace, 'deployment', dep.metadata.name).forEach((k) => queue.add(k)),
  });
  const replicaSets: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(REPLICASETS),
    resyncMs: 0,
    log,
    onChange: (_type, rs) => {
      const owner = ownerOf(rs);
      if (owner?.kind === 'Deployment') byWorkload(rs.metadata.namespace, 'deployment', owner.name).forEach((k) => queue.add(k));
    },
  });
  const pods: Informer<KubeObject> = new Informer(ctx.kube, {
    path: resourcePath(PODS),
    resyncMs: 0,
    log,
    onChange: (_type, pod) => forPod(pod).forEach((k) => queue.add(k)),
  });
  const nodes: Informer<KubeObject> = new Informer(ctx.kube, { path: resourcePath(NODES), resyncMs: 0, log, onChange: () => undefined });

  const queue = new WorkQueue(async (key) => {
    const cached = zaus.get(key);
    if (!cached) return;
    const zau = written.has(key) ? { ...cached, status: { ...cached.status, ...written.get(key) } } : cached;
    const namespace = zau.metadata.namespace!;
    const nsPods = pods.list().filter((p) => p.metadata.namespace === namespace);
    // The caches do not show the last action yet: deciding now would act twice. Their events requeue the key.
    if (inFlight.get(key)?.()) return;
    inFlight.delete(key);
    const subject = { ...zau, apiVersion: ROLLOUT_API_VERSION, kind: ZONE_AWARE_UPDATE_KIND };
    const url: string | undefined = zau.spec?.pauseCondition?.prometheusQueryUrl;
    const action: ZauAction = decideZoneAwareUpdate({
      zau,
      statefulSet: zau.spec?.statefulset ? statefulSets.get(`${namespace}/${zau.spec.statefulset}`) : undefined,
      deployment: zau.spec?.deployment ? deployments.get(`${namespace}/${zau.spec.deployment}`) : undefined,
      replicaSets: zau.spec?.deployment ? replicaSets.list().filter((rs) => rs.metadata.namespace === namespace) : undefined,
      pods: nsPods,
      nodeLabels: (node) => nodes.get(node)?.metadata.labels,
      topologyKeys: ctx.settings.topologyKeys,
      prometheusPause: url ? await prometheusPause(url, tuning.queryTimeoutMs ?? 5_000) : undefined,
    });
    ctx.metrics.reconciles.inc({ reconciler: NAME });

    if (action.kind === 'delete') {
      const uids = new Set(nsPods.filter((p) => action.pods.includes(p.metadata.name)).map((p) => p.metadata.uid));
      inFlight.set(key, () => pods.list().some((p) => uids.has(p.metadata.uid) && !p.metadata.deletionTimestamp));
      // All at once: the batch is one step, not a sequence.
      await Promise.all(action.pods.map((name) => ctx.kube.delete(resourcePath(PODS, namespace, name)).catch((err) => {
        if (!isStatus(err, 404)) throw err;
      })));
      ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'delete-batch' });
      log.info('deleted a batch', { zoneAwareUpdate: key, zone: action.zone, pods: action.pods, step: action.status.step - 1 });
      await ctx.events.record(subject, 'Normal', 'DeletedBatch', `zone ${action.zone || '<unknown>'}: deleted ${action.pods.join(', ')} (${action.status.message})`);
    } else if (action.kind === 'create-replicaset') {
      const rs = action.replicaSet;
      inFlight.set(key, () => !replicaSets.get(`${namespace}/${rs.metadata.name}`));
      try {
        await ctx.kube.create(resourcePath(REPLICASETS, namespace), rs);
      } catch (err) {
        if (!isStatus(err, 409)) throw err;
      }
      log.info('created the new ReplicaSet', { zoneAwareUpdate: key, replicaSet: rs.metadata.name });
      await ctx.events.record(subject, 'Normal', 'CreatedReplicaSet', action.status.message);
    } else if (action.kind === 'scale') {
      const { up, down } = action.scaling;
      const targets = [...(up ? [up] : []), ...down];
      inFlight.set(key, () => targets.some((t) => replicaSets.get(`${namespace}/${t.name}`)?.spec?.replicas !== t.replicas));
      // The ReplicaSet controller removes the pods with the lowest deletion cost first: the batch.
      await Promise.all(action.pods.map((name) => ctx.kube.patch(resourcePath(PODS, namespace, name),
        { metadata: { annotations: { [DELETION_COST_ANNOTATION]: BATCH_DELETION_COST } } }, 'merge')));
      for (const t of targets) {
        await ctx.kube.patch(resourcePath(REPLICASETS, namespace, t.name), { spec: { replicas: t.replicas } }, 'merge');
      }
      if (action.pods.length === 0) {
        log.info('resized the ReplicaSets', { zoneAwareUpdate: key, scaling: action.scaling });
      } else {
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'scale-batch' });
        log.info('deleted a batch', { zoneAwareUpdate: key, zone: action.zone, pods: action.pods, step: action.status.step - 1, scaling: action.scaling });
        await ctx.events.record(subject, 'Normal', 'ReplacedBatch', `zone ${action.zone || '<unknown>'}: replacing ${action.pods.join(', ')} (${action.status.message})`);
      }
    } else if (action.kind === 'dry-run') {
      ctx.metrics.decisions.inc({ reconciler: NAME, decision: 'dry-run' });
      log.info('dry run: would delete a batch', { zoneAwareUpdate: key, zone: action.zone, pods: action.pods });
      await ctx.events.record(subject, 'Normal', 'DryRun', action.status.message);
      later(key);
    } else {
      const phase = action.status.phase;
      if (phase === 'Paused') later(key);
      if (phase === 'Paused' || phase === 'Error') {
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: phase.toLowerCase() });
        if (!sameStatus(zau.status, action.status)) {
          log.warn(phase === 'Paused' ? 'rollout paused' : 'cannot roll', { zoneAwareUpdate: key, message: action.status.message });
          await ctx.events.record(subject, 'Warning', phase === 'Paused' ? 'Paused' : 'InvalidTarget', action.status.message);
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
  const caches = [nodes, statefulSets, deployments, replicaSets, pods];
  const runs = caches.map((i) => i.run(signal));
  await Promise.race([Promise.all(caches.map((i) => i.synced)), Promise.all(runs)]);
  const zausRun = zaus.run(signal);
  log.info('started', { topologyKeys: ctx.settings.topologyKeys });
  await Promise.all([...runs, zausRun]);
  for (const t of timers) clearTimeout(t);
  queue.stop();
  await queue.idle();
}
