/**
 * The static import graph of the repository's TypeScript sources, for architecture tests: which modules a
 * file imports (relative paths resolved to files, JSON files included, bare specifiers kept as packages), type-only
 * imports included (a type import still ties one folder to another).
 */
import * as fs from 'fs';
import * as path from 'path';

/** Static imports and re-exports (`... from 'x'`, `import type`) and dynamic imports (`import('x')`). */
const IMPORT = /(?:(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+|\bimport\()'([^']+)'/g;

export interface Imports {
  /** Repository files this file imports (absolute paths). */
  readonly files: string[];
  /** Bare module specifiers (packages and Node.js built-ins). */
  readonly packages: string[];
}

/** What one file imports. */
export function importsOf(file: string): Imports {
  const files: string[] = [];
  const packages: string[] = [];
  for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
    if (specifier.startsWith('.') && specifier.endsWith('.json')) {
      files.push(path.resolve(path.dirname(file), specifier)); // data, compiled in: a leaf of the graph
    } else if (specifier.startsWith('.')) {
      const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, ''));
      files.push(fs.existsSync(`${target}.ts`) ? `${target}.ts` : path.join(target, 'index.ts'));
    } else {
      packages.push(specifier);
    }
  }
  return { files, packages };
}

/** Every file reachable from `entry` (itself included), with what each imports. */
export function reachableFrom(entry: string): Map<string, Imports> {
  const graph = new Map<string, Imports>();
  const visit = (file: string) => {
    if (graph.has(file)) return;
    const imports = importsOf(file);
    graph.set(file, imports);
    imports.files.filter((f) => f.endsWith('.ts')).forEach(visit);
  };
  visit(entry);
  return graph;
}

/** Every .ts file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`, `node:fs` -> `fs`. */
export function packageName(specifier: string): string {
  const parts = specifier.replace(/^node:/, '').split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/** The files on an import cycle through `start`, if any, as a chain of files from `start` back to it. */
export function cycleThrough(start: string, edges: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]): string[] | undefined => {
    for (const next of edges.get(file) ?? []) {
      if (next === start) return [...chain, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...chain, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

/** Every import cycle among the .ts files under `dir` (type imports count), each as `a -> b -> a` relative to `dir`. */
export function importCycles(dir: string): string[] {
  const files = sourceFiles(dir);
  const edges = new Map(files.map((f) => [f, importsOf(f).files.filter((t) => t.startsWith(dir + path.sep))]));
  return files.map((f) => cycleThrough(f, edges)).filter((c): c is string[] => c !== undefined)
    .map((c) => c.map((f) => path.relative(dir, f)).join(' -> '));
}
