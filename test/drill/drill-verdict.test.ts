/** What a drill makes of its snapshots, and its verdict beside the check's prediction. */
import {
  ClusterSnapshot, desiredOf, observe, podsByWorkload, podsOf, watchedWorkloads, WorkloadState, workloadState,
} from '../../src/drill/drill-observe';
import { drillFailed, Prediction, verdict } from '../../src/drill/drill-verdict';

const zoneOfNode = new Map([['a1', 'zone-a'], ['b1', 'zone-b'], ['c1', 'zone-c']]);

function pod(
  name: string,
  owner: { kind: string; uid: string },
  node: string | undefined,
  phase = 'Running',
  ready = true,
  deleting = false,
): any {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `pod-${name}`,
      ownerReferences: [{ ...owner, name: owner.uid, controller: true }],
      ...(deleting ? { deletionTimestamp: 'x' } : {}),
    },
    spec: node ? { nodeName: node } : {},
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const web = { kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', uid: 'd1' }, spec: { replicas: 3 } };
const webRs = {
  kind: 'ReplicaSet',
  metadata: { name: 'web-1', namespace: 'ns', uid: 'rs1', ownerReferences: [{ kind: 'Deployment', uid: 'd1', controller: true }] },
};
const db = { kind: 'StatefulSet', metadata: { name: 'db', namespace: 'ns', uid: 's1' }, spec: { replicas: 3 } };

function snapshot(pods: any[], atMs = 0): ClusterSnapshot {
  return { atMs, workloads: [web, webRs, db], pods, zoneOfNode };
}

test('a Deployment\'s pods are found through its ReplicaSet; the ReplicaSet it owns is not a workload of its own', () => {
  const s = snapshot([pod('w1', { kind: 'ReplicaSet', uid: 'rs1' }, 'a1'), pod('d1', { kind: 'StatefulSet', uid: 's1' }, 'b1')]);
  expect(watchedWorkloads(s).map((w) => `${w.kind}/${w.name}`)).toEqual(['Deployment/web', 'StatefulSet/db']);
  expect([...podsByWorkload(s)].map(([k, p]) => [k, p.map((x) => x.metadata.name)])).toEqual([['Deployment/ns/web', ['w1']], ['StatefulSet/ns/db', ['d1']]]);
});

test('in an outage the zone\'s pods are dead whatever they report; terminating pods are not counted', () => {
  const rs = { kind: 'ReplicaSet', uid: 'rs1' };
  const pods = [
    pod('w1', rs, 'a1'),
    pod('w2', rs, 'b1'),
    pod('w3', rs, 'c1'),
    pod('w4', rs, undefined, 'Pending', false),
    pod('w5', rs, 'b1', 'Running', true, true),
  ];
  const key = { kind: 'Deployment', namespace: 'ns', name: 'web' };
  const s = snapshot(pods);
  const p = podsOf(podsByWorkload(s), key);
  expect(workloadState(s, p, desiredOf(s, key), 'zone-a', false))
    .toEqual({ desired: 3, ready: 3, pending: 1, readyZones: 2, inZone: 1, readyInZone: 1 });
  expect(workloadState(s, p, 3, 'zone-a', true)).toMatchObject({ ready: 2, readyZones: 2 });
});

test('a zone group is watched as the sum of its members: their replicas, their pods and the zones they hold', () => {
  const sts = { kind: 'StatefulSet', uid: 's1' };
  const s = snapshot([pod('w1', { kind: 'ReplicaSet', uid: 'rs1' }, 'a1'), pod('d1', sts, 'b1'), pod('d2', sts, 'c1')]);
  const members = [{ kind: 'Deployment', namespace: 'ns', name: 'web' }, { kind: 'StatefulSet', namespace: 'ns', name: 'db' }];
  const group = { kind: 'ZoneGroup', namespace: 'ns', name: 'g', members };
  expect(desiredOf(s, group)).toBe(6);
  expect(workloadState(s, podsOf(podsByWorkload(s), group), 6, 'zone-a', true))
    .toEqual({ desired: 6, ready: 2, pending: 0, readyZones: 2, inZone: 1, readyInZone: 1 });
});

const state = (ready: number, pending = 0, inZone = 0): WorkloadState =>
  ({ desired: 3, ready, pending, readyZones: Math.min(ready, 2), inZone, readyInZone: inZone });

test('observe: the fewest ready, the most Pending, and when it was whole again for good', () => {
  const o = observe([
    { atMs: 0, state: state(3, 0, 1) }, { atMs: 1000, state: state(2, 1) }, { atMs: 2000, state: state(3) },
    { atMs: 3000, state: state(2, 1) }, { atMs: 4500, state: state(3) },
  ], 500, 0);
  expect(o).toMatchObject({ minReady: 2, maxPending: 1, wholeAfterMs: 4000, end: state(3) });
  expect(observe([{ atMs: 0, state: state(3) }, { atMs: 1000, state: state(3) }], 500, 0).wholeAfterMs).toBe(0);
  const oneDown = [{ atMs: 0, state: state(3) }, { atMs: 1000, state: state(2, 1) }];
  expect(observe(oneDown, 500, 0).wholeAfterMs).toBeUndefined();
});

const predicted = (p: Partial<Prediction> = {}): Prediction => ({
  survives: true, survivors: 2, needed: 2, neededBecause: 'a quorum of 3', replacementsPending: 0, drainBlocked: false, ...p,
});
const w = { kind: 'StatefulSet', namespace: 'ns', name: 'db' };

test('agrees when the observation is at least the worst case; fewer survivors or more Pending contradict it', () => {
  const seen = (minReady: number, endPending = 0) =>
    observe([{ atMs: 0, state: state(3, 0, 1) }, { atMs: 1, state: state(minReady, endPending) }], 0, 0);
  expect(verdict(w, predicted(), seen(2), 'outage')).toMatchObject({ broke: false, contradictions: [] });
  expect(verdict(w, predicted({ survivors: 1, survives: false }), seen(2), 'outage').contradictions).toEqual([]);
  const fewer = verdict(w, predicted(), seen(1), 'outage');
  expect(fewer.broke).toBe(true);
  expect(fewer.contradictions).toEqual([
    '1 replicas were ready at the fewest; the check\'s worst case left 2',
    'the check said it survives; it fell below what it needs (a quorum of 3)',
  ]);
  expect(verdict(w, predicted(), seen(2, 1), 'outage').contradictions).toEqual(['1 pods stayed Pending; the check\'s worst case left 0']);
  expect(drillFailed([verdict(w, predicted({ survives: false, survivors: 1 }), seen(1), 'outage')])).toBe(true);
});

test('a drain that stays blocked contradicts a prediction of no block; a workload broken before is not held to the prediction', () => {
  const blocked = observe([{ atMs: 0, state: state(3, 0, 1) }, { atMs: 1, state: state(3, 0, 1) }], 0, 1);
  expect(verdict(w, predicted(), blocked, 'drain').contradictions[0]).toContain('the drain stayed blocked (1 pods left in the zone, evictions refused)');
  expect(verdict(w, predicted({ drainBlocked: true }), blocked, 'drain').contradictions).toEqual([]);
  const brokenFromStart = observe([{ atMs: 0, state: state(1, 2) }, { atMs: 1, state: state(0, 3) }], 0, 0);
  const broken = verdict(w, predicted(), brokenFromStart, 'outage');
  expect(broken).toMatchObject({ brokenBefore: true, broke: false, contradictions: [] });
});
