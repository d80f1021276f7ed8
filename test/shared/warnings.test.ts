import { Chart, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import { addWarning, warningsOf } from '../../src/shared/warnings';

test('warnings are printed and recorded on the construct, and found from any scope above it', () => {
  const chart = new Chart(Testing.app(), 'chart');
  const inner = new Construct(new Construct(chart, 'a'), 'b');
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    addWarning(inner, 'shards 4 and 5 scrape nothing');
    expect(stderr).toHaveBeenCalledWith('[cdk8s-zones] WARNING chart/a/b: shards 4 and 5 scrape nothing\n');
  } finally {
    stderr.mockRestore();
  }
  expect(warningsOf(chart)).toEqual(['chart/a/b: shards 4 and 5 scrape nothing']);
  expect(warningsOf(new Construct(chart, 'other'))).toEqual([]);
});
