import { KubeObject } from '../src/kube/api';
import { decideZoneAwareUpdate, keyValueHolds, ZauAction, ZauInput } from '../src/reconcilers/zone-aware-update-decision';
import { expectationMet, expectationOf } from '../src/reconcilers/zone-aware-update-expectation';
import { reportOf } from '../src/reconcilers/zone-aware-update-report';

const ZONES: Record<string, string> = { 'node-a': 'zone-a', 'node-b': 'zone-b', 'node-c': 'zone-c' };
const nodeLabels = (node: string): Record<string, string> | undefined => {
  if (ZONES[node]) return { 'topology.kubernetes.io/zone': ZONES[node] };
  return node === 'bare' ? {} : undefined;
};

interface StsOptions {
  readonly strategy?: string;
  readonly labels?: Record<string, string>;
  readonly generation?: number;
  readonly observed?: number;
}

function sts(extra: StsOptions = {}): KubeObject {
  return {
    metadata: { name: 'db', namespace: 'ns', uid: 'sts-uid', generation: extra.generation ?? 2, labels: extra.labels },
    spec: { replicas: 6, updateStrategy: { type: extra.strategy ?? 'OnDelete' } },
    status: { observedGeneration: extra.observed ?? 2, updateRevision: 'db-new', currentRevision: 'db-old' },
  };
}

function pod(i: number, revision: string, ready = true, terminating = false): KubeObject {
  return {
    metadata: {
      name: `db-${i}`,
      namespace: 'ns',
      uid: `pod-${i}`,
      labels: { 'controller-revision-hash': revision },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'sts-uid', controller: true }],
      ...(terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { nodeName: ['node-a', 'node-b', 'node-c'][i % 3] },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function zau(spec: object, status?: object): KubeObject {
  return {
    metadata: { name: 'db', namespace: 'ns', generation: 1 },
    spec: { statefulset: 'db', maxUnavailable: 2, exponentialFactor: 2, ...spec },
    status,
  };
}

const NOW = Date.parse('2026-11-27T10:00:00Z');
const input = (over: Partial<ZauInput>): ZauInput => ({
  zau: zau({}),
  statefulSet: sts(),
  pods: [0, 1, 2, 3, 4, 5].map((i) => pod(i, 'db-old')),
  nodeLabels,
  topologyKeys: ['topology.kubernetes.io/zone'],
  nowMs: NOW,
  ...over,
});

describe('zone-aware-update decision', () => {
  test('first batch: the highest ordinal of the first zone; step and revision persisted', () => {
    const action = decideZoneAwareUpdate(input({}));
    expect(action).toMatchObject({
      kind: 'delete',
      pods: ['db-3'],
      zone: 'zone-a',
      status: {
        step: 1,
        updateRevision: 'db-new',
        currentRevision: 'db-old',
        oldReplicas: 6,
        phase: 'Rolling',
        lastDeleted: ['db-3'],
        zones: [{ zone: 'zone-a', oldReplicas: 2 }, { zone: 'zone-b', oldReplicas: 2 }, { zone: 'zone-c', oldReplicas: 2 }],
      },
    });
  });

  test('a restarted controller resumes from the persisted step', () => {
    const pods = [pod(0, 'db-old'), pod(1, 'db-old'), pod(2, 'db-old'), pod(3, 'db-new'), pod(4, 'db-old'), pod(5, 'db-old')];
    const action = decideZoneAwareUpdate(input({ pods, zau: zau({}, { updateRevision: 'db-new', step: 1 }) }));
    expect(action).toMatchObject({ kind: 'delete', pods: ['db-0'], zone: 'zone-a', status: { step: 2 } });
    // Step 2 in zone-b: batch min(2^2, 2) = 2.
    const next = [pod(0, 'db-new'), pod(1, 'db-old'), pod(2, 'db-old'), pod(3, 'db-new'), pod(4, 'db-old'), pod(5, 'db-old')];
    expect(decideZoneAwareUpdate(input({ pods: next, zau: zau({}, { updateRevision: 'db-new', step: 2 }) })))
      .toMatchObject({ kind: 'delete', pods: ['db-4', 'db-1'], zone: 'zone-b', status: { step: 3 } });
  });

  test('waits while a pod terminates, without advancing the step', () => {
    const pods = [pod(0, 'db-old'), pod(1, 'db-old'), pod(2, 'db-old'), pod(3, 'db-old', false, true), pod(4, 'db-old'), pod(5, 'db-old')];
    expect(decideZoneAwareUpdate(input({ pods, zau: zau({}, { updateRevision: 'db-new', step: 1 }) })))
      .toMatchObject({ kind: 'status', status: { phase: 'Waiting', step: 1, message: 'waiting for 1 terminating pod(s): db-3' } });
  });

  test('pause conditions: label, annotation, Prometheus', () => {
    const heldByLabel = zau({ pauseCondition: { label: 'hold=yes' } });
    expect(decideZoneAwareUpdate(input({ zau: heldByLabel, statefulSet: sts({ labels: { hold: 'yes' } }) })))
      .toMatchObject({ kind: 'status', status: { paused: true, phase: 'Paused', step: 0 } });
    expect(decideZoneAwareUpdate(input({ zau: heldByLabel, statefulSet: sts({ labels: { hold: 'no' } }) })).kind)
      .toBe('delete');
    const prom = decideZoneAwareUpdate(input({ prometheusPause: 'Prometheus query returned 1 series' }));
    expect(prom).toMatchObject({ kind: 'status', status: { paused: true, message: expect.stringMatching(/^paused by Prometheus query returned 1 series; next: step 0/) } });
    expect(keyValueHolds('a', { a: '' })).toBe(true);
    expect(keyValueHolds('a=', { a: '' })).toBe(true);
    expect(keyValueHolds('a=b', { a: 'c' })).toBe(false);
    expect(keyValueHolds('a', undefined)).toBe(false);
  });

  test('dry run: says what it would delete, the step stays', () => {
    expect(decideZoneAwareUpdate(input({ zau: zau({ dryRun: true }) })))
      .toMatchObject({ kind: 'dry-run', pods: ['db-3'], status: { step: 0, message: expect.stringMatching(/^dry run: would delete db-3/) } });
  });

  test('errors and waits on the workload', () => {
    expect(decideZoneAwareUpdate(input({ statefulSet: sts({ strategy: 'RollingUpdate' }) })))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: expect.stringMatching(/updateStrategy RollingUpdate: set it to OnDelete/) } });
    expect(decideZoneAwareUpdate(input({ statefulSet: undefined })))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: 'StatefulSet db not found in namespace ns' } });
    expect(decideZoneAwareUpdate(input({ statefulSet: sts({ generation: 3, observed: 2 }) })))
      .toMatchObject({ kind: 'status', status: { phase: 'Waiting' } });
    expect(decideZoneAwareUpdate(input({ zau: zau({ maxUnavailable: '0%' }) })))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: expect.stringMatching(/^spec.maxUnavailable/) } });
  });

  test('done when every pod runs the update revision and is Ready; the moment it was first found done is kept', () => {
    const pods = [0, 1, 2, 3, 4, 5].map((i) => pod(i, 'db-new'));
    expect(decideZoneAwareUpdate(input({ pods, zau: zau({}, { updateRevision: 'db-new', step: 4, phase: 'Rolling' }) })))
      .toMatchObject({ kind: 'status', status: { phase: 'Done', step: 4, oldReplicas: 0, currentRevision: 'db-new', doneAt: '2026-11-27T10:00:00.000Z' } });
    const done = { updateRevision: 'db-new', step: 4, phase: 'Done', doneAt: '2026-11-27T09:00:00.000Z' };
    expect(decideZoneAwareUpdate(input({ pods, zau: zau({}, done) })).status.doneAt).toBe('2026-11-27T09:00:00.000Z');
    // done for another revision: a new moment
    const doneForOlder = zau({}, { ...done, updateRevision: 'db-older' });
    expect(decideZoneAwareUpdate(input({ pods, zau: doneForOlder })).status.doneAt).toBe('2026-11-27T10:00:00.000Z');
  });

  describe('startAfter: a new revision waits for another ZoneAwareUpdate to be done, and a delay', () => {
    const after = { startAfter: { zoneAwareUpdate: 'ingesters', delaySeconds: 600 } };
    const predecessor = (status: object | undefined, updateRevision: string | undefined = 'ing-2') => ({
      zau: { metadata: { name: 'ingesters', namespace: 'ns' }, spec: {}, status }, updateRevision,
    });
    const doneAt = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

    test('waits while it is missing, rolling, or done for a revision its workload no longer has', () => {
      expect(decideZoneAwareUpdate(input({ zau: zau(after) })).status)
        .toMatchObject({ phase: 'Waiting', message: expect.stringMatching(/^waiting for ZoneAwareUpdate ingesters, not found in this namespace; next: step 0/) });
      const rolling = predecessor({ phase: 'Rolling', message: 'step 1', updateRevision: 'ing-2' });
      expect(decideZoneAwareUpdate(input({ zau: zau(after), predecessor: rolling })).status)
        .toMatchObject({ phase: 'Waiting', message: expect.stringMatching(/^waiting for ZoneAwareUpdate ingesters to finish rolling out \(Rolling: step 1\)/) });
      const stale = predecessor({ phase: 'Done', updateRevision: 'ing-1', doneAt: doneAt(60) }, 'ing-2');
      expect(decideZoneAwareUpdate(input({ zau: zau(after), predecessor: stale })).status.phase).toBe('Waiting');
      // its workload's revision unknown now (e.g. a Deployment's new ReplicaSet not there yet)
      const unknown = {
        ...predecessor({ phase: 'Done', updateRevision: 'ing-2', doneAt: doneAt(60) }),
        updateRevision: undefined,
      };
      expect(decideZoneAwareUpdate(input({ zau: zau(after), predecessor: unknown })).status.phase).toBe('Waiting');
    });

    test('done less than the delay ago: waits, saying when it starts; after it: rolls', () => {
      const doneMinutesAgo = (minutes: number) =>
        predecessor({ phase: 'Done', updateRevision: 'ing-2', doneAt: doneAt(minutes) });
      const recent = decideZoneAwareUpdate(input({ zau: zau(after), predecessor: doneMinutesAgo(4) }));
      expect(recent).toMatchObject({ kind: 'status', status: { phase: 'Waiting', step: 0, startsAt: '2026-11-27T10:06:00.000Z' } });
      expect(recent.status.message).toMatch(/^starts at 2026-11-27T10:06:00.000Z, 600 s after ZoneAwareUpdate ingesters finished/);
      expect(decideZoneAwareUpdate(input({ zau: zau(after), predecessor: doneMinutesAgo(10) })))
        .toMatchObject({ kind: 'delete', pods: ['db-3'], status: { step: 1 } });
    });

    test('a revision under way goes on whatever the other does; nothing to roll is done, not held', () => {
      const pods = [pod(0, 'db-old'), pod(1, 'db-old'), pod(2, 'db-old'), pod(3, 'db-new'), pod(4, 'db-old'), pod(5, 'db-old')];
      const underWay = zau(after, { updateRevision: 'db-new', step: 1 });
      expect(decideZoneAwareUpdate(input({ pods, zau: underWay }))).toMatchObject({ kind: 'delete', pods: ['db-0'] });
      const updated = [0, 1, 2, 3, 4, 5].map((i) => pod(i, 'db-new'));
      expect(decideZoneAwareUpdate(input({ pods: updated, zau: zau(after) })).status.phase).toBe('Done');
    });
  });
});

describe('after an action: what the caches must show, what is told', () => {
  test('a deleted batch: the next decision waits until the caches show its pods going or gone', () => {
    const first = input({});
    const action = decideZoneAwareUpdate(first);
    const expectation = expectationOf(action, first)!;
    expect(expectation).toEqual({ kind: 'pods-going', pods: [{ key: 'ns/db-3', uid: 'pod-3' }] });
    const cache = (p?: KubeObject) => ({ pod: () => p, replicaSet: () => undefined, podsOf: () => [] });
    expect(expectationMet(expectation, cache(pod(3, 'db-old')))).toBe(false);
    expect(expectationMet(expectation, cache(pod(3, 'db-old', false, true)))).toBe(true);
    expect(expectationMet(expectation, cache(undefined))).toBe(true);
    // the StatefulSet made a new pod of the same name: the deleted one is gone
    const sameName = { ...pod(3, 'db-new'), metadata: { ...pod(3, 'db-new').metadata, uid: 'new' } };
    expect(expectationMet(expectation, cache(sameName))).toBe(true);
  });

  test('created and scaled ReplicaSets: their cache entries at the new state', () => {
    const rs = (replicas: number): KubeObject => ({ metadata: { name: 'web-2', namespace: 'ns' }, spec: { replicas } });
    const status = { step: 1, oldReplicas: 0, zones: [], paused: false, phase: 'Rolling' as const, message: 'm' };
    const created: ZauAction = { kind: 'create-replicaset', replicaSet: rs(0), status };
    expect(expectationOf(created, input({}))).toEqual({ kind: 'replicaset-created', key: 'ns/web-2' });
    const createdExpectation = expectationOf(created, input({}))!;
    const notListed = { pod: () => undefined, replicaSet: () => undefined, podsOf: () => [] };
    expect(expectationMet(createdExpectation, notListed)).toBe(false);
    const listed = { pod: () => undefined, replicaSet: () => rs(0), podsOf: () => [] };
    expect(expectationMet(createdExpectation, listed)).toBe(true);
    const scaled: ZauAction = {
      kind: 'scale',
      pods: ['web-1-a'],
      zone: 'zone-a',
      scaling: { up: { name: 'web-2', replicas: 1 }, down: [{ name: 'web-1', replicas: 2 }] },
      status,
    };
    const expectation = expectationOf(scaled, input({}))!;
    expect(expectation).toEqual({ kind: 'replicas', targets: [{ key: 'ns/web-2', replicas: 1 }, { key: 'ns/web-1', replicas: 2 }] });
    const oldAt = (oldReplicas: number) => ({
      pod: () => undefined,
      replicaSet: (k: string) => (k === 'ns/web-2' ? rs(1) : rs(oldReplicas)),
      podsOf: () => [],
    });
    expect(expectationMet(expectation, oldAt(3))).toBe(false);
    expect(expectationMet(expectation, oldAt(2))).toBe(true);
    // at their replicas, but the old ReplicaSet's deletion not seen yet: 3 of its pods still active for 2 replicas
    const owned = (uid: string): KubeObject => ({
      ...rs(uid === 'web-2' ? 1 : 2),
      metadata: { name: uid, namespace: 'ns', uid },
    });
    const pods = (n: number, terminating = 0) => Array.from({ length: n }, (_, i) => ({
      metadata: { name: `web-1-${i}`, namespace: 'ns', ...(i < terminating ? { deletionTimestamp: 't' } : {}) },
      status: { phase: 'Running' },
    }));
    const seen = (active: number, terminating: number) => ({
      pod: () => undefined,
      replicaSet: (k: string) => owned(k === 'ns/web-2' ? 'web-2' : 'web-1'),
      podsOf: (uid: string) => (uid === 'web-1' ? pods(active + terminating, terminating) : []),
    });
    expect(expectationMet(expectation, seen(3, 0))).toBe(false);
    expect(expectationMet(expectation, seen(2, 1))).toBe(true);
    expect(expectationOf(decideZoneAwareUpdate(input({ zau: zau({ dryRun: true }) })), input({}))).toBeUndefined();
  });

  test('reports: a batch is counted and told; a pause is told once, and looked at again', () => {
    expect(reportOf(decideZoneAwareUpdate(input({})), undefined)).toEqual({
      decision: 'delete-batch',
      log: { level: 'info', msg: 'deleted a batch', fields: { zone: 'zone-a', pods: ['db-3'], step: 0 } },
      event: { type: 'Normal', reason: 'DeletedBatch', message: expect.stringMatching(/^zone zone-a: deleted db-3 \(/) },
      recheck: false,
    });
    const paused = decideZoneAwareUpdate(input({ prometheusPause: 'Prometheus query returned 1 series' }));
    const first = reportOf(paused, undefined);
    expect(first).toMatchObject({
      decision: 'paused',
      log: { level: 'warn', msg: 'rollout paused' },
      event: { type: 'Warning', reason: 'Paused' },
      recheck: true,
    });
    expect(reportOf(paused, { ...paused.status })).toEqual({ decision: 'paused', recheck: true });
    const dryRun = decideZoneAwareUpdate(input({ zau: zau({ dryRun: true }) }));
    expect(reportOf(dryRun, undefined)).toMatchObject({ decision: 'dry-run', recheck: true });
    const error = decideZoneAwareUpdate(input({ statefulSet: undefined }));
    expect(reportOf(error, undefined)).toMatchObject({
      decision: 'error',
      event: { type: 'Warning', reason: 'InvalidTarget', message: 'StatefulSet db not found in namespace ns' },
      recheck: false,
    });
  });
});

describe('zone-aware-update decision: a group of per-zone StatefulSets', () => {
  const ZONE_OF: Record<string, string> = { a: 'node-a', b: 'node-b', c: 'node-c' };
  /** StatefulSet `ing-<z>` with 2 replicas, all in zone <z>. */
  const member = (
    z: string,
    updateRevision = `ing-${z}-new`,
    extra: { labels?: Record<string, string>; strategy?: string } = {},
  ): KubeObject => ({
    metadata: { name: `ing-${z}`, namespace: 'ns', uid: `uid-${z}`, generation: 1, labels: extra.labels },
    spec: { replicas: 2, updateStrategy: { type: extra.strategy ?? 'OnDelete' } },
    status: { observedGeneration: 1, updateRevision },
  });
  const groupPod = (z: string, i: number, revision: 'old' | 'new', ready = true): KubeObject => ({
    metadata: {
      name: `ing-${z}-${i}`,
      namespace: 'ns',
      uid: `pod-${z}-${i}`,
      labels: { 'controller-revision-hash': `ing-${z}-${revision}` },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: `ing-${z}`, uid: `uid-${z}`, controller: true }],
    },
    spec: { nodeName: ZONE_OF[z] },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], podIP: `127.0.0.${i}` },
  });
  const allPods = (revisions: Record<string, ['old' | 'new', 'old' | 'new']>, notReady: string[] = []) =>
    Object.entries(revisions).flatMap(([z, revs]) =>
      revs.map((r, i) => groupPod(z, i, r, !notReady.includes(`ing-${z}-${i}`))));
  const groupZau = (status?: object, extra: object = {}) => ({
    metadata: { name: 'ing', namespace: 'ns', generation: 1 },
    spec: { statefulsets: ['ing-a', 'ing-b', 'ing-c'], maxUnavailable: 2, exponentialFactor: 2, ...extra },
    status,
  });
  const groupInput = (over: Partial<ZauInput>): ZauInput => ({
    zau: groupZau(),
    statefulSets: [member('a'), member('b'), member('c')],
    pods: allPods({ a: ['old', 'old'], b: ['old', 'old'], c: ['old', 'old'] }),
    nodeLabels,
    topologyKeys: ['topology.kubernetes.io/zone'],
    nowMs: NOW,
    ...over,
  });
  const revision = 'ing-a=ing-a-new,ing-b=ing-b-new,ing-c=ing-c-new';

  test('rolls the group zone after zone across its StatefulSets, growing batches', () => {
    expect(decideZoneAwareUpdate(groupInput({}))).toMatchObject({
      kind: 'delete',
      zone: 'zone-a',
      pods: ['ing-a-1'],
      status: {
        step: 1,
        updateRevision: revision,
        oldReplicas: 6,
        zones: [
          { zone: 'zone-a', oldReplicas: 2 },
          { zone: 'zone-b', oldReplicas: 2 },
          { zone: 'zone-c', oldReplicas: 2 },
        ],
      },
    });
    const groupRes = groupZau({ updateRevision: revision, step: 2 });
    const pods = allPods({ a: ['new', 'new'], b: ['old', 'old'], c: ['old', 'old'] });
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, pods })))
      .toMatchObject({ kind: 'delete', zone: 'zone-b', pods: ['ing-b-1', 'ing-b-0'] });
  });

  test('a zone is rolled only while every pod of the other zones is Ready, old ones too', () => {
    const groupRes = groupZau({ updateRevision: revision, step: 2 });
    const pods = allPods({ a: ['new', 'new'], b: ['old', 'old'], c: ['old', 'old'] }, ['ing-c-0']);
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, pods }))).toMatchObject({
      kind: 'status',
      status: { phase: 'Waiting', message: 'waiting for 1 pod(s) outside zone zone-b to be Ready before rolling it: ing-c-0' },
    });
    // A not-Ready old pod of the zone being rolled does not hold it: rolling it may be the fix.
    const sick = allPods({ a: ['new', 'new'], b: ['old', 'old'], c: ['old', 'old'] }, ['ing-b-0']);
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, pods: sick }))).toMatchObject({ kind: 'delete', zone: 'zone-b' });
  });

  test('a pod failing the ready check counts as not Ready, and the rollout waits for it', () => {
    const groupRes = groupZau({ updateRevision: revision, step: 1 }, { readyCheck: { path: '/ready', port: 3100 } });
    const pods = allPods({ a: ['old', 'new'], b: ['old', 'old'], c: ['old', 'old'] });
    const failures = new Map([['ing-a-1', 'GET http://127.0.0.1:3100/ready: HTTP 503']]);
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, pods, readyCheckFailures: failures }))).toMatchObject({
      kind: 'status', status: { phase: 'Waiting', message: 'waiting for 1 updated pod(s) to be Ready: ing-a-1' },
    });
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, pods, readyCheckFailures: new Map() })))
      .toMatchObject({ kind: 'delete', pods: ['ing-a-0'] });
  });

  test('a new revision of any member restarts the ramp; pods of the others on their revision are not old', () => {
    const groupRes = groupZau({ updateRevision: revision, step: 3 });
    const statefulSets = [member('a'), member('b', 'ing-b-newer'), member('c')];
    const pods = allPods({ a: ['new', 'new'], b: ['new', 'new'], c: ['new', 'new'] });
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, pods, statefulSets }))).toMatchObject({
      kind: 'delete', zone: 'zone-b', pods: ['ing-b-1'], status: { step: 1, oldReplicas: 2, updateRevision: 'ing-a=ing-a-new,ing-b=ing-b-newer,ing-c=ing-c-new' },
    });
  });

  test('a missing or RollingUpdate member, or one not yet observed, holds the whole group', () => {
    expect(decideZoneAwareUpdate(groupInput({ statefulSets: [member('a'), member('c')] })))
      .toMatchObject({ kind: 'status', status: { phase: 'Error', message: 'StatefulSet(s) ing-b of the group not found in namespace ns' } });
    const rollingUpdateB = member('b', undefined, { strategy: 'RollingUpdate' });
    expect(decideZoneAwareUpdate(groupInput({ statefulSets: [member('a'), rollingUpdateB, member('c')] })).status)
      .toMatchObject({ phase: 'Error', message: expect.stringContaining('ing-b has updateStrategy RollingUpdate') });
    const unobserved = { ...member('c'), metadata: { ...member('c').metadata, generation: 2 } };
    expect(decideZoneAwareUpdate(groupInput({ statefulSets: [member('a'), member('b'), unobserved] })).status)
      .toMatchObject({ phase: 'Waiting', message: 'waiting for the StatefulSet controller to observe generation 2 of ing-c' });
  });

  test('a pause label on any member pauses the group', () => {
    const groupRes = groupZau(undefined, { pauseCondition: { label: 'hold' } });
    const statefulSets = [member('a'), member('b'), member('c', undefined, { labels: { hold: '' } })];
    expect(decideZoneAwareUpdate(groupInput({ zau: groupRes, statefulSets })))
      .toMatchObject({ kind: 'status', status: { phase: 'Paused', paused: true, message: expect.stringContaining('label hold on StatefulSet ing-c') } });
  });
});
