import { ClusterSnapshot, refusedOf, workloadState } from '../../src/drill/drill-observe';

const snapshot: ClusterSnapshot = { atMs: 0, workloads: [], pods: [], zoneOfNode: new Map([['a-1', 'zone-a'], ['b-1', 'zone-b']]) };
const pod = (name: string, node: string, phase: string, extra: object = {}) => ({
  metadata: { name, ...extra },
  spec: { nodeName: node },
  status: { phase, conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }] },
});

test('a pod that ended (Failed after its kubelet evicted it, Succeeded) or is being deleted is no replica: not in the zone, not Pending', () => {
  const pods = [
    pod('web-1', 'a-1', 'Running'),
    pod('web-2', 'b-1', 'Running'),
    pod('web-3', 'a-1', 'Failed'),
    pod('web-4', 'a-1', 'Succeeded'),
    pod('web-5', 'a-1', 'Pending', { deletionTimestamp: '2026-11-27T10:00:00Z' }),
    pod('web-6', 'b-1', 'Pending'),
  ];
  expect(workloadState(snapshot, pods, 3, 'zone-a', false))
    .toEqual({ desired: 3, ready: 2, pending: 1, readyZones: 1, inZone: 1, readyInZone: 1 });
  expect(workloadState(snapshot, pods, 3, 'zone-a', true)).toMatchObject({ ready: 1, inZone: 1 });
});

test('refused evictions: a workload\'s own pods; a zone group\'s, its members\' together', () => {
  const refused = new Map([['StatefulSet/ns/ing-a', new Set(['u1', 'u2'])], ['StatefulSet/ns/ing-b', new Set(['u3'])], ['Deployment/ns/web', new Set(['u4'])]]);
  const member = (name: string) => ({ kind: 'StatefulSet', namespace: 'ns', name });
  expect(refusedOf(refused, member('ing-a'))).toBe(2);
  expect(refusedOf(refused, member('ing-c'))).toBe(0);
  expect(refusedOf(refused, { kind: 'ZoneGroup', namespace: 'ns', name: 'ing', members: ['ing-a', 'ing-b', 'ing-c'].map(member) })).toBe(3);
});
