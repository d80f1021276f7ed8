/**
 * The check's SARIF held to Microsoft's reference validator (`Sarif.Multitool validate`, the binary that the npm
 * package @microsoft/sarif-multitool ships for this platform): no error and no warning, for absolute and relative
 * input paths, a file name with a space, stdin, and every example's manifests.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { stringify } from 'yaml';
import { main } from '../../src/cli/main';
import { EXAMPLE_NAMES, synthesizeExample } from '../example-apps';
import { STANDARD_VARIANT } from '../example-variants';

const ZONES = 'zone-a,zone-b,zone-c';

/** A Deployment of `replicas`, with `spec` lines added to its pod spec. */
function deployment(name: string, replicas: number, ...spec: string[]): string {
  return [
    'apiVersion: apps/v1', 'kind: Deployment', `metadata: { name: ${name}, namespace: shop }`, 'spec:',
    `  replicas: ${replicas}`, `  selector: { matchLabels: { app: ${name} } }`, '  template:',
    `    metadata: { labels: { app: ${name} } }`, '    spec:', ...spec.map((l) => `      ${l}`),
    '      containers: [{ name: c, image: nginx }]', '',
  ].join('\n');
}
const spread = (name: string, when: string) =>
  `topologySpreadConstraints: [{ maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ${when}, ` +
  `labelSelector: { matchLabels: { app: ${name} } } }]`;

/** Errors (single replica), warnings (an object skipped), notes (a soft spread) and a workload that survives. */
const MANIFESTS: Record<string, string> = {
  'web.yaml': deployment('web', 6, spread('web', 'DoNotSchedule')),
  'dir with space/single #1.yaml': [
    deployment('single', 1),
    deployment('soft', 3, spread('soft', 'ScheduleAnyway')),
  ].join('---\n'),
  'odd.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: odd }\nspec: { replicas: 2 }\n',
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zone-check-sarif-'));
  for (const [rel, text] of Object.entries(MANIFESTS)) write(rel, text);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** The check's SARIF for `inputs` (its exit code is the verdict's, not checked here). */
async function sarif(inputs: string[], stdin = ''): Promise<string> {
  let out = '';
  let err = '';
  await main(['check', '--zones', ZONES, '--format', 'sarif', ...inputs], {
    stdin: Readable.from([stdin]), stdout: (s) => { out += s; }, stderr: (s) => { err += s; },
  });
  expect(err).toBe('');
  return out;
}

/** The validator's executable, from its npm package (which picks the binary of this platform). */
function multitool(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@microsoft/sarif-multitool') as string;
}

/** Runs `Sarif.Multitool validate` on `log`; returns its errors and warnings as `RULE level: arguments`. */
function validate(log: string, name: string): string[] {
  const input = write(`${name}.sarif`, log);
  const output = path.join(dir, `${name}.validation.sarif`);
  const args = ['validate', input, '--output', output, '--log', 'ForceOverwrite'];
  const run = spawnSync(multitool(), args, { encoding: 'utf8' });
  if (run.error || run.status !== 0 || !fs.existsSync(output)) {
    throw new Error(`Sarif.Multitool (${multitool()}) could not validate ${input}: ` +
      `${run.error?.message ?? `exit ${run.status}`}\n${run.stdout}\n${run.stderr}\n` +
      'It is a self-contained .NET program: it needs libicu (Debian: apt-get install libicu72) and an executable bit.');
  }
  const results: any[] = JSON.parse(fs.readFileSync(output, 'utf8')).runs[0].results ?? [];
  // a result without a level is a warning (SARIF 2.1.0, 3.27.10)
  return results.filter((r) => (r.level ?? 'warning') !== 'note' && r.level !== 'none')
    .map((r) => `${r.ruleId} ${r.level ?? 'warning'}: ${(r.message.arguments ?? []).join(' | ')}`);
}

test('absolute input paths (file:// URIs), a name with a space and a #, and the driver\'s version: valid', async () => {
  const log = await sarif([dir]);
  const uris = JSON.parse(log).runs[0].results.flatMap((r: any) => r.locations ?? [])
    .map((l: any) => l.physicalLocation?.artifactLocation.uri).filter((u: unknown) => u !== undefined);
  expect(validate(log, 'absolute')).toEqual([]);
  expect(uris).toContain(`file://${dir}/dir%20with%20space/single%20%231.yaml`);
});

test('relative input paths (relative references) and stdin: valid', async () => {
  const relative = path.relative(process.cwd(), path.join(dir, 'dir with space', 'single #1.yaml'));
  expect(validate(await sarif([relative]), 'relative')).toEqual([]);
  expect(validate(await sarif(['-'], MANIFESTS['dir with space/single #1.yaml']), 'stdin')).toEqual([]);
});

test('every example\'s manifests: valid', async () => {
  const files = EXAMPLE_NAMES.map((name) => write(`examples/${name}.yaml`,
    synthesizeExample(name, STANDARD_VARIANT).map((o) => stringify(o)).join('---\n')));
  const log = await sarif(files);
  expect(JSON.parse(log).runs[0].results.length).toBeGreaterThan(0);
  expect(validate(log, 'examples')).toEqual([]);
});
