/**
 * A workload that opts in to the zonal shift (its pods name the readiness gate `cdk8s-zones.dev/zone-in-service`)
 * but whose pods can only run in one zone, or that runs one replica: a shift of that zone keeps its pods in service,
 * since the shift's fail-safe never takes a workload's last pods that can serve (src/contract/zone-shift-fail-safe.ts).
 * The gate then moves none of its traffic, which its user should know before a shift.
 */
import { CheckWorkload } from './check-input';
import { AddFinding, FindingSeverity } from './model';
import { Bounds } from './placement';
import { ZONE_IN_SERVICE_CONDITION } from '../contract/zone-shift';

export function reportShiftGateHeld(
  w: CheckWorkload, replicas: number, bounds: Bounds, zones: readonly string[], add: AddFinding,
): void {
  const gated = w.pod.readinessGates?.some((g) => g.conditionType === ZONE_IN_SERVICE_CONDITION) ?? false;
  if (!gated || w.perNode || bounds.placed === 0) return;
  const where = zones.filter((_, i) => bounds.hi[i] > 0);
  const why = replicas === 1 ? 'it runs one replica' : where.length === 1 ? `its pods can only run in ${where[0]}` : undefined;
  if (why === undefined) return;
  add('shift-keeps-in-service', FindingSeverity.WARNING,
    `${why}, and it opts in to the zonal shift (readiness gate ${ZONE_IN_SERVICE_CONDITION}): a shift of that zone ` +
    'keeps its pods in service (the fail-safe never takes a workload\'s last pods that can serve), so it moves none of its traffic',
    'Run more than one replica spread across zones, so a shift can take one zone\'s pods out while the others serve.');
}
