/**
 * The ZoneAwareUpdate planner: which old-revision pods to delete next, zone by zone, in exponentially
 * growing batches. Pure and deterministic: the controller observes the workload's pods, asks this module,
 * and deletes what it says. Shared by the controller (run time) and the docs/tests (synth time).
 */

/** A pod of the workload being rolled, as the controller sees it. */
export interface RolloutPod {
  /** The pod's name. */
  readonly name: string;
  /**
   * Deletion order within a zone, highest first: the ordinal for a StatefulSet pod; for a Deployment pod
   * its creation time in milliseconds (the most recently created first, as the most recently updated pods
   * of a StatefulSet have the highest ordinals).
   */
  readonly order: number;
  /** The zone of the pod's node; undefined when the pod is not scheduled or its node lacks the zone label. */
  readonly zone?: string;
  /** The revision the pod runs (controller-revision-hash for StatefulSets, pod-template-hash for Deployments). */
  readonly revision: string;
  /** The pod's Ready condition is True. */
  readonly ready: boolean;
  /** The pod has a deletionTimestamp. */
  readonly terminating: boolean;
}

/** The step counter the controller persists in the ZoneAwareUpdate's status between reconciles. */
export interface RolloutState {
  /** The update revision the step belongs to. */
  readonly revision?: string;
  /** How many batches of this revision were deleted so far. */
  readonly step: number;
}

export interface UpdatePlanInput {
  readonly pods: readonly RolloutPod[];
  /** The workload's desired replicas: fewer live pods means one is being recreated, so wait. */
  readonly replicas: number;
  /** The revision every pod should run. */
  readonly updateRevision: string;
  /** The most pods deleted at once, already scaled to an absolute number (>= 1). */
  readonly maxUnavailable: number;
  /** Batch i deletes min(factor^i, maxUnavailable) pods; 0 turns the ramp off (batches of maxUnavailable). */
  readonly exponentialFactor: number;
  /** The persisted state (undefined for a new ZoneAwareUpdate). */
  readonly state?: RolloutState;
  /**
   * Roll a zone only while every pod of the other zones is Ready (old ones too): a group of StatefulSets whose
   * zones replicate one another (Loki's ingesters) is down in two zones at once otherwise.
   * @default false
   */
  readonly otherZonesReady?: boolean;
  /**
   * Zones out of service (a ZoneShift): no batch is deleted in them (their nodes take no new pods), their old pods
   * wait until the shift ends.
   * @default none
   */
  readonly outOfServiceZones?: readonly string[];
}

/** The zone name used for old pods whose zone is unknown; they form the last group, after every zone. */
export const UNKNOWN_ZONE = '';

export type UpdateDecision =
  /** Delete `pods` (all in `zone`), then persist `state`. */
  | {
    readonly action: 'delete';
    readonly zone: string;
    readonly pods: string[];
    readonly state: RolloutState;
    readonly reason: string;
  }
  /** Nothing to do until the cluster changes. */
  | { readonly action: 'wait'; readonly state: RolloutState; readonly reason: string }
  /** Every pod runs the update revision. */
  | { readonly action: 'done'; readonly state: RolloutState; readonly reason: string };

/** Old-revision pods, in deletion order: zone ascending (unknown zone last), then `order` descending, then name. */
export function oldPodsInOrder(pods: readonly RolloutPod[], updateRevision: string): RolloutPod[] {
  return pods
    .filter((p) => p.revision !== updateRevision && !p.terminating)
    .sort((a, b) => compareZones(a.zone, b.zone)
      || b.order - a.order
      || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function compareZones(a: string | undefined, b: string | undefined): number {
  const za = a ?? UNKNOWN_ZONE;
  const zb = b ?? UNKNOWN_ZONE;
  if (za === zb) return 0;
  if (za === UNKNOWN_ZONE) return 1;
  if (zb === UNKNOWN_ZONE) return -1;
  return za < zb ? -1 : 1;
}

/** The size of batch number `step`: min(floor(factor^step), maxUnavailable), at least 1; factor 0 = maxUnavailable. */
export function batchSize(step: number, exponentialFactor: number, maxUnavailable: number): number {
  if (exponentialFactor === 0) return maxUnavailable;
  const grown = Math.floor(Math.pow(exponentialFactor, step));
  return Math.max(1, Math.min(maxUnavailable, Number.isFinite(grown) ? grown : maxUnavailable));
}

/**
 * The next step of a zone-aware update. It waits while any pod terminates, any pod is missing, or any pod
 * already on the update revision is not Ready; otherwise it deletes the next batch: the first
 * `batchSize(step)` old pods of the first zone (in `oldPodsInOrder`) that still has some. The step grows
 * across zones and restarts at 0 when the update revision changes (a new rollout or a rollback: the pods
 * updated last are then deleted first).
 */
export function planUpdate(input: UpdatePlanInput): UpdateDecision {
  const { pods, updateRevision } = input;
  const state: RolloutState = input.state?.revision === updateRevision
    ? input.state
    : { revision: updateRevision, step: 0 };

  const old = oldPodsInOrder(pods, updateRevision);
  const terminating = pods.filter((p) => p.terminating).map((p) => p.name).sort();
  const live = pods.length - terminating.length;
  if (terminating.length > 0) {
    return { action: 'wait', state, reason: `waiting for ${terminating.length} terminating pod(s): ${list(terminating)}` };
  }
  if (live < input.replicas) {
    return { action: 'wait', state, reason: `waiting for ${input.replicas - live} missing pod(s) to be recreated (${live} of ${input.replicas} exist)` };
  }
  const notReady = pods.filter((p) => p.revision === updateRevision && !p.ready).map((p) => p.name).sort();
  if (notReady.length > 0) {
    return { action: 'wait', state, reason: `waiting for ${notReady.length} updated pod(s) to be Ready: ${list(notReady)}` };
  }
  if (old.length === 0) {
    return { action: 'done', state, reason: `all ${live} pods run revision ${updateRevision} and are Ready` };
  }

  const out = new Set(input.outOfServiceZones ?? []);
  const eligible = old.filter((p) => p.zone === undefined || !out.has(p.zone));
  if (eligible.length === 0) {
    const zones = [...new Set(old.map((p) => p.zone!))].sort();
    return { action: 'wait', state, reason: `waiting for a zonal shift to end: ${old.length} old pod(s) left, in zone(s) out of service: ${zones.join(', ')}` };
  }
  const zone = eligible[0].zone ?? UNKNOWN_ZONE;
  if (input.otherZonesReady) {
    const elsewhere = pods.filter((p) => !p.ready && (p.zone ?? UNKNOWN_ZONE) !== zone).map((p) => p.name).sort();
    if (elsewhere.length > 0) {
      return { action: 'wait', state, reason: `waiting for ${elsewhere.length} pod(s) outside zone ${zoneName(zone)} to be Ready before rolling it: ${list(elsewhere)}` };
    }
  }
  const inZone = eligible.filter((p) => (p.zone ?? UNKNOWN_ZONE) === zone);
  const size = batchSize(state.step, input.exponentialFactor, input.maxUnavailable);
  const batch = inZone.slice(0, size).map((p) => p.name);
  return {
    action: 'delete',
    zone,
    pods: batch,
    state: { revision: updateRevision, step: state.step + 1 },
    reason: `step ${state.step}: deleting ${batch.length} of ${inZone.length} old pod(s) in zone ` +
      `${zoneName(zone)} (batch size ${size}, ${old.length - batch.length} old pod(s) left after it)`,
  };
}

function zoneName(zone: string): string {
  return zone === UNKNOWN_ZONE ? '<unknown>' : zone;
}

function list(names: string[]): string {
  return names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')}, ...`;
}

/** Old-revision pods per zone (unknown zone as UNKNOWN_ZONE), for the ZoneAwareUpdate status. */
export function oldReplicasByZone(pods: readonly RolloutPod[], updateRevision: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of oldPodsInOrder(pods, updateRevision)) {
    const zone = p.zone ?? UNKNOWN_ZONE;
    counts.set(zone, (counts.get(zone) ?? 0) + 1);
  }
  return counts;
}
