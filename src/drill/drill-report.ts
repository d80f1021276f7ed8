/**
 * A drill's plan and report as text, JSON or one self-contained HTML page (as the check's): per workload, the
 * prediction beside the observation, and the verdict.
 */
import { DrillPlan } from './drill-plan';
import { DrillResult } from './drill-run';
import { drillFailed, Prediction, predictionFor, WorkloadVerdict } from './drill-verdict';
import { escapeHtml } from '../check/format-html';

export const REPORT_FORMATS = ['text', 'json', 'html'] as const;
export type ReportFormat = typeof REPORT_FORMATS[number];

/** The prediction in words. */
export function predictionText(p: Prediction | undefined): string {
  if (p === undefined) return 'not modelled by the check';
  const needs = p.neededZones !== undefined ? `${p.neededZones} zones` : `${p.needed}`;
  return `${p.survives ? 'survives' : 'does NOT survive'}: ${p.survivors} left at worst (needs ${needs}), ` +
    `${p.replacementsPending} replacements Pending at worst${p.drainBlocked ? ', a drain is blocked' : ''}`;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? 'never' : `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;
}

/** The observation in words. */
export function observedText(v: WorkloadVerdict): string {
  const o = v.observed;
  return `${o.minReady} of ${o.before.desired} ready at the fewest (before: ${o.before.ready}), ${o.maxPending} Pending at most, ` +
    `${o.end.pending} at the end, ${o.evictionsRefused} pods' evictions refused, whole again after ${seconds(o.wholeAfterMs)}`;
}

/** The verdict in words. */
export function verdictText(v: WorkloadVerdict): string {
  if (v.contradictions.length > 0) return `CONTRADICTS the prediction: ${v.contradictions.join('; ')}`;
  if (v.broke) return 'BROKE (as predicted)';
  if (v.brokenBefore) return 'was already below what it needs before the drill (not compared)';
  return 'agrees';
}

/** The plan (printed without --yes) as JSON: the nodes, and per workload the prediction for the zone. */
export function planJson(plan: DrillPlan): string {
  const workloads = plan.report.workloads.map((w) => ({
    kind: w.kind, namespace: w.namespace ?? 'default', name: w.name, predicted: predictionFor(w, plan.zone) ?? null,
  }));
  const json = { zone: plan.zone, mode: plan.mode, zones: plan.zones, nodes: plan.nodes, workloads, changed: false };
  return JSON.stringify(json, undefined, 2) + '\n';
}

/** The plan (printed without --yes): what would change, and what the check predicts. */
export function planText(plan: DrillPlan): string {
  const lines = [
    `Drill plan: ${plan.mode} of zone ${plan.zone} (zones: ${plan.zones.join(', ')})`,
    `Nodes it would change (${plan.nodes.length}, all in ${plan.zone}, none elsewhere): ${plan.nodes.join(', ')}`,
    plan.mode === 'outage'
      ? 'Each gets the NoExecute taint cdk8s-zones.dev/drill-outage: its pods are evicted at once, budgets do not apply.'
      : 'Each is cordoned, and its pods are evicted through the Eviction API: PodDisruptionBudgets and ZoneDisruptionBudgets apply.',
    '',
    'Per workload, the zone check on the live objects and nodes predicts:',
    ...plan.report.workloads.map((w) => {
      const loss = w.zoneLoss.find((l) => l.zone === plan.zone);
      return `  ${w.kind}/${w.namespace ?? 'default'}/${w.name}: ${loss === undefined ? 'not modelled' : `${loss.survives ? 'survives' : 'does NOT survive'}, ` +
        `${loss.survivors} of ${w.replicas} left at worst (needs ${w.neededZones !== undefined ? `${w.neededZones} zones` : w.needed})` +
        `${plan.mode === 'drain' && loss.drainBlocked ? ', drain blocked' : ''}`}`;
    }),
    '',
    'Nothing was changed. To run it: add --yes.',
  ];
  return lines.join('\n') + '\n';
}

/** The report in `format`. */
export function formatDrillReport(r: DrillResult, format: ReportFormat): string {
  switch (format) {
    case 'json': return JSON.stringify({ ...r, failed: drillFailed(r.verdicts) }, undefined, 2) + '\n';
    case 'html': return drillHtml(r);
    case 'text': return drillText(r);
  }
}

function summary(r: DrillResult): string {
  const broke = r.verdicts.filter((v) => v.broke).length;
  const contra = r.verdicts.filter((v) => v.contradictions.length > 0).length;
  const how = r.cutShort ? 'cut short' : r.steady ? 'steady' : 'not steady at the timeout';
  return `${r.mode} of zone ${r.zone} on ${r.nodes.length} nodes, started ${r.startedAt}: watched ${seconds(r.watchedMs)} (${how}; ` +
    `the last change ${seconds(r.lastChangeAfterMs)} after the start); ` +
    `nodes restored; settled ${r.settledAfterMs === undefined ? 'not within the timeout' : `${seconds(r.settledAfterMs)} after the restore`}. ` +
    `${r.verdicts.length} workloads: ${broke} broke, ${contra} contradict the prediction.` +
    (r.shiftsAtEnd.length > 0
      ? ` Zone ${r.zone} is still out of service (${r.shiftsAtEnd.map((s) => `zoneshift/${s}`).join(', ')}): the drill leaves ` +
        'the shift, and its taint on the nodes, to end as it will (cdk8s-zones shift status).'
      : '');
}

function drillText(r: DrillResult): string {
  const lines = [`Drill: ${summary(r)}`, ''];
  for (const v of r.verdicts) {
    lines.push(`${v.kind}/${v.namespace}/${v.name}: ${verdictText(v)}`,
      `  predicted: ${predictionText(v.predicted)}`,
      `  observed:  ${observedText(v)}`);
  }
  lines.push('', drillFailed(r.verdicts) ? 'FAILED: a workload broke or contradicted its prediction.' : 'PASSED: no workload broke; every observation agrees with its prediction.');
  return lines.join('\n') + '\n';
}

function drillHtml(r: DrillResult): string {
  const e = escapeHtml;
  const rows = r.verdicts.map((v) => {
    const bad = v.broke || v.contradictions.length > 0;
    return `<tr data-workload="${e(`${v.kind}/${v.namespace}/${v.name}`)}"><td class="workload">${e(`${v.kind}/${v.namespace}/${v.name}`)}</td>` +
      `<td>${e(predictionText(v.predicted))}</td><td>${e(observedText(v))}</td><td class="${bad ? 'lost' : 'survives'}">${e(verdictText(v))}</td></tr>`;
  }).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Zone drill: ${e(r.zone)}</title><style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #1a1a1a; }
table { border-collapse: collapse; } th, td { border: 1px solid #999; padding: 0.35em 0.7em; text-align: left; }
td.workload { font-family: ui-monospace, monospace; } td.survives { background: #c8efc8; } td.lost { background: #f4b6b6; font-weight: bold; }
</style></head><body>
<h1>Zone drill: ${e(r.mode)} of ${e(r.zone)}</h1>
<p class="verdict">${e(summary(r))}</p>
<table><tr><th>Workload</th><th>Predicted</th><th>Observed</th><th>Verdict</th></tr>
${rows}
</table></body></html>
`;
}
