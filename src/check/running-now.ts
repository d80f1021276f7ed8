/**
 * What runs now, beside what the spec allows (`check --live`, pure): a spread acts only when pods are scheduled,
 * so pods placed before it (or packed by an earlier outage) may sit where the spec would never put them. A
 * workload is judged by the worse of the two: per zone lost, the fewer survivors, and the pods a zone may hold at
 * most and is sure to hold at least over both.
 */
import { CheckWorkload } from './check-input';
import { AddFinding, FindingSeverity, ZoneLoss } from './model';
import { Bounds } from './placement';

/** The layout of the pods running now, as bounds (each zone holds exactly its pods), or none without live state. */
export function runningBounds(w: CheckWorkload, zones: readonly string[]): Bounds | undefined {
  if (w.running === undefined) return undefined;
  const now = zones.map((z) => w.running![z] ?? 0);
  return { lo: now, hi: now, placed: now.reduce((a, b) => a + b, 0) };
}

/** The worse of the spec's and now's layouts: the fewest pods a zone is sure of, the most it may hold. */
export function widerBounds(spec: Bounds, now: Bounds): Bounds {
  return {
    lo: spec.lo.map((l, z) => Math.min(l, now.lo[z])),
    hi: spec.hi.map((h, z) => Math.max(h, now.hi[z])),
    placed: Math.min(spec.placed, now.placed),
  };
}

/** Per zone lost, the worse of losing it with the spec's layout and with the pods where they run now. */
export function worseLosses(spec: readonly ZoneLoss[], now: readonly ZoneLoss[]): ZoneLoss[] {
  return spec.map((s, z) => ({
    ...s,
    survivors: Math.min(s.survivors, now[z].survivors),
    ...(s.zonesLeft !== undefined ? { zonesLeft: Math.min(s.zonesLeft, now[z].zonesLeft ?? s.zonesLeft) } : {}),
    survives: s.survives && now[z].survives,
    replacementsPending: Math.max(s.replacementsPending, now[z].replacementsPending),
    drainBlocked: s.drainBlocked || now[z].drainBlocked,
  }));
}

/** Says where the pods run now when that is worse than the spec allows (a loss it survives on paper but not now). */
export function reportRunningNow(
  zones: readonly string[], now: Bounds, spec: readonly ZoneLoss[], nowLosses: readonly ZoneLoss[], add: AddFinding,
): void {
  const worse = zones.filter((_, z) => spec[z].survives && !nowLosses[z].survives);
  if (worse.length === 0) return;
  add('placed-now', FindingSeverity.ERROR,
    `its pods run now ${zones.map((z, i) => `${now.hi[i]} in ${z}`).join(', ')}: losing ${worse.join(', ')} would take more `
    + 'than its spec allows (a spread acts only when pods are scheduled, and a pod whose volume is zonal comes back only '
    + 'in its zone)',
    'Move the pods where the spec puts them: delete them one at a time so the scheduler places each again (a pod with a '
    + 'zonal volume needs its claim moved first).');
}
