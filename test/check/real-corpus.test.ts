/**
 * The zone check on real public manifests (test/check/real-corpus/: Helm charts rendered with `helm template`,
 * published install YAML and operator samples; SOURCES.md records each file's repository and commit), run as
 * docs/check.md says (`--zones` only: the default inventory of 3 nodes per zone), against verdicts judged by hand
 * from the manifests (verdicts-*.yaml: per workload, whether it survives losing any one zone, the error rules
 * that say why, and the reason). Any disagreement fails, listed with the judged reason.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { REAL_CORPUS, realCorpusFiles } from './real-corpus-files';
import { analyzeManifests } from '../../src/check/analyze';
import { workloadId } from '../../src/check/format-common';
import { ZoneInventory } from '../../src/check/inventory';
import { parseManifests } from '../../src/check/manifest-text';
import { FindingSeverity } from '../../src/check/model';

const CORPUS = REAL_CORPUS;
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
/** The CLI's default inventory for `--zones zone-a,zone-b,zone-c`. */
const INVENTORY = new ZoneInventory({ zones: ZONES, nodesPerZone: 3 });

interface Verdict {
  readonly file: string;
  readonly workload: string;
  readonly survives?: boolean;
  readonly skipped?: boolean;
  readonly rules?: string[];
  readonly reason: string;
}

const verdicts: Verdict[] = fs.readdirSync(CORPUS).filter((f) => /^verdicts.*\.yaml$/.test(f)).sort()
  .flatMap((f) => parse(fs.readFileSync(path.join(CORPUS, f), 'utf8')) as Verdict[]);

const files = realCorpusFiles().map((f) => path.relative(CORPUS, f));

/** What the check says of each workload of a file (and of each object it skipped), keyed as the verdicts name them. */
function observed(file: string): Map<string, { survives?: boolean; skipped?: boolean; rules: string[] }> {
  const objects = parseManifests(file, fs.readFileSync(path.join(CORPUS, file), 'utf8')).map((o) => o.value as any);
  const data = analyzeManifests(objects, INVENTORY);
  const out = new Map<string, { survives?: boolean; skipped?: boolean; rules: string[] }>();
  for (const w of data.workloads) {
    const errors = w.findings.filter((f) => f.severity === FindingSeverity.ERROR);
    const rules = [...new Set(errors.map((f) => f.rule))].sort();
    out.set(workloadId(w), { survives: Object.values(w.survives).every(Boolean), rules });
  }
  for (const f of data.findings.filter((x) => x.rule === 'object-skipped')) {
    // "<Kind> <namespace>/<name> ..." or "<Kind> <name> ..."
    const nameOf = (x: any) => `${x.metadata?.namespace ? `${x.metadata.namespace}/` : ''}${x.metadata?.name}`;
    const o = objects.find((x) => typeof x?.kind === 'string' && f.message.startsWith(`${x.kind} ${nameOf(x)} `));
    if (o) out.set(`${o.kind}/${o.metadata.namespace ?? '-'}/${o.metadata.name}`, { skipped: true, rules: [] });
  }
  return out;
}

test('the corpus: at least 10 projects, 100 workloads, every one judged with a reason', () => {
  expect(new Set(files.map((f) => f.split('/')[0])).size).toBeGreaterThanOrEqual(10);
  expect(verdicts.filter((v) => !v.skipped).length).toBeGreaterThanOrEqual(100);
  const unexplained = verdicts.filter((v) => typeof v.reason !== 'string' || v.reason.trim() === '');
  expect(unexplained.map((v) => `${v.file} ${v.workload}`)).toEqual([]);
  expect(verdicts.filter((v) => !files.includes(v.file)).map((v) => `${v.file}: no such corpus file`)).toEqual([]);
});

test.each(files)('%s: the check agrees with the judged verdicts', (file) => {
  const seen = observed(file);
  const judged = verdicts.filter((v) => v.file === file);
  const disagreements: string[] = [];
  for (const v of judged) {
    const o = seen.get(v.workload);
    if (!o) {
      disagreements.push(`${v.workload}: judged ${v.skipped ? 'skipped' : v.survives ? 'survives' : 'fails'} (${v.reason}), but the check does not report it`);
      continue;
    }
    const want = v.skipped ? 'skipped' : `${v.survives ? 'survives' : 'fails'} [${[...v.rules ?? []].sort().join(', ')}]`;
    const got = o.skipped ? 'skipped' : `${o.survives ? 'survives' : 'fails'} [${o.rules.join(', ')}]`;
    if (want !== got) disagreements.push(`${v.workload}: judged ${want} (${v.reason}); the check says ${got}`);
  }
  for (const key of seen.keys()) {
    if (!judged.some((v) => v.workload === key)) disagreements.push(`${key}: the check reports it, but no verdict judges it`);
  }
  expect(disagreements).toEqual([]);
});
