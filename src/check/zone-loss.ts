/**
 * What losing each zone leaves of a workload placed as placement.ts says: survivors, whether they meet its need,
 * replacements that stay Pending, whether a drain is blocked; and the findings when a zone loss breaks it.
 */
import { CheckWorkload } from './check-input';
import { fewerThanMinDomains, HardConstraint } from './constraints';
import { AddFinding, FindingSeverity, ZoneLoss } from './model';
import { Bounds, Placement } from './placement';
import { Need, ringSurvives, zonesLeft } from './workload-needs';
import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { HardSpread, placementBounds } from '../topology/spread-bounds';

/**
 * What losing each zone leaves: survivors, whether they meet the need, replacements Pending, whether a drain is
 * blocked.
 */
export function zoneLosses(
  w: CheckWorkload, zones: readonly string[], placed: Placement, bounds: Bounds, need: Need,
  budgetNeeds: number | undefined,
): ZoneLoss[] {
  const { caps, zoneSpread, constraints } = placed;
  return zones.map((zone, z) => {
    const survivors = bounds.survivors?.[z] ?? bounds.placed - bounds.hi[z];
    const lost = bounds.hi[z];
    // a hard constraint the scheduler enforces but the check cannot model may keep every replacement Pending
    const pending = constraints.unmodelled ? lost
      : replacementsPending(w, z, lost, bounds, caps, zoneSpread, constraints.zone);
    // A budget allows an eviction only while the pods left healthy stay at its need, and a replacement exists
    // only after its eviction: the zone's first eviction needs placed - 1, and its pending replacements
    // (evicted last) leave placed - pending.
    const drainBlocked = budgetNeeds !== undefined && lost > 0 && bounds.placed - Math.max(1, pending) < budgetNeeds;
    const forms = need.forms === undefined || bounds.placed >= need.forms;
    const survives = forms && (need.ring !== undefined ? ringSurvives(need.ring, bounds.lo, bounds.hi, z)
      : need.zoneMajority ? zonesLeft(bounds.lo, bounds.hi, z) : survivors >= need.count);
    return { zone, survivors, survives, replacementsPending: pending, drainBlocked };
  });
}

/**
 * Replacements for the pods of lost zone `z` that stay Pending: all of them for a StatefulSet with volumes
 * (its claims are bound to volumes in that zone); with a hard zone spread, the lost zone's nodes (NotReady)
 * still count as a domain with no pods unless nodeTaintsPolicy is Honor, so no other zone may grow beyond
 * maxSkew; without one, they pack into the other zones' room.
 */
function replacementsPending(
  w: CheckWorkload, z: number, lost: number, bounds: Bounds, caps: number[], spread: HardSpread | undefined,
  c: HardConstraint | undefined,
): number {
  if (lost === 0 || w.runToCompletion) return 0;
  if (w.claimClasses.length > 0) return lost;
  const others = caps.map((_, i) => i).filter((i) => i !== z);
  if (!spread) return Math.max(0, lost - (others.reduce((s, i) => s + caps[i], 0) - (bounds.placed - lost)));
  const stillDomain = c?.nodeTaintsPolicy !== 'Honor';
  const domainsLeft = spread.domains.filter((d, i) => d && i !== z).length;
  if (stillDomain || spread.minIsZero || (c !== undefined && fewerThanMinDomains(c, domainsLeft))) {
    // the minimum is 0: another zone takes a replacement only while it holds fewer than maxSkew pods
    const room = others.reduce((s, i) => s + Math.max(0, Math.min(caps[i], spread.maxSkew) - bounds.lo[i]), 0);
    return Math.max(0, lost - room);
  }
  const without = { ...spread, domains: spread.domains.map((d, i) => d && i !== z) };
  const after = placementBounds(bounds.placed, caps.map((cap, i) => (i === z ? 0 : cap)), without);
  return Math.max(0, bounds.placed - after.placed);
}

/**
 * The findings when losing a zone leaves fewer than the workload needs: one replica, the losses, no hard zone
 * spread.
 */
export function reportLosses(
  w: CheckWorkload, replicas: number, losses: ZoneLoss[], need: Need, spread: HardSpread | undefined,
  hasZoneSpread: boolean, add: AddFinding,
): void {
  const failing = losses.filter((l) => !l.survives);
  if (failing.length === 0) return;
  const replicasFrom = w.replicasFrom;
  // the library's construct is named only to users of the library (its own objects)
  const spreadHint = w.fromLibrary ? ' (in cdk8s-zones: Zonal.spread)' : '';
  if (replicas === 1) {
    add('single-replica', FindingSeverity.ERROR,
      `it has one replica${replicasFrom ? ` (${replicasFrom})` : ''}: losing its zone loses it`,
      'Run at least 2 replicas spread across zones (3 for a quorum).');
  }
  add('zone-loss', FindingSeverity.ERROR,
    `${replicasFrom ? `of its ${replicas} replicas (${replicasFrom}), ` : ''}` +
    `losing ${failing.map((l) => `${l.zone} leaves ${l.survivors}`).join(', ')} in the worst case; ` +
    `it needs ${need.zoneMajority ? need.because : `${need.count} (${need.because})`}`,
    spread
      ? 'Add replicas or lower maxSkew so that no zone holds more than it can lose.'
      : `Spread it across zones: a topologySpreadConstraint on ${WELL_KNOWN_ZONE_KEY} ` +
        `with whenUnsatisfiable: DoNotSchedule${spreadHint}.`);
  if (!hasZoneSpread && replicas > 1) {
    add('no-hard-zone-spread', FindingSeverity.WARNING,
      'nothing keeps its pods from all landing in one zone (no DoNotSchedule spread constraint on the zone key)',
      `Add a topologySpreadConstraint on ${WELL_KNOWN_ZONE_KEY} with whenUnsatisfiable: DoNotSchedule${spreadHint}.`);
  }
}
