/**
 * No two files of the controller import each other, directly or through others (type imports count): a
 * cycle means neither can be understood, tested or loaded alone. `run` loads the controller process only
 * when it runs, and the decisions share the object type of kube/api.ts rather than one another's.
 */
import * as path from 'path';
import { importsOf, sourceFiles } from '../../test/import-graph';

const SRC = path.resolve(__dirname, '..', 'src');

/** The files on an import cycle through `start`, if any, as a chain of relative paths. */
function cycleThrough(start: string, edges: Map<string, string[]>): string[] | undefined {
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

test('no import cycle between the controller\'s files', () => {
  const files = sourceFiles(SRC);
  const edges = new Map(files.map((f) => [f, importsOf(f).files.filter((t) => t.startsWith(SRC))]));
  const cycles = files.map((f) => cycleThrough(f, edges)).filter((c): c is string[] => c !== undefined)
    .map((c) => c.map((f) => path.relative(SRC, f)).join(' -> '));
  expect(cycles).toEqual([]);
});

test('the cycle finder finds one (so the test above can fail)', () => {
  const edges = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  expect(cycleThrough('a', edges)).toEqual(['a', 'b', 'c', 'a']);
  expect(cycleThrough('d', edges)).toBeUndefined();
});
