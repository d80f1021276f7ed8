/**
 * The contract of bringing replicated state back from a lost zone: a ZoneShift with `spec.lost` declares its zone
 * lost for good. Then, once none of the zone's nodes answers, the controller deletes the lost zone's pods of the
 * StatefulSets that opted in (and their claims bound to volumes in that zone), a few at a time, so that the
 * StatefulSet controller makes them again in the surviving zones with empty volumes, and their data is copied
 * back from the replicas that live on. Every deletion is recorded on the shift's status. Pure (Node.js built-ins
 * only): the controller image imports it. docs/runbooks/zone-lost.md.
 */
import { PROJECT_DOMAIN } from './labels';

/**
 * A StatefulSet's opt-in, set by its construct (`ZoneController.recoverFromLostZone`) or by hand: its value is the
 * most of its pods brought back at once (what its quorum allows), a whole number from 1 to its replicas less 1.
 * Only for data replicated to other zones: the recovery deletes the lost zone's copy.
 */
export const LOST_ZONE_RECOVERY_ANNOTATION = `${PROJECT_DOMAIN}/lost-zone-recovery`;

/**
 * How long a node's Lease may go unrenewed before the node counts as not answering (kubelets renew every 10 s;
 * the node lifecycle controller's default grace is 40 s). A node answers while Ready or while its Lease is fresher.
 */
export const NODE_SILENT_SECONDS = 40;

/**
 * Whether a node answers: Ready, or its Lease renewed within `NODE_SILENT_SECONDS` (`leaseRenewedMs`: undefined
 * when it has none). A zone none of whose nodes answers is the only one ever declared lost by the autoshift, or
 * recovered from.
 */
export function nodeAnswers(ready: boolean, leaseRenewedMs: number | undefined, nowMs: number): boolean {
  return ready || (leaseRenewedMs !== undefined && nowMs - leaseRenewedMs <= NODE_SILENT_SECONDS * 1000);
}

/** Why the opt-in `value` of a StatefulSet of `replicas` breaks the rule, or undefined. */
export function recoveryAnnotationProblem(value: string | undefined, replicas: number): string | undefined {
  const atOnce = Number(value);
  if (value === undefined || !/^[0-9]+$/.test(value) || atOnce < 1) {
    return `${LOST_ZONE_RECOVERY_ANNOTATION} ${JSON.stringify(value)} must be a whole number of pods, at least 1: ` +
      'the most of its pods brought back at once';
  }
  if (atOnce >= replicas) {
    return `${LOST_ZONE_RECOVERY_ANNOTATION} ${atOnce} must be below its replicas (${replicas}): ` +
      'at least one replica must hold the data while the others come back empty';
  }
  return undefined;
}

/** One pod of a lost zone deleted, with the claims deleted before it, so that it comes back elsewhere. */
export interface RecoveredPod {
  readonly namespace: string;
  readonly statefulSet: string;
  readonly pod: string;
  /** The deleted pod's uid: a pod of that name with another uid is the one made again. */
  readonly uid: string;
  /** Its claims bound to volumes in the lost zone, deleted with it. */
  readonly claims: readonly string[];
  /** When it was decided (RFC 3339). */
  readonly at: string;
}

/**
 * `Waiting`: a node of the zone still answers, nothing is deleted; `Recovering`: pods are being brought back;
 * `Recovered`: every opted-in pod of the zone is back elsewhere; `Invalid`: the zone has no node and no volume (a
 * mistaken zone), nothing is done.
 */
export type LostZoneRecoveryPhase = 'Waiting' | 'Recovering' | 'Recovered' | 'Invalid';

/** What the recovery writes on a lost zone's ZoneShift (`status.recovery`). */
export interface LostZoneRecoveryStatus {
  readonly phase: LostZoneRecoveryPhase;
  readonly message: string;
  /** Every pod deleted so far, oldest first. */
  readonly recovered: readonly RecoveredPod[];
  /**
   * The opted-in StatefulSets held back, and why: left alone (no Ready pod outside the lost zone, pinned to it, a bad
   * opt-in) or waiting their turn (at most their opt-in's count at once).
   */
  readonly held: readonly string[];
}
