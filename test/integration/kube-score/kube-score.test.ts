/**
 * kube-score over every example, in its standard and its hostile variant: no finding outside the reviewed
 * allow-list (allow-list.yaml, each entry with its reason), and no allow-list entry that nothing needs.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { EXAMPLE_NAMES, synthesizeExample } from '../../example-apps';
import { ExampleVariant, HOSTILE_VARIANT, STANDARD_VARIANT } from '../../example-variants';
import { programPath } from '../programs';

interface Allowed {
  readonly check: string;
  readonly objects: string;
  readonly why: string;
}

interface Finding {
  readonly check: string;
  /** Kind/namespace/name */
  readonly object: string;
  readonly detail: string;
}

const ALLOW_LIST: Allowed[] = yaml.parse(fs.readFileSync(path.join(__dirname, 'allow-list.yaml'), 'utf8'));
const used = new Set<Allowed>();
let examplesScored = 0;

/** kube-score's findings (checks that graded below OK) on `objects`. */
function kubeScore(objects: readonly any[]): Finding[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-score-'));
  try {
    const file = path.join(dir, 'manifests.yaml');
    fs.writeFileSync(file, objects.map((o) => yaml.stringify(o)).join('---\n'));
    const run = spawnSync(programPath('kube-score'), ['score', '--output-format', 'json', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    // Exit code 1 means "critical findings", which the JSON lists.
    if (run.error || (run.status !== 0 && run.status !== 1)) throw new Error(`kube-score failed (${run.status}): ${run.error ?? run.stderr}`);
    // Nothing it scores (only custom resources): no output at all.
    const scored: any[] = run.stdout.trim() === '' ? [] : JSON.parse(run.stdout) ?? [];
    return scored.flatMap((o) => o.checks
      .filter((c: any) => !c.skipped && c.grade < 10)
      .map((c: any): Finding => ({
        check: c.check.id,
        object: `${o.type_meta.kind}/${o.object_meta.namespace ?? ''}/${o.object_meta.name}`,
        detail: (c.comments ?? []).map((x: any) => `${x.path ? `${x.path}: ` : ''}${x.summary}`).join('; '),
      })));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function allowedBy(finding: Finding): Allowed | undefined {
  return ALLOW_LIST.find((a) => a.check === finding.check && new RegExp(`^(?:${a.objects})$`).test(finding.object));
}

test('the allow-list is well formed: a check, an object pattern and a reason for each entry', () => {
  expect(ALLOW_LIST.length).toBeGreaterThan(0);
  for (const entry of ALLOW_LIST) {
    expect(Object.keys(entry).sort()).toEqual(['check', 'objects', 'why']);
    expect(entry.why.length).toBeGreaterThan(40);
  }
});

test('kube-score flags what it should (the check can fail)', () => {
  const findings = kubeScore([{
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bare', namespace: 'x' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'bare' } },
      template: { metadata: { labels: { app: 'bare' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  }]);
  const unexplained = findings.filter((f) => !allowedBy(f)).map((f) => f.check);
  expect(unexplained).toEqual(expect.arrayContaining(['container-security-context-readonlyrootfilesystem', 'container-image-tag', 'deployment-has-poddisruptionbudget']));
});

describe.each(EXAMPLE_NAMES)('example %s', (name) => {
  test.each([['standard', STANDARD_VARIANT], ['hostile', HOSTILE_VARIANT]])('%s variant: no kube-score finding outside the allow-list', (_, variant) => {
    const findings = kubeScore(synthesizeExample(name, variant as ExampleVariant));
    const unexplained = findings.filter((f) => {
      const entry = allowedBy(f);
      if (entry) used.add(entry);
      return !entry;
    });
    expect(unexplained).toEqual([]);
    examplesScored++;
  });
});

test('every allow-list entry is needed by some example', () => {
  expect(examplesScored).toBe(2 * EXAMPLE_NAMES.length); // every example passed above (run the whole file)
  expect(ALLOW_LIST.filter((a) => !used.has(a)).map((a) => `${a.check} ${a.objects}`)).toEqual([]);
});
