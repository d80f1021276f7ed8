/**
 * kube-proxy's endpoint selection (Kubernetes 1.35, pkg/proxy/topology.go), played on a Service's real
 * EndpointSlices: what a client node uses, per the hints the EndpointSlice controller wrote. The traffic report's
 * routes are held to it (traffic-hints.test.ts, examples.test.ts).
 */
import { runCliAs } from './cli-user';
import { KubeClient, KubeObject } from './kube-client';
import { ZONE_KEY } from './nodes';
import { waitFor } from './wait';
import { ServiceTrafficReport, TrafficReportData, ZoneRouteReport } from '../../../src/check/traffic/traffic-model';
import { CLIENTS_OUTSIDE, TRAFFIC_CLIENTS_ANNOTATION } from '../../../src/contract/traffic';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';

/** A Service's ready endpoints as its EndpointSlices list them. */
export async function readyEndpoints(client: KubeClient, namespace: string, service: string): Promise<any[]> {
  const slices = await client.list('discovery.k8s.io/v1', 'EndpointSlice', {
    namespace, labelSelector: `kubernetes.io/service-name=${service}`,
  });
  return slices.flatMap((s) => s.endpoints ?? []).filter((e: any) => e.conditions?.ready === true);
}

/**
 * The endpoints kube-proxy on `node` (in `zone`) sends the Service's requests to: those hinted for the node when every
 * ready endpoint has node hints and one names it; else those hinted for its zone when every one has zone hints and one
 * names it; else every ready endpoint (`clusterWide`).
 */
export function kubeProxyRoute(ready: readonly any[], node: string, zone: string): ZoneRouteReport {
  const hinted = (key: 'forNodes' | 'forZones', name: string) => {
    const all = ready.every((e) => (e.hints?.[key] ?? []).length > 0);
    const chosen = ready.filter((e) => (e.hints?.[key] ?? []).some((h: any) => h.name === name));
    return all && chosen.length > 0 ? chosen : undefined;
  };
  const chosen = hinted('forNodes', node) ?? hinted('forZones', zone);
  const used = chosen ?? ready;
  const local = used.filter((e) => e.zone === zone).length;
  return { endpoints: used.length, local, clusterWide: chosen === undefined };
}

/**
 * Per zone of `nodes`, the route of a client on a node of that zone that holds none of the Service's endpoints (what
 * the report's per-zone routes describe; PreferSameNode's own-node endpoints are the node's business).
 */
export function routesByZone(ready: readonly any[], nodes: readonly KubeObject[]): Record<string, ZoneRouteReport> {
  const routes: Record<string, ZoneRouteReport> = {};
  for (const n of nodes) {
    const zone = n.metadata.labels?.[ZONE_KEY];
    if (zone === undefined || routes[zone] !== undefined) continue;
    if (ready.some((e) => e.nodeName === n.metadata.name)) continue;
    routes[zone] = kubeProxyRoute(ready, n.metadata.name, zone);
  }
  return routes;
}

/**
 * `cdk8s-zones traffic --live` over `namespaces` (as the user of `kubeconfig`) against the Services' EndpointSlices:
 * for every Service, once its ready endpoints are the pods the report counts now and their hints have settled, the
 * report's routes per zone are what kube-proxy makes of them (a headless Service's: every ready endpoint, from DNS;
 * one whose clients are outside the zones has its endpoints counted and no routes).
 * Returns the Services compared, as `namespace/name`.
 */
export async function expectRoutesOfEndpointSlices(
  client: KubeClient, kubeconfig: string, namespaces: readonly string[],
): Promise<string[]> {
  const args = ['traffic', '--live', ...namespaces.flatMap((ns) => ['--namespace', ns]), '--format', 'json'];
  const nodes = await client.list('v1', 'Node');
  const services = (await Promise.all(namespaces.map((ns) => client.list('v1', 'Service', { namespace: ns })))).flat();
  const compared: string[] = [];
  for (const service of services.filter((s) => s.spec?.selector !== undefined && s.spec?.type !== 'ExternalName')) {
    const { namespace, name } = service.metadata as { namespace: string; name: string };
    compared.push(`${namespace}/${name}`);
    const read = await reportBetweenEqualReads(client, kubeconfig, args, service);
    const report = read.report;
    let ready = read.ready;
    const now = Object.values(report.endpointsPerZone).reduce((sum, c) => sum + (c.now ?? 0), 0);
    const pods = now === ready.length ? [] : await podStates(client, namespace, service.spec.selector);
    expect([`${namespace}/${name}`, ready.length, pods]).toEqual([`${namespace}/${name}`, now, []]);
    if (service.metadata.annotations?.[TRAFFIC_CLIENTS_ANNOTATION] === CLIENTS_OUTSIDE) {
      // its clients are not pods in the zones (the controller's: the API server): endpoints, and no routes
      const routed = { routes: report.nowLayout, share: report.crossZoneShare };
      expect([`${namespace}/${name}`, routed]).toEqual([`${namespace}/${name}`, { routes: undefined, share: undefined }]);
      continue;
    }
    if (service.spec.clusterIP === 'None') ready = ready.map(({ hints, ...e }) => e);
    const expected = routesByZone(ready, nodes);
    const reported = Object.fromEntries(Object.entries(report.nowLayout?.routes ?? {})
      .filter(([z]) => expected[z] !== undefined));
    expect([`${namespace}/${name}`, reported]).toEqual([`${namespace}/${name}`, expected]);
  }
  return compared;
}

/**
 * The Service's settled ready endpoints and its traffic report, taken when the endpoints read just after the report
 * are the ones read just before it: the report and the EndpointSlices are two reads, at two instants, of a cluster
 * whose controllers may move a pod meanwhile.
 */
async function reportBetweenEqualReads(
  client: KubeClient, kubeconfig: string, args: readonly string[], service: KubeObject,
): Promise<{ ready: any[]; report: ServiceTrafficReport }> {
  const { namespace, name } = service.metadata as { namespace: string; name: string };
  const ATTEMPTS = 3;
  for (let attempt = 1; ; attempt++) {
    const ready = await settledEndpoints(client, service);
    const run = await runCliAs(kubeconfig, ...args);
    expect(run.stderr).toBe('');
    const report = (JSON.parse(run.stdout) as TrafficReportData).services
      .find((s) => s.namespace === namespace && s.name === name);
    expect(report).toBeDefined();
    const after = await readyEndpoints(client, namespace, name);
    if (endpointsKey(after) === endpointsKey(ready) || attempt === ATTEMPTS) return { ready, report: report! };
    console.log(`Service ${namespace}/${name}: its endpoints changed while the report read the cluster; read again`);
  }
}

/** The Service's pods as the report counts them (a mismatch's explanation): name, node, phase, deletion, Ready. */
async function podStates(client: KubeClient, namespace: string, selector: Record<string, string>): Promise<string[]> {
  const pods = await selectedPods(client, namespace, selector);
  const readyOf = (p: KubeObject) => p.status?.conditions?.find((c: any) => c.type === 'Ready')?.status;
  return pods.map((p) => `${p.metadata.name} on ${p.spec?.nodeName} ${p.status?.phase}` +
    `${p.metadata.deletionTimestamp ? ' terminating' : ''} ready=${readyOf(p)}`);
}

/** The pods of `namespace` a Service's `selector` selects. */
async function selectedPods(
  client: KubeClient, namespace: string, selector: Record<string, string>,
): Promise<KubeObject[]> {
  const labelSelector = Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(',');
  return client.list('v1', 'Pod', { namespace, labelSelector });
}

const endpointsKey = (ready: readonly any[]) => JSON.stringify(ready.map((e) => [e.targetRef?.uid, e.hints]).sort());

/**
 * The Service's ready endpoints once they are its Ready pods (the EndpointSlice controller may lag behind a pod's
 * readiness by seconds) and the same endpoints and hints were read twice in a row.
 */
async function settledEndpoints(client: KubeClient, service: KubeObject): Promise<any[]> {
  const { namespace, name } = service.metadata as { namespace: string; name: string };
  let last = '';
  let ready: any[] = [];
  await waitFor(`Service ${namespace}/${name}: endpoints are its Ready pods, hints settled`, async () => {
    ready = await readyEndpoints(client, namespace, name);
    // a Service that publishes not-ready addresses lists every pod as ready
    const publishesNotReady = service.spec.publishNotReadyAddresses === true;
    const serving = (p: KubeObject) => !isTerminating(p) && (publishesNotReady || isReady(p));
    const pods = (await selectedPods(client, namespace, service.spec.selector)).filter(serving);
    const now = JSON.stringify(ready.map((e) => [e.targetRef?.uid, e.hints]).sort());
    const uids = (list: readonly string[]) => JSON.stringify([...list].sort());
    const same = uids(ready.map((e) => e.targetRef?.uid)) === uids(pods.map((p) => p.metadata.uid));
    const done = same && now === last;
    last = now;
    return { done, state: `${pods.length} Ready pods; endpoints ${now}` };
  }, { timeoutMs: 30_000, intervalMs: 500 });
  return ready;
}
