/** Hand-made zone reports for the formatters' tests (independent of the analysis). */
import { FindingSeverity, WorkloadReport, ZoneReportData } from '../../src/check/model';

export const ZONES = ['zone-a', 'zone-b', 'zone-c'];

/** A workload report: 6 replicas, 2 per zone, surviving every zone loss, unless `overrides` say otherwise. */
export function workload(overrides: Partial<WorkloadReport> = {}): WorkloadReport {
  return {
    kind: 'Deployment',
    namespace: 'shop',
    name: 'web',
    replicas: 6,
    perZone: Object.fromEntries(ZONES.map((z) => [z, { guaranteed: 2, worstCase: 2 }])),
    pendingWorstCase: 0,
    needed: 1,
    neededBecause: 'at least one replica',
    zoneLoss: ZONES.map((zone) => ({
      zone, survivors: 4, survives: true, replacementsPending: 0, drainBlocked: false,
    })),
    survives: Object.fromEntries(ZONES.map((z) => [z, true])),
    findings: [],
    ...overrides,
  };
}

/** One replica anywhere: losing any zone may lose it. */
export function single(overrides: Partial<WorkloadReport> = {}): WorkloadReport {
  return workload({
    name: 'single',
    replicas: 1,
    perZone: Object.fromEntries(ZONES.map((z) => [z, { guaranteed: 0, worstCase: 1 }])),
    zoneLoss: ZONES.map((zone) => ({
      zone, survivors: 0, survives: false, replacementsPending: 1, drainBlocked: false,
    })),
    survives: Object.fromEntries(ZONES.map((z) => [z, false])),
    findings: [{ rule: 'single-replica', severity: FindingSeverity.ERROR, message: 'it has one replica: losing its zone loses it', fix: 'Run at least 2 replicas.' }],
    ...overrides,
  });
}

/** A surviving workload, a failing one, a warning, and a finding about the input as a whole. */
export function mixedReport(): ZoneReportData {
  return {
    zones: [...ZONES],
    workloads: [
      workload({
        findings: [{ rule: 'soft-zone-spread', severity: FindingSeverity.WARNING, message: 'its zone spread is ScheduleAnyway', fix: 'Use DoNotSchedule.' }],
        zoneLoss: ZONES.map((zone) => ({
          zone,
          survivors: 4,
          survives: true,
          replacementsPending: 2,
          drainBlocked: zone === 'zone-b',
        })),
      }),
      single(),
    ],
    findings: [{ rule: 'object-skipped', severity: FindingSeverity.WARNING, message: 'ConfigMap/x is not a workload: not checked', fix: 'Nothing to do.' }],
  };
}
