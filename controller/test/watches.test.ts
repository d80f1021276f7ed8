/**
 * The reconcilers' declared watches: which keys each change maps to, over caches holding lists (`cachesOf`), as
 * the Informers would hold them.
 */
import { ZoneAnnotation } from '../../src/contract/zone-annotation';
import { ZONE_IN_SERVICE_CONDITION } from '../../src/contract/zone-shift';
import { KubeObject } from '../src/kube/api';
import { annotatorPodKeys, NodeWaits, zoneAnnotatorWatches } from '../src/reconcilers/zone-annotator';
import { zoneAwareUpdateWatches } from '../src/reconcilers/zone-aware-update';
import { zoneDisruptionBudgetWatches } from '../src/reconcilers/zone-disruption-budget';
import { zoneShiftWatches } from '../src/reconcilers/zone-shift';
import { cachesOf, Change, Watches } from '../src/watches';

const owned = (kind: string, name: string, uid = `${name}-uid`) => [{ apiVersion: 'apps/v1', kind, name, uid, controller: true }];
const obj = (namespace: string, name: string, extra: Partial<KubeObject> = {}): KubeObject =>
  ({ metadata: { name, namespace, uid: `${name}-uid`, ...extra.metadata }, ...(extra.spec ? { spec: extra.spec } : {}) });

/** The keys `watch` maps `change` to over `caches`. */
function keysOf<W extends string>(
  watches: Watches<W>,
  objects: Partial<Record<W, KubeObject[]>>,
  watch: W,
  change: Change,
): string[] {
  return [...watches[watch]!.keys?.(change, cachesOf(watches, objects)) ?? []].sort();
}

describe('ZoneAwareUpdate watches', () => {
  const watches = zoneAwareUpdateWatches();
  const updates = [
    obj('ns', 'one', { spec: { statefulset: 'db' } }),
    obj('ns', 'group', { spec: { statefulsets: ['ing-a', 'ing-b'] } }),
    obj('ns', 'web', { spec: { deployment: 'web' } }),
    obj('other', 'one', { spec: { statefulset: 'db' } }),
  ];
  const replicaSets = [
    obj('ns', 'web-abc', { metadata: { name: 'web-abc', ownerReferences: owned('Deployment', 'web') } }),
    obj('ns', 'lone', {}),
  ];
  const objects = { updates, replicaSets };
  const pod = (namespace: string, ownerReferences?: any[]) =>
    obj(namespace, 'p', { metadata: { name: 'p', ownerReferences } });
  const changed = (o: KubeObject, type: Change['type'] = 'modified'): Change => ({ type, obj: o });

  test('an update maps to itself, deleted or not (its reconcile forgets a deleted one)', () => {
    expect(keysOf(watches, objects, 'updates', changed(updates[0]))).toEqual(['ns/one']);
    expect(keysOf(watches, objects, 'updates', changed(updates[0], 'deleted'))).toEqual(['ns/one']);
  });

  test('a workload maps to the updates of its namespace that name it (alone or in a group)', () => {
    expect(keysOf(watches, objects, 'statefulSets', changed(obj('ns', 'db')))).toEqual(['ns/one']);
    expect(keysOf(watches, objects, 'statefulSets', changed(obj('ns', 'ing-b')))).toEqual(['ns/group']);
    expect(keysOf(watches, objects, 'statefulSets', changed(obj('ns', 'web')))).toEqual([]); // a Deployment's name
    expect(keysOf(watches, objects, 'deployments', changed(obj('ns', 'web')))).toEqual(['ns/web']);
    expect(keysOf(watches, objects, 'statefulSets', changed(obj('elsewhere', 'db')))).toEqual([]);
  });

  test('a ReplicaSet maps through its Deployment', () => {
    expect(keysOf(watches, objects, 'replicaSets', changed(replicaSets[0]))).toEqual(['ns/web']);
    expect(keysOf(watches, objects, 'replicaSets', changed(replicaSets[1]))).toEqual([]);
  });

  test('a pod maps through its StatefulSet, or its ReplicaSet\'s Deployment', () => {
    expect(keysOf(watches, objects, 'pods', changed(pod('ns', owned('StatefulSet', 'db'))))).toEqual(['ns/one']);
    expect(keysOf(watches, objects, 'pods', changed(pod('other', owned('StatefulSet', 'db')), 'deleted'))).toEqual(['other/one']);
    expect(keysOf(watches, objects, 'pods', changed(pod('ns', owned('ReplicaSet', 'web-abc'))))).toEqual(['ns/web']);
    expect(keysOf(watches, objects, 'pods', changed(pod('ns', owned('ReplicaSet', 'lone'))))).toEqual([]);
    expect(keysOf(watches, objects, 'pods', changed(pod('ns', owned('ReplicaSet', 'not-cached'))))).toEqual([]);
    expect(keysOf(watches, objects, 'pods', changed(pod('ns')))).toEqual([]);
  });

  test('a workload, its ReplicaSets and pods also map to the updates that start after one naming it: whether they start reads it', () => {
    const later = obj('ns', 'later', {
      spec: { deployment: 'api', startAfter: { zoneAwareUpdate: 'web', delaySeconds: 60 } },
    });
    const after = [...updates, later];
    const all = { updates: after, replicaSets };
    expect(keysOf(watches, all, 'deployments', changed(obj('ns', 'web')))).toEqual(['ns/later', 'ns/web']);
    expect(keysOf(watches, all, 'replicaSets', changed(replicaSets[0]))).toEqual(['ns/later', 'ns/web']);
    expect(keysOf(watches, all, 'pods', changed(pod('ns', owned('ReplicaSet', 'web-abc'))))).toEqual(['ns/later', 'ns/web']);
    expect(keysOf(watches, all, 'deployments', changed(obj('ns', 'api')))).toEqual(['ns/later']);
    expect(keysOf(watches, all, 'updates', changed(after[2]))).toEqual(['ns/later', 'ns/web']);
  });

  test('nodes are only read; the updates are the primary, watched last', () => {
    expect(watches.nodes!.keys).toBeUndefined();
    expect(Object.entries(watches).filter(([, w]) => w.primary).map(([name]) => name)).toEqual(['updates']);
  });
});

describe('zone annotator watches', () => {
  const opted = (annotations: Record<string, string> = {}, nodeName?: string): KubeObject => ({
    metadata: {
      name: 'p',
      namespace: 'ns',
      labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE },
      annotations,
    },
    spec: { nodeName },
  });

  test('a pod maps to itself unless nothing the decision reads changed, or it is the echo of what was written', () => {
    const written = new Map<string, string>();
    expect(annotatorPodKeys({ type: 'added', obj: opted() }, written)).toEqual(['ns/p']);
    expect(annotatorPodKeys({ type: 'modified', obj: opted({}, 'n1'), old: opted() }, written)).toEqual(['ns/p']); // bound
    expect(annotatorPodKeys({ type: 'modified', obj: opted({}, 'n1'), old: opted({}, 'n1') }, written)).toEqual([]);
    written.set('ns/p', 'zone-a');
    const echo = opted({ [ZoneAnnotation.VALUE_ANNOTATION]: 'zone-a' }, 'n1');
    expect(annotatorPodKeys({ type: 'modified', obj: echo, old: opted({}, 'n1') }, written)).toEqual([]);
    expect(written.size).toBe(0); // the echo is crossed off
    // someone else changed the annotation: decided again
    const tampered = opted({ [ZoneAnnotation.VALUE_ANNOTATION]: 'zone-x' }, 'n1');
    expect(annotatorPodKeys({ type: 'modified', obj: tampered, old: echo }, written)).toEqual(['ns/p']);
    expect(annotatorPodKeys({ type: 'deleted', obj: tampered }, written)).toEqual(['ns/p']);
  });

  test('a node maps to the pods waiting on it; the count of nodes lacking labels follows the waits', () => {
    const counts: number[] = [];
    const waits = new NodeWaits((n) => counts.push(n));
    const watches = zoneAnnotatorWatches(undefined, waits, new Map());
    const node = (name: string): Change => ({ type: 'modified', obj: { metadata: { name } } });
    waits.wait('n1', 'ns/a');
    waits.wait('n1', 'ns/b');
    expect(waits.markMissingLabel('n1')).toBe(true);
    expect(waits.markMissingLabel('n1')).toBe(false);
    expect(keysOf(watches, {}, 'nodes', node('n1'))).toEqual(['ns/a', 'ns/b']);
    expect(keysOf(watches, {}, 'nodes', { ...node('n1'), type: 'deleted' })).toEqual([]);
    waits.wait('n2', 'ns/a'); // rescheduled: waits on its new node only
    expect([waits.podsOn('n1'), waits.podsOn('n2')]).toEqual([['ns/b'], ['ns/a']]);
    waits.unwait('ns/b');
    expect([waits.podsOn('n1'), counts]).toEqual([[], [1, 0]]);
    waits.unwait('ns/gone'); // never waited: nothing to do
    expect(Object.entries(watches).filter(([, w]) => w.primary).map(([name]) => name)).toEqual(['pods']);
    expect(watches.pods!.labelSelector).toBe(`${ZoneAnnotation.OPT_IN_LABEL}=${ZoneAnnotation.OPT_IN_VALUE}`);
  });

  test('a zonal shift maps to every pod with its readiness gate; a change of that gate\'s condition is decided again', () => {
    const watches = zoneAnnotatorWatches(undefined, new NodeWaits(), new Map());
    const gated = (name: string, status?: string): KubeObject => ({
      ...opted({}, 'n1'),
      metadata: { ...opted().metadata, name },
      spec: { nodeName: 'n1', readinessGates: [{ conditionType: ZONE_IN_SERVICE_CONDITION }] },
      status: { conditions: status ? [{ type: ZONE_IN_SERVICE_CONDITION, status }] : [] },
    });
    const pods = [gated('g1'), gated('g2'), opted({}, 'n1')];
    expect(keysOf(watches, { pods }, 'shifts', { type: 'added', obj: { metadata: { name: 'zone-a' } } })).toEqual(['ns/g1', 'ns/g2']);
    expect(annotatorPodKeys({ type: 'modified', obj: gated('g1', 'False'), old: gated('g1', 'True') }, new Map())).toEqual(['ns/g1']);
    expect(annotatorPodKeys({ type: 'modified', obj: gated('g1', 'True'), old: gated('g1', 'True') }, new Map())).toEqual([]);
  });
});

describe('zone-shift watches', () => {
  const watches = zoneShiftWatches();
  const shifts = [{ metadata: { name: 'zone-a' } }, { metadata: { name: 'zone-b' } }];
  const node = (labels: Record<string, string>, taints?: object[]): KubeObject => ({
    metadata: { name: 'n1', labels },
    spec: { taints },
  });
  const a = node({ 'topology.kubernetes.io/zone': 'a' });

  test('a node maps to itself and every shift when added, deleted, or its labels or taints change; not on a heartbeat', () => {
    expect(keysOf(watches, { shifts }, 'nodes', { type: 'added', obj: a })).toEqual(['node/n1', 'shift/zone-a', 'shift/zone-b']);
    const heartbeat = { ...a, metadata: { ...a.metadata, resourceVersion: '2' } };
    expect(keysOf(watches, { shifts }, 'nodes', { type: 'modified', obj: heartbeat, old: a })).toEqual([]);
    const tainted = node({ 'topology.kubernetes.io/zone': 'a' }, [{ key: 'x', effect: 'NoSchedule' }]);
    expect(keysOf(watches, { shifts }, 'nodes', { type: 'modified', obj: tainted, old: a })).toEqual(['node/n1', 'shift/zone-a', 'shift/zone-b']);
    const moved = node({ 'topology.kubernetes.io/zone': 'b' });
    expect(keysOf(watches, { shifts }, 'nodes', { type: 'modified', obj: moved, old: a })).toEqual(['node/n1', 'shift/zone-a', 'shift/zone-b']);
    // a node deleted (its last known object as obj and old): the shifts' status must drop it
    expect(keysOf(watches, { shifts }, 'nodes', { type: 'deleted', obj: a, old: a })).toEqual(['node/n1', 'shift/zone-a', 'shift/zone-b']);
  });

  test('a shift maps to itself and every node; the shifts are the primary', () => {
    expect(keysOf(watches, { nodes: [a] }, 'shifts', { type: 'modified', obj: shifts[0] })).toEqual(['node/n1', 'shift/zone-a']);
    expect(Object.entries(watches).filter(([, w]) => w!.primary).map(([name]) => name)).toEqual(['shifts']);
  });
});

describe('ZoneDisruptionBudget watches', () => {
  const budgets = [obj('ns', 'db'), obj('ns', 'web'), obj('other', 'x')];
  const seen: Change[] = [];
  const watches = zoneDisruptionBudgetWatches(undefined, (c) => seen.push(c));

  test('a budget maps to itself; a pod, owner or claim to every budget of its namespace; nodes are only read', () => {
    expect(keysOf(watches, { budgets }, 'budgets', { type: 'deleted', obj: budgets[0] })).toEqual(['ns/db']);
    for (const watch of ['pods', 'statefulSets', 'replicaSets', 'claims'] as const) {
      expect([watch, keysOf(watches, { budgets }, watch, { type: 'added', obj: obj('ns', 'x') })]).toEqual([watch, ['ns/db', 'ns/web']]);
      expect([watch, keysOf(watches, { budgets }, watch, { type: 'added', obj: obj('empty', 'x') })]).toEqual([watch, []]);
    }
    expect(watches.nodes!.keys).toBeUndefined();
  });

  test('every pod change is seen by the webhook\'s bookkeeping first', () => {
    seen.length = 0;
    const change: Change = { type: 'deleted', obj: obj('ns', 'db-0') };
    keysOf(watches, { budgets }, 'pods', change);
    keysOf(watches, { budgets }, 'statefulSets', { type: 'added', obj: obj('ns', 'db') });
    expect(seen).toEqual([change]);
  });
});

test('cachesOf holds what the Informers would: transformed, indexed; an unknown index is an error', () => {
  const watches = zoneAwareUpdateWatches();
  const withFields = {
    ...obj('ns', 'one', { spec: { statefulset: 'db' } }),
    metadata: { name: 'one', namespace: 'ns', managedFields: [{}] },
  } as KubeObject;
  const caches = cachesOf(watches, { updates: [withFields] });
  expect(caches.get('updates', 'ns/one')?.metadata).not.toHaveProperty('managedFields');
  expect(caches.list('updates')).toHaveLength(1);
  expect(() => caches.byIndex('updates', 'nope', 'x')).toThrow('watch updates has no index nope');
});
