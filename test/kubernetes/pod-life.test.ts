import {
  conditionHolds, hasEnded, isActive, isPending, isReady, isRunningAndReady, isTerminating, PodLifeFields,
} from '../../src/kubernetes/pod-life';

/** A pod in `phase`; `ready`: its Ready condition (undefined: none), `deleting`: a deletionTimestamp, `node`: bound. */
function pod(
  phase: string | undefined,
  opts: { ready?: 'True' | 'False'; deleting?: boolean; node?: string } = {},
): PodLifeFields & { spec: object } {
  return {
    metadata: opts.deleting ? { deletionTimestamp: '2026-11-28T05:00:00Z' } : {},
    spec: opts.node ? { nodeName: opts.node } : {},
    status: {
      ...(phase ? { phase } : {}),
      ...(opts.ready ? { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: opts.ready }] } : {}),
    },
  };
}

/** Every rule on one pod, in one object, so each case shows the whole life at once. */
const life = (p: PodLifeFields) => ({
  ended: hasEnded(p),
  terminating: isTerminating(p),
  pending: isPending(p),
  active: isActive(p),
  ready: isReady(p),
  runningAndReady: isRunningAndReady(p),
});

const NONE = { ended: false, terminating: false, pending: false, active: false, ready: false, runningAndReady: false };

test('a running Ready pod is active, Ready, running and ready', () => {
  expect(life(pod('Running', { ready: 'True', node: 'n1' }))).toEqual({ ...NONE, active: true, ready: true, runningAndReady: true });
});

test('a running pod whose Ready condition is False or absent is active but not Ready', () => {
  expect(life(pod('Running', { ready: 'False', node: 'n1' }))).toEqual({ ...NONE, active: true });
  expect(life(pod('Running', { node: 'n1' }))).toEqual({ ...NONE, active: true });
});

test('a Pending pod is Pending and active, whether the scheduler has bound it to a node or not', () => {
  expect(life(pod('Pending'))).toEqual({ ...NONE, pending: true, active: true });
  expect(life(pod('Pending', { node: 'n1', ready: 'False' }))).toEqual({ ...NONE, pending: true, active: true });
});

test('a pod that ended (Succeeded, Failed) is no replica, even with the Ready condition it had', () => {
  expect(life(pod('Succeeded'))).toEqual({ ...NONE, ended: true });
  expect(life(pod('Failed', { ready: 'False', node: 'n1' }))).toEqual({ ...NONE, ended: true });
  expect(life(pod('Failed', { ready: 'True', node: 'n1' }))).toEqual({ ...NONE, ended: true, ready: true });
});

test('a terminating pod is going whatever its phase: a Running Ready one still reports Ready, but is not active', () => {
  expect(life(pod('Running', { ready: 'True', deleting: true, node: 'n1' })))
    .toEqual({ ...NONE, terminating: true, ready: true, runningAndReady: true });
  expect(life(pod('Pending', { deleting: true }))).toEqual({ ...NONE, terminating: true, pending: true });
  expect(life(pod('Failed', { deleting: true }))).toEqual({ ...NONE, terminating: true, ended: true });
});

test('a pod without status (just created) is active and nothing else; an unset deletionTimestamp is not terminating', () => {
  expect(life({ metadata: {} })).toEqual({ ...NONE, active: true });
  expect(life(pod(undefined))).toEqual({ ...NONE, active: true });
  expect(isTerminating({ metadata: { deletionTimestamp: undefined } })).toBe(false);
});

test('a phase of Unknown (its node lost) is neither Pending nor ended, nor running', () => {
  expect(life(pod('Unknown', { ready: 'True', node: 'n1' }))).toEqual({ ...NONE, active: true, ready: true });
});

test('conditionHolds reads any condition by type, True only (a node\'s too)', () => {
  const node = { metadata: {}, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'False' }] } };
  expect(conditionHolds(node, 'Ready')).toBe(true);
  expect(conditionHolds(node, 'DiskPressure')).toBe(false);
  expect(conditionHolds(node, 'MemoryPressure')).toBe(false);
  expect(conditionHolds({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }, 'Ready')).toBe(false);
});
