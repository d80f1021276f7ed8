import { lineSplitter } from '../../src/shared/lines';

test('lines split across chunks arrive whole, blank lines are skipped, a partial line waits for its end', () => {
  const lines: string[] = [];
  const split = lineSplitter((line) => lines.push(line));
  split('{"a":1}\n{"b"');
  expect(lines).toEqual(['{"a":1}']);
  split(':2}\n\n  \n{"c":3}');
  expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  split('\n');
  expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
});

test('an exception from the line handler propagates and drops the rest of the chunk', () => {
  const lines: string[] = [];
  const split = lineSplitter((line) => {
    if (line === 'bad') throw new Error('bad line');
    lines.push(line);
  });
  expect(() => split('one\nbad\ntwo\n')).toThrow('bad line');
  expect(lines).toEqual(['one']);
});
