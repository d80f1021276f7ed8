/**
 * `cdk8s-zones drill` through `main()` against an in-memory cluster: what it refuses (exit 2, nothing changed), the
 * plan, Ctrl-C (restored, reported, exit 130) and `--restore`. The drill itself runs on a real cluster in the
 * Kubernetes tier (drill.test.ts).
 */
import { CLI_START_MS, runCli } from './memory-api';
import { DRILL_RECORD_ANNOTATION } from '../../src/contract/drill';
import { KubeApiError } from '../../src/kubernetes/kube-api';
import { MemoryKubeApi } from '../memory-kube-api';

const ZONE_KEY = 'topology.kubernetes.io/zone';

/** Two nodes per zone (one of zone-a cordoned and tainted already), and a Deployment of 3 pods, one per zone. */
function cluster(): MemoryKubeApi {
  const api = new MemoryKubeApi();
  for (const zone of ['zone-a', 'zone-b', 'zone-c']) {
    for (const i of [1, 2]) {
      const special = zone === 'zone-a' && i === 2;
      api.put('/api/v1/nodes', {
        kind: 'Node',
        metadata: { name: `${zone}-${i}`, labels: { [ZONE_KEY]: zone } },
        spec: special ? { unschedulable: true, taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] } : {},
        status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
      });
    }
  }
  const labels = { app: 'web' };
  api.put('/apis/apps/v1/deployments', {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'web', namespace: 'shop', uid: 'd1' },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    },
  });
  api.put('/apis/apps/v1/replicasets', {
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-1',
      namespace: 'shop',
      uid: 'rs1',
      ownerReferences: [{ kind: 'Deployment', uid: 'd1', name: 'web', controller: true }],
    },
    spec: { replicas: 3 },
  });
  for (const zone of ['zone-a', 'zone-b', 'zone-c']) {
    api.put('/api/v1/pods', {
      kind: 'Pod',
      metadata: {
        name: `web-${zone}`,
        namespace: 'shop',
        uid: `p-${zone}`,
        ownerReferences: [{ kind: 'ReplicaSet', uid: 'rs1', name: 'web-1', controller: true }],
      },
      spec: { nodeName: `${zone}-1` },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
  }
  return api;
}

const nodesNow = (api: MemoryKubeApi) => JSON.stringify([...api.objects].filter(([p]) => p.startsWith('/api/v1/nodes/'))
  .map(([, n]) => ({ name: n.metadata.name, annotations: n.metadata.annotations ?? {}, spec: n.spec })));

test('without --yes: the plan (the zone\'s nodes, the prediction per workload) and nothing changed', async () => {
  const api = cluster();
  const before = nodesNow(api);
  const r = await runCli(api, ['drill', '--zone', 'zone-a', '--mode', 'drain']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Drill plan: drain of zone zone-a (zones: zone-a, zone-b, zone-c)');
  expect(r.stdout).toContain('Nodes it would change (2, all in zone-a, none elsewhere): zone-a-1, zone-a-2');
  expect(r.stdout).toContain('Deployment/shop/web: does NOT survive, 0 of 3 left at worst (needs 1)'); // no spread: all 3 may share a zone
  expect(nodesNow(api)).toBe(before);
  expect(api.calls.filter((c) => !c.startsWith('LIST') && !c.startsWith('GET'))).toEqual([]);
  const json = JSON.parse((await runCli(api, ['drill', '--zone', 'zone-b', '--format', 'json'])).stdout);
  expect(json).toMatchObject({ zone: 'zone-b', mode: 'outage', nodes: ['zone-b-1', 'zone-b-2'], changed: false });
  expect(json.workloads).toEqual([{
    kind: 'Deployment',
    namespace: 'shop',
    name: 'web',
    predicted: expect.objectContaining({ survives: false, survivors: 0 }),
  }]);
});

test('Ctrl-C during the watch: every node restored exactly, the report printed, exit 130; a drain evicted through the Eviction API', async () => {
  const api = cluster();
  const before = nodesNow(api);
  const evictions: string[] = [];
  const create = api.create.bind(api);
  api.create = async (path, body) => {
    if (path.endsWith('/eviction')) {
      evictions.push(path);
      return {};
    }
    return create(path, body);
  };
  const r = await runCli(api, ['drill', '--zone', 'zone-a', '--mode', 'drain', '--yes'], 2);
  expect(r.code).toBe(130);
  expect(r.stdout).toContain('drain of zone zone-a on 2 nodes');
  expect(r.stdout).toContain('cut short');
  expect(evictions).toContain('/api/v1/namespaces/shop/pods/web-zone-a/eviction');
  expect(evictions.every((p) => p.includes('web-zone-a'))).toBe(true); // only the zone's pods
  expect(nodesNow(api)).toBe(before); // the node cordoned before the drill stays cordoned, its taint stays
  expect(api.calls.filter((c) => c.startsWith('PATCH')).every((c) => /zone-a-\d$/.test(c))).toBe(true);
});

test('the drill watches: a pod evicted and replaced before it looks again is a dip its report shows', async () => {
  const api = cluster();
  const create = api.create.bind(api);
  api.create = async (path, body) => {
    if (!path.endsWith('/eviction')) return create(path, body);
    // as fast as a kubelet-less cluster goes: the pod gone, its replacement Ready in zone-b, within one call
    const evicted = api.objects.get('/api/v1/pods/web-zone-a');
    await api.delete('/api/v1/pods/web-zone-a');
    api.put('/api/v1/pods', {
      ...evicted, metadata: { ...evicted.metadata, name: 'web-replacement', uid: 'p-new' }, spec: { nodeName: 'zone-b-2' },
    });
    return {};
  };
  const r = await runCli(api, ['drill', '--zone', 'zone-a', '--mode', 'drain', '--yes', '--format', 'json', '--settle', '2s']);
  const web = JSON.parse(r.stdout).verdicts.find((v: any) => v.name === 'web');
  expect(web.observed.before.ready).toBe(3);
  expect(web.observed.minReady).toBe(2); // polls, one before each round of evictions, saw 3 every time
  expect(web.observed.end).toMatchObject({ ready: 3, inZone: 0 });
});

test('a drain refused by a budget the check did not see: counted on the workload and on its zone group, each a contradiction', async () => {
  const api = cluster();
  // A zone group by name: one Deployment pinned to each zone (cache-zone-a, -b, -c), one pod each.
  for (const zone of ['zone-a', 'zone-b', 'zone-c']) {
    const name = `cache-${zone}`;
    const labels = { app: name };
    api.put('/apis/apps/v1/deployments', {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name, namespace: 'shop', uid: `d-${zone}` },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { nodeSelector: { [ZONE_KEY]: zone }, containers: [{ name: 'c', image: 'x' }] },
        },
      },
    });
    api.put('/apis/apps/v1/replicasets', {
      kind: 'ReplicaSet',
      metadata: {
        name: `${name}-1`,
        namespace: 'shop',
        uid: `rs-${zone}`,
        ownerReferences: [{ kind: 'Deployment', uid: `d-${zone}`, name, controller: true }],
      },
      spec: { replicas: 1 },
    });
    api.put('/api/v1/pods', {
      kind: 'Pod',
      metadata: {
        name: `${name}-0`,
        namespace: 'shop',
        uid: `pc-${zone}`,
        ownerReferences: [{ kind: 'ReplicaSet', uid: `rs-${zone}`, name: `${name}-1`, controller: true }],
      },
      spec: { nodeName: `${zone}-1` },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
  }
  const create = api.create.bind(api);
  api.create = async (path, body) => {
    if (path.endsWith('/pods/cache-zone-a-0/eviction')) throw new KubeApiError('POST', path, 429, 'TooManyRequests', 'Too Many Requests', `POST ${path}: 429 Too Many Requests`);
    if (path.endsWith('/eviction')) return {};
    return create(path, body);
  };
  const r = await runCli(api, ['drill', '--zone', 'zone-a', '--mode', 'drain', '--yes', '--format', 'json']);
  expect(r.code).toBe(1);
  const report = JSON.parse(r.stdout);
  const row = (kind: string, name: string) => report.verdicts.find((v: any) => v.kind === kind && v.name === name);
  for (const [kind, name] of [['Deployment', 'cache-zone-a'], ['ZoneGroup', 'cache']]) {
    expect(row(kind, name)).toMatchObject({
      predicted: expect.objectContaining({ drainBlocked: false }),
      observed: expect.objectContaining({ evictionsRefused: 1 }),
      contradictions: [expect.stringContaining('the drain stayed blocked (1 pods left in the zone, evictions refused)')],
    });
  }
  expect(row('Deployment', 'cache-zone-b').observed.evictionsRefused).toBe(0);
});

/** A ZoneShift of `zone`, created at the CLI's start, expiring `expiresInS` after it. */
function putShift(api: MemoryKubeApi, name: string, zone: string, expiresInS = 3600): void {
  api.put('/apis/cdk8s-zones.dev/v1alpha1/zoneshifts', {
    kind: 'ZoneShift',
    metadata: { name, creationTimestamp: new Date(CLI_START_MS - 60_000).toISOString() },
    spec: { zone, expiresAt: new Date(CLI_START_MS + expiresInS * 1000).toISOString() },
  });
}

test('a shift of another zone in force: the drill is refused (its prediction is for one zone lost); an expired one is not', async () => {
  const api = cluster();
  const before = nodesNow(api);
  putShift(api, 'old', 'zone-c', -10);
  putShift(api, 'zone-b-now', 'zone-b');
  const refused = await runCli(api, ['drill', '--zone', 'zone-a', '--yes']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('zone zone-b is out of service (zoneshift/zone-b-now): a drill of zone zone-a would take a second zone out, ' +
    'and its prediction is for one zone lost; end the shift first (cdk8s-zones shift cancel zone-b-now), or drill zone zone-b');
  expect(nodesNow(api)).toBe(before);
  expect(api.calls.filter((c) => !c.startsWith('LIST') && !c.startsWith('GET'))).toEqual([]);
});

test('a shift of the drilled zone itself (an autoshift\'s answer to the outage): the drill runs, and its report names the shift it leaves', async () => {
  const api = cluster();
  putShift(api, 'autoshift-zone-a', 'zone-a');
  const r = await runCli(api, ['drill', '--zone', 'zone-a', '--mode', 'outage', '--yes', '--settle', '2s']);
  expect(r.stdout).toContain('Zone zone-a is still out of service (zoneshift/autoshift-zone-a): the drill leaves the shift, and its taint ' +
    'on the nodes, to end as it will (cdk8s-zones shift status).');
  const json = JSON.parse((await runCli(api, ['drill', '--zone', 'zone-a', '--yes', '--settle', '2s', '--format', 'json'])).stdout);
  expect(json.shiftsAtEnd).toEqual(['autoshift-zone-a']);
  await api.delete('/apis/cdk8s-zones.dev/v1alpha1/zoneshifts/autoshift-zone-a');
  const after = JSON.parse((await runCli(api, ['drill', '--zone', 'zone-a', '--yes', '--settle', '2s', '--format', 'json'])).stdout);
  expect(after.shiftsAtEnd).toEqual([]);
});

test('a record left by a drill cut short: a new drill is refused (exit 2) until drill --restore undoes it', async () => {
  const api = cluster();
  const before = nodesNow(api);
  const node = api.objects.get('/api/v1/nodes/zone-b-1');
  const record = { zone: 'zone-b', mode: 'outage', startedAt: 't', unschedulableBefore: null };
  api.objects.set('/api/v1/nodes/zone-b-1', {
    ...node,
    metadata: { ...node.metadata, annotations: { [DRILL_RECORD_ANNOTATION]: JSON.stringify(record) } },
    spec: { taints: [{ key: 'cdk8s-zones.dev/drill-outage', value: 'zone-b', effect: 'NoExecute' }] },
  });
  const refused = await runCli(api, ['drill', '--zone', 'zone-c', '--yes']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('node zone-b-1 holds the record of a drill of zone zone-b (outage, started t): it was cut short; run cdk8s-zones drill --restore first');
  const restored = await runCli(api, ['drill', '--restore']);
  expect(restored).toMatchObject({ code: 0, stdout: 'node zone-b-1: restored (outage drill of zone zone-b, started t)\n' });
  expect(nodesNow(api)).toBe(before);
  expect((await runCli(api, ['drill', '--restore'])).stdout).toBe('no node holds a drill record: nothing to restore\n');
});

test.each([
  [['drill'], 'drill needs --zone'],
  [['drill', '--zone', 'zone-x'], '--zone "zone-x": no node is in that zone (the zones: zone-a, zone-b, zone-c)'],
  [['drill', '--zone', 'zone-a', '--mode', 'kill'], '--mode="kill" must be outage or drain'],
  [['drill', '--zone', 'zone-a', '--format', 'sarif'], '--format="sarif" must be one of text, json, html'],
  [['drill', '--zone', 'zone-a', '--settle', '-1s'], '--settle="-1s" must be a duration above zero'],
  [['drill', '--zone', 'zone-a', '--timeout', '5'], '--timeout="5" must be a duration above zero'],
  [['drill', '--restore', '--zone', 'zone-a'], '--restore undoes every drill recorded on the nodes: it takes only --kubeconfig (not --zone)'],
  [['drill', 'zone-a'], 'drill takes no argument ("zone-a")'],
])('%j: exit 2 with the rule and the usage, nothing changed', async (argv, message) => {
  const api = cluster();
  const r = await runCli(api, argv);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(message);
  expect(r.stderr).toContain('Usage: cdk8s-zones drill --zone ZONE');
  expect(api.calls.filter((c) => !c.startsWith('LIST') && !c.startsWith('GET'))).toEqual([]);
});

describe('exit codes: a pipeline tells "your workload breaks" (1) from "the drill could not run" (2)', () => {
  test('the API server unreachable: exit 2 with the error, no report', async () => {
    const api = cluster();
    api.list = async () => { throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }); };
    const r = await runCli(api, ['drill', '--zone', 'zone-a', '--yes']);
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'cdk8s-zones drill: connect ECONNREFUSED 127.0.0.1:6443\n' });
  });

  test('access denied (403): exit 2; a request that got no answer: exit 2', async () => {
    const denied = cluster();
    denied.list = async (path) => { throw new KubeApiError('GET', path, 403, 'Forbidden', 'nodes is forbidden', `GET ${path}: HTTP 403 nodes is forbidden`); };
    expect(await runCli(denied, ['drill', '--zone', 'zone-a'])).toMatchObject({ code: 2, stderr: expect.stringContaining('HTTP 403 nodes is forbidden') });
    const silent = cluster();
    silent.list = async () => { throw new Error('GET https://10.0.0.1:6443: no answer within 10 s'); };
    expect(await runCli(silent, ['drill', '--restore'])).toMatchObject({ code: 2, stderr: 'cdk8s-zones drill: GET https://10.0.0.1:6443: no answer within 10 s\n' });
  });

  test('a workload that broke or contradicted its prediction: exit 1, with the report', async () => {
    const api = cluster();
    const create = api.create.bind(api);
    api.create = async (path, body) => {
      if (path.endsWith('/eviction')) throw new KubeApiError('POST', path, 429, 'TooManyRequests', 'Too Many Requests', `POST ${path}: 429 Too Many Requests`);
      return create(path, body);
    };
    const r = await runCli(api, ['drill', '--zone', 'zone-a', '--mode', 'drain', '--yes', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).verdicts.find((v: any) => v.name === 'web').contradictions).not.toEqual([]);
  });

  test('a bug (anything but bad input or the API): exit 3, with the stack', async () => {
    const api = cluster();
    api.list = async () => { throw new TypeError('Cannot read properties of undefined (reading \'items\')'); };
    const r = await runCli(api, ['drill', '--zone', 'zone-a']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^cdk8s-zones: internal error: TypeError: Cannot read properties of undefined \(reading 'items'\)\n {4}at /);
  });
});
