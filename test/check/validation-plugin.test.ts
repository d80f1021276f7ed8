/**
 * ZoneCheckValidation as the cdk8s CLI runs it: `new Class(properties)`, then `validate(context)` with a
 * ValidationContext (the manifests' paths, parseManifest, report, logger), faked here as cdk8s-cli 2.x has it.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse, parseAllDocuments } from 'yaml';
import * as lib from '../../src';
import { ZoneCheckFailOn, ZoneCheckValidation } from '../../src';

const SPREAD = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 6
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      topologySpreadConstraints:
        - { maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: { matchLabels: { app: web } } }
      containers: [{ name: c, image: nginx }]
`;
const SINGLE = `apiVersion: apps/v1
kind: Deployment
metadata: { name: single }
spec:
  replicas: 1
  selector: { matchLabels: { app: single } }
  template:
    metadata: { labels: { app: single } }
    spec:
      containers: [{ name: c, image: nginx }]
`;
/** A Deployment the check skips with a warning (no pod template). */
const TEMPLATELESS = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: odd }\nspec: { replicas: 2 }\n';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zone-check-plugin-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A fake cdk8s ValidationContext over manifest files holding `texts`; records what the plugin reports. */
function context(...texts: string[]) {
  const manifests = texts.map((t, i) => {
    const file = path.join(dir, `${i}-chart.k8s.yaml`);
    fs.writeFileSync(file, t);
    return file;
  });
  const violations: any[] = [];
  const logs: string[] = [];
  const submitted: { status?: string; metadata?: Record<string, string> } = {};
  return {
    manifests,
    violations,
    logs,
    submitted,
    pkg: 'cdk8s-zones',
    version: '0.0.0',
    // as cdk8s-cli's ValidationContext.parseManifest
    parseManifest: (p: string) => parseAllDocuments(fs.readFileSync(p, 'utf8')).map((d: any) => d.toJS()),
    logger: { log: (m: string) => logs.push(m) },
    report: {
      addViolation: (v: any) => {
        if (submitted.status) throw new Error('Violations cannot be added to report after its submitted');
        violations.push(v);
      },
      submit: (status: string, metadata?: Record<string, string>) => Object.assign(submitted, { status, metadata }),
    },
  };
}

test('zone-safe output: success, no violations, the verdict in the summary', async () => {
  const ctx = context(SPREAD);
  await new ZoneCheckValidation({ zones: ['zone-a', 'zone-b', 'zone-c'] }).validate(ctx);
  expect(ctx.violations).toEqual([]);
  expect(ctx.submitted).toEqual({
    status: 'success',
    metadata: { zones: 'zone-a, zone-b, zone-c', workloads: '1', verdict: 'The workload survives losing any one zone.', failOn: 'error' },
  });
});

test('a workload that does not survive a zone loss: failure, a violation per finding naming the resource and its manifest', async () => {
  const ctx = context(SPREAD, `${TEMPLATELESS}---\n${SINGLE}`);
  await new ZoneCheckValidation({ zones: ['zone-a', 'zone-b', 'zone-c'] }).validate(ctx);
  expect(ctx.submitted.status).toBe('failure');
  const single = ctx.violations.find((v) => v.ruleName === 'single-replica (error)');
  expect(single).toMatchObject({
    recommendation: expect.stringContaining('one replica'),
    fix: expect.any(String),
    violatingResources: [{ resourceName: 'single', locations: ['spec'], manifestPath: ctx.manifests[1] }],
  });
  // every violation has a rule, a recommendation and a fix; the skipped object is reported too
  for (const v of ctx.violations) expect(v.ruleName && v.recommendation && v.fix !== undefined).toBeTruthy();
  expect(ctx.violations.map((v) => v.ruleName)).toContain('object-skipped (warning)');
});

test('failOn: error fails on errors only, warning on warnings too, never fails but still reports', async () => {
  const warnOnly = async (failOn?: ZoneCheckFailOn) => {
    const ctx = context(SPREAD, TEMPLATELESS);
    await new ZoneCheckValidation({ zones: ['zone-a', 'zone-b', 'zone-c'], failOn }).validate(ctx);
    expect(ctx.violations.map((v) => v.ruleName)).toEqual(['object-skipped (warning)']);
    return ctx.submitted.status;
  };
  expect(await warnOnly()).toBe('success');
  expect(await warnOnly(ZoneCheckFailOn.ERROR)).toBe('success');
  expect(await warnOnly(ZoneCheckFailOn.WARNING)).toBe('failure');

  const ctx = context(SINGLE);
  await new ZoneCheckValidation({ zones: ['zone-a', 'zone-b', 'zone-c'], failOn: 'never' as ZoneCheckFailOn }).validate(ctx);
  expect(ctx.submitted.status).toBe('success');
  expect(ctx.violations.length).toBeGreaterThan(0);
});

test('nodesPerZone sizes the inventory (one pod per node: 3 of 6 cannot be placed on 1 node per zone)', async () => {
  const anti = SPREAD.replace('      topologySpreadConstraints:\n        - { maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: { matchLabels: { app: web } } }',
    '      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: kubernetes.io/hostname, labelSelector: { matchLabels: { app: web } } }] } }');
  const one = context(anti);
  await new ZoneCheckValidation({ zones: ['a', 'b', 'c'], nodesPerZone: 1 }).validate(one);
  const three = context(anti);
  await new ZoneCheckValidation({ zones: ['a', 'b', 'c'] }).validate(three);
  expect(one.violations.map((v) => v.ruleName)).toContain('pending (error)');
  expect(three.violations.map((v) => v.ruleName)).not.toContain('pending (error)');
});

test('properties from cdk8s.yaml are checked when the plugin is loaded, naming the prop, value and rule', () => {
  const make = (props: any) => () => new ZoneCheckValidation(props);
  expect(make({})).toThrow('ZoneCheckValidation: zones=undefined is required: a list of at least 1 (of a non-empty string)');
  expect(make({ zones: 'a,b' })).toThrow('ZoneCheckValidation: zones="a,b" must be a list of at least 1');
  expect(make({ zones: ['a'], failOn: 'sometimes' })).toThrow('ZoneCheckValidation: failOn="sometimes" must be one of ZoneCheckFailOn.ERROR ("error")');
  expect(make({ zones: ['a'], nodesPerZone: 0 })).toThrow('ZoneCheckValidation: nodesPerZone=0 must be an integer from 1 to 10000');
  expect(make({ zones: ['a'], nodePerZone: 2 })).toThrow('ZoneCheckValidation: nodePerZone=2 is not a prop of ZoneCheckValidationProps');
  expect(make({ zones: ['a', 'a'] })).toThrow('ZoneInventory: zones=["a","a"] lists a zone twice');
});

/** Every `validations` entry the README, docs/ and test/user-app give, with where it is. */
function documentedEntries(): { where: string; entry: any }[] {
  const root = path.resolve(__dirname, '..', '..');
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const configs = ['README.md', ...docs].flatMap((page) => [...read(page).matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
    .filter((m) => /^validations:/m.test(m[1])).map((m) => ({ where: page, text: m[1] })));
  configs.push({ where: 'test/user-app/cdk8s.yaml', text: read('test/user-app/cdk8s.yaml') });
  return configs.flatMap(({ where, text }) => (parse(text).validations as any[]).map((entry) => ({ where, entry })));
}

/** One exact version, as the cdk8s CLI requires (it refuses a range: `^1.2.3`, `1.x`, `>=1`). */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * What keeps the cdk8s CLI (src/plugins/_manager.ts) from loading an entry, in its order: `version` (read before
 * anything is loaded: without one, semver's `new Range(undefined)` throws "Cannot read properties of undefined
 * (reading 'trim')"; a range is refused), `package` (this package by name, or by a local path starting with ./),
 * `class` (an export with a `validate` method).
 */
function loadProblems(entry: any): string[] {
  if (entry.version === undefined) return ['no version: the cdk8s CLI fails reading it, before it loads the plugin'];
  if (!EXACT_VERSION.test(String(entry.version))) return [`version ${entry.version} is not one exact version`];
  const problems: string[] = [];
  if (!['cdk8s-zones', './node_modules/cdk8s-zones'].includes(entry.package)) {
    problems.push(`package ${entry.package} is not this package`);
  }
  if (entry.class !== 'ZoneCheckValidation') problems.push(`class ${entry.class} is not the plugin`);
  return problems;
}

test('an entry without version, or with a range, is one the cdk8s CLI cannot load; the plugin is named by package and class', () => {
  const entry = {
    package: './node_modules/cdk8s-zones', version: '0.0.0', class: 'ZoneCheckValidation', properties: { zones: ['a'] },
  };
  expect(loadProblems(entry)).toEqual([]);
  expect(loadProblems({ ...entry, version: undefined }))
    .toEqual(['no version: the cdk8s CLI fails reading it, before it loads the plugin']);
  expect(loadProblems({ ...entry, version: '^1.2.3' })).toEqual(['version ^1.2.3 is not one exact version']);
  expect(loadProblems({ ...entry, package: 'cdk8s-zone', class: 'ZoneCheck' }))
    .toEqual(['package cdk8s-zone is not this package', 'class ZoneCheck is not the plugin']);
});

test('every validations entry of the README, docs/ and test/user-app loads as the cdk8s CLI loads it, and runs', async () => {
  const entries = documentedEntries();
  const sources = entries.map((e) => e.where);
  expect(sources).toEqual(expect.arrayContaining(['README.md', 'docs/check.md', 'test/user-app/cdk8s.yaml']));
  for (const { where, entry } of entries) {
    expect({ where, problems: loadProblems(entry) }).toEqual({ where, problems: [] });
    // as the CLI does: new Class(properties ?? {}), then validate(context)
    const plugin = new (lib as any)[entry.class](entry.properties ?? {});
    const zones: string[] = entry.properties.zones;
    const ctx = context(SPREAD);
    await plugin.validate(ctx);
    const { status, metadata } = ctx.submitted;
    expect({ where, status, zones: metadata?.zones }).toEqual({ where, status: 'success', zones: zones.join(', ') });
  }
});
