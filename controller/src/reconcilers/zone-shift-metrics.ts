/**
 * The ZoneShift expiry gauge (`ZONE_SHIFT_EXPIRY`): one series per shift in force, with its zone and whether the
 * zone is declared lost, removed once the shift no longer holds (expired, deleted, invalid). The alert rules read
 * it: a shift active, or within an hour of its expiry (src/monitoring/controller-rules.ts).
 */
import { nextShiftExpiry, shiftInForce, ZoneShiftObject } from '../../../src/contract/zone-shift';
import { Metrics } from '../metrics';

type ExpiryLabels = { shift: string; zone: string; lost: string };

export class ShiftExpiryGauge {
  /** The labels of each shift's series, to remove it when the shift goes or its zone changes. */
  private readonly shown = new Map<string, ExpiryLabels>();

  constructor(private readonly gauge: Metrics['zoneShiftExpiry']) {}

  /** Shows the shift `name` as it is now (`shift` undefined: deleted). */
  show(name: string, shift: ZoneShiftObject | undefined, nowMs: number): void {
    const spec = shift && shiftInForce(shift, nowMs);
    const labels = spec && { shift: name, zone: spec.zone, lost: String(spec.lost === true) };
    const before = this.shown.get(name);
    if (before && (labels === undefined || before.zone !== labels.zone || before.lost !== labels.lost)) {
      this.gauge.remove(before);
      this.shown.delete(name);
    }
    if (shift && labels) {
      this.gauge.set(labels, nextShiftExpiry([shift], nowMs)! / 1000);
      this.shown.set(name, labels);
    }
  }
}
