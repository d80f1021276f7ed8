/**
 * What the lost-zone recovery reads of the cluster (as its watches keep it): the zone of each node, pod and volume,
 * whether a node still answers (Ready, or its Lease fresh), which StatefulSets opted in, in the namespaces the shift
 * covers; and which changes queue the lost zone's shift.
 */
import { recoveryInput } from '../src/reconcilers/lost-zone-recovery-input';
import { lostShiftKeys, recoveryWatches } from '../src/reconcilers/lost-zone-recovery-watches';
import { cachesOf } from '../src/watches';

const ZONE = 'topology.kubernetes.io/zone';
const NOW = Date.parse('2026-11-30T12:00:00Z');
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

const node = (name: string, zone: string, ready: string) => ({
  metadata: { name, labels: { [ZONE]: zone } },
  status: { conditions: [{ type: 'Ready', status: ready }] },
});
const lease = (name: string, secondsAgo: number) => ({
  metadata: { name, namespace: 'kube-node-lease' }, spec: { renewTime: at(secondsAgo) },
});
const statefulSet = (namespace: string, name: string, optIn?: string) => ({
  metadata: { name, namespace, ...(optIn ? { annotations: { 'cdk8s-zones.dev/lost-zone-recovery': optIn } } : {}) },
  spec: { replicas: 3, volumeClaimTemplates: [{ metadata: { name: 'data' } }] },
});
const pod = (namespace: string, owner: string, i: number, nodeName?: string, ready = 'True') => ({
  metadata: {
    name: `${owner}-${i}`,
    namespace,
    uid: `${owner}-${i}-u`,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: owner, uid: 'x', controller: true }],
  },
  spec: { nodeName },
  status: { conditions: [{ type: 'Ready', status: ready }] },
});
const inZone = (zone: string) => ({ key: ZONE, operator: 'In', values: [zone] });
const volume = (name: string, zone: string) => ({
  metadata: { name },
  spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [inZone(zone)] }] } } },
});
const claim = (namespace: string, name: string, volumeName: string, deleting = false) => ({
  metadata: { name, namespace, ...(deleting ? { deletionTimestamp: at(1) } : {}) }, spec: { volumeName },
});
const shift = (name: string, spec: object) => ({
  metadata: { name, creationTimestamp: at(60) }, spec: { zone: 'zone-a', expiresAt: at(-3600), ...spec },
});

const objects = {
  shifts: [shift('lost-a', { lost: true }), shift('plain', {})],
  nodes: [node('a1', 'zone-a', 'Unknown'), node('a2', 'zone-a', 'Unknown'), node('b1', 'zone-b', 'True')],
  leases: [lease('a1', 90), lease('a2', 10), lease('b1', 5)],
  statefulSets: [statefulSet('db', 'redis', '1'), statefulSet('db', 'other'), statefulSet('elsewhere', 'redis', '1')],
  pods: [pod('db', 'redis', 0, 'a1', 'False'), pod('db', 'redis', 1, 'b1'), pod('db', 'redis', 2), pod('db', 'other', 0, 'a1')],
  volumes: [volume('pv-0', 'zone-a'), volume('pv-1', 'zone-b')],
  claims: [claim('db', 'data-redis-0', 'pv-0'), claim('db', 'data-redis-1', 'pv-1', true), claim('elsewhere', 'data-redis-0', 'pv-0')],
};

describe('lost-zone recovery input', () => {
  test('the zones, the answering nodes, the opted-in StatefulSets of the covered namespaces, their pods and claims', () => {
    const caches = cachesOf(recoveryWatches(), objects);
    const spec = { zone: 'zone-a', expiresAt: at(-3600), lost: true, namespaces: ['db'] };
    const input = recoveryInput(caches, spec, [ZONE], undefined, NOW);
    // a1: Unknown and its Lease 90 s old; a2: Unknown but its Lease renewed 10 s ago, so it still answers
    expect(input.nodes).toEqual([
      { name: 'a1', zone: 'zone-a', answers: false },
      { name: 'a2', zone: 'zone-a', answers: true },
      { name: 'b1', zone: 'zone-b', answers: true },
    ]);
    expect(input.workloads).toEqual([
      {
        namespace: 'db',
        name: 'redis',
        replicas: 3,
        atOnce: '1',
        claimTemplates: ['data'],
        pinnedTo: undefined,
        standIn: false,
        zoneGroup: undefined,
      },
    ]);
    expect(input.pods).toEqual([
      { namespace: 'db', name: 'redis-0', uid: 'redis-0-u', statefulSet: 'redis', zone: 'zone-a', scheduled: true, ready: false },
      { namespace: 'db', name: 'redis-1', uid: 'redis-1-u', statefulSet: 'redis', zone: 'zone-b', scheduled: true, ready: true },
      { namespace: 'db', name: 'redis-2', uid: 'redis-2-u', statefulSet: 'redis', zone: undefined, scheduled: false, ready: true },
    ]);
    expect(input.claims).toEqual([
      { namespace: 'db', name: 'data-redis-0', zone: 'zone-a', deleting: false },
      { namespace: 'db', name: 'data-redis-1', zone: 'zone-b', deleting: true },
    ]);
    expect(input.volumesInZone).toBe(1);
  });

  test('a StatefulSet pinned to a zone (a nodeSelector, or node affinity under the topology key) is known as such', () => {
    const pinned = (name: string, spec: object) => {
      const sts = statefulSet('db', name, '1');
      return { ...sts, spec: { ...sts.spec, template: { spec } } };
    };
    const statefulSets = [
      pinned('by-selector', { nodeSelector: { [ZONE]: 'zone-a' } }),
      pinned('by-affinity', {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'example.com/rack-zone', operator: 'In', values: ['zone-b'] }] }],
            },
          },
        },
      }),
      pinned('spread', {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zone-a', 'zone-b'] }] }],
            },
          },
        },
      }),
    ];
    const caches = cachesOf(recoveryWatches(), { ...objects, statefulSets });
    const spec = { zone: 'zone-a', expiresAt: at(-3600), lost: true };
    const input = recoveryInput(caches, spec, ['example.com/rack-zone'], undefined, NOW);
    expect(input.workloads.map((w) => [w.name, w.pinnedTo])).toEqual([
      ['by-selector', 'zone-a'], ['by-affinity', 'zone-b'], ['spread', undefined],
    ]);
  });

  test('a cluster-wide shift covers every namespace', () => {
    const caches = cachesOf(recoveryWatches(), objects);
    const input = recoveryInput(caches, { zone: 'zone-a', expiresAt: at(-3600), lost: true }, [ZONE], undefined, NOW);
    expect(input.workloads.map((w) => `${w.namespace}/${w.name}`)).toEqual(['db/redis', 'elsewhere/redis']);
  });

  test('only lost shifts in force are keys; a pod\'s readiness change queues them, a change it does not read does not', () => {
    const watches = recoveryWatches();
    const caches = cachesOf(watches, objects);
    expect(lostShiftKeys(caches, NOW)).toEqual(['lost-a']);
    const before = watches.pods!.transform!(pod('db', 'redis', 0, 'a1', 'False'));
    const after = watches.pods!.transform!(pod('db', 'redis', 0, 'a1', 'True'));
    expect([...watches.pods!.keys!({ type: 'modified', obj: after, old: before }, caches)]).toEqual(['lost-a', '#stand-ins']);
    const relabelled = { ...before, metadata: { ...before.metadata, labels: { x: 'y' } } };
    expect([...watches.pods!.keys!({ type: 'modified', obj: relabelled, old: before }, caches)]).toEqual([]);
    // a pod deleted (its last known object is both obj and old) is a change: its claim may now be free
    expect([...watches.pods!.keys!({ type: 'deleted', obj: before, old: before }, caches)]).toEqual(['lost-a', '#stand-ins']);
  });
});
