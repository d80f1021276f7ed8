/**
 * `cdk8s-zones check --kubeconfig FILE --live` through `main()` against an in-memory cluster: the worse of now and
 * the spec, pods and volumes where they are, operators' resources and what they made, lists denied or not served,
 * the namespaces asked for, and the timeout. The Kubernetes tier runs it on a real cluster (check-live.test.ts there).
 */
import { runCli } from './memory-api';
import { KubeApiError } from '../../src/kubernetes/kube-api';
import { MemoryKubeApi } from '../memory-kube-api';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const LIVE = ['check', '--kubeconfig', 'kubeconfig.yaml', '--live', '--format', 'json'];
const hardSpread = (labels: Record<string, string>) => ({
  topologyKey: ZONE_KEY, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels },
});
const controlledBy = (kind: string, name: string, uid: string) => [{ kind, name, uid, controller: true }];
const inZone = (zone: string) => ({
  nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }],
});

/** Three nodes per zone. */
function cluster(): MemoryKubeApi {
  const api = new MemoryKubeApi();
  for (const zone of ZONES) {
    for (const i of [1, 2, 3]) {
      api.put('/api/v1/nodes', {
        kind: 'Node',
        metadata: { name: `${zone}-${i}`, labels: { [ZONE_KEY]: zone, 'kubernetes.io/hostname': `${zone}-${i}` } },
        status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
      });
    }
  }
  return api;
}

/** A StatefulSet `db` of 3 spread hard over the zones, its pods on `nodes` with their claims bound to volumes there. */
function statefulSetOn(api: MemoryKubeApi, nodes: string[], owner?: object): void {
  const labels = { app: 'db' };
  api.put('/apis/apps/v1/namespaces/data/statefulsets', {
    kind: 'StatefulSet',
    apiVersion: 'apps/v1',
    metadata: { name: 'db', namespace: 'data', uid: 's1', ...(owner ? { ownerReferences: [owner] } : {}) },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { storageClassName: 'zonal' } }],
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'c', image: 'x' }],
          topologySpreadConstraints: [hardSpread(labels)],
        },
      },
    },
  });
  nodes.forEach((node, i) => {
    const zone = node.replace(/-\d$/, '');
    api.put('/api/v1/namespaces/data/pods', {
      kind: 'Pod',
      metadata: { name: `db-${i}`, namespace: 'data', labels, ownerReferences: controlledBy('StatefulSet', 'db', 's1') },
      spec: {
        nodeName: node,
        containers: [{ name: 'c' }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-db-${i}` } }],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    api.put('/api/v1/namespaces/data/persistentvolumeclaims', {
      kind: 'PersistentVolumeClaim', metadata: { name: `data-db-${i}`, namespace: 'data' }, spec: { volumeName: `pv-${i}` },
    });
    api.put('/api/v1/persistentvolumes', {
      kind: 'PersistentVolume',
      metadata: { name: `pv-${i}` },
      spec: {
        claimRef: { namespace: 'data', name: `data-db-${i}` },
        nodeAffinity: { required: inZone(zone) },
      },
    });
  });
  api.put('/apis/storage.k8s.io/v1/storageclasses', {
    kind: 'StorageClass', metadata: { name: 'zonal' }, volumeBindingMode: 'WaitForFirstConsumer',
  });
}

const report = (stdout: string) => JSON.parse(stdout) as { workloads: any[]; findings: any[] };
const row = (stdout: string, kind: string, name: string) => report(stdout).workloads
  .find((w) => w.kind === kind && w.name === name);

test('a StatefulSet whose spec spreads it but whose 3 pods and volumes all sit in zone-a today: it does not survive zone-a', async () => {
  const api = cluster();
  statefulSetOn(api, ['zone-a-1', 'zone-a-2', 'zone-a-3']);
  const r = await runCli(api, LIVE);
  expect(r).toMatchObject({ code: 1, stderr: '' });
  const db = row(r.stdout, 'StatefulSet', 'db');
  expect(db.survives).toEqual({ 'zone-a': false, 'zone-b': true, 'zone-c': true });
  // 3 run there now; were they placed again, the spread would let only one of them back (its volumes are all there)
  expect(db.perZone['zone-a']).toEqual({ guaranteed: 1, worstCase: 3 });
  expect(db.pendingWorstCase).toBe(2);
  // its replacements stay Pending on their zone-a volumes
  expect(db.zoneLoss[0]).toMatchObject({ zone: 'zone-a', survivors: 0, replacementsPending: 3 });
  expect(db.findings.map((f: any) => f.message)).toEqual([
    'each of its pods\' claims is bound to a volume in one zone, so each pod runs only there: 3 in zone-a, 0 in zone-b, ' +
    '0 in zone-c; its hard zone spread lets only 1 of them run, the others stay Pending',
    '2 of 3 replicas can stay Pending with every zone up (room per zone for its pods: zone-a 330, zone-b 330, zone-c 330; ' +
    'zone spread maxSkew 1)',
    'losing zone-a leaves 0 in the worst case; it needs 1 (at least one replica)',
  ]);
  // read-only: nothing but lists
  expect(api.calls.filter((c) => !c.startsWith('LIST'))).toEqual([]);
});

test('a Deployment spread hard whose 3 pods run in zone-a now (placed before the spread): worse now than its spec says', async () => {
  const api = cluster();
  const labels = { app: 'web' };
  api.put('/apis/apps/v1/namespaces/shop/deployments', {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'web', namespace: 'shop', uid: 'd1' },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'c' }],
          topologySpreadConstraints: [hardSpread(labels)],
        },
      },
    },
  });
  api.put('/apis/apps/v1/namespaces/shop/replicasets', {
    kind: 'ReplicaSet',
    metadata: { name: 'web-1', namespace: 'shop', ownerReferences: controlledBy('Deployment', 'web', 'd1') },
    spec: { replicas: 3, selector: { matchLabels: labels } },
  });
  [1, 2, 3].forEach((i) => api.put('/api/v1/namespaces/shop/pods', {
    kind: 'Pod',
    metadata: { name: `web-${i}`, namespace: 'shop', labels, ownerReferences: controlledBy('ReplicaSet', 'web-1', 'rs1') },
    spec: { nodeName: `zone-a-${i}`, containers: [{ name: 'c' }] },
    status: { phase: 'Running' },
  }));
  const r = await runCli(api, LIVE);
  const web = row(r.stdout, 'Deployment', 'web');
  expect(web.survives).toEqual({ 'zone-a': false, 'zone-b': true, 'zone-c': true });
  expect(web.perZone['zone-a']).toEqual({ guaranteed: 1, worstCase: 3 });
  const now = web.findings.find((f: any) => f.rule === 'placed-now');
  expect(now.message).toBe('its pods run now 3 in zone-a, 0 in zone-b, 0 in zone-c: losing zone-a would take more than its spec allows ' +
    '(a spread acts only when pods are scheduled, and a pod whose volume is zonal comes back only in its zone)');
  // the ReplicaSet stands for nothing of its own: the Deployment is the workload
  expect(row(r.stdout, 'ReplicaSet', 'web-1')).toBeUndefined();
});

test('the same StatefulSet where its spec puts it (one pod per zone): it survives any zone, exit 0', async () => {
  const api = cluster();
  statefulSetOn(api, ['zone-a-1', 'zone-b-1', 'zone-c-1']);
  const r = await runCli(api, LIVE);
  expect(r.code).toBe(0);
  expect(row(r.stdout, 'StatefulSet', 'db').survives).toEqual({ 'zone-a': true, 'zone-b': true, 'zone-c': true });
});

test('an operator the check has no model of: its workloads grouped under its resource, each judged by its own needs', async () => {
  const api = cluster();
  statefulSetOn(api, ['zone-a-1', 'zone-a-2', 'zone-b-1'], { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w1', controller: true });
  const r = await runCli(api, LIVE);
  const widget = row(r.stdout, 'Widget', 'w');
  expect(widget).toMatchObject({ namespace: 'data', members: ['StatefulSet/data/db'], survives: { 'zone-a': true, 'zone-b': true } });
  expect(row(r.stdout, 'StatefulSet', 'db').zoneGroup).toBe('w');
});

test('a modelled operator: Strimzi\'s pods, made by its StrimziPodSets, judged by the Kafka\'s KRaft quorum where they run now', async () => {
  const api = cluster();
  api.put('/apis/kafka.strimzi.io/v1/namespaces/kafka/kafkas', {
    apiVersion: 'kafka.strimzi.io/v1',
    kind: 'Kafka',
    metadata: { name: 'events', namespace: 'kafka' },
    spec: { kafka: { config: { 'default.replication.factor': 3, 'min.insync.replicas': 2 } } },
  });
  api.put('/apis/kafka.strimzi.io/v1/namespaces/kafka/kafkanodepools', {
    apiVersion: 'kafka.strimzi.io/v1',
    kind: 'KafkaNodePool',
    metadata: { name: 'dual', namespace: 'kafka', labels: { 'strimzi.io/cluster': 'events' } },
    spec: { replicas: 3, roles: ['controller', 'broker'], storage: { type: 'ephemeral' } },
  });
  ['zone-a-1', 'zone-b-1', 'zone-b-2'].forEach((node, i) => api.put('/api/v1/namespaces/kafka/pods', {
    kind: 'Pod',
    metadata: {
      name: `events-dual-${i}`,
      namespace: 'kafka',
      labels: { 'strimzi.io/cluster': 'events', 'strimzi.io/pool-name': 'dual' },
      ownerReferences: [{ apiVersion: 'core.strimzi.io/v1', kind: 'StrimziPodSet', name: 'events-dual', uid: 'sps', controller: true }],
    },
    spec: { nodeName: node, containers: [{ name: 'kafka' }] },
    status: { phase: 'Running' },
  }));
  const r = await runCli(api, LIVE);
  expect(row(r.stdout, 'StrimziPodSet', 'events-dual')).toMatchObject({ replicas: 3, zoneGroup: 'events' });
  const kafka = row(r.stdout, 'Kafka', 'events');
  expect(kafka.members).toEqual(['StrimziPodSet/kafka/events-dual']);
  // two of the three controllers run in zone-b now: losing it leaves one
  expect(kafka.survives['zone-b']).toBe(false);
});

/**
 * A cluster with one StatefulSet that does not serve Strimzi's API (404) and, when `denyBudgets`, denies the
 * PodDisruptionBudgets (403).
 */
function withoutStrimzi(denyBudgets = false): MemoryKubeApi {
  const api = cluster();
  statefulSetOn(api, ['zone-a-1', 'zone-b-1', 'zone-c-1']);
  api.beforeCall = (call) => {
    const path = call.slice('LIST '.length);
    const denied = denyBudgets && path.startsWith('/apis/policy/v1/poddisruptionbudgets');
    if (denied) throw new KubeApiError('GET', path, 403, 'Forbidden', 'forbidden');
    if (path.startsWith('/apis/kafka.strimzi.io/')) throw new KubeApiError('GET', path, 404, 'NotFound', 'not found');
  };
  return api;
}

test('a list denied (403) or not served (404) is named in the report, and the rest is checked', async () => {
  const api = withoutStrimzi(true);
  const r = await runCli(api, LIVE);
  expect(r.code).toBe(0);
  const findings = report(r.stdout).findings;
  expect(findings).toContainEqual(expect.objectContaining({ rule: 'live-list-denied', message: expect.stringContaining('/apis/policy/v1/poddisruptionbudgets (403)') }));
  // both versions the Strimzi model knows were tried; the last is named
  expect(findings).toContainEqual(expect.objectContaining({ rule: 'live-list-unserved', message: expect.stringContaining('/apis/kafka.strimzi.io/v1beta2/kafkas (404)') }));
});

test('an API the cluster does not serve is named once, however many namespaces are read', async () => {
  const api = withoutStrimzi();
  const r = await runCli(api, [...LIVE, '--namespace', 'data,other,third']);
  const unserved = report(r.stdout).findings.filter((f) => f.rule === 'live-list-unserved' && f.message.includes('/kafkas '));
  expect(unserved.map((f) => f.message)).toEqual([
    'the cluster does not serve /apis/kafka.strimzi.io/v1beta2/kafkas (404): its CRD is not installed, so there is none to check',
  ]);
  // one 404 is enough: the other namespaces of an unserved version are not asked
  const asked = api.calls.filter((c) => c.startsWith('LIST /apis/kafka.strimzi.io/v1beta2/namespaces/') && c.includes('/kafkas'));
  expect(asked).toHaveLength(1);
});

test('--namespace reads only those namespaces\' lists (cluster-scoped ones whole)', async () => {
  const api = cluster();
  statefulSetOn(api, ['zone-a-1', 'zone-b-1', 'zone-c-1']);
  const r = await runCli(api, [...LIVE, '--namespace', 'data,other']);
  expect(r.code).toBe(0);
  const lists = api.calls.filter((c) => c.startsWith('LIST')).map((c) => c.split('?')[0].slice('LIST '.length));
  expect(lists).toContain('/api/v1/namespaces/data/pods');
  expect(lists).toContain('/api/v1/namespaces/other/pods');
  expect(lists).toContain('/api/v1/persistentvolumes');
  expect(lists).not.toContain('/api/v1/pods');
});

test('a cluster that does not answer within --timeout: exit 2, saying so', async () => {
  const api = cluster();
  api.beforeCall = (call) => (call.startsWith('LIST /api/v1/pods') ? new Promise(() => undefined) : undefined);
  const r = await runCli(api, [...LIVE, '--timeout', '50ms']);
  expect(r).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining('could not read the cluster within --timeout 0.05s') });
});

test.each([
  [['check', '--live'], '--live reads a cluster: give its --kubeconfig FILE'],
  [['check', '--live', '--kubeconfig', 'k', 'app.yaml'], '--live reads the cluster, not manifests: drop app.yaml'],
  [['check', '--zones', 'a,b', '--namespace', 'x', 'app.yaml'], '--namespace chooses what --live reads'],
])('%j is bad usage (exit 2)', async (argv, message) => {
  const r = await runCli(cluster(), argv);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(message);
});
