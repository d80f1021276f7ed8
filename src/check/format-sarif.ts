/**
 * The zone report as SARIF 2.1.0, the format code-scanning services (GitHub, GitLab, Azure DevOps) import:
 * one run of the `cdk8s-zones` tool, one result per finding, placed at the manifest file (and line) of its
 * object when the caller knows it.
 */
import { allFindings, severityRank, workloadId, zoneLossFindings } from './format-common';
import { FindingSeverity, ZoneFinding, ZoneReportData } from './model';
import { docsUrl, REPOSITORY_URL } from '../contract/docs';
import { packageVersion } from '../shared/package-version';

/** Where an object of the input came from. */
export interface SarifInput {
  /**
   * The manifest file, as the result should name it: relative to the repository root for code scanning, or an
   * absolute path (written as a `file://` URI).
   */
  readonly file: string;
  /** The object, as the report names its workload. */
  readonly object: { readonly kind: string; readonly namespace?: string; readonly name: string };
  /** The line its document starts at (1-based). @default - none: the file only */
  readonly line?: number;
}

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
const HELP = docsUrl('check.md', 'Rules');
const LEVEL: Record<string, string> = {
  [FindingSeverity.ERROR]: 'error',
  [FindingSeverity.WARNING]: 'warning',
  [FindingSeverity.INFO]: 'note',
};

/** Renders the report as a SARIF 2.1.0 log (a JSON string). The same data and inputs always give the same text. */
export function formatSarif(data: ZoneReportData, inputs: readonly SarifInput[] = []): string {
  // Errors first: the synthesized zone-loss errors go before the warnings and notes.
  const located = [...allFindings(data), ...zoneLossFindings(data)]
    .sort((a, b) => severityRank(a.finding.severity) - severityRank(b.finding.severity))
    .map(({ finding, workload }) => ({ finding, id: workload && workloadId(workload) }));
  return sarifLog(located, inputs, HELP);
}

/** A finding with the object it is about, as `Kind/namespace/name` (undefined: the input as a whole). */
export interface IdentifiedFinding {
  readonly finding: ZoneFinding;
  readonly id?: string;
}

/**
 * A SARIF 2.1.0 log of `located` (the worst first), each result at the manifest of its object where `inputs` name it;
 * each rule's help at `help`.
 */
export function sarifLog(located: readonly IdentifiedFinding[], inputs: readonly SarifInput[], help: string): string {
  const where = new Map<string, SarifInput>();
  // The first input naming an object wins: that is where a reader looks for it first.
  for (const input of inputs) if (!where.has(workloadId(input.object))) where.set(workloadId(input.object), input);
  const rules = ruleList(located.map((l) => l.finding), help);
  const results = located.map(({ finding, id }) => {
    const input = id === undefined ? undefined : where.get(id);
    return {
      ruleId: finding.rule,
      ruleIndex: rules.findIndex((r) => r.id === finding.rule),
      level: LEVEL[finding.severity] ?? 'note',
      message: { text: messageText(finding, id) },
      locations: id === undefined ? undefined : [{
        physicalLocation: input && {
          artifactLocation: { uri: fileUri(input.file) },
          region: input.line === undefined ? undefined : { startLine: input.line },
        },
        logicalLocations: [{ fullyQualifiedName: id, kind: 'resource' }],
      }],
    };
  });

  const log = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'cdk8s-zones', version: packageVersion(), informationUri: REPOSITORY_URL, rules } },
      results,
    }],
  };
  return JSON.stringify(log, undefined, 2);
}

/** One rule per id, in the order first seen, at the worst level any of its findings has. */
function ruleList(findings: readonly ZoneFinding[], help: string) {
  const rules: {
    id: string;
    shortDescription: { text: string };
    helpUri: string;
    defaultConfiguration: { level: string };
  }[] = [];
  for (const f of findings) {
    if (rules.some((r) => r.id === f.rule)) continue;
    // the worst are listed first, so the first finding of a rule has its worst level
    rules.push({
      id: f.rule,
      shortDescription: { text: describeRule(f.rule) },
      helpUri: help,
      defaultConfiguration: { level: LEVEL[f.severity] ?? 'note' },
    });
  }
  return rules;
}

/** The result's text: the object, what is wrong, and the fix (a code-scanning alert shows this alone). */
function messageText(finding: ZoneFinding, id: string | undefined): string {
  const sentence = (t: string) => (/[.!?]$/.test(t.trim()) ? t.trim() : `${t.trim()}.`);
  return `${id ? `${id}: ` : ''}${sentence(finding.message)}${finding.fix ? ` Fix: ${sentence(finding.fix)}` : ''}`;
}

/** `spread-selector-mismatch` -> `Spread selector mismatch`. */
function describeRule(id: string): string {
  const words = id.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The URI of a path, each segment escaped (spaces, `#`, `?`): a relative path as a relative reference, an absolute
 * one (POSIX, or Windows with a drive letter) as a `file://` URI. SARIF resolves a relative reference against a base
 * URI, so an absolute path written as one (`/home/...`) would not resolve (the validator's SARIF1004).
 */
export function fileUri(file: string): string {
  const segments = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  const slashed = file.replace(/\\/g, '/');
  if (slashed.startsWith('/')) return `file://${segments(slashed)}`;
  const drive = /^([A-Za-z]:)(\/.*)$/.exec(slashed);
  if (drive) return `file:///${drive[1]}${segments(drive[2])}`;
  return segments(slashed);
}
