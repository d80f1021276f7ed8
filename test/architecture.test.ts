/**
 * The library's layering, checked on the import graph: each folder of src/ imports only from the layers
 * below it, the run-time contract is pure, and the runtime controller imports only the contract,
 * the pure planners (so synth-time and run-time decisions share one implementation and the image needs no
 * construct library) and the kube connection it shares with the zone check. And the code's size:
 * functions and files short enough to read whole.
 */
import * as fs from 'fs';
import { builtinModules } from 'module';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { importCycles, importsOf, packageName, reachableFrom, sourceFiles } from './import-graph';

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');
const rel = (file: string) => path.relative(ROOT, file);
/** The folder of src/ a file belongs to (a file directly in src/, such as index.ts, is a node of its own). */
const folderOf = (file: string) => path.relative(SRC, file).split(path.sep)[0];

/** Folder -> folder edges, each with one import that makes it. */
function folderEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    for (const target of importsOf(file).files) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from === to || !target.startsWith(SRC)) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${rel(file)} imports ${rel(target)}`);
    }
  }
  return edges;
}

/**
 * The folders of src/ in layers, lowest first (docs/architecture.md, "Layout"). A folder imports only from
 * folders of lower layers, never from one of its own layer nor above, so no two folders can import each other;
 * src/index.ts sits above them all.
 */
export const LAYERS: string[][] = [
  ['shared'],
  ['kubernetes'],
  ['contract'],
  ['topology', 'autoshift', 'lost-zone', 'monitoring'],
  ['zone-controller'],
  ['zone-source'],
  ['rollout'],
  ['traffic'],
  ['check', 'longhorn', 'prometheus', 'loki', 'redis'],
  ['drill'],
  ['cli'],
  ['index.ts'],
];

/** Each folder edge that breaks the layers, as the import that makes it and why. */
export function layerBreaks(edges: Map<string, Map<string, string>>, layers: string[][]): string[] {
  const rank = new Map(layers.flatMap((folders, i) => folders.map((f): [string, number] => [f, i])));
  const breaks: string[] = [];
  for (const [from, tos] of edges) {
    for (const [to, why] of tos) {
      const [a, b] = [rank.get(from), rank.get(to)];
      if (a === undefined || b === undefined) breaks.push(`${why}: ${a === undefined ? from : to} is in no layer`);
      else if (b >= a) breaks.push(`${why}: ${to} is ${b === a ? 'beside' : 'above'} ${from}`);
    }
  }
  return breaks;
}

test('the layer check finds imports sideways, upwards and from unknown folders (so the next test can fail)', () => {
  const graph = (pairs: string[]) => {
    const g = new Map<string, Map<string, string>>();
    for (const pair of pairs) {
      const [a, b] = pair.split('>');
      if (!g.has(a)) g.set(a, new Map());
      g.get(a)!.set(b, pair);
    }
    return g;
  };
  const layers = [['low'], ['mid'], ['a', 'b']];
  expect(layerBreaks(graph(['mid>low', 'a>mid', 'b>low']), layers)).toEqual([]);
  expect(layerBreaks(graph(['a>b', 'low>mid', 'x>low']), layers)).toEqual(['a>b: b is beside a', 'low>mid: mid is above low', 'x>low: x is in no layer']);
});

test('every folder of src/ imports only from the layers below it', () => {
  expect(layerBreaks(folderEdges(), LAYERS)).toEqual([]);
  const folders = fs.readdirSync(SRC, { withFileTypes: true }).map((e) => e.name);
  expect(folders.filter((f) => !LAYERS.flat().includes(f))).toEqual([]);
});

test('no two files of src/ import each other, directly or through others (type imports count)', () => {
  expect(importCycles(SRC)).toEqual([]);
});

test('the cycle check finds a cycle made by a type import on disk (so the test above can fail)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cycle-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B[];\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), "import { A } from './a';\nexport type B = { a: A };\n");
    fs.writeFileSync(path.join(dir, 'c.ts'), "import { A } from './a';\nexport const c: A = [];\n");
    expect(importCycles(dir)).toEqual(['a.ts -> b.ts -> a.ts', 'b.ts -> a.ts -> b.ts']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the contract is pure: no package but Node.js built-ins anywhere below it', () => {
  const impure: string[] = [];
  for (const file of sourceFiles(path.join(SRC, 'contract'))) {
    for (const [reached, imports] of reachableFrom(file)) {
      for (const p of imports.packages) {
        if (!builtinModules.includes(packageName(p))) impure.push(`${rel(reached)} imports ${p}`);
      }
    }
  }
  expect([...new Set(impure)]).toEqual([]);
});

/** The pure planners and rules the runtime controller may use besides the contract. */
const PLANNERS = [
  'src/redis/layout.ts', 'src/redis/slots.ts',
  'src/rollout/update-plan.ts', 'src/rollout/max-unavailable.ts', 'src/rollout/disruption-budget.ts',
  'src/kubernetes/label-selector.ts', 'src/kubernetes/pod-life.ts', 'src/kubernetes/kube-api.ts',
  'src/autoshift/autoshift-plan.ts', 'src/autoshift/zone-signals.ts',
  'src/lost-zone/recovery-plan.ts', 'src/lost-zone/stand-ins.ts', 'src/lost-zone/volume-zone.ts', 'src/kubernetes/pinned-zone.ts',
];

/**
 * The kubeconfig and HTTPS connection module the controller shares with the zone check (IO, but Node.js built-ins
 * only).
 */
const KUBE_CONNECTION = 'src/kubernetes/kube-connection.ts';

/**
 * The one command-line grammar (a table of flags, the parser, durations, the help) and its one error class for
 * bad input: the CLI's commands and the controller's read their command lines alike. Pure, no package.
 */
const COMMAND_LINE = ['src/shared/command-line.ts', 'src/shared/errors.ts'];

/** The splitter of newline-delimited streams (watch events, logs) that the controller's and the CLI's watches read. */
const LINES = 'src/shared/lines.ts';

test('the runtime controller imports from src/ only the contract, the pure planners, the kube connection, the command line and the line splitter', () => {
  const controllerFiles = sourceFiles(path.join(ROOT, 'controller', 'src'));
  const allowed = [...PLANNERS, KUBE_CONNECTION, ...COMMAND_LINE, LINES];
  const imported = new Set<string>();
  for (const file of controllerFiles) {
    for (const target of importsOf(file).files) if (target.startsWith(SRC)) imported.add(`${rel(target)} (from ${rel(file)})`);
  }
  const outside = [...imported].filter((i) => !i.startsWith('src/contract/') && !allowed.some((p) => i.startsWith(`${p} `)));
  expect(outside).toEqual([]);
  // and the modules it uses reach no construct library (nor any package)
  for (const file of allowed) {
    const packages = [...reachableFrom(path.join(ROOT, file)).values()].flatMap((i) => i.packages);
    const external = packages.filter((p) => !builtinModules.includes(packageName(p)));
    expect({ file, packages: external }).toEqual({ file, packages: [] });
  }
});

/** Every function (declarations, methods, constructors, arrows) of `file` with a body, and its length in lines. */
export function functionLengths(file: string, text = fs.readFileSync(file, 'utf8')): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclarationBase).body) {
      const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
      const isNamedByHolder = ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent);
      const holder = isNamedByHolder ? node.parent.name.getText(source) : '<anonymous>';
      const name = ts.isConstructorDeclaration(node) ? 'constructor' : (node as any).name?.getText(source) ?? holder;
      const first = line(node.getStart(source));
      found.push({ name: `${rel(file)}:${first + 1} ${name}`, lines: line(node.end) - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the function measure counts a function\'s lines, nested ones apart (so the next test can fail)', () => {
  const text = 'function outer() {\n  const inner = () => {\n    return 1;\n  };\n  return inner();\n}\n';
  expect(functionLengths(path.join(SRC, 'x.ts'), text).map((f) => [f.name, f.lines])).toEqual([['src/x.ts:1 outer', 6], ['src/x.ts:2 inner', 3]]);
});

test('code size: no function over 60 lines, at most 5 over 50, no file over 400 lines (src/ and controller/src/)', () => {
  const files = [...sourceFiles(SRC), ...sourceFiles(path.join(ROOT, 'controller', 'src'))];
  const functions = files.flatMap((f) => functionLengths(f));
  const long = (over: number) => functions.filter((f) => f.lines > over).map((f) => `${f.name} (${f.lines})`);
  expect(long(60)).toEqual([]);
  expect(long(50).length).toBeLessThanOrEqual(5);
  const lengths = files.map((f) => [rel(f), fs.readFileSync(f, 'utf8').split('\n').length] as const);
  expect(lengths.filter(([, n]) => n > 400)).toEqual([]);
});

/** The `any` keywords of `file`'s code (comments and strings do not count). */
export function anyCount(file: string, text = fs.readFileSync(file, 'utf8')): number {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let count = 0;
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) count++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return count;
}

test('the any measure counts the type, not the word (so the next test can fail)', () => {
  const text = '// any\nconst a: any = 1;\nconst b = \'any\' as any;\nfunction f(x: any[]): Record<string, any> { return x; }\n';
  expect(anyCount(path.join(SRC, 'x.ts'), text)).toBe(4);
});

test('typed objects: at most 20 `any` in src/ and controller/src/ together (unknown at the edge)', () => {
  const files = [...sourceFiles(SRC), ...sourceFiles(path.join(ROOT, 'controller', 'src'))];
  const counts = files.map((f) => [rel(f), anyCount(f)] as const).filter(([, n]) => n > 0);
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  expect({ total, within: total <= 20 }).toEqual({ total, within: true });
});
