/**
 * The zone readiness gauges: per workload (a Deployment's ReplicaSets as one) and zone, the opted-in pods bound there
 * and how many are Ready, kept change by change from the zone annotator's watches; a row's series go with its last
 * pod, and a pod with no zone to count in counts nowhere. A Ready flip feeds them without a reconcile of the pod.
 */
import { ZoneAnnotation } from '../../src/contract/zone-annotation';
import { KubeObject } from '../src/kube/api';
import { createMetrics } from '../src/metrics';
import { annotatorPodKeys, NodeWaits, zoneAnnotatorWatches } from '../src/reconcilers/zone-annotator';
import { readinessFeed, workloadOf, ZoneReadinessGauges } from '../src/reconcilers/zone-readiness-metrics';
import { cachesOf, Change } from '../src/watches';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const PODS = 'cdk8s_zones_workload_zone_pods';
const READY = 'cdk8s_zones_workload_zone_ready_pods';

/** The gauge's series as `namespace workload zone=value` lines, sorted. */
async function series(metrics: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  const { values } = await metrics.registry.getSingleMetric(name)!.get();
  return values.map(({ labels: l, value }) => `${l.namespace} ${l.workload} ${l.zone}=${value}`).sort();
}

const owner = (kind: string, name: string) => [{ apiVersion: 'apps/v1', kind, name, uid: `${name}-uid`, controller: true }];

interface PodOptions {
  readonly node?: string;
  readonly ready?: boolean;
  readonly owners?: ReturnType<typeof owner>;
  readonly hash?: string;
  readonly deleting?: boolean;
  readonly phase?: string;
}

/** An opted-in pod of namespace `web`, as the API server sends it. */
function pod(name: string, o: PodOptions = {}): KubeObject {
  const hash: Record<string, string> = o.hash ? { 'pod-template-hash': o.hash } : {};
  const labels = { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE, app: 'web', ...hash };
  return {
    metadata: {
      name,
      namespace: 'web',
      uid: `${name}-uid`,
      labels,
      ownerReferences: o.owners,
      ...(o.deleting ? { deletionTimestamp: '2026-11-29T12:00:00Z' } : {}),
    },
    spec: { nodeName: o.node, containers: [{ name: 'web', image: 'web' }] },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

const node = (name: string, zone?: string): KubeObject =>
  ({ metadata: { name, labels: zone ? { [ZONE_KEY]: zone } : {} } });

describe('workloadOf', () => {
  test('a ReplicaSet named after its pods\' template hash is its Deployment; otherwise the controller, or the pod', () => {
    expect(workloadOf(pod('p', { owners: owner('ReplicaSet', 'api-7d9f8'), hash: '7d9f8' }))).toBe('Deployment/api');
    expect(workloadOf(pod('p', { owners: owner('ReplicaSet', 'api-7d9f8'), hash: 'other' }))).toBe('ReplicaSet/api-7d9f8');
    expect(workloadOf(pod('p', { owners: owner('ReplicaSet', 'batch') }))).toBe('ReplicaSet/batch');
    expect(workloadOf(pod('db-0', { owners: owner('StatefulSet', 'db') }))).toBe('StatefulSet/db');
    expect(workloadOf(pod('lone'))).toBe('Pod/lone');
    // an owner that is not the controller does not name the workload
    const referenced = pod('lone', { owners: [{ ...owner('ConfigMap', 'x')[0], controller: false }] });
    expect(workloadOf(referenced)).toBe('Pod/lone');
  });
});

describe('the gauges', () => {
  const deployment = (name: string, nodeName: string | undefined, ready = true, hash = 'h1') =>
    pod(name, { node: nodeName, ready, owners: owner('ReplicaSet', `api-${hash}`), hash });

  test('pods in 3 zones, one not Ready, one counted in another zone, deleted pods forgotten, empty rows removed', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const gauges = new ZoneReadinessGauges(metrics);
    gauges.observe(deployment('a1', 'n-a'), 'zone-a');
    gauges.observe(deployment('a2', 'n-a', true, 'h2'), 'zone-a'); // a new revision: the same workload
    gauges.observe(deployment('b1', 'n-b'), 'zone-b');
    gauges.observe(deployment('c1', 'n-c'), 'zone-c');
    gauges.observe(pod('db-0', { node: 'n-a', owners: owner('StatefulSet', 'db') }), 'zone-a');
    expect(await series(metrics, PODS)).toEqual([
      'web Deployment/api zone-a=2', 'web Deployment/api zone-b=1', 'web Deployment/api zone-c=1', 'web StatefulSet/db zone-a=1',
    ]);
    gauges.observe(deployment('b1', 'n-b', false), 'zone-b');
    gauges.observe(deployment('b1', 'n-b', false), 'zone-b'); // seen again (a resync): counted once
    expect(await series(metrics, READY)).toEqual([
      'web Deployment/api zone-a=2', 'web Deployment/api zone-b=0', 'web Deployment/api zone-c=1', 'web StatefulSet/db zone-a=1',
    ]);
    // its node's zone changed: the pod moves row, and zone-b has none left
    gauges.observe(deployment('b1', 'n-b', false), 'zone-c');
    expect(await series(metrics, PODS)).toEqual([
      'web Deployment/api zone-a=2', 'web Deployment/api zone-c=2', 'web StatefulSet/db zone-a=1',
    ]);
    expect(await series(metrics, READY)).toEqual([
      'web Deployment/api zone-a=2', 'web Deployment/api zone-c=1', 'web StatefulSet/db zone-a=1',
    ]);
    gauges.forget('web/db-0');
    gauges.forget('web/a1');
    gauges.forget('web/never-seen');
    expect(await series(metrics, PODS)).toEqual(['web Deployment/api zone-a=1', 'web Deployment/api zone-c=2']);
    expect(await series(metrics, READY)).toEqual(['web Deployment/api zone-a=1', 'web Deployment/api zone-c=1']);
  });

  test('a pod not bound, being deleted, ended, or with no zone to count in counts nowhere', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const gauges = new ZoneReadinessGauges(metrics);
    gauges.observe(deployment('a1', 'n-a'), 'zone-a');
    gauges.observe(deployment('pending', undefined), 'zone-a');
    gauges.observe(deployment('unknown-node', 'n-x'), undefined);
    gauges.observe(pod('evicted', { node: 'n-a', ready: false, phase: 'Failed' }), 'zone-a');
    expect(await series(metrics, PODS)).toEqual(['web Deployment/api zone-a=1']);
    gauges.observe(pod('a1', { node: 'n-a', owners: owner('ReplicaSet', 'api-h1'), hash: 'h1', deleting: true }), 'zone-a');
    expect([await series(metrics, PODS), await series(metrics, READY)]).toEqual([[], []]);
  });

  test('a new run counts from nothing', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    new ZoneReadinessGauges(metrics).observe(deployment('a1', 'n-a'), 'zone-a');
    new ZoneReadinessGauges(metrics);
    expect(await series(metrics, PODS)).toEqual([]);
  });
});

describe('the zone annotator\'s watches feed them', () => {
  const setup = () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const feed = readinessFeed(new ZoneReadinessGauges(metrics), [ZONE_KEY]);
    const watches = zoneAnnotatorWatches(undefined, new NodeWaits(), new Map(), false, feed);
    const nodes = [node('n-a', 'zone-a'), node('n-b', 'zone-b'), node('n-none')];
    const pods = [pod('a1', { node: 'n-a' }), pod('b1', { node: 'n-b' }), pod('b2', { node: 'n-b' }), pod('x1', { node: 'n-none' })];
    const objects: { nodes: KubeObject[]; pods: KubeObject[] } = { nodes, pods };
    /** What the watch `watch` enqueues for `change`, over the caches holding `objects` as the watch keeps them. */
    const changed = (watch: 'nodes' | 'pods', change: Change) => [...watches[watch]!.keys!(change, cachesOf(watches, objects))];
    return { metrics, watches, objects, changed };
  };

  test('each pod as it comes, goes or turns not Ready, in its node\'s zone; a node of no zone counts none', async () => {
    const { metrics, watches, objects, changed } = setup();
    for (const p of objects.pods) changed('pods', { type: 'added', obj: watches.pods!.transform!(p) });
    expect(await series(metrics, READY)).toEqual(['web Pod/a1 zone-a=1', 'web Pod/b1 zone-b=1', 'web Pod/b2 zone-b=1']);
    const slim = (p: KubeObject) => watches.pods!.transform!(p);
    const notReady = { type: 'modified' as const, obj: slim(pod('b1', { node: 'n-b', ready: false })), old: slim(objects.pods[1]) };
    // a Ready flip alone: counted, and no reconcile of the pod (the decision does not read it)
    expect(changed('pods', notReady)).toEqual([]);
    expect(annotatorPodKeys(notReady, new Map())).toEqual([]);
    expect(await series(metrics, READY)).toContain('web Pod/b1 zone-b=0');
    changed('pods', { type: 'deleted', obj: slim(objects.pods[2]), old: slim(objects.pods[2]) });
    expect(await series(metrics, PODS)).toEqual(['web Pod/a1 zone-a=1', 'web Pod/b1 zone-b=1']);
  });

  test('a node that gets a zone, changes it or goes recounts its pods; its status churn does not', async () => {
    const { metrics, watches, objects, changed } = setup();
    for (const p of objects.pods) changed('pods', { type: 'added', obj: watches.pods!.transform!(p) });
    // labelled at last: its pod counts from now
    objects.nodes[2] = node('n-none', 'zone-c');
    changed('nodes', { type: 'modified', obj: objects.nodes[2], old: node('n-none') });
    expect(await series(metrics, PODS)).toEqual(['web Pod/a1 zone-a=1', 'web Pod/b1 zone-b=1', 'web Pod/b2 zone-b=1', 'web Pod/x1 zone-c=1']);
    // relabelled: its pods move; a heartbeat (same zone) leaves them
    objects.nodes[1] = node('n-b', 'zone-c');
    changed('nodes', { type: 'modified', obj: objects.nodes[1], old: node('n-b', 'zone-b') });
    const heartbeat = { metadata: { ...objects.nodes[1].metadata, resourceVersion: '9' } };
    changed('nodes', { type: 'modified', obj: heartbeat, old: objects.nodes[1] });
    expect(await series(metrics, PODS)).toEqual(['web Pod/a1 zone-a=1', 'web Pod/b1 zone-c=1', 'web Pod/b2 zone-c=1', 'web Pod/x1 zone-c=1']);
    // gone: its pods have no zone to count in
    changed('nodes', { type: 'deleted', obj: objects.nodes[0], old: objects.nodes[0] });
    expect(await series(metrics, PODS)).toEqual(['web Pod/b1 zone-c=1', 'web Pod/b2 zone-c=1', 'web Pod/x1 zone-c=1']);
  });

  test('the cache keeps what the gauges read, with zonal shifts on or off', () => {
    const full = pod('p', { node: 'n-a', owners: owner('ReplicaSet', 'api-h1'), hash: 'h1' });
    for (const zoneShifts of [false, true]) {
      const slim = zoneAnnotatorWatches(undefined, new NodeWaits(), new Map(), zoneShifts).pods!.transform!(full);
      expect([zoneShifts, workloadOf(slim), slim.status?.phase, slim.status?.conditions])
        .toEqual([zoneShifts, 'Deployment/api', 'Running', expect.arrayContaining([{ type: 'Ready', status: 'True' }])]);
    }
  });
});
