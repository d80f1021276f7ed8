/**
 * The library's layering, checked on the import graph: no two folders of src/ import each other (directly
 * or through others), the run-time contract is pure, and the runtime controller imports only the contract,
 * the pure planners (so synth-time and run-time decisions share one implementation and the image needs no
 * construct library) and the kube connection it shares with the zone check. And the code's size:
 * functions and files short enough to read whole.
 */
import * as fs from 'fs';
import { builtinModules } from 'module';
import * as path from 'path';
import * as ts from 'typescript';
import { importsOf, packageName, reachableFrom, sourceFiles } from './import-graph';

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

/** Every cycle of a folder graph, each as the chain of imports that closes it (found once per starting folder). */
export function cycles(edges: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const visit = (stack: string[]) => {
    for (const [next] of edges.get(stack[stack.length - 1]) ?? []) {
      const at = stack.indexOf(next);
      if (at === 0) {
        const loop = [...stack, next];
        found.push(loop.slice(1).map((to, i) => edges.get(loop[i])!.get(to)!));
      } else if (at < 0) {
        visit([...stack, next]);
      }
    }
  };
  for (const folder of edges.keys()) visit([folder]);
  return found;
}

test('the cycle finder finds cycles (so the next test can fail)', () => {
  const graph = (pairs: string[]) => {
    const g = new Map<string, Map<string, string>>();
    for (const pair of pairs) {
      const [a, b] = pair.split('>');
      if (!g.has(a)) g.set(a, new Map());
      g.get(a)!.set(b, pair);
    }
    return g;
  };
  expect(cycles(graph(['a>b', 'b>c']))).toEqual([]);
  expect(cycles(graph(['a>b', 'b>a']))).toEqual([['a>b', 'b>a'], ['b>a', 'a>b']]);
  expect(cycles(graph(['a>b', 'b>c', 'c>a', 'c>d']))).toHaveLength(3);
});

test('no folder of src/ imports itself through another (no import cycle between folders)', () => {
  expect(cycles(folderEdges())).toEqual([]);
});

test('the contract and shared helpers depend on nothing above them', () => {
  const edges = folderEdges();
  expect([...(edges.get('shared')?.keys() ?? [])]).toEqual([]);
  expect([...(edges.get('contract')?.keys() ?? [])].filter((f) => f !== 'shared')).toEqual([]);
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

/** The pure planners the runtime controller may use besides the contract. */
const PLANNERS = [
  'src/redis/layout.ts', 'src/redis/slots.ts',
  'src/rollout/update-plan.ts', 'src/rollout/max-unavailable.ts', 'src/rollout/disruption-budget.ts',
  'src/shared/label-selector.ts',
];

/** The kubeconfig and HTTPS connection module the controller shares with the zone check (IO, but Node.js built-ins only). */
const KUBE_CONNECTION = 'src/shared/kube-connection.ts';

test('the runtime controller imports from src/ only the contract, the pure planners and the kube connection', () => {
  const controllerFiles = sourceFiles(path.join(ROOT, 'controller', 'src'));
  const allowed = [...PLANNERS, KUBE_CONNECTION];
  const imported = new Set<string>();
  for (const file of controllerFiles) {
    for (const target of importsOf(file).files) if (target.startsWith(SRC)) imported.add(`${rel(target)} (from ${rel(file)})`);
  }
  const outside = [...imported].filter((i) => !i.startsWith('src/contract/') && !allowed.some((p) => i.startsWith(`${p} `)));
  expect(outside).toEqual([]);
  // and the modules it uses reach no construct library (nor any package)
  for (const file of allowed) {
    const packages = [...reachableFrom(path.join(ROOT, file)).values()].flatMap((i) => i.packages);
    expect({ file, packages: packages.filter((p) => !builtinModules.includes(packageName(p))) }).toEqual({ file, packages: [] });
  }
});

/** Every function (declarations, methods, constructors, arrows) of `file` with a body, and its length in lines. */
export function functionLengths(file: string, text = fs.readFileSync(file, 'utf8')): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclarationBase).body) {
      const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
      const holder = ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) ? node.parent.name.getText(source) : '<anonymous>';
      const name = ts.isConstructorDeclaration(node) ? 'constructor' : (node as any).name?.getText(source) ?? holder;
      found.push({ name: `${rel(file)}:${line(node.getStart(source)) + 1} ${name}`, lines: line(node.end) - line(node.getStart(source)) + 1 });
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

test('code size: no function over 80 lines, at most 10 over 50, no file over 500 lines (src/ and controller/src/)', () => {
  const files = [...sourceFiles(SRC), ...sourceFiles(path.join(ROOT, 'controller', 'src'))];
  const functions = files.flatMap((f) => functionLengths(f));
  const long = (over: number) => functions.filter((f) => f.lines > over).map((f) => `${f.name} (${f.lines})`);
  expect(long(80)).toEqual([]);
  expect(long(50).length).toBeLessThanOrEqual(10);
  expect(files.map((f) => [rel(f), fs.readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > 500)).toEqual([]);
});
