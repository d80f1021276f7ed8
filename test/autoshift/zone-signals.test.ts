/** What makes a zone look impaired (src/autoshift/zone-signals.ts), on pods and nodes shaped as the API serves them. */
import {
  drillsUnderWay, mergeSignals, nodeSignals, podSignals, querySignals, SignalPod, signalPodOf, silentZones,
  sufferingWorkloads,
} from '../../src/autoshift/zone-signals';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const NODES = { unhealthyShare: 0.5, leaseStaleSeconds: 40 };
const PODS = { failingShare: 0.5, minPods: 2, startupSeconds: 300 };

const node = (name: string, zone: string, ready = true, leaseAgeS = 5) =>
  ({ name, zone, ready, leaseRenewedMs: NOW - leaseAgeS * 1000 });

describe('the node signal', () => {
  test('half of a zone\'s nodes NotReady or with a Lease older than leaseStaleSeconds: impaired, naming them', () => {
    const nodes = [
      node('a1', 'zone-a', false), node('a2', 'zone-a', true, 41), node('a3', 'zone-a'), node('a4', 'zone-a'),
      node('b1', 'zone-b', true, 39), node('b2', 'zone-b'),
      node('c1', 'zone-c', false), node('c2', 'zone-c'), node('c3', 'zone-c'),
    ];
    expect(nodeSignals(nodes, NODES, NOW)).toEqual(new Map([
      ['zone-a', '2 of 4 nodes not answering (NotReady: a1; Lease not renewed for over 40 s: a2)'],
    ]));
    expect(nodeSignals(nodes, { ...NODES, unhealthyShare: 0.3 }, NOW).get('zone-c')).toBe('1 of 3 nodes not answering (NotReady: c1)');
  });

  test('an outage drill plays its nodes gone: they count as not answering, but the zone is never silent (never lost)', () => {
    const nodes = [
      { ...node('a1', 'zone-a'), drill: 'outage' as const }, { ...node('a2', 'zone-a'), drill: 'outage' as const },
      { ...node('b1', 'zone-b'), drill: 'drain' as const }, { ...node('b2', 'zone-b'), drill: 'drain' as const },
      { ...node('c1', 'zone-c', false), drill: 'outage' as const }, node('c2', 'zone-c'),
    ];
    expect(nodeSignals(nodes, NODES, NOW)).toEqual(new Map([
      ['zone-a', '2 of 2 nodes not answering (under an outage drill: a1, a2)'],
      // a node NotReady is counted once, as NotReady
      ['zone-c', '1 of 2 nodes not answering (NotReady: c1)'],
    ]));
    expect(silentZones(nodes, NOW)).toEqual(new Set());
    expect(drillsUnderWay(nodes)).toEqual(['drain drill of zone-b', 'outage drill of zone-a', 'outage drill of zone-c']);
  });

  test('a node without a Lease yet is not stale; one share of 1 needs every node down', () => {
    expect(nodeSignals([{ name: 'x', zone: 'zone-a', ready: true }], NODES, NOW).size).toBe(0);
    const all = { ...NODES, unhealthyShare: 1 };
    expect(nodeSignals([node('a1', 'zone-a', false), node('a2', 'zone-a')], all, NOW).size).toBe(0);
    expect(nodeSignals([node('a1', 'zone-a', false), node('a2', 'zone-a', true, 100)], all, NOW).size).toBe(1);
  });
});

/** A pod as the API serves it. */
interface PodOptions { ready?: boolean; ageS?: number; restarts?: number; node?: string; gate?: 'False' }
function pod(name: string, owner: string, opts: PodOptions = {}) {
  return {
    metadata: {
      name,
      namespace: 'shop',
      creationTimestamp: new Date(NOW - (opts.ageS ?? 3600) * 1000).toISOString(),
      ownerReferences: [{ kind: 'StatefulSet', name: owner, controller: true }],
    },
    spec: { nodeName: opts.node ?? 'n' },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'ContainersReady', status: opts.ready === false ? 'False' : 'True' },
        ...(opts.gate ? [{ type: 'cdk8s-zones.dev/zone-in-service', status: opts.gate }] : []),
      ],
      containerStatuses: [{ restartCount: opts.restarts ?? 0 }],
    },
  };
}

describe('the pod signal', () => {
  test('a pod is failing once past its start (or restarted) with its containers not Ready; a shift\'s gate is no failure', () => {
    expect(signalPodOf(pod('p', 'web', { ready: false }), 'zone-a', NOW, 300))
      .toEqual({ workload: 'StatefulSet/web in shop', zone: 'zone-a', serving: false, failing: true });
    expect(signalPodOf(pod('p', 'web', { ready: false, ageS: 60 }), 'zone-a', NOW, 300).failing).toBe(false);
    expect(signalPodOf(pod('p', 'web', { ready: false, ageS: 60, restarts: 1 }), 'zone-a', NOW, 300).failing).toBe(true);
    expect(signalPodOf(pod('p', 'web', { gate: 'False' }), 'zone-a', NOW, 300)).toMatchObject({ serving: true, failing: false });
    const unscheduled = pod('p', 'web', { ready: false });
    unscheduled.spec.nodeName = '';
    expect(signalPodOf(unscheduled, undefined, NOW, 300).failing).toBe(false);
  });

  const p = (workload: string, zone: string, serving: boolean): SignalPod =>
    ({ workload, zone, serving, failing: !serving });

  test('a zone whose pods fail while their workloads serve elsewhere is impaired; a workload failing everywhere is not a zone', () => {
    const pods = [
      p('web', 'zone-a', false), p('web', 'zone-a', false), p('web', 'zone-b', true), p('web', 'zone-c', true),
      p('api', 'zone-a', true), p('api', 'zone-b', true),
      p('broken', 'zone-a', false), p('broken', 'zone-b', false), p('broken', 'zone-c', false),
    ];
    expect(podSignals(pods, PODS)).toEqual(new Map([
      ['zone-a', '2 of 3 pods failing readiness while their workloads serve in other zones (web)'],
    ]));
    expect(podSignals(pods, { ...PODS, minPods: 3 }).size).toBe(0);
    expect(podSignals(pods, { ...PODS, failingShare: 0.7 }).size).toBe(0);
  });

  test('a practice run\'s outcome: the workloads that no longer serve, or fail by the share, outside the shifted zone', () => {
    const pods = [
      p('web', 'zone-a', true), p('web', 'zone-b', false), p('web', 'zone-c', true),
      p('api', 'zone-a', true), p('api', 'zone-b', false),
      p('fine', 'zone-b', true), p('fine', 'zone-c', true),
    ];
    expect(sufferingWorkloads(pods, 'zone-a', PODS)).toEqual([
      'api: no pod serving outside zone-a',
      'web: 1 of 2 pods outside zone-a failing readiness',
    ]);
    expect(sufferingWorkloads(pods, 'zone-b', PODS)).toEqual([]);
  });
});

test('query samples above the threshold, and the signals merged per zone', () => {
  const q = querySignals([{ zone: 'zone-a', value: 0.2 }, { zone: 'zone-b', value: 0.05 }], 0.1, 'errors =');
  expect(q).toEqual(new Map([['zone-a', 'errors = 0.2 > 0.1']]));
  expect(mergeSignals(q, new Map([['zone-a', 'nodes'], ['zone-c', 'pods']]))).toEqual(new Map([
    ['zone-a', ['errors = 0.2 > 0.1', 'nodes']], ['zone-c', ['pods']],
  ]));
});
