/**
 * `cdk8s-zones traffic` through `main()`: the check's inputs (files, stdin, --live), its own flags (--clients,
 * --gb-per-month, --price-per-gb) and their bad forms, every format, and the exit codes.
 */
import { Readable } from 'stream';
import { runCli } from './memory-api';
import { TrafficReportData } from '../../src/check/traffic/traffic-model';
import { main } from '../../src/cli/main';
import { MemoryKubeApi } from '../memory-kube-api';

const ZONE_KEY = 'topology.kubernetes.io/zone';

const web = (replicas: number, trafficDistribution?: string) => [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [{ name: 'c', image: 'x' }],
          topologySpreadConstraints: [{
            topologyKey: ZONE_KEY,
            maxSkew: 1,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: 'web' } },
          }],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }], ...(trafficDistribution ? { trafficDistribution } : {}) },
  },
];

/** `cdk8s-zones traffic <args> -` with `objects` on stdin. */
async function traffic(objects: unknown[], ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(['traffic', '--zones', 'a,b,c', ...args, '-'], {
    stdin: Readable.from([objects.map((o) => JSON.stringify(o)).join('\n---\n')]),
    stdout: (s) => { stdout += s; },
    stderr: (s) => { stderr += s; },
  });
  return { code, stdout, stderr };
}
const json = (stdout: string) => JSON.parse(stdout) as TrafficReportData;

describe('cdk8s-zones traffic', () => {
  test('a Service keeping its clients in their zone: exit 0, and the JSON names the fields the issue lists', async () => {
    const run = await traffic(web(3, 'PreferSameZone'), '--format', 'json');
    expect(run.code).toBe(0);
    const [s] = json(run.stdout).services;
    expect(s).toMatchObject({
      namespace: 'shop',
      name: 'web',
      policy: 'PreferSameZone',
      crossZoneShare: { worst: 0 },
      maxLoadRatio: 1,
      findings: [],
    });
    expect(s.endpointsPerZone).toEqual({
      a: { guaranteed: 1, worstCase: 1 },
      b: { guaranteed: 1, worstCase: 1 },
      c: { guaranteed: 1, worstCase: 1 },
    });
  });

  test('a warning exits 1; the text shows the table, the finding and its fix', async () => {
    const run = await traffic(web(3));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('shop/web  None    1-1  1-1  1-1  66.7%       1.00x    nodes');
    expect(run.stdout).toContain('WARNING [traffic-crosses-zones] Service/shop/web');
    expect(run.stdout).toContain('fix: Set spec.trafficDistribution: PreferSameZone on the Service.');
  });

  test('costs: --gb-per-month (for every Service, or one) with --price-per-gb', async () => {
    const run = await traffic(web(3), '--gb-per-month', '500', '--gb-per-month', 'shop/web=3000', '--price-per-gb', '0.01', '--format', 'json');
    const data = json(run.stdout);
    expect(data.services[0].monthlyCost).toEqual({ worst: 40 });
    expect(data.monthlyCost).toEqual({ worst: 40 });
    const text = await traffic(web(3), '--gb-per-month', '3000', '--price-per-gb', '0.01');
    expect(text.stdout).toContain('Cross-zone cost a month, all Services: 40.00');
  });

  test('SARIF and HTML carry the same findings', async () => {
    const sarif = JSON.parse((await traffic(web(3), '--format', 'sarif')).stdout);
    expect(sarif.runs[0].results.map((r: any) => [r.ruleId, r.locations[0].logicalLocations[0].fullyQualifiedName]))
      .toEqual([['traffic-crosses-zones', 'Service/shop/web']]);
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('stdin');
    const html = (await traffic(web(3), '--format', 'html')).stdout;
    expect(html).toContain('<tr data-object="Service/shop/web">');
    expect(html).toContain('traffic-crosses-zones');
  });

  test.each([
    [['--clients', 'web'], '"web" is not NAMESPACE/KIND/NAME'],
    [['--clients', 'shop/Deployment/nope'], 'the input has no workload shop/Deployment/nope'],
    [['--clients', 'shop/api=shop/Deployment/web'], 'the input has no Service shop/api'],
    [['--clients', 'web=shop/Deployment/web'], '"web" is not NAMESPACE/SERVICE'],
    [['--gb-per-month', '100'], '--gb-per-month and --price-per-gb go together'],
    [['--price-per-gb', '0.01'], '--gb-per-month and --price-per-gb go together'],
    [['--gb-per-month', 'lots', '--price-per-gb', '0.01'], '--gb-per-month "lots": not a number of 0 or more'],
    [['--gb-per-month', '1', '--gb-per-month', '2', '--price-per-gb', '0.01'], '--gb-per-month without a Service is given twice'],
    [['--clients', 'shop/web=shop/Deployment/web', '--clients', 'shop/web=shop/Deployment/web'], '--clients is given twice for shop/web'],
  ])('bad usage %j: exit 2 with the rule', async (args, message) => {
    const run = await traffic(web(3), ...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('Usage:');
  });

  test('an input without a Service is bad input unless --allow-empty', async () => {
    expect((await traffic([web(3)[0]])).stderr).toContain('no Service in stdin (1 objects, none of them a Service)');
    expect((await traffic([web(3)[0]], '--allow-empty')).code).toBe(0);
  });

  test('more zones than the search takes is bad usage, naming the limit', async () => {
    let stderr = '';
    const code = await main(['traffic', '--zones', 'a,b,c,d,e,f,g,h,i', '-'], {
      stdin: Readable.from([JSON.stringify(web(3)[1])]), stdout: () => undefined, stderr: (s) => { stderr += s; },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('the nodes are in 9 zones; traffic searches layouts over at most 8');
  });

  test('--live: now beside the worst case, from the pods where they run', async () => {
    const api = new MemoryKubeApi();
    for (const zone of ['a', 'b', 'c']) {
      api.put('/api/v1/nodes', {
        kind: 'Node',
        metadata: { name: `n-${zone}`, labels: { [ZONE_KEY]: zone } },
        status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
      });
    }
    const [deployment, service] = web(3, 'PreferSameZone');
    api.put('/apis/apps/v1/namespaces/shop/deployments', { ...deployment, metadata: { ...deployment.metadata, uid: 'd1' } });
    api.put('/api/v1/namespaces/shop/services', service);
    api.put('/apis/apps/v1/namespaces/shop/replicasets', {
      kind: 'ReplicaSet',
      apiVersion: 'apps/v1',
      metadata: {
        name: 'web-1',
        namespace: 'shop',
        uid: 'r1',
        ownerReferences: [{ kind: 'Deployment', name: 'web', uid: 'd1', controller: true }],
      },
      spec: deployment.spec,
    });
    for (const i of [1, 2, 3]) {
      api.put('/api/v1/namespaces/shop/pods', {
        kind: 'Pod',
        metadata: {
          name: `web-${i}`,
          namespace: 'shop',
          labels: { app: 'web' },
          ownerReferences: [{ kind: 'ReplicaSet', name: 'web-1', uid: 'r1', controller: true }],
        },
        spec: { nodeName: 'n-a', containers: [{ name: 'c', image: 'x' }] },
        status: { phase: 'Running' },
      });
    }
    const run = await runCli(api, ['traffic', '--kubeconfig', 'k.yaml', '--live', '--format', 'json']);
    expect(run.stderr).toBe('');
    const [s] = json(run.stdout).services;
    expect(s.endpointsPerZone.a).toEqual({ guaranteed: 1, worstCase: 3, now: 3 });
    expect(s.crossZoneShare).toEqual({ worst: 0.6667, now: 0.6667 });
  });
});
