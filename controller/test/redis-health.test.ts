import { recordedStatus } from '../src/reconcilers/redis-status';
import { ClusterState, Issue } from '../src/redis/decide';
import { FINALIZED_AFTER_PASSES, healthEvents, nextHealth, phaseOf, RedisHealth } from '../src/redis/health';
import { Step } from '../src/redis/steps';

function state(issues: Issue[] = [], nextSteps: Step[] = [], slotsServed = 16384): ClusterState {
  const healthy = issues.length === 0 && nextSteps.length === 0 && slotsServed === 16384;
  return { healthy, slotsServed, mastersPerZone: {}, maxMastersPerZone: 1, nodes: [], issues, nextSteps };
}
const HEALTHY = state();
const LOST = state([{ kind: 'unreachable', message: 'a-0 (10.0.0.1:6379, zone a) does not answer' }]);
const NEW = state([{ kind: 'not-bootstrapped', message: 'no slot is assigned' }], [], 0);
const RESHARDING = state([{ kind: 'resharding', message: '100 slots are not on their planned shard' }],
  [{ kind: 'migrate', from: 'a-0', to: 'b-0', toId: 'x', ranges: [[0, 99]] }]);

/** The health after each state in turn, one second apart. */
function run(states: ClusterState[], start?: RedisHealth): RedisHealth[] {
  const out: RedisHealth[] = [];
  states.reduce<RedisHealth | undefined>((prev, s, i) => {
    const next = nextHealth(prev, s, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    out.push(next);
    return next;
  }, start);
  return out;
}

test('the phase of one pass', () => {
  expect([HEALTHY, LOST, NEW, RESHARDING].map((s) => phaseOf(s))).toEqual(['healthy', 'recovering', 'initializing', 'scaling']);
  expect(phaseOf(state([{ kind: 'slots-lost', message: 'slots 0-5460 lost' }], [], 10923))).toBe('recovering');
  expect(phaseOf(state([], [{ kind: 'add-slots', on: 'a-0', ranges: [[0, 5460]] }], 0))).toBe('initializing');
  // a new cluster stays initializing until it is first healthy (replicas attaching are part of it)
  expect(phaseOf(LOST, 'initializing')).toBe('initializing');
  expect(phaseOf(HEALTHY, 'initializing')).toBe('healthy');
  expect(phaseOf(LOST, 'healthy')).toBe('recovering');
});

test('upgrading while pods run an out-of-date revision (a replaced pod away is part of it); scaling while a StatefulSet is not at the layout\'s size', () => {
  expect(phaseOf(HEALTHY, 'healthy', { upgrading: true })).toBe('upgrading');
  expect(phaseOf(LOST, 'upgrading', { upgrading: true })).toBe('upgrading');
  expect(phaseOf(HEALTHY, 'upgrading')).toBe('healthy'); // the last pod replaced and back
  expect(phaseOf(HEALTHY, 'healthy', { scaling: true })).toBe('scaling');
  expect(phaseOf(LOST, 'healthy', { scaling: true })).toBe('scaling');
  // a new cluster is initializing, whatever its pods' revisions
  expect(phaseOf(NEW, undefined, { upgrading: true, scaling: true })).toBe('initializing');
  const [healthy, upgrading, done] = run([HEALTHY, HEALTHY, HEALTHY]);
  const during = nextHealth(healthy, HEALTHY, new Date(Date.UTC(2026, 0, 1, 0, 1)), { upgrading: true });
  expect([during.phase, during.healthyPasses, during.unhealthyPasses]).toEqual(['upgrading', 0, 1]);
  expect(healthEvents(healthy, during, HEALTHY)).toEqual([{ type: 'Normal', reason: 'RedisUpgrading', message: 'phase upgrading (was healthy)' }]);
  expect([upgrading.phase, done.phase]).toEqual(['healthy', 'healthy']);
});

test('consecutive passes: a healthy pass resets the unhealthy count and the other way round; finalized after 10 healthy in a row', () => {
  const healths = run([NEW, NEW, ...Array(FINALIZED_AFTER_PASSES).fill(HEALTHY), LOST, HEALTHY]);
  expect(healths.map((h) => [h.phase, h.healthyPasses, h.unhealthyPasses, h.finalized])).toEqual([
    ['initializing', 0, 1, false], ['initializing', 0, 2, false],
    ...Array.from({ length: FINALIZED_AFTER_PASSES }, (_, i) => ['healthy', i + 1, 0, i + 1 >= FINALIZED_AFTER_PASSES]),
    ['recovering', 0, 1, false], ['healthy', 1, 0, false],
  ]);
  // since when: the time of the change, kept while the phase (or finalized) stays
  expect(healths[1].phaseSince).toBe(healths[0].phaseSince);
  expect(healths[2].phaseSince).toBe('2026-01-01T00:00:02.000Z');
  expect(healths[11].finalizedSince).toBe('2026-01-01T00:00:11.000Z');
  expect(healths[12].finalizedSince).toBe('2026-01-01T00:00:12.000Z');
});

test('events: each phase change (a warning when it starts recovering) and finalized; none for a first healthy pass', () => {
  const [first] = run([HEALTHY]);
  expect(healthEvents(undefined, first, HEALTHY)).toEqual([]);
  const [lost] = run([LOST], first);
  expect(healthEvents(first, lost, LOST)).toEqual([
    { type: 'Warning', reason: 'RedisRecovering', message: 'phase recovering (was healthy): a-0 (10.0.0.1:6379, zone a) does not answer' },
  ]);
  const healths = run(Array(FINALIZED_AFTER_PASSES).fill(HEALTHY), lost);
  expect(healthEvents(lost, healths[0], HEALTHY)).toEqual([{ type: 'Normal', reason: 'RedisHealthy', message: 'phase healthy (was recovering)' }]);
  const events = healths.slice(1).flatMap((h, i) => healthEvents(healths[i], h, HEALTHY));
  expect(events).toEqual([{ type: 'Normal', reason: 'RedisFinalized', message: `healthy for ${FINALIZED_AFTER_PASSES} passes in a row` }]);
});

test('the health and last operation a status ConfigMap recorded carry over a restart; anything else is ignored', () => {
  const [health] = run([HEALTHY]);
  const lastOperation = { operation: 'fix', result: 'done', message: 'the cluster ended healthy', at: '2026-01-01T00:00:00.000Z' };
  const map = (data: Record<string, string>) => ({ metadata: { name: 'cache-status' }, data });
  const recorded = map({ 'state.json': JSON.stringify({ healthy: true, health, lastOperation }) });
  expect(recordedStatus(recorded)).toEqual({ health, lastOperation });
  for (const broken of [
    '{', '{}', 'null', JSON.stringify({ health: { ...health, phase: 'dancing' }, lastOperation: { ...lastOperation, result: 'maybe' } }),
    JSON.stringify({ health: { ...health, healthyPasses: -1 }, lastOperation: { result: 'done' } }),
  ]) {
    expect(recordedStatus(map({ 'state.json': broken }))).toEqual({ health: undefined, lastOperation: undefined });
  }
  expect(recordedStatus(undefined)).toEqual({ health: undefined, lastOperation: undefined });
});
