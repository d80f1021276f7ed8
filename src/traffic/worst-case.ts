/**
 * The worst a Service's routing gets over the layouts its endpoints and its clients may take: the most requests
 * crossing zones, the busiest endpoint, and whether topology-aware hints may fall back. For a routed layout both
 * measures are linear in the clients' shares (the busiest endpoint: the largest of several linear ones), so the
 * clients' worst spread is found greedily; the endpoints' layouts are searched (layouts.ts). Pure.
 */
import { extremeLayouts, LayoutBounds, searchedLayouts, triesEveryLayout } from './layouts';
import { TrafficPolicy } from './policy';
import { RoutedLayout, routeLayout, RoutingCluster, trafficOf, ZoneRoute } from './routing';

/** The worst case of a Service's traffic. */
export interface WorstTraffic {
  /** The most requests that cross zones, as a share of all. */
  readonly crossZoneShare: number;
  /** The busiest endpoint's load at worst, over an even split (1: even). */
  readonly maxLoadRatio: number;
  /** The endpoints per zone where the most requests cross. */
  readonly layout: readonly number[];
  /** The clients' shares per zone there. */
  readonly clients: readonly number[];
  /** Where each zone's clients send requests there. */
  readonly routes: readonly ZoneRoute[];
  /** Why topology-aware hints are not given, in some layout (the first such reason). */
  readonly fellBack?: string;
  /**
   * Whether the worst is the worst of every layout: always but for topology-aware hints over more than
   * EVERY_LAYOUT_LIMIT layouts (then it is the extreme layouts', and another may route worse).
   */
  readonly exact: boolean;
}

/**
 * The worst of `policy`'s traffic over the layouts of the endpoints (`layouts` of their bounds: by default the
 * extreme ones, where the worst of every policy but topology-aware hints is; for those, searchedLayouts) and of the
 * clients (counts per zone, as bounds: a workload's pods, or the nodes); undefined
 * when there is no client.
 */
export function worstTraffic(
  policy: TrafficPolicy, endpoints: LayoutBounds, clients: LayoutBounds, cluster: RoutingCluster,
  layouts: (b: LayoutBounds) => number[][] = policy === TrafficPolicy.TOPOLOGY_AUTO ? searchedLayouts : extremeLayouts,
): WorstTraffic | undefined {
  if (clients.placed === 0) return undefined;
  let worst: WorstTraffic | undefined;
  let maxLoadRatio = 0;
  let fellBack: string | undefined;
  for (const layout of layouts(endpoints)) {
    for (const routed of routeLayout(policy, layout, cluster)) {
      fellBack ??= routed.fellBack;
      maxLoadRatio = Math.max(maxLoadRatio, mostLoad(routed, clients));
      const spread = mostCrossing(routed, clients);
      const t = trafficOf(routed, spread);
      if (worst === undefined || t.crossZoneShare > worst.crossZoneShare) {
        worst = { ...t, layout, clients: spread, routes: routed.routes, exact: true };
      }
    }
  }
  const exact = policy !== TrafficPolicy.TOPOLOGY_AUTO || triesEveryLayout(endpoints);
  return worst && { ...worst, maxLoadRatio, exact, ...(fellBack !== undefined ? { fellBack } : {}) };
}

/** The clients' shares where the most requests cross on `routed`. */
function mostCrossing(routed: RoutedLayout, clients: LayoutBounds): number[] {
  return greatest(routed.routes.map((r) => (r.endpoints > 0 ? 1 - r.local / r.endpoints : 0)), clients);
}

/** The busiest endpoint's load at worst over the clients' spreads: for each route, its endpoint's worst. */
function mostLoad(routed: RoutedLayout, clients: LayoutBounds): number {
  if (routed.total === 0) return 0;
  const clusterWide = routed.routes.map((r) => (r.clusterWide ? 1 : 0));
  const candidates = [clusterWide, ...routed.routes.flatMap((r, z) => (r.clusterWide ? []
    : [clusterWide.map((c, i) => (i === z ? routed.total * r.busiest : c))]))];
  return Math.max(...candidates.map((weights) => {
    const spread = greatest(weights, clients);
    return spread.reduce((sum, share, z) => sum + share * weights[z], 0);
  }));
}

/**
 * The shares of the clients' layout (between `lo` and `hi` per zone, `placed` in all) where the sum of share x
 * weight is greatest: each zone at its fewest, the rest to the heaviest zones first.
 */
function greatest(weights: readonly number[], clients: LayoutBounds): number[] {
  const counts = [...clients.lo];
  let left = clients.placed - counts.reduce((a, b) => a + b, 0);
  const order = weights.map((_, z) => z).sort((a, b) => weights[b] - weights[a] || a - b);
  for (const z of order) {
    const add = Math.min(left, clients.hi[z] - counts[z]);
    counts[z] += add;
    left -= add;
  }
  return counts.map((n) => n / clients.placed);
}
