/**
 * The traffic report as a person reads it (a table per Service: policy, endpoints per zone, share crossing zones,
 * busiest endpoint, cost; then the findings, the worst first), as one HTML page, and as SARIF for code scanning.
 */
import { ratio } from './traffic-findings';
import { EndpointCount, ServiceTrafficReport, TrafficFigure, TrafficReportData } from './traffic-model';
import { docsUrl } from '../../contract/docs';
import { severityRank, workloadId } from '../format-common';
import { escapeHtml, findingsHtml } from '../format-html';
import { IdentifiedFinding, sarifLog, SarifInput } from '../format-sarif';
import { columnBlocks } from '../format-text';

/** A Service as its findings and SARIF name it: `Service/namespace/name` (`-` for no namespace). */
export function serviceId(s: { readonly namespace?: string; readonly name: string }): string {
  return `Service/${s.namespace ?? '-'}/${s.name}`;
}

/** Every finding with its Service (undefined: the input's), the worst first, then in report order. */
export function locatedTrafficFindings(data: TrafficReportData): IdentifiedFinding[] {
  return [
    ...data.findings.map((finding) => ({ finding })),
    ...data.services.flatMap((s) => s.findings.map((finding) => ({ finding, id: serviceId(s) }))),
    ...data.scrapes.flatMap((s) => s.findings.map((finding) => ({ finding, id: workloadId(s) }))),
  ].sort((a, b) => severityRank(a.finding.severity) - severityRank(b.finding.severity));
}

/** Whether the report fails a gate: some finding is a warning or an error. */
export function trafficFails(data: TrafficReportData): boolean {
  return locatedTrafficFindings(data).some((f) => severityRank(f.finding.severity) <= 1);
}

const LEGEND = [
  'ENDPOINTS: per zone, guaranteed-worstCase (now). CROSS-ZONE: the share of requests that leave their zone, at worst',
  '(now). BUSIEST: the busiest endpoint\'s requests over an even split over all endpoints, at worst.',
];

/** The report as text: a table, its legend, the findings. The same data always gives the same text. */
export function formatTrafficText(data: TrafficReportData): string {
  const out = [`Traffic: ${count(data.zones.length, 'zone')} (${data.zones.join(', ')}), ${count(data.services.length, 'Service')}`, ''];
  if (data.services.length > 0) out.push(...aligned(serviceTable(data)), '', ...LEGEND, '');
  if (data.scrapes.length > 0) out.push('Zone-local Prometheus shards:', ...aligned(scrapeTable(data)), '');
  const findings = locatedTrafficFindings(data);
  if (findings.length > 0) {
    out.push(`Findings (${findings.length}):`);
    for (const { finding, id } of findings) {
      out.push(`  ${finding.severity.toUpperCase()} [${finding.rule}] ${id ?? '(input)'}`, `    ${finding.message}`);
      if (finding.fix) out.push(`    fix: ${finding.fix}`);
    }
    out.push('');
  }
  if (data.monthlyCost !== undefined) out.push(`Cross-zone cost a month, all Services: ${figureText(data.monthlyCost, money)}`);
  out.push(summary(data));
  return out.join('\n') + '\n';
}

/** The Services as a table: a header, then per Service its cells. */
function serviceTable(data: TrafficReportData): string[][] {
  const costs = data.pricePerGb !== undefined;
  return [
    ['SERVICE', 'POLICY', ...data.zones, 'CROSS-ZONE', 'BUSIEST', 'CLIENTS', ...(costs ? ['COST/MONTH'] : [])],
    ...data.services.map((s) => [
      serviceId(s).slice('Service/'.length),
      s.policy,
      ...data.zones.map((z) => endpointsText(s, z)),
      s.crossZoneShare ? figureText(s.crossZoneShare, percentText) : '-',
      s.maxLoadRatio !== undefined ? ratio(s.maxLoadRatio) : '-',
      s.clients,
      ...(costs ? [s.monthlyCost ? figureText(s.monthlyCost, money) : '-'] : []),
    ]),
  ];
}

/** The shards as a table: which zone each scrapes, its replicas per zone, the share of its scrapes that cross. */
function scrapeTable(data: TrafficReportData): string[][] {
  return [
    ['SHARD', 'SCRAPES ZONE', ...data.zones, 'CROSS-ZONE', 'UNZONED TARGETS'],
    ...data.scrapes.map((s) => [
      workloadId(s), s.zone, ...data.zones.map((z) => countText(s.replicasPerZone[z])),
      figureText(s.crossZoneShare, percentText), s.unzonedTargets ? 'also scraped here' : '-',
    ]),
  ];
}

/** Rows as columns padded to their widest cell, in blocks that fit the terminal. */
function aligned(rows: readonly string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[], columns: number[]) =>
    columns.map((c, i) => (i === columns.length - 1 ? cells[c] : cells[c].padEnd(widths[c]))).join('  ');
  return columnBlocks(widths).flatMap((columns, i) => [...(i > 0 ? [''] : []), ...rows.map((r) => line(r, columns))]);
}

/** A table as HTML, each row (after the header) marked with its object's id. */
function htmlTable([header, ...rows]: readonly string[][], ids: readonly string[]): string[] {
  const e = escapeHtml;
  return [
    `<table><thead><tr>${header.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>`,
    ...rows.map((r, i) => `<tr data-object="${e(ids[i])}">${r.map((cell) => `<td>${e(cell)}</td>`).join('')}</tr>`),
    '</tbody></table>',
  ];
}

function endpointsText(s: ServiceTrafficReport, zone: string): string {
  return countText(s.endpointsPerZone[zone]);
}

function countText(c: EndpointCount): string {
  return `${c.guaranteed}-${c.worstCase}${c.now !== undefined ? ` (${c.now})` : ''}`;
}

function figureText(f: TrafficFigure, text: (v: number) => string): string {
  return `${text(f.worst)}${f.now !== undefined ? ` (${text(f.now)})` : ''}`;
}

function percentText(share: number): string {
  return `${(share * 100).toFixed(share * 100 % 1 === 0 ? 0 : 1)}%`;
}

function money(value: number): string {
  return value.toFixed(2);
}

/** The one-line verdict every format shows. */
function summary(data: TrafficReportData): string {
  const flagged = data.services.filter((s) => s.findings.some((f) => severityRank(f.severity) <= 1)).length;
  const shards = data.scrapes.filter((s) => s.findings.some((f) => severityRank(f.severity) <= 1)).length;
  if (shards > 0) return `${flagged} Services and ${shards} Prometheus shards have warnings about their traffic.`;
  if (data.services.length === 0) return 'No Services found.';
  return flagged === 0 ? `No warnings about the traffic of ${count(data.services.length, 'Service')}.`
    : `${flagged} of ${count(data.services.length, 'Service')} ${flagged === 1 ? 'has' : 'have'} warnings about their traffic.`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The report as one self-contained page (every string from the manifests escaped). */
export function formatTrafficHtml(data: TrafficReportData): string {
  const e = escapeHtml;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><title>cdk8s-zones: traffic</title>',
    '<style>body { font-family: system-ui, sans-serif; margin: 2em; } table { border-collapse: collapse; } ' +
      'th, td { border: 1px solid #999; padding: 0.35em 0.7em; }</style></head><body>',
    `<h1>Traffic: ${count(data.zones.length, 'zone')}, ${count(data.services.length, 'Service')}</h1>`,
    `<p class="verdict">${e(summary(data))}</p>`,
    `<p>${e(LEGEND.join(' '))}</p>`,
    ...htmlTable(serviceTable(data), data.services.map(serviceId)),
    ...(data.scrapes.length > 0
      ? ['<h2>Zone-local Prometheus shards</h2>', ...htmlTable(scrapeTable(data), data.scrapes.map(workloadId))] : []),
    ...findingsHtml(locatedTrafficFindings(data)),
    '</body></html>',
    '',
  ].join('\n');
}

/** The report as a SARIF 2.1.0 log, each result at its Service's manifest where `inputs` name it. */
export function formatTrafficSarif(data: TrafficReportData, inputs: readonly SarifInput[] = []): string {
  return sarifLog(locatedTrafficFindings(data), inputs, docsUrl('traffic.md', 'Findings'));
}
