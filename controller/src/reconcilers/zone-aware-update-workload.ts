/**
 * The workload a ZoneAwareUpdate names (a StatefulSet, a group of StatefulSets, or a paused Deployment), as the
 * library's planner reads it; or, while it cannot be rolled yet, the action that reports or settles it. Pure, part of
 * zone-aware-update-decision.ts.
 */
import { ZauAction, ZauInput } from './zone-aware-update-action';
import {
  deploymentPods,
  deploymentProblem,
  newReplicaSet,
  ownedReplicaSets,
  resize,
  runsTemplate,
  TEMPLATE_HASH_LABEL,
  unsettled,
} from './zone-aware-update-deployment';
import { ZoneAwareUpdatePhase, ZoneAwareUpdateSpec, ZoneAwareUpdateStatus } from '../../../src/contract/rollout-resources';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import { RolloutPod, RolloutState } from '../../../src/rollout/update-plan';
import { isControlledBy, KubeObject } from '../kube/api';

/** The StatefulSet pod label holding the revision the pod was created from. */
export const REVISION_LABEL = 'controller-revision-hash';

/** What keeps a workload from being rolled, and the phase it puts the rollout in. */
interface WorkloadProblem {
  readonly problem: string;
  readonly phase: 'Error' | 'Waiting';
}

/**
 * The group's StatefulSets `spec.statefulsets` names, as the cache shows them, or what keeps them from being
 * rolled.
 */
function groupOf(
  names: readonly string[],
  found: readonly KubeObject[],
  namespace: string | undefined,
): { statefulSets: KubeObject[] } | WorkloadProblem {
  const byName = new Map(found.map((s) => [s.metadata.name, s]));
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0) {
    return { phase: 'Error', problem: `StatefulSet(s) ${missing.join(', ')} of the group not found in namespace ${namespace}` };
  }
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
function statefulSetProblem(sts: KubeObject): WorkloadProblem | undefined {
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
    pods: statefulSets.flatMap((sts) => {
      const revisionInGroup = (revision: string) => (revision === sts.status.updateRevision
        ? updateRevision
        : `${sts.metadata.name}=${revision}`);
      return rolloutPods(sts, pods, input.nodeLabels, input.topologyKeys)
        .map((p) => ({ ...p, revision: revisionInGroup(p.revision) }));
    }),
  };
}

function ordinalOf(stsName: string, podName: string): number {
  const n = Number(podName.slice(stsName.length + 1));
  return Number.isInteger(n) ? n : -1;
}

/** The StatefulSet's pods as the planner sees them. */
export function rolloutPods(
  sts: KubeObject,
  pods: readonly KubeObject[],
  nodeLabels: ZauInput['nodeLabels'],
  topologyKeys: readonly string[],
): RolloutPod[] {
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
export interface Workload {
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
export type Found = { readonly workload: Workload } | { readonly action: ZauAction };

/** What every status of one decision starts from, and a status action with a phase and a message. */
export interface StatusBase {
  readonly base: Pick<ZoneAwareUpdateStatus, 'observedGeneration' | 'step' | 'oldReplicas' | 'zones' | 'paused'>;
  readonly previous: RolloutState | undefined;
  status(phase: ZoneAwareUpdatePhase, message: string): ZauAction;
}


/**
 * The workload a ZoneAwareUpdate names; or the action when it cannot be rolled yet (a status, a ReplicaSet to create
 * or scale).
 */
export function workloadOf(input: ZauInput, spec: Partial<ZoneAwareUpdateSpec>, s: StatusBase): Found {
  const namespace = input.zau.metadata.namespace;
  if (spec.deployment !== undefined) return deploymentWorkload(input, spec.deployment, s);
  if (Array.isArray(spec.statefulsets)) {
    const group = groupOf(spec.statefulsets, input.statefulSets ?? [], namespace);
    if ('problem' in group) return { action: s.status(group.phase, group.problem) };
    const { pods, updateRevision } = groupPods(group.statefulSets, input.pods, input);
    const replicas = group.statefulSets.reduce((sum, x) => sum + (x.spec?.replicas ?? 1), 0);
    const obj = group.statefulSets[0];
    return { workload: { obj, kind: 'StatefulSet', objs: group.statefulSets, pods, replicas, updateRevision, group: true } };
  }
  const sts = input.statefulSet;
  if (!sts) return { action: s.status('Error', `StatefulSet ${spec.statefulset} not found in namespace ${namespace}`) };
  const problem = statefulSetProblem(sts);
  if (problem) return { action: s.status(problem.phase, problem.problem) };
  const pods = rolloutPods(sts, input.pods, input.nodeLabels, input.topologyKeys);
  const replicas = sts.spec?.replicas ?? 1;
  return { workload: { obj: sts, kind: 'StatefulSet', objs: [sts], pods, replicas, updateRevision: sts.status.updateRevision } };
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
    const status: ZoneAwareUpdateStatus = { ...s.base, updateRevision: s.previous?.revision, phase: 'Rolling', message };
    return { action: { kind: 'scale', pods: [], zone: '', scaling: resized, status } };
  }
  const waiting = unsettled(owned, input.pods);
  if (waiting) return { action: s.status('Waiting', waiting) };
  const zoneOf = (pod: KubeObject) => {
    const labels = pod.spec?.nodeName ? input.nodeLabels(pod.spec.nodeName) : undefined;
    return labels ? ZoneAnnotation.valueFor(labels, [...input.topologyKeys]) : undefined;
  };
  const pods = deploymentPods(owned, input.pods, zoneOf);
  const updateRevision = newRs.metadata.labels?.[TEMPLATE_HASH_LABEL] ?? '';
  const replicas = dep.spec?.replicas ?? 1;
  return { workload: { obj: dep, kind: 'Deployment', objs: [dep], pods, replicas, updateRevision, owned, newRs } };
}
