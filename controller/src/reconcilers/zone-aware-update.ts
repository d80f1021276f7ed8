/**
 * The zone-aware-update reconciler: for every ZoneAwareUpdate, watches its workload, the pods and the
 * nodes; each reconcile decides (pure: zone-aware-update-decision.ts, and through it the library's
 * planner), then acts (deletes the batch, or creates and scales ReplicaSets), tells (metric, log, Event)
 * and writes the status (per-zone old replicas, step, phase) through the status subresource. The step is
 * persisted in the status, so a restarted controller (or the other replica taking the Lease) resumes the
 * ramp where it was.
 */
import { patchStatus, statusHolds } from './status';
import {
  decideZoneAwareUpdate, Predecessor, REVISION_LABEL, updateRevisionOf, ZauAction, ZauInput,
} from './zone-aware-update-decision';
import { CachedObjects, Expectation, expectationMet, expectationOf } from './zone-aware-update-expectation';
import { ZoneAwareUpdateGauges } from './zone-aware-update-metrics';
import { reportOf, ZauReport } from './zone-aware-update-report';
import { ZONE_AWARE_UPDATE, ZONE_AWARE_UPDATE_RULES } from '../../../src/contract/reconcilers';
import { ROLLOUT_API_VERSION, ZONE_AWARE_UPDATE_KIND } from '../../../src/contract/rollout';
import { ZoneAwareUpdateSpec, ZoneAwareUpdateStatus } from '../../../src/contract/rollout-resources';
import { outOfServiceZones } from '../../../src/contract/zone-shift';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import { defineReconciler } from '../define-reconciler';
import { controllerOf, isStatus, KubeApi, KubeObject, keyOf, Resource, resourcePath } from '../kube/api';
import { byController, delay } from '../kube/informer';
import { slimNode, slimPod, withoutManagedFields } from '../kube/transforms';
import { ReconcileResult } from '../reconcile-loop';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { BATCH_DELETION_COST, DELETION_COST_ANNOTATION, TEMPLATE_HASH_LABEL } from './zone-aware-update-deployment';
import { DEPLOYMENTS, NODES, PODS, REPLICASETS, STATEFULSETS, ZONE_AWARE_UPDATES } from '../resources';
import { Caches, Change, shiftsWatch, Watches } from '../watches';

const NAME = ZONE_AWARE_UPDATE;

export interface ZoneAwareUpdateTuning {
  /** @default 300_000 */
  readonly resyncMs?: number;
  /** How often a paused or dry-run rollout is looked at again (Prometheus is polled this often). @default 15_000 */
  readonly recheckMs?: number;
  /** Timeout of one Prometheus query. @default 5_000 */
  readonly queryTimeoutMs?: number;
  /**
   * How often a rollout waiting on pods that fail its `readyCheck` looks again: soon, since the next wave waits on it.
   * @default 500
   */
  readonly readyCheckIntervalMs?: number;
  /** Timeout of one `readyCheck` request. @default 2_000 */
  readonly readyCheckTimeoutMs?: number;
}

export function zoneAwareUpdater(tuning: ZoneAwareUpdateTuning = {}): Reconciler {
  return defineReconciler({
    name: NAME,
    summary: 'roll OnDelete StatefulSets and paused Deployments zone by zone in growing batches (ZoneAwareUpdate)',
    rbac: ZONE_AWARE_UPDATE_RULES,
    settings: (run) => ({ tuning, topologyKeys: run.topologyKeys, zoneShifts: run.zoneShifts ?? false }),
    declare: (ctx, settings, caches: Caches<ZauWatch>) => {
      const updates = new ZoneAwareUpdates(ctx, caches, settings.tuning, ctx.log.with({ reconciler: NAME }));
      return {
        watches: zoneAwareUpdateWatches(settings.tuning.resyncMs, settings.zoneShifts),
        loop: { concurrency: 4 },
        reconcile: (key) => updates.reconcile(key),
        startedFields: { topologyKeys: settings.topologyKeys },
      };
    },
  });
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

/**
 * What the reconciler reads of a pod: the revision labels, owners, node, IP, deletion, readiness, and the deletion
 * cost it marks a Deployment's batch with.
 */
const rolloutPod = (pod: KubeObject) => slimPod(pod, {
  labels: [REVISION_LABEL, TEMPLATE_HASH_LABEL],
  annotations: [DELETION_COST_ANNOTATION],
  conditions: ['Ready'],
  podIP: true,
  phase: true,
});

/**
 * The pods that fail a ZoneAwareUpdate's `readyCheck` (`GET http://<pod IP>:<port><path>` not 2xx within the
 * timeout), and why. Only live pods whose Ready condition holds are asked: the others count as not Ready anyway.
 */
export async function readyCheckFailures(
  check: { path: string; port: number }, pods: readonly KubeObject[], timeoutMs: number,
): Promise<Map<string, string>> {
  const asked = pods.filter((p) => !isTerminating(p) && isReady(p));
  const answers = await Promise.all(asked.map(async (pod): Promise<[string, string | undefined]> => {
    const ip: string | undefined = pod.status?.podIP;
    if (!ip) return [pod.metadata.name, 'no pod IP'];
    const url = `http://${ip.includes(':') ? `[${ip}]` : ip}:${check.port}${check.path}`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      await res.body?.cancel();
      return [pod.metadata.name, res.status >= 200 && res.status < 300 ? undefined : `GET ${url}: HTTP ${res.status}`];
    } catch (err) {
      return [pod.metadata.name, `GET ${url}: ${err instanceof Error ? err.message : String(err)}`];
    }
  }));
  return new Map(answers.filter((a): a is [string, string] => a[1] !== undefined));
}

/** The index key of a workload a ZoneAwareUpdate names. */
const workloadKey = (namespace: string | undefined, kind: 'StatefulSet' | 'Deployment', name: string) => `${namespace}/${kind}/${name}`;

/** The ZoneAwareUpdate (namespace/name) `zau` starts after, as an index key. */
function startsAfter(zau: KubeObject): string[] {
  const name = zau.spec?.startAfter?.zoneAwareUpdate;
  return typeof name === 'string' ? [`${zau.metadata.namespace}/${name}`] : [];
}

/** The workloads a ZoneAwareUpdate names (its index keys). */
function workloadsOf(zau: KubeObject): string[] {
  const { namespace } = zau.metadata;
  const spec: Partial<ZoneAwareUpdateSpec> = zau.spec ?? {};
  return [
    ...(spec.statefulset ? [workloadKey(namespace, 'StatefulSet', spec.statefulset)] : []),
    ...(spec.statefulsets ?? []).map((n) => workloadKey(namespace, 'StatefulSet', n)),
    ...(spec.deployment ? [workloadKey(namespace, 'Deployment', spec.deployment)] : []),
  ];
}

/**
 * After marking a batch: how long the marks must have been in this process's cache before the ReplicaSets are
 * scaled. The ReplicaSet controller ranks pods by the deletion cost its own cache shows; one that scales down before
 * it has seen the marks removes other pods (found on the Kubernetes tier: it took a pod of the batch's zone that
 * was not in the batch, and the next batch took the marked one again).
 */
export const MARKS_SETTLE_MS = 250;
const MARKS_SEEN_TIMEOUT_MS = 10_000;
const MARKS_POLL_MS = 20;

/** Resolves once `marked(pod)` holds for every pod of `pods` in the cache, and `MARKS_SETTLE_MS` more. */
export async function untilMarksSeen(
  pods: readonly string[], marked: (pod: string) => boolean, sleep = delay,
): Promise<void> {
  for (let waited = 0; !pods.every(marked); waited += MARKS_POLL_MS) {
    if (waited >= MARKS_SEEN_TIMEOUT_MS) {
      throw new Error(`the pods' deletion-cost marks did not reach the cache within ${MARKS_SEEN_TIMEOUT_MS} ms: ${pods.join(', ')}`);
    }
    await sleep(MARKS_POLL_MS);
  }
  await sleep(MARKS_SETTLE_MS);
}

/**
 * Carries out an action's writes (the status aside): deletes, a ReplicaSet, scalings (a Deployment's batch marked
 * first, and scaled once `marksSeen` says the marks are visible).
 */
async function act(
  kube: KubeApi, namespace: string, action: ZauAction, marksSeen: (pods: readonly string[]) => Promise<void>,
): Promise<void> {
  if (action.kind === 'delete') {
    // All at once: the batch is one step, not a sequence.
    await Promise.all(action.pods.map((name) => kube.delete(resourcePath(PODS, namespace, name)).catch((err) => {
      if (!isStatus(err, 404)) throw err;
    })));
  } else if (action.kind === 'create-replicaset') {
    await kube.create(resourcePath(REPLICASETS, namespace), action.replicaSet).catch((err) => {
      if (!isStatus(err, 409)) throw err;
    });
  } else if (action.kind === 'scale') {
    const { up, down } = action.scaling;
    // The ReplicaSet controller removes the pods with the lowest deletion cost first: the batch.
    await Promise.all(action.pods.map((name) => kube.patch(resourcePath(PODS, namespace, name),
      { metadata: { annotations: { [DELETION_COST_ANNOTATION]: BATCH_DELETION_COST } } }, 'merge')));
    await marksSeen(action.pods);
    for (const t of [...(up ? [up] : []), ...down]) {
      await kube.patch(resourcePath(REPLICASETS, namespace, t.name), { spec: { replicas: t.replicas } }, 'merge');
    }
  }
}

/** The watches of the reconciler, by name. */
type ZauWatch = 'updates' | 'statefulSets' | 'deployments' | 'replicaSets' | 'pods' | 'nodes' | 'shifts';

/**
 * The ZoneAwareUpdates that name a workload (its index key), and those that start after one of them: whether
 * they may start depends on that workload too (its ReplicaSets settled on the finished revision), and no
 * status change of their predecessor need tell them.
 */
function updatesNaming(c: Caches<ZauWatch>, workload: string): string[] {
  const naming = c.byIndex('updates', 'workload', workload).map(keyOf);
  return [...naming, ...naming.flatMap((key) => c.byIndex('updates', 'after', key).map(keyOf))];
}

/** The ZoneAwareUpdates a ReplicaSet concerns: those naming its Deployment. */
function updatesOfReplicaSet(c: Caches<ZauWatch>, rs: KubeObject): string[] {
  const owner = controllerOf(rs);
  return owner?.kind === 'Deployment' ? updatesNaming(c, workloadKey(rs.metadata.namespace, 'Deployment', owner.name)) : [];
}

/**
 * What the reconciler watches, and which ZoneAwareUpdates a change concerns: its own changes; its workloads'; a
 * pod's through its StatefulSet, or its ReplicaSet's Deployment; a ReplicaSet's through its Deployment. Nodes
 * are only read (a pod's zone).
 */
export function zoneAwareUpdateWatches(resyncMs?: number, zoneShifts = true): Watches<ZauWatch> {
  const workload = (resource: Resource, kind: 'StatefulSet' | 'Deployment') => ({
    resource,
    transform: withoutManagedFields,
    keys: ({ obj }: Change, c: Caches<ZauWatch>) =>
      updatesNaming(c, workloadKey(obj.metadata.namespace, kind, obj.metadata.name)),
  });
  return {
    updates: {
      resource: ZONE_AWARE_UPDATES,
      transform: withoutManagedFields,
      indexes: { workload: workloadsOf, after: startsAfter },
      resyncMs,
      primary: true,
      // a ZoneAwareUpdate, and those that start after it (its status tells them when)
      keys: ({ obj }, c) => [keyOf(obj), ...c.byIndex('updates', 'after', keyOf(obj)).map(keyOf)],
    },
    statefulSets: workload(STATEFULSETS, 'StatefulSet'),
    deployments: workload(DEPLOYMENTS, 'Deployment'),
    replicaSets: {
      resource: REPLICASETS,
      transform: withoutManagedFields,
      indexes: { controller: byController },
      keys: ({ obj }, c) => updatesOfReplicaSet(c, obj),
    },
    pods: {
      resource: PODS,
      transform: rolloutPod,
      indexes: { controller: byController },
      keys: ({ obj: pod }, c) => {
        const { namespace } = pod.metadata;
        const owner = controllerOf(pod);
        if (owner?.kind === 'StatefulSet') return updatesNaming(c, workloadKey(namespace, 'StatefulSet', owner.name));
        const rs = owner?.kind === 'ReplicaSet' ? c.get('replicaSets', `${namespace}/${owner.name}`) : undefined;
        return rs ? updatesOfReplicaSet(c, rs) : [];
      },
    },
    nodes: { resource: NODES, transform: slimNode },
    // a zonal shift starting or ending: a rollout may wait for it, or go on
    ...(zoneShifts ? { shifts: shiftsWatch<ZauWatch>((_, c) => c.list('updates').map(keyOf)) } : {}),
  };
}

/** Reconciles one ZoneAwareUpdate at a time over the caches: decide, act, tell, write the status. */
class ZoneAwareUpdates {
  /** Per ZoneAwareUpdate, what the caches must show of the last action before the next decision. */
  private readonly expected = new Map<string, Expectation>();
  /**
   * The status this process last wrote per ZoneAwareUpdate: the cache may not show it yet, and deciding on
   * an older status would regress the step.
   */
  private readonly written = new Map<string, ZoneAwareUpdateStatus>();
  private readonly gauges: ZoneAwareUpdateGauges;
  private readonly cached: CachedObjects = {
    pod: (key) => this.caches.get('pods', key),
    replicaSet: (key) => this.caches.get('replicaSets', key),
    podsOf: (uid) => this.caches.byIndex('pods', 'controller', uid),
  };

  constructor(
    private readonly ctx: ReconcilerContext,
    private readonly caches: Caches<ZauWatch>,
    private readonly tuning: ZoneAwareUpdateTuning,
    private readonly log: ReconcilerContext['log'],
  ) {
    this.gauges = new ZoneAwareUpdateGauges(ctx.metrics);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const stored = this.caches.get('updates', key);
    if (!stored) {
      this.expected.delete(key);
      this.written.delete(key);
      this.gauges.forget(key);
      return {};
    }
    // The caches do not show the last action yet: deciding now would act twice. Their events requeue the key.
    const expectation = this.expected.get(key);
    if (expectation && !expectationMet(expectation, this.cached)) return {};
    this.expected.delete(key);
    const zau = this.current(key, stored);
    const input = await this.inputOf(zau);
    const action = decideZoneAwareUpdate(input);
    const next = expectationOf(action, input);
    if (next) this.expected.set(key, next);
    const namespace = zau.metadata.namespace!;
    const marked = (pod: string) =>
      this.caches.get('pods', `${namespace}/${pod}`)?.metadata.annotations?.[DELETION_COST_ANNOTATION] === BATCH_DELETION_COST;
    await act(this.ctx.kube, namespace, action, (pods) => untilMarksSeen(pods, marked));
    const report = reportOf(action, zau.status);
    await this.tell(key, zau, report);
    const changed = !statusHolds(zau.status, action.status) || !statusHolds(stored.status, action.status);
    const patched = changed && await patchStatus(this.ctx.kube, ZONE_AWARE_UPDATES, zau, action.status);
    if (patched) this.written.set(key, action.status);
    this.gauges.show(namespace, zau.metadata.name, action.status, Date.now());
    if (report.recheck) return { requeueAfter: this.tuning.recheckMs ?? 15_000 };
    // No watch tells when a pod starts passing the ready check: look again soon.
    if (action.kind === 'status' && action.status.phase === 'Waiting' && input.readyCheckFailures?.size) {
      return { requeueAfter: this.tuning.readyCheckIntervalMs ?? 500 };
    }
    // Nor when the delay after the rollout this one starts after has passed.
    if (action.status.startsAt !== undefined) {
      return { requeueAfter: Math.max(0, Date.parse(action.status.startsAt) - Date.now()) };
    }
    return {};
  }

  /**
   * The ZoneAwareUpdate `zau` as this process knows it: the cache's, with the status it last wrote (the cache may
   * lag).
   */
  private current(key: string, stored: KubeObject): KubeObject {
    return this.written.has(key) ? { ...stored, status: { ...stored.status, ...this.written.get(key) } } : stored;
  }

  /**
   * The ZoneAwareUpdate `zau`'s spec.startAfter names, as the cache holds it, with its workload's update revision now.
   * Not `current()`: its status's every change in the cache queues `zau` (the watch of the updates), so `zau` decides
   * on the newest; the status this process wrote last may be older than the cache's, while the next write is under
   * way (its watch event can come before its answer), and a decision on it waited for an event that had come.
   */
  private async predecessorOf(zau: KubeObject): Promise<Predecessor | undefined> {
    const name = zau.spec?.startAfter?.zoneAwareUpdate;
    const stored = typeof name === 'string' ? this.caches.get('updates', `${zau.metadata.namespace}/${name}`) : undefined;
    if (!stored) return undefined;
    return { zau: stored, updateRevision: updateRevisionOf(await this.inputOf(stored, false)) };
  }

  /**
   * What the decision reads of one ZoneAwareUpdate's world, from the caches' indexes; `probe`: its ready check and
   * pause query too.
   */
  private async inputOf(zau: KubeObject, probe = true): Promise<ZauInput> {
    const c = this.caches;
    const namespace = zau.metadata.namespace!;
    const spec: Partial<ZoneAwareUpdateSpec> = zau.spec ?? {};
    const statefulSet = spec.statefulset ? c.get('statefulSets', `${namespace}/${spec.statefulset}`) : undefined;
    const group = spec.statefulsets
      ?.map((n) => c.get('statefulSets', `${namespace}/${n}`))
      .filter((s): s is KubeObject => s !== undefined);
    const deployment = spec.deployment ? c.get('deployments', `${namespace}/${spec.deployment}`) : undefined;
    const owned = deployment?.metadata.uid ? c.byIndex('replicaSets', 'controller', deployment.metadata.uid) : [];
    const owners = group ?? (statefulSet ? [statefulSet] : owned);
    const workloadPods = owners.flatMap((o) => (o.metadata.uid ? c.byIndex('pods', 'controller', o.metadata.uid) : []));
    const url = spec.pauseCondition?.prometheusQueryUrl;
    const check = spec.readyCheck;
    return {
      zau,
      statefulSet,
      statefulSets: group,
      deployment,
      replicaSets: spec.deployment ? owned : undefined,
      pods: workloadPods,
      nodeLabels: (node) => c.get('nodes', node)?.metadata.labels,
      topologyKeys: this.ctx.settings.topologyKeys,
      prometheusPause: url && probe ? await prometheusPause(url, this.tuning.queryTimeoutMs ?? 5_000) : undefined,
      readyCheckFailures: check && probe
        ? await readyCheckFailures(check, workloadPods, this.tuning.readyCheckTimeoutMs ?? 2_000)
        : undefined,
      predecessor: probe && spec.startAfter ? await this.predecessorOf(zau) : undefined,
      nowMs: Date.now(),
      outOfServiceZones: this.ctx.settings.zoneShifts ? [...outOfServiceZones(c.list('shifts'), namespace, Date.now())] : [],
    };
  }

  private async tell(key: string, zau: KubeObject, report: ZauReport): Promise<void> {
    if (report.decision) this.ctx.metrics.decisions.inc({ reconciler: NAME, decision: report.decision });
    if (report.log) this.log[report.log.level](report.log.msg, { zoneAwareUpdate: key, ...report.log.fields });
    if (report.event) {
      const subject = { ...zau, apiVersion: ROLLOUT_API_VERSION, kind: ZONE_AWARE_UPDATE_KIND };
      await this.ctx.events.record(subject, report.event.type, report.event.reason, report.event.message);
    }
  }
}
