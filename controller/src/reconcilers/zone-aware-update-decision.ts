/**
 * What the zone-aware-update reconciler does with one ZoneAwareUpdate, given what the caches hold (the
 * custom resource, its StatefulSet, the StatefulSet's pods, the nodes): a pure function around the
 * library's planner (src/rollout/update-plan.ts), unit-tested without a cluster. Also pure, beside it: what the
 * caches must show of an action before the next decision (zone-aware-update-expectation.ts) and what an action
 * reports (zone-aware-update-report.ts). zone-aware-update.ts does the I/O.
 */
import {
  deploymentPods,
  deploymentProblem,
  newReplicaSet,
  ownedReplicaSets,
  resize,
  runsTemplate,
  Scaling,
  scalingFor,
  TEMPLATE_HASH_LABEL,
  unsettled,
} from './zone-aware-update-deployment';
import { StartAfterSpec, ZoneAwareUpdatePhase, ZoneAwareUpdateSpec, ZoneAwareUpdateStatus } from '../../../src/contract/rollout-resources';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import { scaleMaxUnavailable } from '../../../src/rollout/max-unavailable';
import { oldReplicasByZone, planUpdate, RolloutPod, RolloutState, UpdateDecision } from '../../../src/rollout/update-plan';
import { isControlledBy, KubeObject } from '../kube/api';

/** The StatefulSet pod label holding the revision the pod was created from. */
export const REVISION_LABEL = 'controller-revision-hash';

export type ZauAction =
  /** Delete these pods (namespace of the ZoneAwareUpdate), then write `status`. */
  | { readonly kind: 'delete'; readonly pods: string[]; readonly zone: string; readonly status: ZoneAwareUpdateStatus }
  /**
   * Deployment: mark `pods` cheapest to delete, scale the new ReplicaSet up and the old ones down, then write
   * `status`.
   */
  | { readonly kind: 'scale'; readonly pods: string[]; readonly zone: string; readonly scaling: Scaling; readonly status: ZoneAwareUpdateStatus }
  /** Deployment: create its new ReplicaSet (0 replicas), then write `status`. */
  | { readonly kind: 'create-replicaset'; readonly replicaSet: KubeObject; readonly status: ZoneAwareUpdateStatus }
  /** Dry run: the pods that would be deleted; write `status` (the step does not advance). */
  | { readonly kind: 'dry-run'; readonly pods: string[]; readonly zone: string; readonly status: ZoneAwareUpdateStatus }
  /** Only write `status` (waiting, paused, done, or an error in the spec or the workload). */
  | { readonly kind: 'status'; readonly status: ZoneAwareUpdateStatus };

export interface ZauInput {
  readonly zau: KubeObject;
  /** The StatefulSet `spec.statefulset` names, if the cache has it. */
  readonly statefulSet?: KubeObject;
  /** The StatefulSets of the group `spec.statefulsets` names that the cache has. */
  readonly statefulSets?: readonly KubeObject[];
  /** The Deployment `spec.deployment` names, if the cache has it. */
  readonly deployment?: KubeObject;
  /** ReplicaSets, at least those the Deployment controls (the decision keeps those). */
  readonly replicaSets?: readonly KubeObject[];
  /** Pods, at least those the workload's StatefulSet or ReplicaSets control (the decision keeps those). */
  readonly pods: readonly KubeObject[];
  /** Node labels by node name. */
  readonly nodeLabels: (node: string) => Record<string, string> | undefined;
  /** The node label keys a zone is made of. */
  readonly topologyKeys: readonly string[];
  /** Why the Prometheus pause condition holds (query non-empty or failing), if it does. */
  readonly prometheusPause?: string;
  /** Pods (by name) that failed the spec's `readyCheck`, and why: they count as not Ready. */
  readonly readyCheckFailures?: ReadonlyMap<string, string>;
  /** The ZoneAwareUpdate `spec.startAfter` names, as the caches show it (unset: none, or not found). */
  readonly predecessor?: Predecessor;
  /** Now, in milliseconds since the epoch (the time `doneAt` and `startsAt` are measured in). */
  readonly nowMs: number;
  /** The zones out of service for the namespace (ZoneShifts in force): no batch there. @default none */
  readonly outOfServiceZones?: readonly string[];
}

/** The ZoneAwareUpdate a rollout starts after, and the update revision of its workload now. */
export interface Predecessor {
  readonly zau: KubeObject;
  /** What its own decision would take as its update revision now; undefined while it cannot tell. */
  readonly updateRevision?: string;
}

/**
 * The group's StatefulSets `spec.statefulsets` names, as the cache shows them, or what keeps them from being
 * rolled.
 */
function groupOf(names: readonly string[], found: readonly KubeObject[], namespace: string | undefined): { statefulSets: KubeObject[] } | { problem: string; phase: 'Error' | 'Waiting' } {
  const byName = new Map(found.map((s) => [s.metadata.name, s]));
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0) return { phase: 'Error', problem: `StatefulSet(s) ${missing.join(', ')} of the group not found in namespace ${namespace}` };
  const statefulSets = names.map((n) => byName.get(n)!);
  for (const sts of statefulSets) {
    const problem = statefulSetProblem(sts);
    if (problem) return problem;
  }
  return { statefulSets };
}

/**
 * What keeps a StatefulSet from being rolled now: a strategy other than OnDelete, or a generation its controller has
 * not seen.
 */
function statefulSetProblem(sts: KubeObject): { problem: string; phase: 'Error' | 'Waiting' } | undefined {
  const strategy = sts.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'OnDelete') {
    return { phase: 'Error', problem: `StatefulSet ${sts.metadata.name} has updateStrategy ${strategy}: set it to OnDelete, or Kubernetes rolls the pods itself` };
  }
  if (!sts.status?.updateRevision || (sts.status?.observedGeneration ?? 0) < (sts.metadata.generation ?? 0)) {
    return { phase: 'Waiting', problem: `waiting for the StatefulSet controller to observe generation ${sts.metadata.generation} of ${sts.metadata.name}` };
  }
  return undefined;
}

/**
 * The group's pods as the planner sees them: a pod on its own StatefulSet's update revision carries the
 * group's revision (the StatefulSets' update revisions together), so one new revision of any of them restarts
 * the ramp, as a new revision of a single StatefulSet does.
 */
function groupPods(
  statefulSets: readonly KubeObject[], pods: readonly KubeObject[], input: ZauInput,
): { pods: RolloutPod[]; updateRevision: string } {
  const updateRevision = statefulSets.map((s) => `${s.metadata.name}=${s.status.updateRevision}`).join(',');
  return {
    updateRevision,
    pods: statefulSets.flatMap((sts) => rolloutPods(sts, pods, input.nodeLabels, input.topologyKeys)
      .map((p) => (p.revision === sts.status.updateRevision ? { ...p, revision: updateRevision } : { ...p, revision: `${sts.metadata.name}=${p.revision}` }))),
  };
}

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

function ordinalOf(stsName: string, podName: string): number {
  const n = Number(podName.slice(stsName.length + 1));
  return Number.isInteger(n) ? n : -1;
}

/** The StatefulSet's pods as the planner sees them. */
export function rolloutPods(sts: KubeObject, pods: readonly KubeObject[], nodeLabels: ZauInput['nodeLabels'], topologyKeys: readonly string[]): RolloutPod[] {
  return pods
    .filter((p) => isControlledBy(p, sts.metadata.uid))
    .map((p) => {
      const node: string | undefined = p.spec?.nodeName;
      const labels = node ? nodeLabels(node) : undefined;
      return {
        name: p.metadata.name,
        order: ordinalOf(sts.metadata.name, p.metadata.name),
        zone: labels ? ZoneAnnotation.valueFor(labels, [...topologyKeys]) : undefined,
        revision: p.metadata.labels?.[REVISION_LABEL] ?? '',
        ready: isReady(p),
        terminating: isTerminating(p),
      };
    });
}

/** What is being rolled, as the planner needs it. */
interface Workload {
  /** The workload (a group's first StatefulSet). */
  readonly obj: KubeObject;
  readonly kind: 'StatefulSet' | 'Deployment';
  /** The workloads (a group's StatefulSets): a pause condition on any of them holds. */
  readonly objs: readonly KubeObject[];
  /** A group of StatefulSets: a zone is rolled only while the other zones' pods are Ready. */
  readonly group?: boolean;
  readonly pods: RolloutPod[];
  readonly replicas: number;
  readonly updateRevision: string;
  /** Deployment: its ReplicaSets and the new one. */
  readonly owned?: KubeObject[];
  readonly newRs?: KubeObject;
}

/** The workload as the plan reads it, or the action when it cannot be rolled yet. */
type Found = { readonly workload: Workload } | { readonly action: ZauAction };

/** What every status of one decision starts from, and a status action with a phase and a message. */
interface StatusBase {
  readonly base: Pick<ZoneAwareUpdateStatus, 'observedGeneration' | 'step' | 'oldReplicas' | 'zones' | 'paused'>;
  readonly previous: ReturnType<typeof persistedState>;
  status(phase: ZoneAwareUpdatePhase, message: string): ZauAction;
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
  const base = statusBase(zau, previous);
  const status = (phase: ZoneAwareUpdatePhase, message: string): ZauAction =>
    ({ kind: 'status', status: { ...base, currentRevision: zau.status?.currentRevision, updateRevision: previous?.revision, phase, message } });
  const s: StatusBase = { base, previous, status };
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

  if (decision.action === 'done') return { kind: 'status', status: { ...next, phase: 'Done', message: decision.reason, doneAt: doneAtOf(input, updateRevision) } };
  if (decision.action === 'wait') return { kind: 'status', status: { ...next, phase: 'Waiting', message: decision.reason } };

  const pending = { ...next, step: previous?.revision === updateRevision ? previous.step : 0 };
  // A revision not yet begun waits for the rollout it starts after; one under way goes on.
  const held = spec.startAfter !== undefined && pending.step === 0 ? heldBy(spec.startAfter, input) : undefined;
  if (held) return { kind: 'status', status: { ...pending, phase: 'Waiting', message: `${held.message}; next: ${decision.reason}`, startsAt: held.startsAt } };
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
export function heldBy(startAfter: StartAfterSpec, input: Pick<ZauInput, 'predecessor' | 'nowMs'>): { message: string; startsAt?: string } | undefined {
  const name = `ZoneAwareUpdate ${startAfter.zoneAwareUpdate}`;
  const pred = input.predecessor;
  if (!pred) return { message: `waiting for ${name}, not found in this namespace` };
  const status = pred.zau.status ?? {};
  const doneAt = status.phase === 'Done' && pred.updateRevision !== undefined && status.updateRevision === pred.updateRevision
    ? Date.parse(status.doneAt) : Number.NaN;
  if (Number.isNaN(doneAt)) return { message: `waiting for ${name} to finish rolling out (${status.phase ?? 'no status yet'}${status.message ? `: ${status.message}` : ''})` };
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
  const none: StatusBase = { base: { step: 0, oldReplicas: 0, zones: [], paused: false }, previous: undefined, status: (phase, message) => ({ kind: 'status', status: { ...none.base, phase, message } }) };
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
    return { kind: 'status', status: { ...pending, paused: true, phase: 'Paused', message: `paused by ${paused.join('; ')}; next: ${decision.reason}` } };
  }
  if (spec.dryRun) {
    const message = `dry run: would delete ${decision.pods.join(', ')} (${decision.reason})`;
    return { kind: 'dry-run', pods: decision.pods, zone: decision.zone, status: { ...pending, phase: 'Rolling', message, lastDeleted: input.zau.status?.lastDeleted } };
  }
  const rolling: ZoneAwareUpdateStatus = { ...next, phase: 'Rolling', message: decision.reason, lastDeleted: decision.pods };
  if (workload.kind === 'Deployment') {
    return { kind: 'scale', pods: decision.pods, zone: decision.zone, scaling: scalingFor(decision.pods, workload.newRs!, workload.owned!, input.pods), status: rolling };
  }
  return { kind: 'delete', pods: decision.pods, zone: decision.zone, status: rolling };
}

/**
 * The workload a ZoneAwareUpdate names; or the action when it cannot be rolled yet (a status, a ReplicaSet to create
 * or scale).
 */
function workloadOf(input: ZauInput, spec: Partial<ZoneAwareUpdateSpec>, s: StatusBase): Found {
  const namespace = input.zau.metadata.namespace;
  if (spec.deployment !== undefined) return deploymentWorkload(input, spec.deployment, s);
  if (Array.isArray(spec.statefulsets)) {
    const group = groupOf(spec.statefulsets, input.statefulSets ?? [], namespace);
    if ('problem' in group) return { action: s.status(group.phase, group.problem) };
    const { pods, updateRevision } = groupPods(group.statefulSets, input.pods, input);
    const replicas = group.statefulSets.reduce((sum, x) => sum + (x.spec?.replicas ?? 1), 0);
    return { workload: { obj: group.statefulSets[0], kind: 'StatefulSet', objs: group.statefulSets, pods, replicas, updateRevision, group: true } };
  }
  const sts = input.statefulSet;
  if (!sts) return { action: s.status('Error', `StatefulSet ${spec.statefulset} not found in namespace ${namespace}`) };
  const problem = statefulSetProblem(sts);
  if (problem) return { action: s.status(problem.phase, problem.problem) };
  const pods = rolloutPods(sts, input.pods, input.nodeLabels, input.topologyKeys);
  return { workload: { obj: sts, kind: 'StatefulSet', objs: [sts], pods, replicas: sts.spec?.replicas ?? 1, updateRevision: sts.status.updateRevision } };
}

/** A paused Deployment's workload once its ReplicaSets are settled; before that, what settles them. */
function deploymentWorkload(input: ZauInput, name: string, s: StatusBase): Found {
  const dep = input.deployment;
  if (!dep) return { action: s.status('Error', `Deployment ${name} not found in namespace ${input.zau.metadata.namespace}`) };
  const problem = deploymentProblem(dep);
  if (problem) return { action: s.status('Error', problem) };
  const owned = ownedReplicaSets(dep, input.replicaSets ?? []);
  const newRs = owned.find((rs) => runsTemplate(rs, dep));
  if (!newRs) {
    const replicaSet = newReplicaSet(dep, owned);
    const message = `creating ReplicaSet ${replicaSet.metadata.name} for the Deployment's template`;
    return { action: { kind: 'create-replicaset', replicaSet, status: { ...s.base, phase: 'Rolling', message } } };
  }
  const uids = new Set(owned.map((rs) => rs.metadata.uid));
  const ownedByWorkload = (p: KubeObject) => p.metadata.ownerReferences?.some((o) => uids.has(o.uid)) ?? false;
  const leaving = input.pods.filter((p) => isTerminating(p) && ownedByWorkload(p));
  if (leaving.length > 0) {
    return { action: s.status('Waiting', `waiting for ${leaving.length} terminating pod(s): ${leaving.map((p) => p.metadata.name).sort().join(', ')}`) };
  }
  const resized = resize(dep, newRs, owned);
  if (resized) {
    const message = `scaling the ReplicaSets to the Deployment's ${dep.spec?.replicas ?? 1} replicas`;
    return { action: { kind: 'scale', pods: [], zone: '', scaling: resized, status: { ...s.base, updateRevision: s.previous?.revision, phase: 'Rolling', message } } };
  }
  const waiting = unsettled(owned, input.pods);
  if (waiting) return { action: s.status('Waiting', waiting) };
  const zoneOf = (pod: KubeObject) => {
    const labels = pod.spec?.nodeName ? input.nodeLabels(pod.spec.nodeName) : undefined;
    return labels ? ZoneAnnotation.valueFor(labels, [...input.topologyKeys]) : undefined;
  };
  const pods = deploymentPods(owned, input.pods, zoneOf);
  const updateRevision = newRs.metadata.labels?.[TEMPLATE_HASH_LABEL] ?? '';
  return { workload: { obj: dep, kind: 'Deployment', objs: [dep], pods, replicas: dep.spec?.replicas ?? 1, updateRevision, owned, newRs } };
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
