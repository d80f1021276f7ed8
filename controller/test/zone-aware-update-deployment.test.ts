import { KubeObject } from '../src/kube/api';
import { decideZoneAwareUpdate } from '../src/reconcilers/zone-aware-update-decision';
import { newReplicaSet, resize, runsTemplate, templateHash } from '../src/reconcilers/zone-aware-update-deployment';

const ZONES: Record<string, string> = { 'node-a': 'zone-a', 'node-b': 'zone-b', 'node-c': 'zone-c' };
const nodeLabels = (node: string) => (ZONES[node] ? { 'topology.kubernetes.io/zone': ZONES[node] } : undefined);

const template = (image: string) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image }] },
});

function deployment(image = 'web:2', extra: object = {}): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'dep' },
    spec: {
      replicas: 6,
      paused: true,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: 'web' } },
      template: template(image),
      ...extra,
    },
  };
}

const OWNED_BY_DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true };

function rs(name: string, image: string, replicas: number, hash: string): KubeObject {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      generation: 1,
      labels: { 'app': 'web', 'pod-template-hash': hash },
      ownerReferences: [OWNED_BY_DEPLOYMENT],
    },
    spec: {
      replicas,
      template: { ...template(image), metadata: { labels: { 'app': 'web', 'pod-template-hash': hash } } },
    },
    status: { replicas, observedGeneration: 1 },
  };
}

function pod(i: number, owner: KubeObject, created: string): KubeObject {
  return {
    metadata: {
      name: `${owner.metadata.name}-p${i}`,
      namespace: 'ns',
      creationTimestamp: created,
      labels: { 'pod-template-hash': owner.metadata.labels!['pod-template-hash'] },
      ownerReferences: [{
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: owner.metadata.name,
        uid: owner.metadata.uid!,
        controller: true,
      }],
    },
    spec: { nodeName: ['node-a', 'node-b', 'node-c'][i % 3] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

const zau = (status?: object): KubeObject => ({
  metadata: { name: 'web', namespace: 'ns', generation: 1 },
  spec: { deployment: 'web', maxUnavailable: 2, exponentialFactor: 2 },
  status,
});
const base = { nodeLabels, topologyKeys: ['topology.kubernetes.io/zone'], nowMs: Date.parse('2026-11-27T10:00:00Z') };
/** The decision for the Deployment before its rollout has a status. */
const decideAtStart = (replicaSets: KubeObject[], pods: KubeObject[]) =>
  decideZoneAwareUpdate({ ...base, zau: zau(), deployment: deployment(), replicaSets, pods });
/** The decision for the Deployment with its rollout at `status`. */
const decideAt = (status: object, replicaSets: KubeObject[], pods: KubeObject[]) =>
  decideZoneAwareUpdate({ ...base, zau: zau(status), deployment: deployment(), replicaSets, pods });

describe('rolling a Deployment through its ReplicaSets', () => {
  test('a ReplicaSet runs the template whatever its hash label and field order', () => {
    const dep = deployment('web:2');
    expect(runsTemplate(rs('web-x', 'web:2', 0, 'x'), dep)).toBe(true);
    expect(runsTemplate(rs('web-y', 'web:1', 0, 'y'), dep)).toBe(false);
    const reordered = {
      ...rs('web-z', 'web:2', 0, 'z'),
      spec: { template: { spec: { containers: [{ image: 'web:2', name: 'web' }] }, metadata: { labels: { app: 'web' } } } },
    };
    expect(runsTemplate(reordered, dep)).toBe(true);
    expect(templateHash(template('web:2'))).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(templateHash(template('web:2'))).not.toBe(templateHash(template('web:1')));
  });

  test('no new ReplicaSet: create it, owned by the Deployment, 0 replicas, next revision', () => {
    const old = { ...rs('web-old', 'web:1', 6, 'old'), metadata: { ...rs('web-old', 'web:1', 6, 'old').metadata, annotations: { 'deployment.kubernetes.io/revision': '3' } } };
    const action = decideAtStart([old], []);
    expect(action.kind).toBe('create-replicaset');
    const created = (action as any).replicaSet;
    const hash = templateHash(template('web:2'));
    expect(created).toMatchObject({
      metadata: {
        name: `web-${hash}`,
        labels: { 'app': 'web', 'pod-template-hash': hash },
        annotations: { 'deployment.kubernetes.io/revision': '4' },
        ownerReferences: [OWNED_BY_DEPLOYMENT],
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { 'app': 'web', 'pod-template-hash': hash } },
        template: { metadata: { labels: { 'pod-template-hash': hash } } },
      },
    });
    expect(newReplicaSet(deployment(), [old]).spec.template.spec).toEqual(template('web:2').spec);
  });

  test('a new or rescaled Deployment: the new ReplicaSet takes the difference', () => {
    const fresh = rs('web-new', 'web:2', 0, 'new');
    expect(resize(deployment(), fresh, [fresh])).toEqual({ up: { name: 'web-new', replicas: 6 }, down: [] });
    const old = rs('web-old', 'web:1', 4, 'old');
    const half = rs('web-new', 'web:2', 4, 'new');
    expect(resize(deployment(), half, [old, half])).toEqual({ up: { name: 'web-new', replicas: 2 }, down: [] });
    expect(resize(deployment('web:2', { replicas: 1 }), half, [old, half]))
      .toEqual({ up: { name: 'web-new', replicas: 0 }, down: [{ name: 'web-old', replicas: 1 }] });
    expect(resize(deployment(), rs('web-new', 'web:2', 6, 'new'), [rs('web-new', 'web:2', 6, 'new')])).toBeUndefined();
  });

  test('a batch: the first zone\'s newest old pods, new ReplicaSet up and old down by the batch', () => {
    const old = rs('web-old', 'web:1', 6, 'old');
    const fresh = rs('web-new', 'web:2', 0, 'new');
    const pods = [0, 1, 2, 3, 4, 5].map((i) => pod(i, old, `2026-01-01T00:00:0${i}Z`));
    const first = decideAtStart([old, fresh], pods);
    // zone-a holds p0 and p3: the newest (p3) first, one pod at step 0.
    expect(first).toMatchObject({
      kind: 'scale',
      pods: ['web-old-p3'],
      zone: 'zone-a',
      scaling: { up: { name: 'web-new', replicas: 1 }, down: [{ name: 'web-old', replicas: 5 }] },
    });
    const second = decideAt({ updateRevision: 'new', step: 1 }, [old, fresh], pods);
    expect(second).toMatchObject({
      kind: 'scale',
      pods: ['web-old-p3', 'web-old-p0'],
      scaling: { up: { replicas: 2 }, down: [{ replicas: 4 }] },
    });
    // Later batches only shrink the old ReplicaSet; the new one grows once the pods are gone.
    const grown = rs('web-new', 'web:2', 1, 'new');
    const oldAt5 = { ...old, spec: { ...old.spec, replicas: 5 } };
    const later = [
      ...[0, 1, 2, 4, 5].map((i) => pod(i, oldAt5, `2026-01-01T00:00:0${i}Z`)),
      pod(6, grown, '2026-01-01T00:01:00Z'),
    ];
    const old5 = { ...old, spec: { ...old.spec, replicas: 5 }, status: { replicas: 5, observedGeneration: 1 } };
    expect(decideAt({ updateRevision: 'new', step: 1 }, [old5, grown], later))
      .toMatchObject({ kind: 'scale', pods: ['web-old-p0'], scaling: { down: [{ name: 'web-old', replicas: 4 }] } });
    const shrunk = { ...old, spec: { ...old.spec, replicas: 4 }, status: { replicas: 4, observedGeneration: 1 } };
    const remaining = [...[1, 2, 4, 5].map((i) => pod(i, shrunk, `2026-01-01T00:00:0${i}Z`)), pod(6, grown, '2026-01-01T00:01:00Z')];
    const p0 = pod(0, shrunk, '2026-01-01T00:00:00Z');
    const terminating = [...remaining, { ...p0, metadata: { ...p0.metadata, deletionTimestamp: 'now' } }];
    expect(decideAt({ updateRevision: 'new', step: 2 }, [shrunk, grown], terminating))
      .toMatchObject({ kind: 'status', status: { phase: 'Waiting', message: 'waiting for 1 terminating pod(s): web-old-p0' } });
    expect(decideAt({ updateRevision: 'new', step: 2 }, [shrunk, grown], remaining))
      .toMatchObject({ kind: 'scale', pods: [], scaling: { up: { name: 'web-new', replicas: 2 }, down: [] } });
  });

  test('an ended pod (evicted by its kubelet: Failed) is not a replica: the rollout neither waits on it nor takes it in a batch', () => {
    const old = rs('web-old', 'web:1', 6, 'old');
    const fresh = rs('web-new', 'web:2', 0, 'new');
    const ended = (p: KubeObject) => ({ ...p, status: { phase: 'Failed', reason: 'Evicted' } });
    // p3 was evicted in zone-a and replaced by p6 there; the ReplicaSet counts 6.
    const pods = [...[0, 1, 2, 4, 5].map((i) => pod(i, old, `2026-01-01T00:00:0${i}Z`)), ended(pod(3, old, '2026-01-01T00:00:03Z')), pod(6, old, '2026-01-01T00:00:06Z')];
    const first = decideAtStart([old, fresh], pods);
    expect(first).toMatchObject({ kind: 'scale', pods: ['web-old-p6'], zone: 'zone-a', scaling: { down: [{ name: 'web-old', replicas: 5 }] } });
  });

  test('waits while a ReplicaSet has not caught up; refuses an unpaused or RollingUpdate Deployment', () => {
    const old = { ...rs('web-old', 'web:1', 5, 'old'), status: { replicas: 6, observedGeneration: 1 } };
    const fresh = rs('web-new', 'web:2', 1, 'new');
    const pods = [0, 1, 2, 3, 4, 5].map((i) => pod(i, old, '2026-01-01T00:00:00Z'));
    expect(decideAtStart([old, fresh], pods))
      .toMatchObject({ kind: 'status', status: { phase: 'Waiting', message: 'waiting for ReplicaSet web-old: 5 wanted, status 6, 6 pods seen' } });
    const unobserved = { ...rs('web-new', 'web:2', 1, 'new'), metadata: { ...fresh.metadata, generation: 2 } };
    const withUnobserved = [...pods.slice(1), pod(6, unobserved, '2026-01-01T00:01:00Z')];
    expect(decideAtStart([rs('web-old', 'web:1', 5, 'old'), unobserved], withUnobserved))
      .toMatchObject({ status: { phase: 'Waiting', message: 'waiting for ReplicaSet web-new: 1 wanted, status 1, 1 pods seen (its controller has seen generation 1 of 2)' } });
    const unpaused = deployment('web:2', { paused: false });
    expect(decideZoneAwareUpdate({ ...base, zau: zau(), deployment: unpaused, replicaSets: [], pods: [] }))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: expect.stringMatching(/must be paused \(spec.paused: true, now false\) with strategy Recreate/) } });
    const rollingUpdate = deployment('web:2', { strategy: { type: 'RollingUpdate' } });
    expect(decideZoneAwareUpdate({ ...base, zau: zau(), deployment: rollingUpdate, replicaSets: [], pods: [] }))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: expect.stringMatching(/\(now RollingUpdate\)/) } });
    expect(decideZoneAwareUpdate({ ...base, zau: zau(), replicaSets: [], pods: [] }))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: 'Deployment web not found in namespace ns' } });
  });
});
