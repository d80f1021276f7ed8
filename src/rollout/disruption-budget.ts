/**
 * The ZoneDisruptionBudget planner: per-zone disruptions allowed, and the verdict on one eviction. Pure and
 * deterministic; the controller observes pods and their owners and asks this module.
 *
 * Unlike aws/zone-aware-controllers (bug #28), a pod that is expected but missing (deleted and not yet
 * recreated) counts as unavailable in its zone, so two evictions in two zones cannot both pass while the
 * first pod is gone. When the missing pod's zone is unknown, it counts as unavailable in every zone.
 *
 * A zone under a zonal shift is the zone being disrupted already, on purpose: the pods the shift took out of
 * service serve nothing, so they may always be evicted and count against no budget, and what is unavailable in
 * that zone holds no other zone back. The other zones are paced as without a shift: one at a time, at most
 * maxUnavailable each.
 */

/** A pod the budget selects. */
export interface BudgetPod {
  readonly name: string;
  /** The zone of the pod's node; undefined when unscheduled or the node lacks the zone label. */
  readonly zone?: string;
  /** Ready and not terminating. */
  readonly healthy: boolean;
  /** Out of service by a zonal shift (its zone-in-service gate False): not healthy, but no disruption either. */
  readonly outByShift?: boolean;
}

/** A pod the owners expect that does not exist (or is terminating and will be replaced). */
export interface MissingPod {
  /** What the pod is (e.g. `web-3` for a StatefulSet ordinal, `ReplicaSet web-6f9c (1 of 3)`). */
  readonly name: string;
  /** The zone it will come back to, when known (a StatefulSet pod's zonal PVC, or where it last ran). */
  readonly zone?: string;
}

export interface BudgetInput {
  readonly pods: readonly BudgetPod[];
  readonly missing: readonly MissingPod[];
  /** Absolute maxUnavailable per zone (already scaled against the expected total). */
  readonly maxUnavailable: number;
  /** Zones under a zonal shift (their nodes tainted by it); a zone with a pod `outByShift` is one too. */
  readonly shiftedZones?: ReadonlySet<string>;
}

export interface ZoneBudget {
  readonly zone: string;
  /** Pods that should exist in the zone: existing ones plus missing ones known to belong here. */
  readonly expected: number;
  readonly healthy: number;
  /** Pods neither healthy nor out of service by a shift (missing ones included). */
  readonly unavailable: number;
  readonly disruptionsAllowed: number;
  /** Under a zonal shift: what is unavailable here holds no other zone back. */
  readonly shifted: boolean;
  /** Pods the shift took out of service. */
  readonly outByShift: number;
}

export interface Budget {
  /** One entry per zone, sorted by zone; pods without a zone are under UNKNOWN_BUDGET_ZONE (listed last). */
  readonly zones: ZoneBudget[];
  readonly expected: number;
  readonly healthy: number;
  readonly maxUnavailable: number;
}

/** The zone name under which pods without a known zone are counted. */
export const UNKNOWN_BUDGET_ZONE = '<unknown>';

export function computeBudget(input: BudgetInput): Budget {
  const byZone = new Map<string, { expected: number; healthy: number; outByShift: number }>();
  const entry = (zone: string | undefined) => {
    const key = zone ?? UNKNOWN_BUDGET_ZONE;
    let e = byZone.get(key);
    if (!e) byZone.set(key, e = { expected: 0, healthy: 0, outByShift: 0 });
    return e;
  };
  for (const p of input.pods) {
    const e = entry(p.zone);
    e.expected++;
    if (p.healthy) e.healthy++;
    else if (p.outByShift) e.outByShift++;
  }
  for (const m of input.missing) entry(m.zone).expected++;

  // a pod taken out by a shift says its zone is shifted, even when the shift left the nodes alone (namespaced)
  const shifted = (zone: string) => zone !== UNKNOWN_BUDGET_ZONE
    && ((input.shiftedZones?.has(zone) ?? false) || byZone.get(zone)!.outByShift > 0);
  const unavailable = new Map([...byZone].map(([z, e]) => [z, e.expected - e.healthy - e.outByShift]));
  const zones = [...byZone.keys()].sort(compareZoneNames).map((zone): ZoneBudget => {
    const e = byZone.get(zone)!;
    const elsewhere = [...unavailable].some(([z, u]) => z !== zone && u > 0 && !shifted(z));
    // Pods without a known zone cannot be disrupted zone-safely: their group never allows a disruption.
    const unavailableHere = unavailable.get(zone)!;
    const allowed = zone === UNKNOWN_BUDGET_ZONE || elsewhere ? 0 : Math.max(0, input.maxUnavailable - unavailableHere);
    return {
      zone,
      expected: e.expected,
      healthy: e.healthy,
      unavailable: unavailableHere,
      disruptionsAllowed: allowed,
      shifted: shifted(zone),
      outByShift: e.outByShift,
    };
  });
  return {
    zones,
    expected: zones.reduce((s, z) => s + z.expected, 0),
    healthy: zones.reduce((s, z) => s + z.healthy, 0),
    maxUnavailable: input.maxUnavailable,
  };
}

function compareZoneNames(a: string, b: string): number {
  if (a === b) return 0;
  if (a === UNKNOWN_BUDGET_ZONE) return 1;
  if (b === UNKNOWN_BUDGET_ZONE) return -1;
  return a < b ? -1 : 1;
}

export interface EvictionVerdict {
  readonly allowed: boolean;
  /** The pod's zone, or UNKNOWN_BUDGET_ZONE. */
  readonly zone: string;
  readonly reason: string;
}

/**
 * May `pod` be evicted under `budget`? Denied when the pod's zone is unknown (its node lacks the zone
 * label), when another zone has unavailable pods (including missing ones), or when its own zone has used
 * up its budget. A pod that is already unhealthy may go when no other zone is disrupted: evicting it does
 * not lower availability. A pod a zonal shift took out of service may always go; a shifted zone's unavailable
 * pods hold no other zone back.
 */
export function evictionVerdict(budget: Budget, pod: BudgetPod): EvictionVerdict {
  if (pod.zone === undefined) {
    return { allowed: false, zone: UNKNOWN_BUDGET_ZONE, reason: `pod ${pod.name} has no zone (unscheduled, or its node lacks the zone label): a zone-safe eviction cannot be decided` };
  }
  if (pod.outByShift) {
    return { allowed: true, zone: pod.zone, reason: `pod ${pod.name} is out of service by a zonal shift of zone ${pod.zone}: evicting it lowers nothing that serves` };
  }
  const others = budget.zones.filter((z) => z.zone !== pod.zone && z.unavailable > 0 && !z.shifted);
  if (others.length > 0) {
    return {
      allowed: false,
      zone: pod.zone,
      reason: `zone(s) ${others.map((z) => `${z.zone} (${z.unavailable} unavailable)`).join(', ')} already disrupted; only evictions in the same zone may proceed`,
    };
  }
  const own = budget.zones.find((z) => z.zone === pod.zone);
  if (!pod.healthy) {
    return { allowed: true, zone: pod.zone, reason: `pod ${pod.name} is already unavailable and no other zone is disrupted` };
  }
  if (!own || own.disruptionsAllowed < 1) {
    return {
      allowed: false,
      zone: pod.zone,
      reason: `zone ${pod.zone} has ${own?.unavailable ?? 0} unavailable pod(s), maxUnavailable ${budget.maxUnavailable}: no disruption allowed`,
    };
  }
  return { allowed: true, zone: pod.zone, reason: `zone ${pod.zone} allows ${own.disruptionsAllowed} more disruption(s)` };
}

/** A workload that owns pods the budget selects: where the expected pod count comes from. */
export interface BudgetOwner {
  readonly kind: 'StatefulSet' | 'ReplicaSet';
  readonly name: string;
  /** spec.replicas: how many pods the owner wants. */
  readonly replicas: number;
  /** A StatefulSet's first ordinal (spec.ordinals.start). @default 0 */
  readonly startOrdinal?: number;
  /** Names of the owner's existing pods that are not terminating. */
  readonly activePods: readonly string[];
  /** Names of the owner's terminating pods. */
  readonly terminatingPods?: readonly string[];
  /** Where a StatefulSet pod lives when it exists: pod name -> zone (its zonal PVC, or where it last ran). */
  readonly knownZones?: Readonly<Record<string, string>>;
}

/**
 * The pods the owners expect but that do not exist. A StatefulSet's missing pods are its ordinals without a
 * pod (a terminating pod still holds its name and counts as an unhealthy pod, not a missing one); their
 * zone comes from `knownZones`, else unknown. A ReplicaSet's missing pods are `replicas` minus its active
 * pods; the scheduler has not picked a zone for them, so their zone is unknown.
 */
export function missingPods(owners: readonly BudgetOwner[]): MissingPod[] {
  const missing: MissingPod[] = [];
  for (const o of owners) {
    if (o.kind === 'StatefulSet') {
      const present = new Set([...o.activePods, ...(o.terminatingPods ?? [])]);
      const start = o.startOrdinal ?? 0;
      for (let i = start; i < start + o.replicas; i++) {
        const name = `${o.name}-${i}`;
        if (!present.has(name)) missing.push({ name, zone: o.knownZones?.[name] });
      }
    } else {
      for (let i = o.activePods.length; i < o.replicas; i++) {
        missing.push({ name: `ReplicaSet ${o.name} (${i + 1} of ${o.replicas})` });
      }
    }
  }
  return missing;
}
