/**
 * Hostile or broken input to `cdk8s-zones check` is bad input: exit 2, the file and line, a plain sentence,
 * no stack trace, in bounded time and memory. And an input with no workload in it is not a pass.
 */
import { Readable } from 'stream';
import { ZoneInventory, ZoneReport } from '../../src';
import { MAX_DEPTH, parseManifests } from '../../src/check/manifest-text';
import { main } from '../../src/cli/main';

async function run(argv: string[], stdin: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdin: Readable.from([stdin]),
    stdout: (s) => { out += s; },
    stderr: (s) => { err += s; },
  });
  return { code, out, err };
}
const check = (stdin: string, ...flags: string[]) => run(['check', '--zones', 'a,b,c', ...flags, '-'], stdin);

const WORKLOAD = [
  'apiVersion: apps/v1', 'kind: Deployment', 'metadata: { name: web }',
  'spec: { replicas: 3, selector: { matchLabels: { app: web } }, template: { metadata: { labels: { app: web } }, spec: { containers: [{ name: c, image: x }],',
  '  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: { matchLabels: { app: web } } }] } } }',
].join('\n');

/** A billion laughs: each level a list of nine aliases to the level before. */
const aliasBomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...Array.from({ length: 8 }, (_, i) => {
    const prev = String.fromCharCode(97 + i);
    const name = String.fromCharCode(98 + i);
    return `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`;
  })].join('\n');

describe('bad YAML of any kind: exit 2 with the file and line, no stack trace', () => {
  test.each([
    ['an alias bomb', `${WORKLOAD}\n---\n${aliasBomb}\n`, /^cdk8s-zones: stdin:7: expands to more than \d+ values through YAML aliases \(an alias bomb\?\): not checked\n/],
    ['flow nesting past any manifest', `${WORKLOAD}\n---\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, /^cdk8s-zones: stdin:7: nested (too deeply to read|deeper than 256 levels, which no Kubernetes object is: not checked)\n/],
    ['block nesting past any manifest', `${Array.from({ length: MAX_DEPTH + 5 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} 1\n`, /^cdk8s-zones: stdin:1: nested deeper than 256 levels, which no Kubernetes object is: not checked\n/],
    ['binary data', `${WORKLOAD}\n---\n\u0000\u0001\u0002ELF\n`, /^cdk8s-zones: stdin:7: holds binary data \(a NUL byte\), not YAML or JSON text\n/],
    ['a syntax error in the second document', `${WORKLOAD}\n---\nkind: [\n`, /^cdk8s-zones: stdin:8:1: not valid YAML \(.+\)\n/],
    ['a duplicate key', 'kind: Deployment\nkind: StatefulSet\n', /^cdk8s-zones: stdin:2:1: not valid YAML \(duplicated mapping key\)\n/],
    ['a tab where YAML wants spaces', 'metadata:\n\tname: x\n', /^cdk8s-zones: stdin:2:1: not valid YAML \(.+\)\n/],
  ])('%s', async (_, input, message) => {
    const started = Date.now();
    const r = await check(input);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.out).toBe('');
    expect(Date.now() - started).toBeLessThan(10_000); // bounded: not a measurement (the bench measures)
  });

  test('a document of a valid input is read with the line it starts at, markers and comments skipped', () => {
    const objects = parseManifests('x.yaml', `# Source: chart/a.yaml\n---\n# Source: chart/b.yaml\n${WORKLOAD}\n--- # next\n\n${WORKLOAD}\n---\n---\n`);
    expect(objects.map((o) => o.line)).toEqual([4, 11]);
  });

  test('a --- inside a block scalar is indented, so it is no document marker', () => {
    const objects = parseManifests('x.yaml', 'kind: ConfigMap\nmetadata: { name: c }\ndata:\n  f: |\n    a\n    ---\n    b\n');
    expect(objects).toHaveLength(1);
    expect((objects[0].value as any).data.f).toBe('a\n---\nb\n');
  });

  test('JSON, and YAML as kubectl reads it (YAML 1.1): yes and on are true, 0755 is octal, << merges, a date stays a string', () => {
    const [json] = parseManifests('x.json', '{"kind": "ConfigMap", "data": {"a": "1"}}');
    expect(json.value).toEqual({ kind: 'ConfigMap', data: { a: '1' } });
    const [yaml] = parseManifests('x.yaml', 'kind: Pod\nspec: { day: 2024-01-01, a: yes, b: on, mode: 0755, c: "yes" }\nbase: &b { x: 1 }\nm: { <<: *b, z: 2 }\n');
    expect(yaml.value).toMatchObject({ spec: { day: '2024-01-01', a: true, b: true, mode: 493, c: 'yes' }, m: { x: 1, z: 2 } });
  });
});

describe('no workload checked is not a pass', () => {
  test.each([
    ['empty input (a render that failed earlier in a pipe)', '', 'no workload in stdin (it is empty: a render that failed earlier in a pipe?): nothing was checked; --allow-empty accepts that'],
    ['only comments and markers', '# nothing\n---\n---\n', 'no workload in stdin (it is empty: a render that failed earlier in a pipe?)'],
    ['objects, none a workload', 'apiVersion: v1\nkind: Service\nmetadata: { name: s }\n', 'no workload in stdin (1 objects, none of them a workload): nothing was checked'],
  ])('%s: exit 2', async (_, input, message) => {
    const r = await check(input);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`cdk8s-zones: ${message}`);
  });

  test('--allow-empty: exit 0, and the report says there were none', async () => {
    const r = await check('', '--allow-empty');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain('No workloads found.');
  });
});

describe('what the findings say', () => {
  const deployment = (labels: Record<string, string> = {}, pod: any = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'x' }], ...pod },
      },
    },
  });
  const analyze = (o: any) => ZoneReport.analyze([o], ZoneInventory.equalNodes(['a', 'b', 'c'], 2)).workloads[0];

  test('fixes in Kubernetes terms; the library\'s construct named only on the library\'s own objects', () => {
    const fix = (o: any) => analyze(o).findings.find((f) => f.rule === 'no-hard-zone-spread')!.fix;
    expect(fix(deployment())).toBe('Add a topologySpreadConstraint on topology.kubernetes.io/zone with whenUnsatisfiable: DoNotSchedule.');
    expect(fix(deployment({ 'app.kubernetes.io/managed-by': 'cdk8s-zones' })))
      .toBe('Add a topologySpreadConstraint on topology.kubernetes.io/zone with whenUnsatisfiable: DoNotSchedule (in cdk8s-zones: Zonal.spread).');
  });

  test.each([
    ['pod anti-affinity to its own pods', {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{
          weight: 100,
          podAffinityTerm: {
            topologyKey: 'topology.kubernetes.io/zone',
            labelSelector: { matchLabels: { app: 'web' } },
          },
        }],
      },
    }],
    ['node affinity', {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{
          weight: 1,
          preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] },
        }],
      },
    }],
  ])('a preferred (soft) %s on the zone key: an info note that it guarantees nothing, and it is not counted', (what, affinity) => {
    const w = analyze(deployment({}, { affinity }));
    const note = w.findings.find((f) => f.rule === 'soft-zone-affinity')!;
    expect(note).toMatchObject({ severity: 'info', message: `its preferred (soft) ${what} on topology.kubernetes.io/zone guarantees nothing: the scheduler may set it aside and put its pods in fewer zones` });
    expect(w.perZone.a.worstCase).toBe(3);
  });
});
