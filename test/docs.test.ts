/**
 * Every TypeScript block of README.md and docs/ runs as written, against the package as a user installs it (the
 * tarball `npm pack` makes, imported as 'cdk8s-zones' by a new app). Each block is one of:
 *
 * - a whole program: it imports from 'cdk8s-zones' and ends with `app.synth()`; pasted as `main.ts` into an app
 *   it type-checks, synthesizes, and its output passes the zone check with no finding above info;
 * - a continuation (its first line `// continues the program above`): appended to the program before it on the
 *   same page, which then runs as one (its `app.synth()` last);
 * - an excerpt of a file of this repository (its first line `// <path>`): the file holds it word for word.
 *
 * A block that is none of these fails the test, so none is left unaccounted for.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..');
const CONTINUES = '// continues the program above';
const ZONE_CHECK_DEFAULT_ZONES = ['zone-a', 'zone-b', 'zone-c'];
/** What an app's node_modules hold beside the package: its peer and the cdk8s packages a new app installs. */
const APP_PACKAGES = ['cdk8s', 'constructs', 'cdk8s-plus-28', 'cdk8s-plus-33'];

interface Block {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

interface Program {
  readonly id: string;
  /** The blocks it is made of: a whole program and its continuations. */
  readonly blocks: Block[];
  readonly code: string;
}

function docFiles(): string[] {
  const walk = (dir: string): string[] => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => {
      if (e.isDirectory()) return walk(path.join(dir, e.name));
      return e.name.endsWith('.md') ? [path.join(dir, e.name)] : [];
    });
  return ['README.md', ...walk('docs')];
}

export function typescriptBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(?:ts|typescript)\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(fence)) {
    blocks.push({ file, line: text.slice(0, m.index).split('\n').length, code: m[1] });
  }
  return blocks;
}

const firstLine = (b: Block) => b.code.split('\n')[0].trim();
const excerptPath = (b: Block) => /^\/\/ ((?:test|src|examples|controller|scripts)\/\S+)$/.exec(firstLine(b))?.[1];
const isProgram = (b: Block) => /from 'cdk8s-zones';/.test(b.code) && /^app\.synth\(\);$/m.test(b.code);

/**
 * The page's programs (each whole program with the continuations after it), and the blocks that are none of the three
 * kinds.
 */
export function programsOf(blocks: readonly Block[]): { programs: Program[]; unaccounted: Block[] } {
  const programs: Program[] = [];
  const unaccounted: Block[] = [];
  for (const b of blocks) {
    if (excerptPath(b) !== undefined) continue;
    if (firstLine(b) === CONTINUES && programs.length > 0) {
      const p = programs.pop()!;
      programs.push({ ...p, blocks: [...p.blocks, b], code: `${p.code.replace(/^app\.synth\(\);$/m, '')}${b.code}\napp.synth();\n` });
    } else if (isProgram(b)) {
      programs.push({ id: `${b.file.replace(/[/.]/g, '-')}-${b.line}`, blocks: [b], code: b.code });
    } else {
      unaccounted.push(b);
    }
  }
  return { programs, unaccounted };
}

/** The zones of the program's first ZoneTopology (the zone check needs them), or the check's defaults. */
function zonesOf(code: string): string[] {
  const list = /new ZoneTopology\(\{[^}]*?zones: \[([^\]]*)\]/.exec(code.replace(/\/\/.*$/gm, ''))?.[1];
  const zones = list === undefined ? [] : [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  return zones.length > 0 ? zones : ZONE_CHECK_DEFAULT_ZONES;
}

/**
 * What the main.test.ts of `cdk8s init typescript-app` does with the chart class its main.ts exports: synthesize a
 * `MyChart` and compare a snapshot. A program that keeps that class (the README's quick start) must keep it working.
 */
const INIT_TEST = [
  "import { Testing } from 'cdk8s';",
  "import { MyChart } from './main';",
  '',
  "test('the chart synthesizes as before', () => {",
  "  expect(Testing.synth(new MyChart(Testing.app(), 'test-chart'))).toMatchSnapshot();",
  '});',
  '',
].join('\n');
const keepsInitChart = (p: { code: string }) => /^export class MyChart extends Chart \{$/m.test(p.code);

const blocks = docFiles().flatMap((f) => typescriptBlocks(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));
const pages = [...new Set(blocks.map((b) => b.file))].map((f) => programsOf(blocks.filter((b) => b.file === f)));
const programs = pages.flatMap((p) => p.programs);

let app: string;
let compileErrors = new Map<string, string>();

/**
 * A new app with the packed package installed (and the cdk8s packages it needs); every program type-checked and
 * compiled there.
 */
beforeAll(() => {
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-zones-docs-'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', app], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
  const installed = path.join(app, 'node_modules', 'cdk8s-zones');
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', path.join(app, packed), '-C', installed, '--strip-components=1']);
  for (const p of APP_PACKAGES) fs.symlinkSync(path.join(ROOT, 'node_modules', p), path.join(app, 'node_modules', p));
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@types'), path.join(app, 'node_modules', '@types'));
  for (const p of programs) {
    fs.mkdirSync(path.join(app, p.id));
    fs.writeFileSync(path.join(app, p.id, 'main.ts'), p.code);
    if (keepsInitChart(p)) fs.writeFileSync(path.join(app, p.id, 'main.test.ts'), INIT_TEST);
  }
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    // what `cdk8s init typescript-app` sets that matters here: strict, CommonJS, Node.js types
    compilerOptions: {
      strict: true,
      module: 'commonjs',
      target: 'ES2022',
      lib: ['es2022'],
      types: ['node', 'jest'],
      esModuleInterop: true,
      skipLibCheck: true,
    },
    include: programs.flatMap((p) => [`${p.id}/main.ts`, ...(keepsInitChart(p) ? [`${p.id}/main.test.ts`] : [])]),
  }));
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', app], { cwd: app, encoding: 'utf8' });
  const errorsOf = (id: string) => tsc.stdout.split('\n').filter((l) => l.startsWith(`${id}/`)).join('\n');
  compileErrors = new Map(programs.map((p) => [p.id, errorsOf(p.id)]));
}, 120_000);

afterAll(() => fs.rmSync(app, { recursive: true, force: true }));

test('the classifier: a program takes the continuations after it; a continuation with no program before it, or a fragment, is unaccounted for', () => {
  const b = (line: number, code: string) => ({ file: 'x.md', line, code });
  const program = "import { Zonal } from 'cdk8s-zones';\nconst app = 1;\napp.synth();\n";
  const { programs: found, unaccounted } = programsOf([
    b(1, `${CONTINUES}\nlet x = 1;\n`),
    b(5, program),
    b(9, `${CONTINUES}\nlet y = 2;\n`),
    b(14, 'new Thing(chart);\n'),
  ]);
  expect(found.map((p) => [p.blocks.map((x) => x.line), p.code.trimEnd().split('\n').pop()])).toEqual([[[5, 9], 'app.synth();']]);
  expect(found[0].code).toContain('let y = 2;');
  expect(unaccounted.map((x) => x.line)).toEqual([1, 14]);
});

test('every TypeScript block of README.md and docs/ is a whole program, a continuation or an excerpt', () => {
  expect(pages.flatMap((p) => p.unaccounted).map((b) => `${b.file}:${b.line}: ${firstLine(b)}`)).toEqual([]);
  expect(programs.length).toBeGreaterThan(0);
});

test('the README\'s quick start, pasted over the main.ts `cdk8s init` made, keeps its main.test.ts compiling', () => {
  const quickStart = programs.find((p) => p.blocks[0].file === 'README.md');
  expect(quickStart && keepsInitChart(quickStart)).toBe(true);
  expect(compileErrors.get(quickStart!.id)).toBe('');
  // the test file compiled with its program: MyChart is exported and built as the test builds it
  expect(fs.existsSync(path.join(app, quickStart!.id, 'main.test.js'))).toBe(true);
  const chart = spawnSync(process.execPath, ['-e', [
    "const { Testing } = require('cdk8s');",
    "const { MyChart } = require('./main.js');",
    "console.log(Testing.synth(new MyChart(Testing.app(), 'test-chart')).map((o) => o.kind).join(','));",
  ].join('\n')], { cwd: path.join(app, quickStart!.id), encoding: 'utf8' });
  expect({ status: chart.status, stderr: chart.stderr, kinds: chart.stdout.trim() })
    .toEqual({ status: 0, stderr: '', kinds: 'Deployment' });
});

test('every excerpt is in the file it names, word for word', () => {
  const excerpts = blocks.filter((b) => excerptPath(b) !== undefined);
  const missing = excerpts.filter((b) => {
    const file = path.join(ROOT, excerptPath(b)!);
    return !fs.existsSync(file) || !fs.readFileSync(file, 'utf8').includes(b.code.split('\n').slice(1).join('\n').trimEnd());
  });
  expect(missing.map((b) => `${b.file}:${b.line} (${excerptPath(b)})`)).toEqual([]);
});

test.each(programs.map((p) => [p.blocks.map((b) => `${b.file}:${b.line}`).join(' + '), p]))('%s synthesizes and passes the zone check', (_, p) => {
  expect(compileErrors.get(p.id)).toBe('');
  const dir = path.join(app, p.id);
  const run = spawnSync(process.execPath, ['main.js'], { cwd: dir, encoding: 'utf8' });
  // a build from source warns that its default controller image was never published: the one warning allowed
  const stderr = run.stderr.split('\n').filter((l) => l !== '' && !/WARNING .*: image: the default .* which no release published/.test(l));
  expect({ status: run.status, stderr }).toEqual({ status: 0, stderr: [] });
  const check = spawnSync(process.execPath, [
    path.join(app, 'node_modules', 'cdk8s-zones', 'lib', 'cli', 'main.js'), 'check', '--zones', zonesOf(p.code).join(','), '--nodes-per-zone', '3',
    '--allow-empty', '--format', 'json', path.join(dir, 'dist'),
  ], { encoding: 'utf8' });
  // one runtime controller per app, whatever the guides it combines
  const objects = fs.readdirSync(path.join(dir, 'dist'))
    .flatMap((f) => fs.readFileSync(path.join(dir, 'dist', f), 'utf8').split('\n---\n'));
  expect(objects.filter((o) => /^kind: Deployment$/m.test(o) && /app.kubernetes.io\/name: cdk8s-zones-controller/.test(o)).length)
    .toBe(p.code.includes('new ZoneController(') ? 1 : 0);
  const report = JSON.parse(check.stdout);
  const workloadFindings = report.workloads
    .flatMap((w: any) => w.findings.map((f: any) => ({ ...f, workload: `${w.kind}/${w.name}` })));
  const findings = [...report.findings, ...workloadFindings];
  expect({ exit: check.status, findings: findings.filter((f) => f.severity !== 'info') })
    .toEqual({ exit: 0, findings: [] });
});
