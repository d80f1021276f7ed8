/**
 * The zone report as one self-contained HTML page (inline CSS, no script, no external URL): a zone map of
 * workloads by zones, red where losing the zone breaks the workload, the survival verdict, and the findings.
 */
import { allFindings, leftText, neededText, survivesAnyZone, verdict, workloadId } from './format-common';
import { WorkloadReport, ZoneFinding, ZoneReportData } from './model';

const CSS = `
body { font-family: system-ui, sans-serif; margin: 2em; color: #1a1a1a; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 0.35em 0.7em; text-align: center; }
th.workload, td.workload { text-align: left; font-family: ui-monospace, monospace; }
td.survives { background: #c8efc8; }
td.lost { background: #f4b6b6; font-weight: bold; }
td.verdict.survives::before { content: "\\2713  "; }
td.verdict.lost::before { content: "\\2717  "; }
.counts { display: block; font-size: 1.1em; }
.loss { display: block; font-size: 0.8em; }
li.error .severity { color: #b00000; } li.warning .severity { color: #8a5a00; } li.info .severity { color: #555; }
.rule, .object { font-family: ui-monospace, monospace; }
p.verdict { font-weight: bold; }
`;

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));
}

/** Renders the report as a page. Every string from the manifests is escaped; the same data gives the same page. */
export function formatHtml(data: ZoneReportData): string {
  const e = escapeHtml;
  const head = ['<th class="workload">Workload</th>', '<th>Replicas</th>', '<th>Needs</th>',
    ...data.zones.map((z) => `<th class="zone">${e(z)}</th>`), '<th>Survives losing any one zone</th>'];
  const rows = data.workloads.map((w) => {
    const ok = survivesAnyZone(w);
    return `<tr data-workload="${e(workloadId(w))}">` +
      `<td class="workload">${e(workloadId(w))}</td><td>${w.replicas}</td><td title="${e(w.neededBecause)}">${e(neededText(w))}</td>` +
      data.zones.map((z) => zoneCell(w, z)).join('') +
      `<td class="verdict ${ok ? 'survives' : 'lost'}">${ok ? 'yes' : 'no'}</td></tr>`;
  });
  const findings = allFindings(data)
    .map(({ finding, workload }) => ({ finding, id: workload && workloadId(workload) }));
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><title>cdk8s-zones: zone check</title>',
    `<style>${CSS}</style></head><body>`,
    `<h1>Zone check: ${data.zones.length} zones, ${data.workloads.length} workloads</h1>`,
    `<p class="verdict">${e(verdict(data))}</p>`,
    '<h2>Zone map</h2>',
    '<p>Each cell: replicas the zone is guaranteed&ndash;the most it may get; below, what losing that zone leaves (worst case / needed). Red: losing that zone breaks the workload.</p>',
    `<table class="zone-map"><thead><tr>${head.join('')}</tr></thead><tbody>`,
    ...rows,
    '</tbody></table>',
    ...findingsHtml(findings),
    '</body></html>',
    '',
  ].join('\n');
}

function zoneCell(w: WorkloadReport, zone: string): string {
  const e = escapeHtml;
  const c = w.perZone[zone];
  const loss = w.zoneLoss.find((l) => l.zone === zone);
  const survives = w.survives[zone] ?? loss?.survives ?? true;
  const notes = loss ? [`${leftText(w, loss)} left`] : [];
  if (loss && loss.replacementsPending > 0) notes.push(`${loss.replacementsPending} pending`);
  if (loss?.drainBlocked) notes.push('drain blocked');
  return `<td class="${survives ? 'survives' : 'lost'}" data-zone="${e(zone)}">` +
    `<span class="counts">${c ? `${c.guaranteed}&ndash;${c.worstCase}` : '?'}</span>` +
    (notes.length > 0 ? `<span class="loss">${e(notes.join(', '))}</span>` : '') + '</td>';
}

/**
 * The findings section of a page: a heading with their count and one item per finding (its severity, rule, object
 * as `Kind/namespace/name` or `(input)`, message and fix), in the order given.
 */
export function findingsHtml(located: readonly { readonly finding: ZoneFinding; readonly id?: string }[]): string[] {
  const e = escapeHtml;
  const items = located.map(({ finding, id }) =>
    `<li class="${e(finding.severity)}"><span class="severity">${e(finding.severity)}</span> <span class="rule">${e(finding.rule)}</span> ` +
    `<span class="object">${e(id ?? '(input)')}</span>: ${e(finding.message)}` +
    (finding.fix ? ` <em>Fix:</em> ${e(finding.fix)}` : '') + '</li>');
  return [
    `<h2>Findings (${items.length})</h2>`,
    items.length > 0 ? `<ul class="findings">${items.join('')}</ul>` : '<p>None.</p>',
  ];
}
