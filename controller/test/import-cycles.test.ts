/**
 * No two files of the controller import each other, directly or through others (type imports count): a
 * cycle means neither can be understood, tested or loaded alone. `run` loads the controller process only
 * when it runs, and the decisions share the object type of kube/api.ts rather than one another's.
 */
import * as path from 'path';
import { cycleThrough, importCycles } from '../../test/import-graph';

const SRC = path.resolve(__dirname, '..', 'src');

test('no import cycle between the controller\'s files', () => {
  expect(importCycles(SRC)).toEqual([]);
});

test('the cycle finder finds one (so the test above can fail)', () => {
  const edges = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  expect(cycleThrough('a', edges)).toEqual(['a', 'b', 'c', 'a']);
  expect(cycleThrough('d', edges)).toBeUndefined();
});
