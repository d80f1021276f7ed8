/**
 * What every format of a zone report (text, SARIF, HTML) says the same way: how a workload is named, whether
 * it survives, and the order findings are listed in.
 */
import { FindingSeverity, WorkloadReport, ZoneFinding, ZoneLoss, ZoneReportData } from './model';

/** A workload as `kind/namespace/name` (namespace `-` when the manifest sets none). */
export function workloadId(w: { readonly kind: string; readonly namespace?: string; readonly name: string }): string {
  return `${w.kind}/${w.namespace ?? '-'}/${w.name}`;
}

/**
 * What the workload needs, as a cell shows it: replicas, zones (`2 zones`) for a group that needs a majority of
 * its zones, or the group a member is judged with (`group logs-ingester`).
 */
export function neededText(w: WorkloadReport): string {
  if (w.zoneGroup !== undefined) return `group ${w.zoneGroup}`;
  return w.neededZones !== undefined ? `${w.neededZones} zone${w.neededZones === 1 ? '' : 's'}` : String(w.needed);
}

/**
 * What losing a zone leaves against what it needs: `left/needed` replicas, `left/needed zones`, or a group member's
 * replicas left.
 */
export function leftText(w: WorkloadReport, loss: ZoneLoss): string {
  if (w.zoneGroup !== undefined) return String(loss.survivors);
  return w.neededZones !== undefined && loss.zonesLeft !== undefined
    ? `${loss.zonesLeft}/${w.neededZones} zones`
    : `${loss.survivors}/${w.needed}`;
}

/** Whether the workload survives losing any one zone. */
export function survivesAnyZone(w: WorkloadReport): boolean {
  return Object.values(w.survives).every((s) => s);
}

/** The zones whose loss breaks the workload, in the report's zone order. */
export function lostZones(data: ZoneReportData, w: WorkloadReport): string[] {
  return data.zones.filter((z) => w.survives[z] === false);
}

/** One finding with what it is about: a workload, or the input as a whole (`workload` undefined). */
export interface LocatedFinding {
  readonly finding: ZoneFinding;
  readonly workload?: WorkloadReport;
}

const RANK: Record<string, number> = {
  [FindingSeverity.ERROR]: 0,
  [FindingSeverity.WARNING]: 1,
  [FindingSeverity.INFO]: 2,
};

/** 0 for errors, 1 for warnings, 2 for infos (3 for a severity the model does not know). */
export function severityRank(severity: string): number {
  return RANK[severity] ?? 3;
}

/**
 * Every finding, the worst first; the input's own findings before the workloads' at equal severity, then report order.
 */
export function allFindings(data: ZoneReportData): LocatedFinding[] {
  const located: LocatedFinding[] = [
    ...data.findings.map((finding) => ({ finding })),
    ...data.workloads.flatMap((workload) => workload.findings.map((finding) => ({ finding, workload }))),
  ];
  // Array.prototype.sort is stable: equal severities keep the report's order.
  return located.sort((a, b) => severityRank(a.finding.severity) - severityRank(b.finding.severity));
}

/** The survival summary line every format shows. */
export function verdict(data: ZoneReportData): string {
  const failing = data.workloads.filter((w) => !survivesAnyZone(w)).length;
  const total = data.workloads.length;
  if (total === 0) return 'No workloads found.';
  if (failing === 0) return total === 1 ? 'The workload survives losing any one zone.' : `All ${total} workloads survive losing any one zone.`;
  return `${failing} of ${total} workload${total === 1 ? '' : 's'} do${failing === 1 ? 'es' : ''} not survive losing a zone.`;
}

/** The rule reported for a workload that does not survive a zone loss when no error finding of its own says so. */
export const ZONE_LOSS_RULE = 'zone-loss';

/**
 * A `zone-loss` error for each workload that does not survive losing some zone and has no error finding: a
 * code-scanning result or cdk8s violation must exist for every workload that fails the check.
 */
export function zoneLossFindings(data: ZoneReportData): LocatedFinding[] {
  return data.workloads
    .filter((w) => !survivesAnyZone(w) && !w.findings.some((f) => f.severity === FindingSeverity.ERROR))
    .map((w) => {
      const zones = lostZones(data, w);
      const left = Math.min(...w.zoneLoss.filter((l) => zones.includes(l.zone)).map((l) => l.survivors));
      const needs = w.neededZones !== undefined ? neededText(w) : `${w.needed} replica${w.needed === 1 ? '' : 's'}`;
      const message = `${workloadId(w)} does not survive losing ${zones.join(', ')}: it needs ${needs}` +
        (w.neededBecause ? ` (${w.neededBecause})` : '') +
        (Number.isFinite(left) ? `, and ${left} remain${left === 1 ? 's' : ''} in the worst case.` : '.');
      return {
        workload: w,
        finding: {
          rule: ZONE_LOSS_RULE,
          severity: FindingSeverity.ERROR,
          message,
          fix: 'Run more replicas, spread them across zones with a hard (DoNotSchedule) topology spread constraint, or lower what the workload needs.',
        },
      };
    });
}
