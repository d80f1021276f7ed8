/**
 * `cdk8s-zones traffic --live` against the real EndpointSlice controller: for Services of every policy (none,
 * PreferSameZone, PreferClose, PreferSameNode, topology-mode Auto hinted and falling back) over pods in known zones,
 * the report's routes per client zone are exactly what kube-proxy's selection makes of the hints the controller
 * wrote. The nodes' CPU differs by zone (zone-a has 44 of the 100 cores), so Auto's allotment is proportional, not
 * even.
 * As in zone-shift.test.ts, the test's nodes get routable pod IPs and the cluster's own are cordoned meanwhile.
 */
import { cliUserKubeconfig, runCliAs } from './cli-user';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { addNodes, planNodes, ZONE_KEY, ZONES } from './nodes';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { readyEndpoints, routesByZone } from './traffic-routes';
import { waitFor } from './wait';
import { TrafficReportData } from '../../../src/check/traffic/traffic-model';
import { CHECK_LIVE_RULES } from '../../../src/cli/cli-rbac';

const { client, info } = testCluster();
const nodes = [
  ...planNodes({ nodesPerZone: 2, namePrefix: 'kwok-traffic', podCidrOctet: 248, routablePodIps: true }),
  ...planNodes({ zones: [ZONES[0]], nodesPerZone: 3, namePrefix: 'kwok-traffic-more', podCidrOctet: 249, routablePodIps: true }),
];
const namespaces: string[] = [];
let cordoned: string[] = [];
let reader: string;

beforeAll(async () => {
  cordoned = (await client.list('v1', 'Node')).map((n) => n.metadata.name);
  await Promise.all(cordoned.map((n) => client.patch('v1', 'Node', n, { spec: { unschedulable: true } })));
  await addNodes(client, nodes);
  reader = await cliUserKubeconfig(client, info, 'cdk8s-zones-traffic', CHECK_LIVE_RULES);
});
afterAll(async () => {
  await Promise.all(namespaces.map((ns) => deleteNamespace(client, ns)));
  await Promise.all(cordoned.map((n) => client.patch('v1', 'Node', n, { spec: { unschedulable: false } })));
  await Promise.all(nodes.map((n) => client.delete('v1', 'Node', n.name)));
  client.close();
});

/** A Deployment per zone of `layout` (pods pinned there) and one Service over all of them. */
/** How the test's Service asks to be routed. */
interface Routing {
  readonly trafficDistribution?: string;
  readonly annotations?: Record<string, string>;
}

function objects(layout: readonly number[], service: Routing): KubeObject[] {
  const labels = { app: 'web' };
  const deployments = ZONES.flatMap((zone, z) => (layout[z] === 0 ? [] : [{
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${zone}` },
    spec: {
      replicas: layout[z],
      selector: { matchLabels: { ...labels, zone } },
      template: {
        metadata: { labels: { ...labels, zone } },
        spec: { ...RESTRICTED_PAUSE_POD, nodeSelector: { [ZONE_KEY]: zone } },
      },
    },
  }]));
  return [...deployments, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', ...(service.annotations ? { annotations: service.annotations } : {}) },
    spec: {
      selector: labels,
      ports: [{ port: 80, targetPort: 8080 }],
      ...(service.trafficDistribution ? { trafficDistribution: service.trafficDistribution } : {}),
    },
  }];
}

const AUTO = { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } };

test.each([
  ['no policy', [2, 1, 0], {}],
  ['PreferSameZone, a zone without endpoints', [2, 1, 0], { trafficDistribution: 'PreferSameZone' }],
  ['PreferClose', [1, 1, 1], { trafficDistribution: 'PreferClose' }],
  ['PreferSameNode', [2, 2, 1], { trafficDistribution: 'PreferSameNode' }],
  ['topology-mode Auto, every endpoint in zone-a', [6, 0, 0], AUTO],
  ['topology-mode Auto, zone-b giving to zone-c', [3, 3, 1], AUTO],
  ['topology-mode Auto, zone-a given 4 of 10 for its 44% of the CPU (not 3, an even third)', [0, 5, 5], AUTO],
  ['topology-mode Auto falling back (4 endpoints, minimums of 2 in 3 zones)', [2, 2, 0], AUTO],
])('%s %j: the report\'s routes are kube-proxy\'s selection from the controller\'s hints', async (_, layout, service) => {
  const ns = uniqueName('traffic');
  namespaces.push(ns);
  const applied = await applyManifests(client, objects(layout as number[], service), ns);
  expect(applied.rejections).toEqual([]);
  const total = (layout as number[]).reduce((a, b) => a + b, 0);
  const clusterNodes = await client.list('v1', 'Node');
  // settled: every pod a ready endpoint, and the same hints on two reads in a row
  let last = '';
  await waitFor(`Service ${ns}/web: ${total} ready endpoints, hints settled`, async () => {
    const ready = await readyEndpoints(client, ns, 'web');
    const now = JSON.stringify(ready.map((e) => [e.targetRef?.name, e.hints]).sort());
    const done = ready.length === total && now === last;
    last = now;
    return { done, state: `${ready.length} of ${total} ready endpoints; ${now}` };
  }, { timeoutMs: 60_000, intervalMs: 500 });
  const expected = routesByZone(await readyEndpoints(client, ns, 'web'), clusterNodes);

  const run = await runCliAs(reader, 'traffic', '--live', '--namespace', ns, '--format', 'json');
  expect(run.stderr).toBe('');
  const report = JSON.parse(run.stdout) as TrafficReportData;
  const [web] = report.services.filter((s) => s.name === 'web');
  expect(ZONES.map((z) => web.endpointsPerZone[z].now)).toEqual(layout);
  const reported = Object.fromEntries(Object.entries(web.nowLayout!.routes)
    .filter(([zone]) => expected[zone] !== undefined));
  expect(reported).toEqual(expected);
  expect(Object.keys(expected).sort()).toEqual(expect.arrayContaining([...ZONES]));
});
