/**
 * The contract of a zonal shift: a ZoneShift (cluster-scoped) takes one zone out of service until it expires or is
 * deleted. The CLI writes it, the controller acts on it: opted-in pods of the zone leave their Services' endpoints
 * (through a readiness gate), the zone's nodes take no new pods (a NoSchedule taint), Redis masters leave the zone,
 * ZoneAwareUpdate starts no wave in it. Pure (Node.js built-ins only): the controller image imports it.
 */
import { PROJECT_DOMAIN } from './labels';
import { LostZoneRecoveryStatus } from './lost-zone';
import { ROLLOUT_API_VERSION } from './rollout';
import { ZoneAnnotation } from './zone-annotation';
import { dnsLabelProblem, labelValueProblem } from '../kubernetes/kubernetes-names';
import { conditionHolds, isReady, isTerminating, PodLifeFields } from '../kubernetes/pod-life';
import { rfc3339Ms, RFC3339_EXAMPLE } from '../shared/times';

export const ZONE_SHIFT_KIND = 'ZoneShift';
export const ZONE_SHIFT_PLURAL = 'zoneshifts';
/** Their API path (cluster-scoped). */
export const ZONE_SHIFTS_PATH = `/apis/${ROLLOUT_API_VERSION}/${ZONE_SHIFT_PLURAL}`;
/** The longest a shift may last from its creation: 3 days, as Amazon's zonal shift. */
export const MAX_SHIFT_SECONDS = 3 * 24 * 3600;
/**
 * The pod condition the controller keeps True on every pod that names it as a readiness gate, but False on those
 * in a shifted zone: the pod is then not Ready, and its Services' EndpointSlices list it as not ready.
 */
export const ZONE_IN_SERVICE_CONDITION = `${PROJECT_DOMAIN}/zone-in-service`;
/** The NoSchedule taint on the nodes of a zone shifted cluster-wide (its value: the zone). */
export const ZONE_SHIFT_TAINT_KEY = `${PROJECT_DOMAIN}/zone-shift`;
/** Held by a ZoneShift until the controller has undone what it changed. */
export const ZONE_SHIFT_FINALIZER = `${PROJECT_DOMAIN}/undo-zone-shift`;

/**
 * A zonal shift took the pod out of service: its zone-in-service condition is False while its containers are
 * ready, so it would serve but for the shift. The budgets count it as no disruption (it serves nothing on purpose).
 */
export function isOutByShift(pod: PodLifeFields): boolean {
  const gate = pod.status?.conditions?.find((c) => c.type === ZONE_IN_SERVICE_CONDITION);
  return gate?.status === 'False' && conditionHolds(pod, 'ContainersReady') && !isReady(pod) && !isTerminating(pod);
}

/** What a node's spec says of its taints. */
export interface NodeTaints {
  readonly taints?: ReadonlyArray<{ readonly key?: string; readonly value?: string }>;
}

/** The zones whose nodes carry a zonal shift's taint (its value is the zone). */
export function zonesTaintedByShift(
  nodes: ReadonlyArray<{ readonly metadata?: unknown; readonly spec?: NodeTaints }>,
): Set<string> {
  return new Set(nodes.flatMap((n) => n.spec?.taints ?? [])
    .filter((t) => t.key === ZONE_SHIFT_TAINT_KEY && t.value)
    .map((t) => t.value!));
}

/** What a ZoneShift asks for. */
export interface ZoneShiftSpec {
  /**
   * The zone out of service: a node's zone label value (or its topology keys' values joined, as the zone annotation).
   */
  readonly zone: string;
  /** When the shift ends by itself (RFC 3339): after its creation, and at most `MAX_SHIFT_SECONDS` after it. */
  readonly expiresAt: string;
  /** Only these namespaces' pods, Redis clusters and rollouts; nodes are then left alone. Unset: the whole cluster. */
  readonly namespaces?: readonly string[];
  /** Why, for whoever reads it later. */
  readonly reason?: string;
  /**
   * The zone is lost for good: once none of its nodes answers, the opted-in StatefulSets' pods there are brought
   * back in the surviving zones (src/contract/lost-zone.ts).
   */
  readonly lost?: boolean;
}

/** One object a shift changed, undone when it ends. */
export interface ShiftChange {
  readonly kind: 'Node' | 'NodePool' | 'Pod' | 'RedisCluster';
  readonly namespace?: string;
  readonly name: string;
  /** What was changed, in words (e.g. `taint cdk8s-zones.dev/zone-shift=zone-a:NoSchedule`). */
  readonly change: string;
}

/** `Active` while it holds; `Ended` once expired and undone; `Invalid` when its spec breaks a rule (nothing done). */
export type ZoneShiftPhase = 'Active' | 'Ended' | 'Invalid';

/** What the controller writes on a ZoneShift. */
export interface ZoneShiftStatus {
  readonly observedGeneration?: number;
  readonly phase: ZoneShiftPhase;
  readonly message: string;
  /** Every object the shift changes now; empty once it has ended. */
  readonly changed: readonly ShiftChange[];
  /** When it ended (RFC 3339). */
  readonly endedAt?: string;
  /** What the lost-zone recovery did (only on a shift with `spec.lost`), written by its own reconciler. */
  readonly recovery?: LostZoneRecoveryStatus;
}

/** The rule a ZoneShift's spec breaks, or undefined; `createdAtMs`: when it was created (the bound of its expiry). */
export function zoneShiftProblem(spec: Partial<ZoneShiftSpec> | undefined, createdAtMs: number): string | undefined {
  const zone = spec?.zone;
  const isZone = typeof zone === 'string'
    && zone !== ''
    && !zone.split(ZoneAnnotation.VALUE_SEPARATOR).some((v) => v === '' || labelValueProblem(v));
  if (!isZone) {
    return `spec.zone ${JSON.stringify(zone)} must be a zone: a node's zone label value (or its topology keys' values joined with ` +
      `${ZoneAnnotation.VALUE_SEPARATOR}, as the zone annotation)`;
  }
  const expiresAt = spec?.expiresAt;
  const at = rfc3339Ms(expiresAt);
  if (at === undefined) return `spec.expiresAt ${JSON.stringify(expiresAt)} must be an RFC 3339 time such as ${RFC3339_EXAMPLE}`;
  const created = new Date(createdAtMs).toISOString();
  if (at <= createdAtMs) return `spec.expiresAt ${expiresAt} must be after the shift's creation (${created})`;
  if (at > createdAtMs + MAX_SHIFT_SECONDS * 1000) {
    return `spec.expiresAt ${expiresAt} must be at most ${MAX_SHIFT_SECONDS / 3600} hours after the shift's creation (${created}): ` +
      'a shift nobody ends must not outlast the impairment by days';
  }
  const namespaces: unknown = spec?.namespaces ?? [];
  if (!Array.isArray(namespaces)) return `spec.namespaces ${JSON.stringify(namespaces)} must be a list of namespace names`;
  const bad = namespaces.find((n) => typeof n !== 'string' || dnsLabelProblem(n));
  if (bad !== undefined) return `spec.namespaces: ${JSON.stringify(bad)} ${typeof bad === 'string' ? dnsLabelProblem(bad) : 'is not a namespace name'}`;
  const lost: unknown = spec?.lost;
  if (lost !== undefined && typeof lost !== 'boolean') return `spec.lost ${JSON.stringify(lost)} must be true or false`;
  return undefined;
}

/**
 * Whether a shift of `spec` covers `namespace` (a cluster-wide shift covers every namespace, and cluster-scoped
 * objects: `undefined`).
 */
export function shiftCovers(spec: ZoneShiftSpec, namespace: string | undefined): boolean {
  return shiftIsClusterWide(spec) || (namespace !== undefined && spec.namespaces!.includes(namespace));
}

/** Whether a shift of `spec` is cluster-wide (then it taints the zone's nodes). */
export function shiftIsClusterWide(spec: ZoneShiftSpec): boolean {
  return spec.namespaces === undefined || spec.namespaces.length === 0;
}

/** A ZoneShift as read from the API (the fields the rules need). */
export interface ZoneShiftObject {
  readonly metadata: {
    readonly name: string;
    readonly creationTimestamp?: string;
    readonly deletionTimestamp?: string;
  };
  readonly spec?: Partial<ZoneShiftSpec>;
}

/** The spec of a shift whose spec keeps the rules (`zoneShiftProblem`, from its creation), else undefined. */
export function validShift(shift: ZoneShiftObject): ZoneShiftSpec | undefined {
  const created = rfc3339Ms(shift.metadata.creationTimestamp);
  const keepsTheRules = created !== undefined && zoneShiftProblem(shift.spec, created) === undefined;
  return keepsTheRules ? shift.spec as ZoneShiftSpec : undefined;
}

/** The problem of a shift's spec, measured from its creation (now, for one not created yet). */
export function shiftProblem(shift: ZoneShiftObject, nowMs: number): string | undefined {
  return zoneShiftProblem(shift.spec, rfc3339Ms(shift.metadata.creationTimestamp) ?? nowMs);
}

/** The spec of a shift that holds at `nowMs`: valid, not expired, not being deleted; else undefined. */
export function shiftInForce(shift: ZoneShiftObject, nowMs: number): ZoneShiftSpec | undefined {
  if (shift.metadata.deletionTimestamp !== undefined || validShift(shift) === undefined) return undefined;
  const spec = shift.spec as ZoneShiftSpec;
  return nowMs < rfc3339Ms(spec.expiresAt)! ? spec : undefined;
}

/**
 * The zones out of service for `namespace`'s workloads at `nowMs` (`undefined`: cluster-scoped objects such as nodes).
 */
export function outOfServiceZones(
  shifts: readonly ZoneShiftObject[],
  namespace: string | undefined,
  nowMs: number,
): Set<string> {
  const zones = new Set<string>();
  for (const shift of shifts) {
    const spec = shiftInForce(shift, nowMs);
    if (spec && shiftCovers(spec, namespace)) zones.add(spec.zone);
  }
  return zones;
}

/** When the next of `shifts` in force at `nowMs` expires (ms), to look again then; undefined when none is. */
export function nextShiftExpiry(shifts: readonly ZoneShiftObject[], nowMs: number): number | undefined {
  const ends = shifts
    .map((s) => shiftInForce(s, nowMs))
    .filter((s): s is ZoneShiftSpec => s !== undefined)
    .map((s) => rfc3339Ms(s.expiresAt)!);
  return ends.length > 0 ? Math.min(...ends) : undefined;
}
