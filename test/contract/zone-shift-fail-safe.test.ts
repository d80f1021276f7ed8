import * as fc from 'fast-check';
import { failSafeKept, ShiftPod, shiftPodOf, ShiftService, workloadOfPod } from '../../src/contract/zone-shift-fail-safe';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];

type Zone = string | undefined;

function pod(name: string, owner: string | undefined, zone: Zone, serving: boolean, labels = {}): ShiftPod {
  return { key: `ns/${name}`, namespace: 'ns', owner, labels, zone, serving };
}

test('a Deployment of 2 pods pinned to zone-a, zone-a shifted: both stay in service, saying why', () => {
  const pods = [pod('web-1', 'ReplicaSet/web-1', 'zone-a', true), pod('web-2', 'ReplicaSet/web-1', 'zone-a', true)];
  const kept = failSafeKept(pods, [], new Set(['zone-a']));
  expect([...kept]).toEqual([
    ['ns/web-1', 'the last pods that can serve ReplicaSet/web-1 in ns'],
    ['ns/web-2', 'the last pods that can serve ReplicaSet/web-1 in ns'],
  ]);
});

test('once a pod of the workload serves in another zone, the shifted ones leave', () => {
  const pods = [pod('web-1', 'ReplicaSet/web', 'zone-a', true), pod('web-2', 'ReplicaSet/web', 'zone-b', false)];
  expect(failSafeKept(pods, [], new Set(['zone-a'])).size).toBe(1);
  const ready = [pods[0], { ...pods[1], serving: true }];
  expect(failSafeKept(ready, [], new Set(['zone-a'])).size).toBe(0);
});

test('a Service over two workloads keeps its last endpoints, though each workload alone could leave', () => {
  const labels = { app: 'api' };
  const pods = [
    pod('blue-1', 'ReplicaSet/blue', 'zone-a', true, labels),
    pod('green-1', 'ReplicaSet/green', 'zone-b', false, labels),
    pod('blue-2', 'ReplicaSet/blue', 'zone-b', true, { app: 'other' }),
  ];
  const service: ShiftService = { namespace: 'ns', name: 'api', selector: labels };
  expect([...failSafeKept(pods, [service], new Set(['zone-a']))]).toEqual([['ns/blue-1', 'the last pods that can serve Service ns/api']]);
  // without the Service, blue keeps a serving pod in zone-b: blue-1 may leave
  expect(failSafeKept(pods, [], new Set(['zone-a'])).size).toBe(0);
});

test('a Service in another namespace, or with no selector, keeps nothing', () => {
  const pods = [pod('a', 'ReplicaSet/x', 'zone-a', true, { app: 'x' }), pod('b', 'ReplicaSet/x', 'zone-b', true, { app: 'x' })];
  const services: ShiftService[] = [{ namespace: 'other', name: 's', selector: { app: 'x' } }, { namespace: 'ns', name: 'headless' }];
  expect(failSafeKept(pods, services, new Set(['zone-a'])).size).toBe(0);
});

const arbPod = fc.record({
  owner: fc.constantFrom('ReplicaSet/a', 'ReplicaSet/b', 'StatefulSet/c', undefined),
  zone: fc.constantFrom(...ZONES, undefined),
  serving: fc.boolean(),
  app: fc.constantFrom('x', 'y'),
});
const arbInput = fc.record({
  pods: fc.array(arbPod, { maxLength: 12 }),
  services: fc.array(fc.record({ app: fc.constantFrom('x', 'y', undefined) }), { maxLength: 3 }),
  shifted: fc.subarray(ZONES),
});

type ArbInput = typeof arbInput extends fc.Arbitrary<infer T> ? T : never;

function build(input: ArbInput): { pods: ShiftPod[]; services: ShiftService[]; out: Set<string> } {
  const pods = input.pods.map((p, i) => pod(`p${i}`, p.owner, p.zone, p.serving, { app: p.app }));
  const services = input.services.map((s, i) => ({
    namespace: 'ns',
    name: `s${i}`,
    selector: s.app === undefined ? undefined : { app: s.app },
  }));
  return { pods, services, out: new Set(input.shifted) };
}

test('property: no workload or Service that had a serving pod is left without one in service', () => {
  fc.assert(fc.property(arbInput, (input) => {
    const { pods, services, out } = build(input);
    const kept = failSafeKept(pods, services, out);
    const inService = (p: ShiftPod) => p.zone === undefined || !out.has(p.zone) || kept.has(p.key);
    const groups = [
      ...['ReplicaSet/a', 'ReplicaSet/b', 'StatefulSet/c'].map((o) => pods.filter((p) => p.owner === o)),
      ...pods.filter((p) => p.owner === undefined).map((p) => [p]),
      ...services.filter((s) => s.selector).map((s) => pods.filter((p) => p.labels.app === s.selector!.app)),
    ];
    for (const group of groups) {
      if (group.some((p) => p.serving)) expect(group.some((p) => p.serving && inService(p))).toBe(true);
    }
  }));
});

test('property: only shifted pods are kept, and each only while a group of it has no serving pod in service', () => {
  fc.assert(fc.property(arbInput, (input) => {
    const { pods, services, out } = build(input);
    const kept = failSafeKept(pods, services, out);
    for (const key of kept.keys()) {
      const p = pods.find((x) => x.key === key)!;
      expect(p.zone !== undefined && out.has(p.zone)).toBe(true);
      const peers = [
        pods.filter((x) => (p.owner === undefined ? x === p : x.owner === p.owner)),
        ...services.filter((s) => s.selector?.app === p.labels.app)
          .map(() => pods.filter((x) => x.labels.app === p.labels.app)),
      ];
      const servesElsewhere = (g: ShiftPod[]) => g.some((x) => x.serving && (x.zone === undefined || !out.has(x.zone)));
      expect(peers.some((g) => !servesElsewhere(g))).toBe(true);
    }
    if (out.size === 0) expect(kept.size).toBe(0);
  }));
});

describe('shiftPodOf', () => {
  const base = {
    metadata: {
      name: 'web-7d9f-abc',
      namespace: 'ns',
      labels: { 'pod-template-hash': '7d9f' },
      ownerReferences: [{ kind: 'ReplicaSet', name: 'web-7d9f', controller: true }],
    },
    spec: { nodeName: 'n1' },
    status: { phase: 'Running', conditions: [{ type: 'ContainersReady', status: 'True' }, { type: 'Ready', status: 'False' }] },
  };

  test('a Deployment\'s pod: its workload is the Deployment, and it serves when its containers are Ready, whatever its gate', () => {
    expect(shiftPodOf(base, 'zone-a')).toEqual({
      key: 'ns/web-7d9f-abc', namespace: 'ns', owner: 'Deployment/web', labels: base.metadata.labels, zone: 'zone-a', serving: true,
    });
  });

  test('not bound, being deleted, ended or its containers not Ready: it does not serve', () => {
    expect(shiftPodOf({ ...base, spec: {} }, undefined).serving).toBe(false);
    expect(shiftPodOf({ ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }, 'zone-a').serving).toBe(false);
    expect(shiftPodOf({ ...base, status: { ...base.status, phase: 'Failed' } }, 'zone-a').serving).toBe(false);
    expect(shiftPodOf({ ...base, status: { conditions: [{ type: 'ContainersReady', status: 'False' }] } }, 'zone-a').serving).toBe(false);
  });

  test('a StatefulSet\'s pod, a ReplicaSet of no Deployment, and a bare pod', () => {
    const owned = (kind: string, name: string, labels = {}) => ({
      metadata: { name: 'p', namespace: 'ns', labels, ownerReferences: [{ kind, name, controller: true }] },
    });
    expect(workloadOfPod(owned('StatefulSet', 'db'))).toBe('StatefulSet/db');
    expect(workloadOfPod(owned('ReplicaSet', 'plain'))).toBe('ReplicaSet/plain');
    expect(workloadOfPod(owned('ReplicaSet', 'web-1', { 'pod-template-hash': 'other' }))).toBe('ReplicaSet/web-1');
    expect(workloadOfPod({ metadata: { name: 'p' } })).toBeUndefined();
  });
});
