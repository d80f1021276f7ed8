/**
 * What the `redis` reconciler writes back after a pass: the health counters (their Events and metrics), the
 * status ConfigMap `<cluster>-status` (key `state.json`), and the acknowledgement of a manual operation (its
 * annotations removed, an Event, `lastOperation` in the status).
 */
import { REDIS_MANAGER } from '../../../src/contract/reconcilers';
import { REDIS_CLUSTER_LABEL, STATUS_KEY, layoutConfigMapName, statusConfigMapName } from '../../../src/contract/redis';
import { isStatus, KubeObject, resourcePath } from '../kube/api';
import { EventSubject } from '../kube/events';
import { ReconcilerContext } from '../reconciler';
import { WorkloadReport } from './redis-workloads';
import type { ClusterState } from '../redis/decide';
import { healthEvents, nextHealth, phaseOf, RedisHealth, RedisPhase } from '../redis/health';
import { clearRequestPatch, OperationRequest } from '../redis/operations';
import { CONFIGMAPS } from '../resources';

/** A manual operation in the status ConfigMap. */
export interface OperationReport {
  readonly operation: string;
  readonly result: 'done' | 'refused';
  /** Why it was refused, or whether the cluster ended healthy. */
  readonly message: string;
  readonly at: string;
}

/** What a cluster's status remembers from pass to pass. */
export interface Reported {
  /** The layout ConfigMap: the object the cluster's Events are about. */
  readonly subject: EventSubject;
  readonly skipped: string[];
  /** The status last written, without its time. */
  lastStatus?: string;
  writtenAt: number;
  /** The health over the passes so far (carried over from the status ConfigMap when the controller starts). */
  health?: RedisHealth;
  /** The last manual operation asked by annotation, and how it went. */
  lastOperation?: OperationReport;
  /** What the last full pass did to the StatefulSets and pods. */
  workloads?: WorkloadReport;
}

/**
 * The health counters (their Events and metrics) and the status ConfigMap, after a pass. A quick pass writes the
 * status only when it changed, or when the last write is `intervalMs` old.
 */
export async function report(
  ctx: ReconcilerContext, key: string, w: Reported, state: ClusterState, full: boolean, intervalMs: number,
): Promise<void> {
  const [namespace, cluster] = key.split('/');
  // A pass counts towards the health counters when it is a full one, or when the phase changed since the last.
  const activity = { upgrading: w.workloads?.upgrading, scaling: w.workloads?.scaling };
  if (full || phaseOf(state, w.health?.phase, activity) !== w.health?.phase) {
    const health = nextHealth(w.health, state, new Date(), activity);
    for (const e of healthEvents(w.health, health, state)) {
      await ctx.events.record(w.subject, e.type, e.reason, e.message);
    }
    w.health = health;
    recordHealthMetrics(ctx, key, health);
  }
  const { upgrade, statefulSets, scaleWaiting } = w.workloads ?? {};
  const { health, lastOperation, skipped: skippedPods } = w;
  const reported = { ...state, health, lastOperation, skippedPods, upgrade, statefulSets, scaleWaiting };
  const status = JSON.stringify(reported);
  if (full || status !== w.lastStatus || Date.now() - w.writtenAt >= intervalMs) {
    await writeStatus(ctx, namespace, cluster, { ...reported, updated: new Date().toISOString() });
    w.lastStatus = status;
    w.writtenAt = Date.now();
  }
}

/** Removes the request's annotations and reports it: in the status (`lastOperation`), in the log and as an Event. */
export async function acknowledge(
  ctx: ReconcilerContext, namespace: string, cluster: string, w: Reported, request: OperationRequest,
  state: ClusterState,
): Promise<void> {
  await ctx.kube.patch(resourcePath(CONFIGMAPS, namespace, layoutConfigMapName(cluster)), clearRequestPatch());
  const at = new Date().toISOString();
  const healthy = state.healthy ? 'the cluster ended healthy' : 'the cluster is not healthy yet (see issues)';
  const done: OperationReport = 'operation' in request
    ? { operation: request.operation, result: 'done', message: healthy, at }
    : { operation: request.asked, result: 'refused', message: request.refused, at };
  w.lastOperation = done;
  ctx.log.with({ reconciler: REDIS_MANAGER, cluster }).info('redis operation', { ...done });
  await ctx.events.record(w.subject, done.result === 'done' ? 'Normal' : 'Warning',
    done.result === 'done' ? 'RedisOperation' : 'RedisOperationRefused', `${done.operation}: ${done.message}`);
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

/** A cluster gone: its gauges go too. */
export function forgetHealthMetrics(ctx: ReconcilerContext, key: string): void {
  const [namespace, cluster] = key.split('/');
  for (const phase of PHASES) ctx.metrics.redisPhase.remove({ namespace, cluster, phase });
  for (const result of ['healthy', 'unhealthy']) ctx.metrics.redisPasses.remove({ namespace, cluster, result });
  ctx.metrics.redisFinalized.remove({ namespace, cluster });
}

/**
 * What a status ConfigMap recorded that outlives the controller process: the health counters and the last
 * manual operation (each undefined when absent or malformed).
 */
export function recordedStatus(
  statusMap: KubeObject | undefined,
): { health?: RedisHealth; lastOperation?: OperationReport } {
  let recorded: any;
  try {
    recorded = JSON.parse(statusMap?.data?.[STATUS_KEY] ?? 'null');
  } catch {
    return {};
  }
  const { health, lastOperation: op } = recorded ?? {};
  const counts = ['healthyPasses', 'unhealthyPasses'].every((k) => Number.isInteger(health?.[k]) && health[k] >= 0);
  const operation = typeof op?.operation === 'string' && (op.result === 'done' || op.result === 'refused');
  return {
    health: counts && PHASES.includes(health.phase) && typeof health.finalized === 'boolean' ? health : undefined,
    lastOperation: operation ? op : undefined,
  };
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
