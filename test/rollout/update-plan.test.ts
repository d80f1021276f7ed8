import { batchSize, oldReplicasByZone, planUpdate, RolloutPod, RolloutState, UNKNOWN_ZONE } from '../../src/rollout/update-plan';

/**
 * The seed figure: 29 pods (ordinals 1..29) over zone-1 and zone-2. The old-revision pods are the ones the
 * figure lists; the others (3, 4, 9, 12, 13, 18, 21, 24, 25) already run the new revision.
 */
const ZONE_1_OLD = [1, 6, 8, 10, 15, 17, 19, 22, 27, 28];
const ZONE_2_OLD = [2, 5, 7, 11, 14, 16, 20, 23, 26, 29];
const UPDATED = { 'zone-1': [3, 9, 13, 21, 25], 'zone-2': [4, 12, 18, 24] };

function seedPods(): RolloutPod[] {
  const pod = (ordinal: number, zone: string, revision: string): RolloutPod =>
    ({ name: `web-${ordinal}`, order: ordinal, zone, revision, ready: true, terminating: false });
  return [
    ...ZONE_1_OLD.map((o) => pod(o, 'zone-1', 'old')),
    ...ZONE_2_OLD.map((o) => pod(o, 'zone-2', 'old')),
    ...UPDATED['zone-1'].map((o) => pod(o, 'zone-1', 'new')),
    ...UPDATED['zone-2'].map((o) => pod(o, 'zone-2', 'new')),
  ];
}

interface Batch { zone: string; ordinals: number[] }

/**
 * Runs the planner like the controller would: delete the batch, see the pods terminate, come back on the
 * update revision not Ready, then Ready. Returns every batch and checks the planner waits in between.
 */
function rollOut(
  pods: RolloutPod[],
  revision: string,
  maxUnavailable: number,
  exponentialFactor: number,
  initial?: RolloutState,
): Batch[] {
  let state = initial;
  const batches: Batch[] = [];
  const replicas = pods.length;
  for (let i = 0; i < 1000; i++) {
    const d = planUpdate({ pods, replicas, updateRevision: revision, maxUnavailable, exponentialFactor, state });
    state = d.state;
    if (d.action === 'done') return batches;
    if (d.action === 'wait') throw new Error(`unexpected wait: ${d.reason}`);
    batches.push({ zone: d.zone, ordinals: d.pods.map((n) => Number(n.split('-')[1])) });
    const deleted = new Set(d.pods);
    // Terminating: the planner waits.
    pods = pods.map((p) => deleted.has(p.name) ? { ...p, terminating: true } : p);
    const whileTerminating = planUpdate({
      pods, replicas, updateRevision: revision, maxUnavailable, exponentialFactor, state,
    });
    expect(whileTerminating.action).toBe('wait');
    expect(whileTerminating.reason).toMatch(/terminating/);
    // Gone, not yet recreated: the planner waits.
    const gone = pods.filter((p) => !deleted.has(p.name));
    const whileGone = planUpdate({
      pods: gone, replicas, updateRevision: revision, maxUnavailable, exponentialFactor, state,
    });
    expect(whileGone.reason).toMatch(/missing/);
    // Recreated on the update revision, not Ready yet: the planner waits.
    pods = pods.map((p) => deleted.has(p.name) ? { ...p, terminating: false, revision, ready: false } : p);
    const whileStarting = planUpdate({
      pods, replicas, updateRevision: revision, maxUnavailable, exponentialFactor, state,
    });
    expect(whileStarting.action).toBe('wait');
    expect(whileStarting.reason).toMatch(/to be Ready/);
    pods = pods.map((p) => deleted.has(p.name) ? { ...p, ready: true } : p);
  }
  throw new Error('the rollout did not finish');
}

describe('ZoneAwareUpdate planner: the seed sequences', () => {
  test('maxUnavailable 4, exponential factor 2', () => {
    expect(rollOut(seedPods(), 'new', 4, 2)).toEqual([
      { zone: 'zone-1', ordinals: [28] },
      { zone: 'zone-1', ordinals: [27, 22] },
      { zone: 'zone-1', ordinals: [19, 17, 15, 10] },
      { zone: 'zone-1', ordinals: [8, 6, 1] },
      { zone: 'zone-2', ordinals: [29, 26, 23, 20] },
      { zone: 'zone-2', ordinals: [16, 14, 11, 7] },
      { zone: 'zone-2', ordinals: [5, 2] },
    ]);
  });

  test('maxUnavailable 4, exponential factor 0 (off)', () => {
    expect(rollOut(seedPods(), 'new', 4, 0)).toEqual([
      { zone: 'zone-1', ordinals: [28, 27, 22, 19] },
      { zone: 'zone-1', ordinals: [17, 15, 10, 8] },
      { zone: 'zone-1', ordinals: [6, 1] },
      { zone: 'zone-2', ordinals: [29, 26, 23, 20] },
      { zone: 'zone-2', ordinals: [16, 14, 11, 7] },
      { zone: 'zone-2', ordinals: [5, 2] },
    ]);
  });

  test('rollback mid-rollout: the pods updated last go first, and the step restarts at 1 pod', () => {
    // Roll 'old' -> 'new' for three batches (28; 27, 22; 19, 17, 15, 10), then roll back to 'old'.
    let pods = seedPods();
    let state: RolloutState | undefined;
    for (let i = 0; i < 3; i++) {
      const d = planUpdate({ pods, replicas: 29, updateRevision: 'new', maxUnavailable: 4, exponentialFactor: 2, state });
      if (d.action !== 'delete') throw new Error(d.reason);
      state = d.state;
      pods = pods.map((p) => d.pods.includes(p.name) ? { ...p, revision: 'new' } : p);
    }
    expect(state).toEqual({ revision: 'new', step: 3 });
    const batches = rollOut(pods, 'old', 4, 2, state);
    // Every pod on 'new' goes back to 'old', zone-1 (which holds the freshly updated ones) first,
    // highest ordinal first, restarting the ramp.
    expect(batches).toEqual([
      { zone: 'zone-1', ordinals: [28] },
      { zone: 'zone-1', ordinals: [27, 25] },
      { zone: 'zone-1', ordinals: [22, 21, 19, 17] },
      { zone: 'zone-1', ordinals: [15, 13, 10, 9] },
      { zone: 'zone-1', ordinals: [3] },
      { zone: 'zone-2', ordinals: [24, 18, 12, 4] },
    ]);
  });
});

describe('ZoneAwareUpdate planner: decisions', () => {
  const pod = (name: string, order: number, zone: string | undefined, revision = 'old', ready = true): RolloutPod =>
    ({ name, order, zone, revision, ready, terminating: false });

  test('batch sizes: factor^step capped by maxUnavailable, at least 1; factor 0 = maxUnavailable', () => {
    expect([0, 1, 2, 3, 4].map((s) => batchSize(s, 2, 5))).toEqual([1, 2, 4, 5, 5]);
    expect([0, 1, 2, 3, 4].map((s) => batchSize(s, 1.5, 10))).toEqual([1, 1, 2, 3, 5]);
    expect([0, 1, 2].map((s) => batchSize(s, 1, 10))).toEqual([1, 1, 1]);
    expect([0, 7].map((s) => batchSize(s, 0, 3))).toEqual([3, 3]);
    expect(batchSize(5000, 10, 7)).toBe(7);
  });

  test('a persisted step resumes the ramp (controller restart)', () => {
    const pods = [pod('a-0', 0, 'z1'), pod('a-1', 1, 'z1'), pod('a-2', 2, 'z1'), pod('a-3', 3, 'z1')];
    const state = { revision: 'new', step: 2 };
    const d = planUpdate({ pods, replicas: 4, updateRevision: 'new', maxUnavailable: 10, exponentialFactor: 2, state });
    expect(d).toMatchObject({ action: 'delete', pods: ['a-3', 'a-2', 'a-1', 'a-0'], state: { revision: 'new', step: 3 } });
  });

  test('a step of another revision is reset', () => {
    const pods = [pod('a-0', 0, 'z1'), pod('a-1', 1, 'z1')];
    const state = { revision: 'v2', step: 4 };
    const d = planUpdate({ pods, replicas: 2, updateRevision: 'v3', maxUnavailable: 10, exponentialFactor: 2, state });
    expect(d).toMatchObject({ action: 'delete', pods: ['a-1'], state: { revision: 'v3', step: 1 } });
  });

  test('old pods without a zone come last, as their own group', () => {
    const pods = [pod('a-5', 5, undefined), pod('a-1', 1, 'z2'), pod('a-2', 2, 'z1')];
    const order: string[][] = [];
    let current = pods;
    let state: RolloutState | undefined;
    for (;;) {
      const d = planUpdate({
        pods: current, replicas: 3, updateRevision: 'new', maxUnavailable: 5, exponentialFactor: 0, state,
      });
      if (d.action !== 'delete') break;
      state = d.state;
      order.push(d.pods);
      current = current.map((p) => d.pods.includes(p.name) ? { ...p, revision: 'new' } : p);
    }
    expect(order).toEqual([['a-2'], ['a-1'], ['a-5']]);
    expect([...oldReplicasByZone(pods, 'new')]).toEqual([['z1', 1], ['z2', 1], [UNKNOWN_ZONE, 1]]);
  });

  test('old pods that are not Ready do not block (deleting them helps); updated ones do', () => {
    const pods = [pod('a-0', 0, 'z1', 'old', false), pod('a-1', 1, 'z1', 'new', true)];
    expect(planUpdate({ pods, replicas: 2, updateRevision: 'new', maxUnavailable: 1, exponentialFactor: 2 }))
      .toMatchObject({ action: 'delete', pods: ['a-0'] });
    const blocked = [pod('a-0', 0, 'z1', 'old'), pod('a-1', 1, 'z1', 'new', false)];
    expect(planUpdate({ pods: blocked, replicas: 2, updateRevision: 'new', maxUnavailable: 1, exponentialFactor: 2 }))
      .toMatchObject({ action: 'wait', reason: 'waiting for 1 updated pod(s) to be Ready: a-1' });
  });

  test('done when every pod runs the update revision', () => {
    const pods = [pod('a-0', 0, 'z1', 'new'), pod('a-1', 1, 'z2', 'new')];
    expect(planUpdate({ pods, replicas: 2, updateRevision: 'new', maxUnavailable: 1, exponentialFactor: 2 }))
      .toMatchObject({ action: 'done', state: { revision: 'new', step: 0 } });
  });
});
