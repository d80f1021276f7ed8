/**
 * A drill's verdict on each workload: the zone check's prediction for the drilled zone beside what was observed.
 * The prediction is a worst case over the placements the scheduler may choose, so an observation better than it
 * agrees; one worse than it (fewer survivors, more replacements left Pending, a drain blocked that the check
 * called free) contradicts it: a bug in the check, or a cluster unlike the objects it read.
 */
import { Observation } from './drill-observe';
import { WorkloadReport, ZoneLoss } from '../check/model';
import { DrillMode } from '../contract/drill';

/** The prediction for one workload and zone. */
export interface Prediction {
  readonly survives: boolean;
  /** Replicas left in the worst case. */
  readonly survivors: number;
  readonly needed: number;
  readonly neededZones?: number;
  readonly neededBecause: string;
  readonly replacementsPending: number;
  readonly drainBlocked: boolean;
}

/** The verdict on one workload. */
export interface WorkloadVerdict {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** Undefined when the check does not model the workload (it says why in its report). */
  readonly predicted?: Prediction;
  readonly observed: Observation;
  /** Below what it needs during the drill, having had it before. */
  readonly broke: boolean;
  /** Already below what it needs before the drill (then it is not held to the prediction). */
  readonly brokenBefore: boolean;
  /** How the observation contradicts the prediction; empty when it agrees. */
  readonly contradictions: readonly string[];
}

/** The prediction of `report` for losing `zone`. */
export function predictionFor(report: WorkloadReport, zone: string): Prediction | undefined {
  const loss: ZoneLoss | undefined = report.zoneLoss.find((l) => l.zone === zone);
  if (loss === undefined) return undefined;
  return {
    survives: loss.survives,
    survivors: loss.survivors,
    needed: report.needed,
    neededZones: report.neededZones,
    neededBecause: report.neededBecause,
    replacementsPending: loss.replacementsPending,
    drainBlocked: loss.drainBlocked,
  };
}

/** Whether `ready` replicas in `readyZones` zones meet what the prediction says the workload needs. */
function meetsNeed(p: Prediction, ready: number, readyZones: number): boolean {
  return p.neededZones !== undefined ? readyZones >= p.neededZones : ready >= p.needed;
}

/** The verdict on one workload drilled in `mode`. */
export function verdict(
  w: { kind: string; namespace: string; name: string },
  predicted: Prediction | undefined,
  observed: Observation,
  mode: DrillMode,
): WorkloadVerdict {
  const need = predicted ?? { needed: 1, neededZones: undefined } as Prediction;
  const readyZonesBefore = observed.before.readyZones + (observed.before.readyInZone > 0 ? 1 : 0);
  const brokenBefore = !meetsNeed(need, observed.before.ready, readyZonesBefore);
  const broke = !brokenBefore && !meetsNeed(need, observed.minReady, observed.minReadyZones);
  const contradictions: string[] = [];
  const whole = observed.before.ready >= observed.before.desired && observed.before.pending === 0;
  if (predicted !== undefined && whole) {
    if (observed.minReady < predicted.survivors) {
      contradictions.push(`${observed.minReady} replicas were ready at the fewest; the check's worst case left ${predicted.survivors}`);
    }
    if (observed.end.pending > predicted.replacementsPending) {
      contradictions.push(`${observed.end.pending} pods stayed Pending; the check's worst case left ${predicted.replacementsPending}`);
    }
    if (predicted.survives && broke) contradictions.push(`the check said it survives; it fell below what it needs (${predicted.neededBecause})`);
    if (mode === 'drain' && observed.end.inZone > 0 && observed.evictionsRefused > 0 && !predicted.drainBlocked) {
      contradictions.push(`the drain stayed blocked (${observed.end.inZone} pods left in the zone, evictions refused); the check said a drain is not blocked`);
    }
  }
  return { ...w, predicted, observed, broke, brokenBefore, contradictions };
}

/** Whether the drill failed: a workload broke, or an observation contradicts its prediction. */
export function drillFailed(verdicts: readonly WorkloadVerdict[]): boolean {
  return verdicts.some((v) => v.broke || v.contradictions.length > 0);
}
