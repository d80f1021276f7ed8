/**
 * A pod's life as the Kubernetes controllers read it, the one home of these rules for the check, the drill, the
 * runtime controller and the tests: a pod has ended (Succeeded, Failed), is terminating (its deletion accepted),
 * is Pending (not started), is active (neither ended nor terminating: one of its owner's replicas), is Ready.
 * Pure, no package: the controller imports it too (test/architecture.test.ts).
 */

/** One condition of a pod's (or a node's) status. */
export interface StatusCondition {
  readonly type: string;
  readonly status: string;
}

/**
 * The fields of a pod its life depends on (any pod or node object as JSON has this shape; `name`, unused, lets
 * TypeScript take any object's metadata type, which may lack the optional fields).
 */
export interface PodLifeFields {
  readonly metadata: { readonly name?: string; readonly deletionTimestamp?: string };
  readonly status?: { readonly phase?: string; readonly conditions?: readonly StatusCondition[] };
}

/**
 * The pod has ended (Succeeded, or Failed: evicted by its kubelet, shut down with its node): it is no replica any
 * more. It stays listed until deleted while its owner replaces it, and the Eviction API lets it go without asking
 * any PodDisruptionBudget.
 */
export function hasEnded(pod: PodLifeFields): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/**
 * The API server has accepted the pod's deletion (an eviction is one): it is going, whatever its phase. The API
 * server omits the field until then (an empty or null value, which it never sends, counts as unset).
 */
export function isTerminating(pod: PodLifeFields): boolean {
  return Boolean(pod.metadata.deletionTimestamp);
}

/** The pod has not started: not scheduled yet, or bound and pulling its images (its node does not matter). */
export function isPending(pod: PodLifeFields): boolean {
  return pod.status?.phase === 'Pending';
}

/**
 * The pod counts as one of its owner's replicas, as the ReplicaSet controller counts them (`IsPodActive`):
 * not terminating and not ended (a pod evicted by its kubelet stays, Failed, and its ReplicaSet replaces it).
 */
export function isActive(pod: PodLifeFields): boolean {
  return !isTerminating(pod) && !hasEnded(pod);
}

/** True when the object's status condition `type` (e.g. `Ready`) has status True. */
export function conditionHolds(obj: PodLifeFields, type: string): boolean {
  return obj.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

/** The pod's Ready condition is True (Kubernetes' `IsPodReady`): its Services send it traffic. */
export function isReady(pod: PodLifeFields): boolean {
  return conditionHolds(pod, 'Ready');
}

/**
 * Running and Ready, as the StatefulSet controller counts a ready replica (`isRunningAndReady`): a pod that ended
 * may still show the Ready condition it had.
 */
export function isRunningAndReady(pod: PodLifeFields): boolean {
  return pod.status?.phase === 'Running' && isReady(pod);
}
