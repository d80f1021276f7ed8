/** `cdk8s-zones check`, called through `main()` with fake io, on real files and the real analysis. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { parse } from 'yaml';
import { ZoneReportData } from '../../src/check/model';
import { CHECK_FLAG_GROUPS, USAGE } from '../../src/cli/check-help';
import { main } from '../../src/cli/main';
import { flagLabel, parseCommandLine } from '../../src/shared/command-line';

/** A Deployment; `spread` adds a hard zone topology spread constraint. */
function deployment(
  name: string,
  replicas: number,
  options: { spread?: boolean; namespace?: string; extra?: string } = {},
): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: { name: ${name}${options.namespace ? `, namespace: ${options.namespace}` : ''} }`,
    'spec:',
    `  replicas: ${replicas}`,
    `  selector: { matchLabels: { app: ${name} } }`,
    '  template:',
    `    metadata: { labels: { app: ${name} } }`,
    '    spec:',
    ...(options.spread ? [
      '      topologySpreadConstraints:',
      '        - { maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, ' +
      `labelSelector: { matchLabels: { app: ${name} } } }`,
    ] : []),
    ...(options.extra ? [options.extra] : []),
    '      containers: [{ name: c, image: nginx }]',
    '',
  ].join('\n');
}
const SPREAD = deployment('web', 6, { spread: true, namespace: 'shop' });
const SINGLE = deployment('single', 1, { namespace: 'shop' });

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zone-check-cli-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** Runs the CLI; returns its exit code and what it wrote. */
async function run(argv: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdin: Readable.from([stdin]),
    stdout: (s) => { out += s; },
    stderr: (s) => { err += s; },
  });
  return { code, out, err };
}

async function json(argv: string[], stdin = ''): Promise<ZoneReportData> {
  const r = await run([...argv, '--format', 'json'], stdin);
  expect(r.err).toBe('');
  return JSON.parse(r.out);
}

describe('exit codes', () => {
  test('0 when every workload survives losing any one zone', async () => {
    const r = await run(['check', '--zones', 'zone-a,zone-b,zone-c', write('web.yaml', SPREAD)]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain('Deployment/shop/web');
    expect(r.out).toContain('The workload survives losing any one zone.');
  });

  test('1 when some do not (one replica loses its zone)', async () => {
    const r = await run(['check', '--zones', 'zone-a,zone-b,zone-c', write('all.yaml', `${SPREAD}---\n${SINGLE}`)]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Deployment\/shop\/single .*✗ LOST 0\/1/);
    expect(r.out).toContain('1 of 2 workloads does not survive losing a zone.');
  });

  test.each([
    [['check', '--zones', 'a,b', '--bogus', 'x.yaml'], 'unknown flag "--bogus"'],
    [['check', '--zones'], '--zones needs a value'],
    [['check', '--zones', 'a,b', '--format'], '--format needs a value'],
    [['check', '--zones', 'a,b', '--format', 'xml', 'x.yaml'], '--format="xml" must be one of text, json, sarif, html'],
    [['check', '--zones', 'a,,b', 'x.yaml'], '--zones="a,,b" holds an empty zone name'],
    [['check', '--zones', 'a,b', '--nodes-per-zone', '0', 'x.yaml'], '--nodes-per-zone="0" must be a whole number >= 1'],
    [['check', '--zones', 'a,b', '--nodes-per-zone', 'two', 'x.yaml'], '--nodes-per-zone="two" must be a whole number >= 1'],
    [['check', '--zones', 'a,b', '--nodes-per-zone', '2', '--inventory', 'i.json', 'x.yaml'], 'set one of --nodes-per-zone, --inventory and --kubeconfig'],
    [['check', '--inventory', 'i.json', '--kubeconfig', 'k', 'x.yaml'], 'set one of --nodes-per-zone, --inventory and --kubeconfig'],
    [['check', 'x.yaml'], '--zones is required (or --inventory or --kubeconfig, whose nodes name the zones)'],
    [['check', '--zones', 'a,b'], 'no input: name manifest files, directories, or - for stdin'],
    [['check', '--zones', 'a,a', 'x.yaml'], '--zones: ZoneInventory: zones=["a","a"] lists a zone twice'],
    [['check', '--zones', 'a,b', '-', '-'], '- (stdin) is named twice'],
    [['check', '--zones', 'a,b', '--color=yes', 'x.yaml'], '--color takes no value'],
    [['lint', 'x.yaml'], 'unknown command "lint": the commands are check, traffic, shift and drill'],
  ])('2 on bad usage: %j', async (argv, message) => {
    const r = await run(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(`cdk8s-zones: ${message}\n${USAGE}\n`);
    expect(USAGE).toContain("Run 'cdk8s-zones check --help' for what each option does and its default.");
  });

  test('2 naming the file and line of a YAML syntax error', async () => {
    const text = `${SPREAD}---\nkind: Deployment\nmetadata: { name: x\nspec: {}\n`;
    const file = write('broken.yaml', text);
    const r = await run(['check', '--zones', 'a,b,c', file]);
    expect(r.code).toBe(2);
    // the unclosed { is noticed on the next line
    const line = text.split('\n').indexOf('spec: {}') + 1;
    expect(r.err).toContain(`cdk8s-zones: ${file}:${line}:1: not valid YAML (deficient indentation)\n`);
    expect(r.err).toContain(USAGE);
  });

  test('2 naming a file that cannot be read', async () => {
    const missing = path.join(dir, 'missing.yaml');
    const r = await run(['check', '--zones', 'a,b,c', missing]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`cdk8s-zones: cannot read ${missing}: ENOENT`);
    const unreadable = write('unreadable.yaml', SPREAD);
    const viaIo = await main(['check', '--zones', 'a,b,c', unreadable], {
      stdin: Readable.from(['']),
      stdout: () => undefined,
      stderr: (s) => expect(s).toContain(`cannot read ${unreadable}: EACCES: permission denied`),
      readFile: () => { throw new Error('EACCES: permission denied'); },
    });
    expect(viaIo).toBe(2);
  });
});

describe('--help and --version', () => {
  const VERSION: string = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version;
  const flags = CHECK_FLAG_GROUPS.flatMap((g) => g.flags).map((f) => ({ flag: flagLabel(f), spec: f }));

  test('--version, -V (also after check) and version print the name and the package\'s version, exit 0', async () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    for (const argv of [['--version'], ['-V'], ['version'], ['check', '--version'], ['check', '--zones', 'a', '-V', 'x.yaml']]) {
      expect(await run(argv)).toEqual({ code: 0, out: `cdk8s-zones ${VERSION}\n`, err: '' });
    }
  });

  test('--help (also after check, and help) prints the full help on stdout, exit 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['check', '--help'], ['check', '--zones', 'a', '-h']]) {
      const r = await run(argv);
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(r.out).toContain(`cdk8s-zones ${VERSION}: will these manifests survive losing a zone?`);
      expect(r.out).toContain('Exit codes: 0 every workload survives losing any one zone; 1 some do not; 2 bad input or usage.');
      expect(r.out).toContain('Guide: https://github.com/cdk8s-zones/cdk8s-zones/blob/main/docs/check.md\n');
    }
  });

  test('no command: the full help on stderr, exit 2', async () => {
    const r = await run([]);
    expect(r).toMatchObject({ code: 2, out: '' });
    expect(r.err).toContain('--nodes-per-zone N');
  });

  test('the help describes each flag on its own line, with its default (or when it is required)', async () => {
    const help = (await run(['--help'])).out;
    const lines = help.split('\n');
    const entries = new Map(flags.map((f) => {
      const at = lines.findIndex((l) => l.startsWith(`  ${f.flag}  `));
      expect({ flag: f.flag, at }).toEqual({ flag: f.flag, at: expect.any(Number) });
      let entry = lines[at].slice(2 + f.flag.length).trim();
      for (let i = at + 1; lines[i].startsWith(' '.repeat(10)); i++) entry += ` ${lines[i].trim()}`;
      return [f.flag, entry];
    }));
    for (const [flag, entry] of entries) {
      if (flag.startsWith('-h') || flag.startsWith('-V')) continue;
      expect({ flag, entry }).toEqual({ flag, entry: expect.stringMatching(/\((default: [^)]+|required [^)]+)\)$/) });
    }
    expect(entries.get('--zones ZONE,...')).toBe('the zones, by their topology.kubernetes.io/zone value (required unless --inventory or --kubeconfig names them)');
    expect(entries.get('--nodes-per-zone N')).toBe('N equal nodes in each zone, untainted, unlimited in CPU and memory (default: 3)');
    expect(entries.get('--format FORMAT')).toBe('text, json, sarif (code scanning) or html (default: text)');
    expect(entries.get('-V, --version')).toBe('print the version and exit');
    expect(lines.every((line) => line.length <= 110)).toBe(true);
  });

  test('the parser takes exactly the flags the help names', () => {
    for (const { flag, spec } of flags) {
      const value = spec.type === 'count' ? '2' : spec.type === 'choice' ? 'json' : spec.type === 'duration' ? '30s' : 'a=b';
      const argv = spec.type === 'switch' ? [`--${spec.name}`] : [`--${spec.name}`, value];
      const { given } = parseCommandLine(argv, flags.map((f) => f.spec));
      expect({ flag, given }).toEqual({ flag, given: [spec.name] });
    }
    expect(() => parseCommandLine(['--node-label', 'a=b'], flags.map((f) => f.spec))).toThrow('unknown flag "--node-label"');
  });
});

describe('inputs', () => {
  test('a directory: its .yaml, .yml and .json files, recursively, in sorted order; other files ignored', async () => {
    write('b/deep/z.yml', deployment('z', 6, { spread: true }));
    write('a.yaml', deployment('a', 6, { spread: true }));
    write('b/c.json', JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'c' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'c' } },
        template: { metadata: { labels: { app: 'c' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    }));
    write('b/notes.txt', 'kind: Deployment\nnot: yaml: at: all');
    const data = await json(['check', '--zones', 'zone-a,zone-b,zone-c', dir]);
    expect(data.workloads.map((w) => w.name)).toEqual(['a', 'c', 'z']);
  });

  test('- reads stdin, beside files', async () => {
    const data = await json(['check', '--zones', 'zone-a,zone-b,zone-c', '-', write('web.yaml', SPREAD)], SINGLE);
    expect(data.workloads.map((w) => w.name)).toEqual(['single', 'web']);
    const r = await run(['check', '--zones', 'zone-a,zone-b,zone-c', '-'], SINGLE);
    expect(r.code).toBe(1);
  });

  test('a List\'s items are checked one by one; empty documents (Helm leaves them) are dropped', async () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [SPREAD, SINGLE].map((t) => parse(t)) };
    const data = await json(['check', '--zones', 'zone-a,zone-b,zone-c', write('list.json', JSON.stringify(list)), write('empty.yaml', '---\n---\n# nothing\n')]);
    expect(data.workloads.map((w) => `${w.kind}/${w.name}`)).toEqual(['Deployment/web', 'Deployment/single']);
    expect(data.findings).toEqual([]);
  });
});

describe('formats', () => {
  test('json: the report data, with the fields the issue names', async () => {
    const data = await json(['check', '--zones', 'zone-a,zone-b,zone-c', write('all.yaml', `${SPREAD}---\n${SINGLE}`)]);
    expect(data.zones).toEqual(['zone-a', 'zone-b', 'zone-c']);
    const [web, single] = data.workloads;
    expect(web).toMatchObject({
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
      replicas: 6,
      survives: { 'zone-a': true, 'zone-b': true, 'zone-c': true },
    });
    expect(web.perZone['zone-a']).toEqual({ guaranteed: 2, worstCase: 2 });
    expect(single).toMatchObject({ name: 'single', replicas: 1, survives: { 'zone-a': false, 'zone-b': false, 'zone-c': false } });
    expect(single.findings.map((f) => f.rule)).toContain('single-replica');
    for (const f of single.findings) expect(Object.keys(f)).toEqual(expect.arrayContaining(['rule', 'severity', 'message']));
  });

  test('sarif: results at the file and line of their object\'s document', async () => {
    const file = write('all.yaml', `${SPREAD}---\n${SINGLE}`);
    const r = await run(['check', '--zones', 'zone-a,zone-b,zone-c', '--format', 'sarif', file]);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out).runs[0].results.find((x: any) => x.ruleId === 'single-replica');
    expect(result.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: `file://${file}` }, // an absolute path, as a file:// URI
      region: { startLine: SPREAD.split('\n').length + 1 },
    });
  });

  test('html: the page with every workload; text with --color; --format=x and --zones=x spellings', async () => {
    const file = write('all.yaml', `${SPREAD}---\n${SINGLE}`);
    const html = await run(['check', '--zones=zone-a,zone-b,zone-c', '--format=html', file]);
    expect(html.code).toBe(1);
    expect(html.out).toContain('<tr data-workload="Deployment/shop/web">');
    expect(html.out).toContain('<tr data-workload="Deployment/shop/single">');
    const coloured = await run(['check', '--zones', 'zone-a,zone-b,zone-c', '--color', file]);
    expect(coloured.out).toContain('\x1b[31m✗ LOST');
  });
});

describe('inventory', () => {
  const ANTI = deployment('anti', 6, {
    extra: '      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: ' +
      '[{ topologyKey: kubernetes.io/hostname, labelSelector: { matchLabels: { app: anti } } }] } }',
  });

  test('--nodes-per-zone (default 3): one pod per node leaves 3 of 6 Pending on 1 node per zone, none on 3', async () => {
    const file = write('anti.yaml', ANTI);
    expect((await json(['check', '--zones', 'a,b,c', '--nodes-per-zone', '1', file])).workloads[0].pendingWorstCase).toBe(3);
    expect((await json(['check', '--zones', 'a,b,c', file])).workloads[0].pendingWorstCase).toBe(0);
  });

  test('--inventory: ZoneInventoryProps in YAML, zones from the file or from --zones', async () => {
    const file = write('anti.yaml', ANTI);
    const props = write('inv.yaml', 'zones: [a, b, c]\nnodesPerZone: 1\n');
    expect((await json(['check', '--inventory', props, file])).workloads[0].pendingWorstCase).toBe(3);
    const noZones = write('inv2.json', '{"nodesPerZone": 1}');
    const data = await json(['check', '--zones', 'x,y', '--inventory', noZones, file]);
    expect(data.zones).toEqual(['x', 'y']);
    expect(data.workloads[0].pendingWorstCase).toBe(4);
  });

  test('--inventory: a kubectl get nodes -o json listing (zone label, labels, taints, allocatable)', async () => {
    const node = (name: string, zone: string, extra: any = {}) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'topology.kubernetes.io/zone': zone, 'kubernetes.io/hostname': name } },
      spec: extra.taints ? { taints: extra.taints } : {},
      status: { allocatable: { cpu: '4', memory: '16Gi', pods: extra.pods ?? '110' } },
    });
    const nodes = {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '' },
      items: [
        node('n1', 'zone-b'), node('n2', 'zone-a'),
        node('n3', 'zone-c', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule', timeAdded: null }] }),
      ],
    };
    const file = write('web.yaml', SPREAD);
    const data = await json(['check', '--inventory', write('nodes.json', JSON.stringify(nodes)), file]);
    expect(data.zones).toEqual(['zone-a', 'zone-b', 'zone-c']);
    // zone-c's only node is tainted: no pod of web goes there
    expect(data.workloads[0].perZone['zone-c']).toEqual({ guaranteed: 0, worstCase: 0 });
    // a NodeList kind works too; allocatable pods count
    const onePod = { pods: '1' };
    const full = {
      ...nodes,
      kind: 'NodeList',
      items: [node('n1', 'zone-a', onePod), node('n2', 'zone-b', onePod), node('n3', 'zone-c', onePod)],
    };
    const packed = await json(['check', '--inventory', write('nodelist.yaml', JSON.stringify(full)), file]);
    expect(packed.workloads[0].pendingWorstCase).toBe(3);
  });

  test('2 on a bad inventory, naming the file and the rule', async () => {
    const file = write('web.yaml', SPREAD);
    const cases: [string, string, string[]][] = [
      ['zero.yaml', 'zones: [a]\nnodesPerZone: 0\n', ['ZoneInventory: nodesPerZone=0 must be an integer from 1 to 10000']],
      ['typo.yaml', 'zones: [a]\nnodesPerZon: 2\n', ['nodesPerZon=2 is not a prop of ZoneInventoryProps']],
      ['list.yaml', '- a\n- b\n', ['the inventory must be ZoneInventoryProps']],
      ['nozone.json', JSON.stringify({ kind: 'NodeList', items: [{ kind: 'Node', metadata: { name: 'n1', labels: {} } }] }), ['node n1 has no topology.kubernetes.io/zone label']],
    ];
    for (const [name, text, messages] of cases) {
      const inv = write(name, text);
      const r = await run(['check', '--inventory', inv, file]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`--inventory ${inv}: `);
      for (const m of messages) expect(r.err).toContain(m);
    }
    // a syntax error names the file and line itself
    const syntax = write('syntax.yaml', 'zones: [a\n');
    expect((await run(['check', '--inventory', syntax, file])).err).toContain(`cdk8s-zones: ${syntax}:2:1: not valid YAML (deficient indentation)\n`);
    const other = write('other.yaml', 'zones: [a, b]\nnodesPerZone: 1\n');
    const r = await run(['check', '--zones', 'a,c', '--inventory', other, file]);
    expect(r.err).toContain('--zones="a,c" differs from the inventory\'s zones ["a","b"]');
  });
});
