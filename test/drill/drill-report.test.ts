/** A drill's report in its three formats: the same verdicts, escaped in HTML, the failure in JSON and text. */
import { observe } from '../../src/drill/drill-observe';
import { formatDrillReport } from '../../src/drill/drill-report';
import { DrillResult } from '../../src/drill/drill-run';
import { verdict } from '../../src/drill/drill-verdict';

const state = (ready: number) => ({ desired: 3, ready, pending: 3 - ready, readyZones: 2, inZone: 1, readyInZone: 1 });
const prediction = {
  survives: true,
  survivors: 2,
  needed: 2,
  neededBecause: 'a <quorum>',
  replacementsPending: 1,
  drainBlocked: false,
};

function result(minReady: number): DrillResult {
  const seen = observe([{ atMs: 0, state: state(3) }, { atMs: 1000, state: state(minReady) }], 0, 0);
  return {
    zone: 'zone-a',
    mode: 'outage',
    startedAt: '2026-11-27T10:00:00.000Z',
    nodes: ['n1'],
    watchedMs: 6000,
    steady: true,
    lastChangeAfterMs: 1000,
    cutShort: false,
    settledAfterMs: 800,
    shiftsAtEnd: [],
    verdicts: [verdict({ kind: 'StatefulSet', namespace: 'ns', name: 'db<x>' }, prediction, seen, 'outage')],
  };
}

test('text: each workload\'s prediction, observation and verdict, then PASSED or FAILED', () => {
  expect(formatDrillReport(result(2), 'text')).toContain([
    'StatefulSet/ns/db<x>: agrees',
    '  predicted: survives: 2 left at worst (needs 2), 1 replacements Pending at worst',
    '  observed:  2 of 3 ready at the fewest (before: 3), 1 Pending at most, 1 at the end, 0 pods\' evictions refused, whole again after never',
  ].join('\n'));
  expect(formatDrillReport(result(2), 'text')).toMatch(/PASSED: no workload broke/);
  expect(formatDrillReport(result(1), 'text')).toMatch(/CONTRADICTS the prediction[\s\S]*FAILED: a workload broke/);
});

test('JSON says whether it failed; HTML escapes every name and holds no script', () => {
  expect(JSON.parse(formatDrillReport(result(1), 'json'))).toMatchObject({ failed: true, verdicts: [{ broke: true }] });
  expect(JSON.parse(formatDrillReport(result(2), 'json')).failed).toBe(false);
  const html = formatDrillReport(result(1), 'html');
  expect(html).toContain('StatefulSet/ns/db&lt;x&gt;');
  expect(html).toContain('a &lt;quorum&gt;');
  expect(html).not.toMatch(/<script|db<x>/);
  expect(html).toContain('class="lost"');
});
