/**
 * The contract of bringing replicated state back from a lost zone: a ZoneShift with `spec.lost` declares its zone
 * lost for good. Then, once none of the zone's nodes answers, the controller deletes the lost zone's pods of the
 * StatefulSets that opted in (and their claims bound to volumes in that zone), a few at a time, so that the
 * StatefulSet controller makes them again in the surviving zones with empty volumes, and their data is copied
 * back from the replicas that live on. Every deletion is recorded on the shift's status. Pure (Node.js built-ins
 * only): the controller image imports it. docs/runbooks/zone-lost.md.
 */
import { PROJECT_DOMAIN } from './labels';
import { requiredNodeTerms, ZoneRequirement, zoneOfTerms } from '../kubernetes/pinned-zone';

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

/**
 * Why the opt-in `value` of a StatefulSet of `replicas` breaks the rule, or undefined. A StatefulSet pinned to one
 * zone, one of a zone group (its copies live in the other zones' StatefulSets), may bring all its pods back at once.
 */
export function recoveryAnnotationProblem(
  value: string | undefined, replicas: number, pinnedInZoneGroup = false,
): string | undefined {
  const atOnce = Number(value);
  if (value === undefined || !/^[0-9]+$/.test(value) || atOnce < 1) {
    return `${LOST_ZONE_RECOVERY_ANNOTATION} ${JSON.stringify(value)} must be a whole number of pods, at least 1: ` +
      'the most of its pods brought back at once';
  }
  if (pinnedInZoneGroup) {
    return atOnce > replicas ? `${LOST_ZONE_RECOVERY_ANNOTATION} ${atOnce} must be at most its replicas (${replicas})` : undefined;
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

/**
 * The node labels that let a zone's pinned pods stand in elsewhere, `stand-in.cdk8s-zones.dev/<zone>`. A StatefulSet
 * pinned to a zone (one of a zone group, one per zone) that opts in carries, ORed with its zone term, a required node
 * affinity term on its zone's label (`standInTerm`). The controller puts the label on the other zones' nodes while
 * the zone is declared lost, and keeps it there while any of those pods, or their claims, are outside their zone: a
 * stand-in restarted later must find a node beside its volume.
 */
export const STAND_IN_LABEL_DOMAIN = `stand-in.${PROJECT_DOMAIN}`;

/** The label a node carries to take stand-ins for `zone`'s pinned pods. */
export function standInLabel(zone: string): string {
  return `${STAND_IN_LABEL_DOMAIN}/${zone}`;
}

/** A required node affinity term (its requirements ANDed; the terms of a pod are ORed). */
export interface SelectorTerm {
  readonly matchExpressions?: readonly ZoneRequirement[];
}

/** The required node affinity term, ORed with the zone's own, that accepts `zone`'s stand-in nodes. */
export function standInTerm(zone: string): { matchExpressions: Array<{ key: string; operator: 'Exists' }> } {
  return { matchExpressions: [{ key: standInLabel(zone), operator: 'Exists' }] };
}

/** The zone whose stand-in nodes `term` accepts (it is exactly `standInTerm(zone)`), if any. */
export function standInZoneOfTerm(term: SelectorTerm): string | undefined {
  const [only, ...rest] = term.matchExpressions ?? [];
  const prefix = `${STAND_IN_LABEL_DOMAIN}/`;
  const isStandIn = only !== undefined && rest.length === 0 && only.operator === 'Exists' && only.key?.startsWith(prefix);
  return isStandIn ? only.key!.slice(prefix.length) : undefined;
}

/**
 * Where a pod template pins its pods for the recovery (as `pinnedZone`, its stand-in term aside): the zone of its
 * nodeSelector, or the one zone all its other required terms name; and whether it carries that zone's stand-in term
 * (a nodeSelector pin never does: it is ANDed with the terms, not ORed).
 */
export function recoveryPin(podSpec: any, zoneKeys: readonly string[]): { zone?: string; standIn: boolean } {
  const bySelector = zoneKeys.map((k) => podSpec?.nodeSelector?.[k]).find((v) => typeof v === 'string');
  if (bySelector !== undefined) return { zone: bySelector, standIn: false };
  const terms: SelectorTerm[] = requiredNodeTerms(podSpec);
  const zone = zoneOfTerms(terms.filter((t) => standInZoneOfTerm(t) === undefined), zoneKeys);
  return { zone, standIn: zone !== undefined && terms.some((t) => standInZoneOfTerm(t) === zone) };
}
