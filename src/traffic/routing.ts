/**
 * Where a Service's requests go for one layout of its endpoints (how many in each zone), following kube-proxy's
 * endpoint selection (Kubernetes 1.35, pkg/proxy/topology.go): a client uses the endpoints hinted for its node
 * (PreferSameNode) or its zone when every ready endpoint carries such hints and one is hinted for it, and every
 * ready endpoint otherwise. Requests spread evenly over the endpoints a client uses. Pure.
 */
import { keepsTrafficInZone, TrafficPolicy } from './policy';
import { topologyHints } from './topology-hints';

/** What of the cluster the routing depends on besides the endpoints. */
export interface RoutingCluster {
  /** Per zone, the nodes clients run on (PreferSameNode's per-node routing). */
  readonly nodesPerZone: readonly number[];
  /**
   * Per zone, its share of the ready nodes' allocatable CPU (topology-aware hints), or why the EndpointSlice
   * controller has none.
   */
  readonly cpuShares: readonly number[] | string;
}

/** Where one zone's clients send their requests. */
export interface ZoneRoute {
  /** The endpoints its requests spread over (0: they reach none, and fail). */
  readonly endpoints: number;
  /** Of them, those in the clients' own zone. */
  readonly local: number;
  /** Whether they are every ready endpoint (no policy, or kube-proxy's fall-back). */
  readonly clusterWide: boolean;
  /**
   * The most one of them takes of this zone's requests (1 / endpoints when spread evenly; more per node, with
   * PreferSameNode); for a cluster-wide route, an even part.
   */
  readonly busiest: number;
}

/** How one layout of the endpoints is routed, whatever the clients (shares of the requests per zone). */
export interface RoutedLayout {
  /** Per zone, where its clients' requests go. */
  readonly routes: readonly ZoneRoute[];
  /** The ready endpoints. */
  readonly total: number;
  /** Why topology-aware hints are not given, when they are asked for and not. */
  readonly fellBack?: string;
}

/** What the requests of a spread of clients do on a routed layout. */
export interface LayoutTraffic {
  /** The share of all requests that leave the client's zone. */
  readonly crossZoneShare: number;
  /** The busiest endpoint's requests over an even split of all requests over all endpoints (1: even; 0: none). */
  readonly maxLoadRatio: number;
}

/**
 * The possible routings of `endpoints[z]` ready endpoints in zone z: one, or one per way the EndpointSlice controller
 * may hint them (topology mode Auto). Routes that are not cluster-wide hold disjoint endpoints (each endpoint is
 * hinted for one zone).
 */
export function routeLayout(
  policy: TrafficPolicy,
  endpoints: readonly number[],
  cluster: RoutingCluster,
): RoutedLayout[] {
  const total = endpoints.reduce((a, b) => a + b, 0);
  if (policy === TrafficPolicy.TOPOLOGY_AUTO) return hintedRoutings(endpoints, total, cluster);
  if (policy === TrafficPolicy.NODE_LOCAL) {
    // a node's own endpoints or none: at worst an endpoint alone on its node takes that node's clients
    const nodeLocal = (n: number, z: number) => (n === 0 ? NOWHERE
      : own(n, n, 1 / Math.max(1, cluster.nodesPerZone[z])));
    return [{ routes: endpoints.map(nodeLocal), total }];
  }
  if (!keepsTrafficInZone(policy)) return [{ routes: endpoints.map((_, z) => everywhere(endpoints, z)), total }];
  const perNode = policy === TrafficPolicy.PREFER_SAME_NODE;
  const zoneLocal = (n: number, z: number) => (n === 0 ? everywhere(endpoints, z)
    : own(n, n, perNode ? busiestOnNodes(n, cluster.nodesPerZone[z]) : 1 / n));
  return [{ routes: endpoints.map(zoneLocal), total }];
}

/** Topology-aware hints: one routing per way the controller may hint, or every endpoint where it gives none. */
function hintedRoutings(endpoints: readonly number[], total: number, cluster: RoutingCluster): RoutedLayout[] {
  const hints = topologyHints(endpoints, cluster.cpuShares);
  if ('fellBack' in hints) {
    return [{ routes: endpoints.map((_, z) => everywhere(endpoints, z)), total, fellBack: hints.fellBack }];
  }
  return hints.outcomes.map((o) => ({
    routes: endpoints.map((_, z) => (o.hinted[z] > 0 ? own(o.hinted[z], o.kept[z]) : everywhere(endpoints, z))),
    total,
  }));
}

/** Every ready endpoint, for zone z's clients. */
function everywhere(endpoints: readonly number[], z: number): ZoneRoute {
  const total = endpoints.reduce((a, b) => a + b, 0);
  return { endpoints: total, local: endpoints[z], clusterWide: true, busiest: 1 / total };
}

/** The endpoints hinted for (or on the nodes of) the clients' zone, `local` of them in it. */
function own(endpoints: number, local: number, busiest = 1 / endpoints): ZoneRoute {
  return { endpoints, local, clusterWide: false, busiest };
}

/** No endpoint: the requests fail (internalTrafficPolicy: Local on a node without one). */
const NOWHERE: ZoneRoute = { endpoints: 0, local: 0, clusterWide: false, busiest: 0 };

/** The share crossing zones and the busiest endpoint's load when `clients[z]` of the requests come from zone z. */
export function trafficOf(routed: RoutedLayout, clients: readonly number[]): LayoutTraffic {
  if (routed.total === 0) return { crossZoneShare: 0, maxLoadRatio: 0 };
  let crossZoneShare = 0;
  let clusterWide = 0;
  let busiest = 0;
  routed.routes.forEach((r, z) => {
    // a zone whose requests reach no endpoint (internalTrafficPolicy: Local) crosses nothing: they fail
    if (r.endpoints === 0) return;
    crossZoneShare += clients[z] * (1 - r.local / r.endpoints);
    if (r.clusterWide) clusterWide += clients[z];
    else busiest = Math.max(busiest, clients[z] * r.busiest);
  });
  return { crossZoneShare, maxLoadRatio: routed.total * busiest + clusterWide };
}

/**
 * PreferSameNode: the most one of a zone's `endpoints` takes of the zone's requests, its clients spread evenly over
 * `nodes` nodes. A client node with endpoints uses only those; the others use the zone's. At worst an endpoint is
 * alone on its node and the others share one more node: it takes its node's clients and an even part of the rest.
 */
function busiestOnNodes(endpoints: number, nodes: number): number {
  if (endpoints < 2 || nodes < 2) return 1 / endpoints;
  return 1 / nodes + (nodes - 2) / (nodes * endpoints);
}
