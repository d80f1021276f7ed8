/**
 * The zone report as a person reads it in a terminal: one row per workload, its replicas per zone, what losing
 * each zone leaves, failing cells marked in plain text (colour only on request), then the findings.
 */
import { allFindings, leftText, neededText, verdict, workloadId } from './format-common';
import { WorkloadReport, ZoneReportData } from './model';

/** Options of `formatText`. */
export interface TextFormatOptions {
  /** ANSI colours (red failing cells, green survived ones); the plain-text markers stay either way. */
  readonly color?: boolean;
}

const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

/** A table cell: its text, and the colour it gets when colours are on. */
interface Cell {
  readonly text: string;
  readonly colour?: string;
}

/** The widest a line of the table and its legend may be: a terminal's 120 columns. */
export const TEXT_WIDTH = 120;

/** Between two columns. */
const GAP = '  ';

/** What the table's cells mean (each line within TEXT_WIDTH). */
const LEGEND = [
  'Per zone: guaranteed-worstCase replicas. LOSE <zone>: replicas (or a group\'s zones) left in the worst case / needed;',
  '✗ LOST: losing the zone breaks the workload. N pending: N replacements stay Pending while the zone is down (its',
  'hard constraints let no other zone take them). drain blocked: draining the zone\'s nodes (kubectl drain) stops at an',
  'eviction a PodDisruptionBudget (or ZoneDisruptionBudget) refuses, before the zone is empty.',
];

/**
 * Renders the report as a table and a list of findings. The same data always gives the same text. A table wider
 * than TEXT_WIDTH is wrapped by columns: each block repeats the WORKLOAD column and takes the next columns that fit.
 */
export function formatText(data: ZoneReportData, options: TextFormatOptions = {}): string {
  const out: string[] = [];
  const zones = `${data.zones.length} zone${data.zones.length === 1 ? '' : 's'} (${data.zones.join(', ')})`;
  out.push(`Zone check: ${zones}, ${data.workloads.length} workload${data.workloads.length === 1 ? '' : 's'}`);
  out.push('');
  if (data.workloads.length > 0) {
    out.push(...tableLines(data, options.color ?? false));
    out.push('');
    out.push(...LEGEND);
    out.push('');
  }
  const findings = allFindings(data);
  if (findings.length > 0) {
    out.push(`Findings (${findings.length}):`);
    for (const { finding, workload } of findings) {
      const severity = finding.severity.toUpperCase();
      const colour = finding.severity === 'error' ? RED : finding.severity === 'warning' ? YELLOW : undefined;
      const label = options.color && colour ? `${colour}${severity}${RESET}` : severity;
      out.push(`  ${label} [${finding.rule}] ${workload ? workloadId(workload) : '(input)'}`);
      out.push(`    ${finding.message}`);
      if (finding.fix) out.push(`    fix: ${finding.fix}`);
    }
    out.push('');
  }
  out.push(verdict(data));
  return out.join('\n') + '\n';
}

/** The table: a header and a row per workload, in blocks of columns that fit TEXT_WIDTH, a blank line between. */
function tableLines(data: ZoneReportData, color: boolean): string[] {
  const header: Cell[] = [
    { text: 'WORKLOAD' }, { text: 'REPLICAS' }, { text: 'NEEDS' },
    ...data.zones.map((z) => ({ text: z })),
    ...data.zones.map((z) => ({ text: `LOSE ${z}` })),
  ];
  const rows: Cell[][] = data.workloads.map((w) => [
    { text: workloadId(w) },
    { text: String(w.replicas) },
    { text: neededText(w) },
    ...data.zones.map((z) => countCell(w, z)),
    ...data.zones.map((z) => lossCell(w, z)),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].text.length)));
  const paint = (cell: Cell, width: number, last: boolean) => {
    // no trailing blanks (inside colour codes, trimEnd misses them)
    const padded = last ? cell.text : cell.text.padEnd(width);
    return color && cell.colour ? `${cell.colour}${padded}${RESET}` : padded;
  };
  const line = (cells: Cell[], columns: number[]) =>
    columns.map((c, i) => paint(cells[c], widths[c], i === columns.length - 1)).join(GAP);
  return columnBlocks(widths).flatMap((columns, i) => [
    ...(i > 0 ? [''] : []),
    ...[header, ...rows].map((cells) => line(cells, columns)),
  ]);
}

/**
 * The table's columns in blocks, each the first (WORKLOAD) column and the next columns that fit TEXT_WIDTH
 * (at least one, however wide), in order.
 */
export function columnBlocks(widths: readonly number[]): number[][] {
  const blocks: number[][] = [];
  let block = [0];
  let width = widths[0];
  for (let c = 1; c < widths.length; c++) {
    if (block.length > 1 && width + GAP.length + widths[c] > TEXT_WIDTH) {
      blocks.push(block);
      block = [0];
      width = widths[0];
    }
    block.push(c);
    width += GAP.length + widths[c];
  }
  blocks.push(block);
  return blocks;
}

function countCell(w: WorkloadReport, zone: string): Cell {
  const c = w.perZone[zone];
  return { text: c ? `${c.guaranteed}-${c.worstCase}` : '?' };
}

function lossCell(w: WorkloadReport, zone: string): Cell {
  const loss = w.zoneLoss.find((l) => l.zone === zone);
  if (w.zoneGroup !== undefined && loss) return { text: `${leftText(w, loss)} left` }; // its group's row has the verdict
  const survives = w.survives[zone] ?? loss?.survives;
  const mark = survives === undefined ? '?' : survives ? 'ok' : '✗ LOST';
  let text = loss ? `${mark} ${leftText(w, loss)}` : mark;
  if (loss && loss.replacementsPending > 0) text += `, ${loss.replacementsPending} pending`;
  if (loss?.drainBlocked) text += ', drain blocked';
  return { text, colour: survives === false ? RED : survives ? GREEN : undefined };
}
