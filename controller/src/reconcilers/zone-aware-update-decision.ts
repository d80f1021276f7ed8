/**
 * What the zone-aware-update reconciler does with one ZoneAwareUpdate, given what the caches hold (the
 * custom resource, its StatefulSet, the StatefulSet's pods, the nodes): a pure function around the
 * library's planner (src/rollout/update-plan.ts), unit-tested without a cluster.
 */
import { ZoneAnnotation } from '../../../src/controller/zone-annotation';
import { scaleMaxUnavailable } from '../../../src/rollout/max-unavailable';
import { oldReplicasByZone, planUpdate, RolloutPod, RolloutState, UpdateDecision } from '../../../src/rollout/update-plan';

/** The fields of a Kubernetes object the decisions read (any object from the API server fits). */
export interface Obj {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly generation?: number;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly deletionTimestamp?: string;
    readonly creationTimestamp?: string;
    readonly ownerReferences?: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly uid: string; readonly controller?: boolean }>;
  };
  readonly [field: string]: any;
}

/** The StatefulSet pod label holding the revision the pod was created from. */
export const REVISION_LABEL = 'controller-revision-hash';

export interface ZauStatus {
  readonly observedGeneration?: number;
  readonly currentRevision?: string;
  readonly updateRevision?: string;
  readonly step: number;
  readonly oldReplicas: number;
  readonly zones: Array<{ zone: string; oldReplicas: number }>;
  readonly paused: boolean;
  readonly phase: 'Rolling' | 'Waiting' | 'Paused' | 'Done' | 'Error';
  readonly message: string;
  readonly lastDeleted?: string[];
}

export type ZauAction =
  /** Delete these pods (namespace of the ZoneAwareUpdate), then write `status`. */
  | { readonly kind: 'delete'; readonly pods: string[]; readonly zone: string; readonly status: ZauStatus }
  /** Dry run: the pods that would be deleted; write `status` (the step does not advance). */
  | { readonly kind: 'dry-run'; readonly pods: string[]; readonly zone: string; readonly status: ZauStatus }
  /** Only write `status` (waiting, paused, done, or an error in the spec or the workload). */
  | { readonly kind: 'status'; readonly status: ZauStatus };

export interface ZauInput {
  readonly zau: Obj;
  /** The StatefulSet `spec.statefulset` names, if the cache has it. */
  readonly statefulSet?: Obj;
  /** Pods of the namespace (the decision keeps those the StatefulSet controls). */
  readonly pods: readonly Obj[];
  /** Node labels by node name. */
  readonly nodeLabels: (node: string) => Record<string, string> | undefined;
  /** The node label keys a zone is made of. */
  readonly topologyKeys: readonly string[];
  /** Why the Prometheus pause condition holds (query non-empty or failing), if it does. */
  readonly prometheusPause?: string;
}

/** The persisted step of a ZoneAwareUpdate (its status), for a restarted controller to resume. */
export function persistedState(zau: Obj): RolloutState | undefined {
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

function isReady(pod: Obj): boolean {
  return (pod.status?.conditions as Array<{ type: string; status: string }> | undefined)
    ?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function ordinalOf(stsName: string, podName: string): number {
  const n = Number(podName.slice(stsName.length + 1));
  return Number.isInteger(n) ? n : -1;
}

/** The StatefulSet's pods as the planner sees them. */
export function rolloutPods(sts: Obj, pods: readonly Obj[], nodeLabels: ZauInput['nodeLabels'], topologyKeys: readonly string[]): RolloutPod[] {
  return pods
    .filter((p) => p.metadata.ownerReferences?.some((o) => o.controller && o.kind === 'StatefulSet' && o.uid === sts.metadata.uid))
    .map((p) => {
      const node: string | undefined = p.spec?.nodeName;
      const labels = node ? nodeLabels(node) : undefined;
      return {
        name: p.metadata.name,
        order: ordinalOf(sts.metadata.name, p.metadata.name),
        zone: labels ? ZoneAnnotation.valueFor(labels, [...topologyKeys]) : undefined,
        revision: p.metadata.labels?.[REVISION_LABEL] ?? '',
        ready: isReady(p),
        terminating: p.metadata.deletionTimestamp !== undefined,
      };
    });
}

export function decideZoneAwareUpdate(input: ZauInput): ZauAction {
  const { zau } = input;
  const spec = zau.spec ?? {};
  const previous = persistedState(zau);
  const base = { observedGeneration: zau.metadata.generation, step: previous?.step ?? 0, oldReplicas: 0, zones: [], paused: false };
  const error = (message: string): ZauAction => ({
    kind: 'status',
    status: { ...base, currentRevision: zau.status?.currentRevision, updateRevision: previous?.revision, phase: 'Error', message },
  });

  if (spec.deployment !== undefined) {
    return error(`spec.deployment=${spec.deployment}: Deployments are not rolled by this controller version yet (see docs/rollouts.md); use a StatefulSet with updateStrategy OnDelete`);
  }
  const sts = input.statefulSet;
  if (!sts) return error(`StatefulSet ${spec.statefulset} not found in namespace ${zau.metadata.namespace}`);
  const strategy = sts.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'OnDelete') {
    return error(`StatefulSet ${sts.metadata.name} has updateStrategy ${strategy}: set it to OnDelete, or Kubernetes rolls the pods itself`);
  }
  const updateRevision: string | undefined = sts.status?.updateRevision;
  if (!updateRevision || (sts.status?.observedGeneration ?? 0) < (sts.metadata.generation ?? 0)) {
    return { kind: 'status', status: { ...base, updateRevision: previous?.revision, phase: 'Waiting', message: `waiting for the StatefulSet controller to observe generation ${sts.metadata.generation}` } };
  }
  const replicas: number = sts.spec?.replicas ?? 1;
  let maxUnavailable: number;
  try {
    maxUnavailable = scaleMaxUnavailable(spec.maxUnavailable, replicas, 'down');
  } catch (err) {
    return error(`spec.maxUnavailable: ${(err as Error).message}`);
  }
  const factor = spec.exponentialFactor ?? 2;

  const pods = rolloutPods(sts, input.pods, input.nodeLabels, input.topologyKeys);
  const zones = [...oldReplicasByZone(pods, updateRevision)].map(([zone, oldReplicas]) => ({ zone, oldReplicas }));
  const oldReplicas = zones.reduce((s, z) => s + z.oldReplicas, 0);
  const currentRevision = pods.find((p) => p.revision !== updateRevision && !p.terminating)?.revision ?? updateRevision;
  const decision: UpdateDecision = planUpdate({ pods, replicas, updateRevision, maxUnavailable, exponentialFactor: factor, state: previous });
  const status = { ...base, currentRevision, updateRevision, step: decision.state.step, oldReplicas, zones };

  if (decision.action === 'done') return { kind: 'status', status: { ...status, phase: 'Done', message: decision.reason } };
  if (decision.action === 'wait') return { kind: 'status', status: { ...status, phase: 'Waiting', message: decision.reason } };

  const pause = spec.pauseCondition ?? {};
  const pausedBy = [
    pause.label !== undefined && keyValueHolds(pause.label, sts.metadata.labels) ? `label ${pause.label} on StatefulSet ${sts.metadata.name}` : undefined,
    pause.annotation !== undefined && keyValueHolds(pause.annotation, sts.metadata.annotations) ? `annotation ${pause.annotation} on StatefulSet ${sts.metadata.name}` : undefined,
    input.prometheusPause,
  ].filter((r): r is string => r !== undefined);
  const pending = { ...status, step: previous?.revision === updateRevision ? previous.step : 0 };
  if (pausedBy.length > 0) {
    return { kind: 'status', status: { ...pending, paused: true, phase: 'Paused', message: `paused by ${pausedBy.join('; ')}; next: ${decision.reason}` } };
  }
  if (spec.dryRun) {
    return { kind: 'dry-run', pods: decision.pods, zone: decision.zone, status: { ...pending, phase: 'Rolling', message: `dry run: would delete ${decision.pods.join(', ')} (${decision.reason})`, lastDeleted: zau.status?.lastDeleted } };
  }
  return { kind: 'delete', pods: decision.pods, zone: decision.zone, status: { ...status, phase: 'Rolling', message: decision.reason, lastDeleted: decision.pods } };
}
