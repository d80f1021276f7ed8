/**
 * What the zone-aware-update reconciler does with one ZoneAwareUpdate, given what the caches hold (the
 * custom resource, its StatefulSet, the StatefulSet's pods, the nodes): a pure function around the
 * library's planner (src/rollout/update-plan.ts), unit-tested without a cluster. Also pure, beside it: what the
 * caches must show of an action before the next decision (zone-aware-update-expectation.ts) and what an action
 * reports (zone-aware-update-report.ts). The workload it rolls, as the planner reads it: zone-aware-update-workload.ts.
 * zone-aware-update.ts does the I/O.
 */
import { ZauAction, ZauInput } from './zone-aware-update-action';
import { scalingFor } from './zone-aware-update-deployment';
import { StatusBase, Workload, workloadOf } from './zone-aware-update-workload';
import { StartAfterSpec, ZoneAwareUpdatePhase, ZoneAwareUpdateSpec, ZoneAwareUpdateStatus } from '../../../src/contract/rollout-resources';
import { scaleMaxUnavailable } from '../../../src/rollout/max-unavailable';
import { oldReplicasByZone, planUpdate, RolloutState, UpdateDecision } from '../../../src/rollout/update-plan';
import { KubeObject } from '../kube/api';

export type { Predecessor, ZauAction, ZauInput } from './zone-aware-update-action';
export { REVISION_LABEL, rolloutPods } from './zone-aware-update-workload';

/** The persisted step of a ZoneAwareUpdate (its status), for a restarted controller to resume. */
export function persistedState(zau: KubeObject): RolloutState | undefined {
  const s = zau.status;
  if (!s || typeof s.updateRevision !== 'string' || typeof s.step !== 'number') return undefined;
  return { revision: s.updateRevision, step: s.step };
}

/** `key` (present) or `key=value` against a label or annotation map. */
export function keyValueHolds(condition: string, map: Record<string, string> | undefined): boolean {
  const eq = condition.indexOf('=');
  const key = eq < 0 ? condition : condition.slice(0, eq);
  if (map === undefined || !(key in map)) return false;
  return eq < 0 || map[key] === condition.slice(eq + 1);
}

/** The fields every status of a decision about `zau` starts from. */
function statusBase(zau: KubeObject, previous: ReturnType<typeof persistedState>): StatusBase['base'] {
  return {
    observedGeneration: zau.metadata.generation,
    step: previous?.step ?? 0,
    oldReplicas: 0,
    zones: [],
    paused: false,
  };
}

/** What every status of a decision about `zau` starts from, and its status action with a phase and a message. */
function statusesOf(zau: KubeObject, previous: ReturnType<typeof persistedState>): StatusBase {
  const base = statusBase(zau, previous);
  const status = (phase: ZoneAwareUpdatePhase, message: string): ZauAction => ({
    kind: 'status',
    status: {
      ...base,
      currentRevision: zau.status?.currentRevision,
      updateRevision: previous?.revision,
      phase,
      message,
    },
  });
  return { base, previous, status };
}

/** The workload with the Ready pods its ready check failed counted as not ready. */
function withReadyCheckFailures(workload: Workload, failures: ReadonlyMap<string, string> | undefined): Workload {
  if (!failures?.size) return workload;
  const pods = workload.pods.map((p) => (p.ready && failures.has(p.name) ? { ...p, ready: false } : p));
  return { ...workload, pods };
}

export function decideZoneAwareUpdate(input: ZauInput): ZauAction {
  const { zau } = input;
  // as the API server admitted it (the CRD's schema): a partial spec is reported, not trusted
  const spec: Partial<ZoneAwareUpdateSpec> = zau.spec ?? {};
  const previous = persistedState(zau);
  const s = statusesOf(zau, previous);
  const base = s.base;
  const found = workloadOf(input, spec, s);
  if ('action' in found) return found.action;
  const workload = withReadyCheckFailures(found.workload, input.readyCheckFailures);

  if (spec.maxUnavailable === undefined) return s.status('Error', 'spec.maxUnavailable is required');
  let maxUnavailable: number;
  try {
    maxUnavailable = scaleMaxUnavailable(spec.maxUnavailable, workload.replicas, 'down');
  } catch (err) {
    return s.status('Error', `spec.maxUnavailable: ${(err as Error).message}`);
  }
  const { pods, updateRevision } = workload;
  const zones = [...oldReplicasByZone(pods, updateRevision)].map(([zone, oldReplicas]) => ({ zone, oldReplicas }));
  const oldReplicas = zones.reduce((sum, z) => sum + z.oldReplicas, 0);
  const currentRevision = pods.find((p) => p.revision !== updateRevision && !p.terminating)?.revision ?? updateRevision;
  const decision: UpdateDecision = planUpdate({
    pods,
    replicas: workload.replicas,
    updateRevision,
    maxUnavailable,
    exponentialFactor: spec.exponentialFactor ?? 2,
    state: previous,
    otherZonesReady: workload.group,
    outOfServiceZones: input.outOfServiceZones,
  });
  const next = { ...base, currentRevision, updateRevision, step: decision.state.step, oldReplicas, zones };

  if (decision.action === 'done') {
    const doneAt = doneAtOf(input, updateRevision);
    return { kind: 'status', status: { ...next, phase: 'Done', message: decision.reason, doneAt } };
  }
  if (decision.action === 'wait') return { kind: 'status', status: { ...next, phase: 'Waiting', message: decision.reason } };

  const pending = { ...next, step: previous?.revision === updateRevision ? previous.step : 0 };
  // A revision not yet begun waits for the rollout it starts after; one under way goes on.
  const held = spec.startAfter !== undefined && pending.step === 0 ? heldBy(spec.startAfter, input) : undefined;
  if (held) {
    const message = `${held.message}; next: ${decision.reason}`;
    return { kind: 'status', status: { ...pending, phase: 'Waiting', message, startsAt: held.startsAt } };
  }
  return batchAction(input, spec, workload, decision, next, pending);
}

/** When the rollout of `updateRevision` was done: as stored while it stays done, else now. */
function doneAtOf(input: ZauInput, updateRevision: string): string {
  const stored = input.zau.status;
  return stored?.phase === 'Done' && stored.updateRevision === updateRevision && typeof stored.doneAt === 'string'
    ? stored.doneAt : new Date(input.nowMs).toISOString();
}

/**
 * Why a rollout held by `startAfter` may not start yet: the ZoneAwareUpdate it names is missing, not Done on its
 * workload's current revision, or Done for less than `delaySeconds` (then also when it may start). Undefined: go.
 */
export function heldBy(
  startAfter: StartAfterSpec,
  input: Pick<ZauInput, 'predecessor' | 'nowMs'>,
): { message: string; startsAt?: string } | undefined {
  const name = `ZoneAwareUpdate ${startAfter.zoneAwareUpdate}`;
  const pred = input.predecessor;
  if (!pred) return { message: `waiting for ${name}, not found in this namespace` };
  const status = pred.zau.status ?? {};
  const isDoneOnItsRevision = status.phase === 'Done'
    && pred.updateRevision !== undefined
    && status.updateRevision === pred.updateRevision;
  const doneAt = isDoneOnItsRevision ? Date.parse(status.doneAt) : Number.NaN;
  if (Number.isNaN(doneAt)) {
    const detail = `${status.phase ?? 'no status yet'}${status.message ? `: ${status.message}` : ''}`;
    return { message: `waiting for ${name} to finish rolling out (${detail})` };
  }
  const delayMs = (startAfter.delaySeconds ?? 0) * 1000;
  const startsAtMs = doneAt + delayMs;
  if (input.nowMs >= startsAtMs) return undefined;
  const startsAt = new Date(startsAtMs).toISOString();
  return { message: `starts at ${startsAt}, ${startAfter.delaySeconds} s after ${name} finished (${status.doneAt})`, startsAt };
}

/**
 * The update revision `input`'s workload has now, as the decision takes it; undefined while it cannot be rolled
 * (missing, unsettled).
 */
export function updateRevisionOf(input: ZauInput): string | undefined {
  const spec: Partial<ZoneAwareUpdateSpec> = input.zau.spec ?? {};
  const none: StatusBase = {
    base: { step: 0, oldReplicas: 0, zones: [], paused: false },
    previous: undefined,
    status: (phase, message) => ({ kind: 'status', status: { ...none.base, phase, message } }),
  };
  const found = workloadOf(input, spec, none);
  return 'workload' in found ? found.workload.updateRevision : undefined;
}

/** A batch the plan chose: deleted (scaled away, for a Deployment), or only reported while paused or in a dry run. */
type BatchDecision = Extract<UpdateDecision, { action: 'delete' }>;
/** A status but for its phase and message. */
type StatusFields = Omit<ZoneAwareUpdateStatus, 'phase' | 'message'>;

/**
 * What to do with the batch the plan chose: report it while a pause condition holds or in a dry run (the step
 * then stays where the persisted state has it: `pending`), else delete it.
 */
function batchAction(
  input: ZauInput,
  spec: Partial<ZoneAwareUpdateSpec>,
  workload: Workload,
  decision: BatchDecision,
  next: StatusFields,
  pending: StatusFields,
): ZauAction {
  const paused = pausedBy(spec, workload, input.prometheusPause);
  if (paused.length > 0) {
    const message = `paused by ${paused.join('; ')}; next: ${decision.reason}`;
    return { kind: 'status', status: { ...pending, paused: true, phase: 'Paused', message } };
  }
  if (spec.dryRun) {
    const message = `dry run: would delete ${decision.pods.join(', ')} (${decision.reason})`;
    const lastDeleted = input.zau.status?.lastDeleted;
    const status: ZoneAwareUpdateStatus = { ...pending, phase: 'Rolling', message, lastDeleted };
    return { kind: 'dry-run', pods: decision.pods, zone: decision.zone, status };
  }
  const rolling: ZoneAwareUpdateStatus = { ...next, phase: 'Rolling', message: decision.reason, lastDeleted: decision.pods };
  if (workload.kind === 'Deployment') {
    const scaling = scalingFor(decision.pods, workload.newRs!, workload.owned!, input.pods);
    return { kind: 'scale', pods: decision.pods, zone: decision.zone, scaling, status: rolling };
  }
  return { kind: 'delete', pods: decision.pods, zone: decision.zone, status: rolling };
}


/** What pauses the rollout now: the pause label or annotation on one of its workloads, a Prometheus query. */
function pausedBy(
  spec: Partial<ZoneAwareUpdateSpec>,
  workload: Workload,
  prometheusPause: string | undefined,
): string[] {
  const pause = spec.pauseCondition ?? {};
  const holds = (condition: string | undefined, field: 'labels' | 'annotations') => (condition === undefined ? undefined
    : workload.objs.find((o) => keyValueHolds(condition, o.metadata[field])));
  const labelled = holds(pause.label, 'labels');
  const annotated = holds(pause.annotation, 'annotations');
  return [
    labelled ? `label ${pause.label} on ${workload.kind} ${labelled.metadata.name}` : undefined,
    annotated ? `annotation ${pause.annotation} on ${workload.kind} ${annotated.metadata.name}` : undefined,
    prometheusPause,
  ].filter((r): r is string => r !== undefined);
}
