/**
 * What a drill sees of each workload while it runs: from the cluster (workloads, ReplicaSets, pods, nodes) at each
 * change its watches see (cluster-watch.ts), the fewest ready replicas, the most pods Pending, and when the workload
 * was whole again. Pure: the run records the states, this folds them.
 */
import { Live, OwnerRef, Pod, TypeAndMeta, Workload } from '../kubernetes/objects';
import { isActive, isPending, isRunningAndReady } from '../kubernetes/pod-life';

/**
 * The workloads a drill watches: those whose replicas matter when a zone goes (a DaemonSet's pods go with their nodes).
 */
export const WATCHED_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet'];

/** One workload's identity; a zone group (kind ZoneGroup) is watched as the sum of its members. */
export interface WorkloadKey {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly members?: readonly WorkloadKey[];
}

export function workloadKeyText(w: WorkloadKey): string {
  return `${w.kind}/${w.namespace}/${w.name}`;
}

/** The cluster at one instant, as listed. */
export interface ClusterSnapshot {
  readonly atMs: number;
  /** Deployments, StatefulSets and ReplicaSets (each with `kind`). */
  readonly workloads: readonly Live<Workload>[];
  readonly pods: readonly Live<Pod>[];
  /** Each node's zone. */
  readonly zoneOfNode: ReadonlyMap<string, string>;
}

/** One workload in one snapshot. */
export interface WorkloadState {
  readonly desired: number;
  /** Ready pods (in an outage, those of the drilled zone are dead whatever they report). */
  readonly ready: number;
  readonly pending: number;
  /** Zones other than the drilled one with a ready pod. */
  readonly readyZones: number;
  /** Its pods on the drilled zone's nodes (not terminating). */
  readonly inZone: number;
  /** Of those, the ready ones. */
  readonly readyInZone: number;
}

/** What was seen of one workload over the drill. */
export interface Observation {
  readonly before: WorkloadState;
  readonly minReady: number;
  readonly minReadyZones: number;
  readonly maxPending: number;
  /** At the end of the watch (before the restore). */
  readonly end: WorkloadState;
  /**
   * Ms from the drill's start until it was whole (all desired replicas ready, none Pending) for good; undefined: never.
   */
  readonly wholeAfterMs?: number;
  /** Its pods whose eviction was refused at least once (drain). */
  readonly evictionsRefused: number;
}

/** The workloads of `snapshot` the drill watches (ReplicaSets only those no Deployment owns), by key. */
export function watchedWorkloads(snapshot: ClusterSnapshot): WorkloadKey[] {
  return snapshot.workloads
    .filter((w) => WATCHED_KINDS.includes(w.kind ?? '')
      && !(w.kind === 'ReplicaSet' && controllerOf(w)?.kind === 'Deployment'))
    .map(keyOf);
}

/** A listed workload's key (a workload the API server lists has its list's kind and a namespace). */
function keyOf(w: Live<Workload>): WorkloadKey {
  return { kind: w.kind as string, namespace: w.metadata.namespace as string, name: w.metadata.name };
}

function controllerOf(o: TypeAndMeta | undefined): OwnerRef | undefined {
  return (o?.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
}

/** Each pod's workload (Deployment through its ReplicaSet), keyed by the workload's key text. */
export function podsByWorkload(snapshot: ClusterSnapshot): Map<string, Live<Pod>[]> {
  const byUid = new Map<string | undefined, Live<Workload>>(snapshot.workloads.map((w) => [w.metadata.uid, w]));
  const pods = new Map<string, Live<Pod>[]>();
  for (const pod of snapshot.pods) {
    let owner = byUid.get(controllerOf(pod)?.uid ?? '');
    if (owner?.kind === 'ReplicaSet') owner = byUid.get(controllerOf(owner)?.uid ?? '') ?? owner;
    if (owner === undefined) continue;
    const key = workloadKeyText(keyOf(owner));
    pods.set(key, [...pods.get(key) ?? [], pod]);
  }
  return pods;
}

/** The replicas `key` asks for in `snapshot` (a group: its members' together). */
export function desiredOf(snapshot: ClusterSnapshot, key: WorkloadKey): number {
  if (key.members) return key.members.reduce((sum, m) => sum + desiredOf(snapshot, m), 0);
  const workload = snapshot.workloads.find((w) => w.kind === key.kind && w.metadata.namespace === key.namespace
    && w.metadata.name === key.name);
  return workload === undefined ? 0 : workload.spec?.replicas as number | undefined ?? 1;
}

/** The pods of `key` (a group: its members'), from `podsByWorkload`. */
export function podsOf(byWorkload: ReadonlyMap<string, readonly Live<Pod>[]>, key: WorkloadKey): readonly Live<Pod>[] {
  return key.members ? key.members.flatMap((m) => podsOf(byWorkload, m)) : byWorkload.get(workloadKeyText(key)) ?? [];
}

/** How many of `key`'s pods (a group: its members') had an eviction refused, from the refused pod uids by workload. */
export function refusedOf(refused: ReadonlyMap<string, ReadonlySet<string>>, key: WorkloadKey): number {
  if (key.members) return key.members.reduce((sum, m) => sum + refusedOf(refused, m), 0);
  return refused.get(workloadKeyText(key))?.size ?? 0;
}

/**
 * A workload of `desired` replicas and `pods` in `snapshot`; `zone`: the drilled zone, `zoneDown`: whether its pods
 * count as dead (an outage under way).
 */
export function workloadState(
  snapshot: ClusterSnapshot, pods: readonly Live<Pod>[], desired: number, zone: string, zoneDown: boolean,
): WorkloadState {
  const live = pods.filter(isActive);
  const ready = live.filter(isRunningAndReady);
  const zoneOf = (p: Pod) => snapshot.zoneOfNode.get(p.spec?.nodeName ?? '');
  const readyInZone = ready.filter((p) => zoneOf(p) === zone).length;
  return {
    desired,
    ready: ready.length - (zoneDown ? readyInZone : 0),
    pending: live.filter(isPending).length,
    readyZones: new Set(ready.map(zoneOf).filter((z) => z !== undefined && z !== zone)).size,
    inZone: live.filter((p) => zoneOf(p) === zone).length,
    readyInZone,
  };
}

function isWhole(s: WorkloadState): boolean {
  return s.ready >= s.desired && s.pending === 0;
}

/** Folds the snapshots of one workload (the first taken before the drill changed anything) into what was seen. */
export function observe(
  states: ReadonlyArray<{ atMs: number; state: WorkloadState }>,
  startMs: number,
  evictionsRefused: number,
): Observation {
  const before = states[0].state;
  const during = states.length > 1 ? states.slice(1) : states;
  const lastBroken = [...during].reverse().find((s) => !isWhole(s.state));
  const end = during[during.length - 1].state;
  const wholeAgainAt = (broken: (typeof during)[number]) => during[during.indexOf(broken) + 1].atMs;
  const wholeAt = lastBroken === undefined ? startMs : isWhole(end) ? wholeAgainAt(lastBroken) : undefined;
  return {
    before,
    minReady: Math.min(...during.map((s) => s.state.ready)),
    minReadyZones: Math.min(...during.map((s) => s.state.readyZones)),
    maxPending: Math.max(...during.map((s) => s.state.pending)),
    end,
    wholeAfterMs: wholeAt === undefined ? undefined : wholeAt - startMs,
    evictionsRefused,
  };
}
