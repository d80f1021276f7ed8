/**
 * A Service's endpoints as the zone check places them (pure): the workloads its selector selects in its namespace,
 * the pods they may have in each zone, and what keeps some of them from serving it (a named port they lack).
 */
import { LayoutBounds } from '../../traffic/layouts';
import { CheckService, CheckWorkload } from '../check-input';
import { selects } from '../eligibility';
import { workloadId } from '../format-common';
import { FindingSeverity, WorkloadReport, ZoneFinding } from '../model';

/** The rule ids of what the endpoints' reading finds (docs/traffic.md, "Findings"). */
export const SERVICE_SELECTS_NOTHING = 'service-selects-nothing';
export const SERVICE_SELECTS_SEVERAL = 'service-selects-several-workloads';
export const TARGET_PORT_MISSING = 'target-port-missing';

/** A workload the check placed, with its report. */
export interface PlacedWorkload {
  readonly workload: CheckWorkload;
  readonly report: WorkloadReport;
}

/** Where a Service's endpoints may be. */
export interface ServiceEndpoints {
  /** The workloads whose pods serve it. */
  readonly serving: readonly PlacedWorkload[];
  /** Their pods per zone: the fewest, the most, and how many are placed in all. */
  readonly bounds: LayoutBounds;
  /** Their pods running per zone now (`--live`). */
  readonly now?: readonly number[];
  readonly findings: ZoneFinding[];
}

/** The endpoints of Service `s` (which has a selector) among `placed`, over `zones`. */
export function serviceEndpoints(
  s: CheckService, placed: readonly PlacedWorkload[], zones: readonly string[],
): ServiceEndpoints {
  const findings: ZoneFinding[] = [];
  const selected = placed.filter(({ workload: w }) => (w.namespace ?? '') === (s.namespace ?? '')
    && selects({ matchLabels: s.selector }, w.podLabels));
  const serving = selected.filter((p) => servesAPort(s, p.workload, findings));
  if (selected.length === 0) {
    findings.push({
      rule: SERVICE_SELECTS_NOTHING,
      severity: FindingSeverity.WARNING,
      message: `its selector ${labelsText(s.selector!)} selects no workload's pods in namespace ${s.namespace ?? '(unset)'}: ` +
        'it has no endpoints, and its clients get no answer',
      fix: 'Make the selector match the pod template labels of the workload that serves it (same namespace).',
    });
  } else if (serving.length > 1) {
    findings.push({
      rule: SERVICE_SELECTS_SEVERAL,
      severity: FindingSeverity.INFO,
      message: `its selector selects the pods of ${serving.length} workloads (${serving.map((p) => workloadId(p.workload)).join(', ')}): ` +
        'their pods are counted together as its endpoints',
      fix: 'Nothing to fix if intended (a canary, a ring\'s members); otherwise narrow the selector to one workload\'s labels.',
    });
  }
  return { serving, ...podLayout(serving, zones), findings };
}

/**
 * The pods of the workloads `serving` per zone, added up: their bounds from the check's reports, and now when every
 * one of them is read live.
 */
export function podLayout(
  serving: readonly PlacedWorkload[],
  zones: readonly string[],
): Pick<ServiceEndpoints, 'bounds' | 'now'> {
  const sum = (per: (p: PlacedWorkload) => number) => serving.reduce((total, p) => total + per(p), 0);
  const bounds = {
    lo: zones.map((z) => sum((p) => p.report.perZone[z]?.guaranteed ?? 0)),
    hi: zones.map((z) => sum((p) => p.report.perZone[z]?.worstCase ?? 0)),
    placed: sum((p) => p.report.replicas - p.report.pendingWorstCase),
  };
  const live = serving.length > 0 && serving.every((p) => p.workload.running !== undefined);
  return { bounds, ...(live ? { now: zones.map((z) => sum((p) => p.workload.running![z] ?? 0)) } : {}) };
}

/**
 * Whether `w`'s pods serve some port of the Service: a port whose targetPort names a container port they do not
 * have reaches none of them (the EndpointSlice controller lists no port for them), which is noted.
 */
function servesAPort(s: CheckService, w: CheckWorkload, findings: ZoneFinding[]): boolean {
  const names = new Set((w.pod.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => p.name)));
  const missing = s.ports.flatMap((p) =>
    (typeof p.targetPort === 'string' && !names.has(p.targetPort) ? [p.targetPort] : []));
  if (missing.length === 0) return true;
  findings.push({
    rule: TARGET_PORT_MISSING,
    severity: FindingSeverity.WARNING,
    message: `its port(s) target ${missing.map((m) => JSON.stringify(m)).join(', ')} by name, which no container of ` +
      `${workloadId(w)} declares: those ports reach none of its pods`,
    fix: `Name the container port (ports[].name) ${missing.join(', ')} in ${w.kind} ${w.name}, or target the port by number.`,
  });
  return missing.length < s.ports.length;
}

function labelsText(labels: { readonly [key: string]: string }): string {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
}
