/**
 * The routing arithmetic (src/traffic/routing.ts) against a simulation endpoint by endpoint: the hints the
 * EndpointSlice controller writes on each endpoint, and kube-proxy's choice for a client node (every ready endpoint
 * hinted, one hinted for the node's zone: those; else all), with requests spread evenly over the chosen endpoints.
 */
import * as fc from 'fast-check';
import { TrafficPolicy } from '../../src/traffic/policy';
import { LayoutTraffic, routeLayout, RoutingCluster, trafficOf } from '../../src/traffic/routing';
import { topologyHints } from '../../src/traffic/topology-hints';

/** Each possible routing of `layout`, with the clients' requests on it. */
const route = (
  policy: TrafficPolicy,
  layout: readonly number[],
  clients: readonly number[],
  cluster: RoutingCluster,
): LayoutTraffic[] =>
  routeLayout(policy, layout, cluster).map((r) => trafficOf(r, clients));

interface Endpoint {
  readonly zone: number;
  readonly hintZone?: number;
}

/** Per endpoint, its share of all requests, and the share that crosses zones: kube-proxy's choice, simulated. */
function simulate(endpoints: readonly Endpoint[], clients: readonly number[]): { loads: number[]; crossing: number } {
  const loads = endpoints.map(() => 0);
  let crossing = 0;
  const allHinted = endpoints.every((e) => e.hintZone !== undefined);
  clients.forEach((share, zone) => {
    const hinted = endpoints.flatMap((e, i) => (e.hintZone === zone ? [i] : []));
    const used = allHinted && hinted.length > 0 ? hinted : endpoints.map((_, i) => i);
    for (const i of used) {
      loads[i] += share / used.length;
      if (endpoints[i].zone !== zone) crossing += share / used.length;
    }
  });
  return { loads, crossing };
}

/** The endpoints of a layout, each hinted for its own zone (PreferSameZone) or not at all. */
function endpointsOf(layout: readonly number[], hinted: boolean): Endpoint[] {
  return layout.flatMap((n, zone) =>
    Array.from({ length: n }, () => ({ zone, ...(hinted ? { hintZone: zone } : {}) })));
}

const shares = (weights: readonly number[]) => {
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
};

/** 2–5 zones, up to 12 endpoints per zone (some), clients with a positive weight somewhere. */
const scenario = fc.integer({ min: 2, max: 5 }).chain((zones) => fc.record({
  layout: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: zones, maxLength: zones })
    .filter((l) => l.some((n) => n > 0)),
  clientWeights: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: zones, maxLength: zones })
    .filter((w) => w.some((n) => n > 0)),
  cpu: fc.array(fc.integer({ min: 1, max: 64 }), { minLength: zones, maxLength: zones }),
}));

const clusterOf = (cpu: readonly number[]): RoutingCluster =>
  ({ nodesPerZone: cpu.map(() => 3), cpuShares: shares(cpu) });
const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('routeLayout against the endpoint-by-endpoint simulation', () => {
  test.each([TrafficPolicy.NONE, TrafficPolicy.PREFER_SAME_ZONE, TrafficPolicy.PREFER_CLOSE])('%s: crossing and busiest endpoint agree', (policy) => {
    fc.assert(fc.property(scenario, ({ layout, clientWeights, cpu }) => {
      const clients = shares(clientWeights);
      const [t] = route(policy, layout, clients, clusterOf(cpu));
      const sim = simulate(endpointsOf(layout, policy !== TrafficPolicy.NONE), clients);
      const total = layout.reduce((a, b) => a + b, 0);
      expect(close(t.crossZoneShare, sim.crossing)).toBe(true);
      expect(close(t.maxLoadRatio, Math.max(...sim.loads) * total)).toBe(true);
      // every request goes to some endpoint: the loads add up to all of them
      expect(close(sim.loads.reduce((a, b) => a + b, 0), 1)).toBe(true);
    }), { numRuns: 300 });
  });

  test('TopologyAuto: each way the controller may hint, simulated, gives its crossing and busiest endpoint', () => {
    fc.assert(fc.property(scenario, ({ layout, clientWeights, cpu }) => {
      const clients = shares(clientWeights);
      const hints = topologyHints(layout, shares(cpu));
      const traffics = route(TrafficPolicy.TOPOLOGY_AUTO, layout, clients, clusterOf(cpu));
      const total = layout.reduce((a, b) => a + b, 0);
      if ('fellBack' in hints) {
        const sim = simulate(endpointsOf(layout, false), clients);
        expect(traffics).toHaveLength(1);
        expect(close(traffics[0].crossZoneShare, sim.crossing)).toBe(true);
        return;
      }
      expect(traffics).toHaveLength(hints.outcomes.length);
      hints.outcomes.forEach((o, k) => {
        const sim = simulate(hintedEndpoints(layout, o.kept, o.hinted), clients);
        expect(close(traffics[k].crossZoneShare, sim.crossing)).toBe(true);
        expect(close(traffics[k].maxLoadRatio, Math.max(...sim.loads) * total)).toBe(true);
      });
    }), { numRuns: 300 });
  });
});

/** Endpoints hinted as an outcome says: each zone keeps `kept`, the rest go to zones short of `hinted`. */
function hintedEndpoints(layout: readonly number[], kept: readonly number[], hinted: readonly number[]): Endpoint[] {
  const short = hinted.map((h, z) => h - kept[z]);
  const out: Endpoint[] = [];
  layout.forEach((n, zone) => {
    for (let i = 0; i < n; i++) {
      if (i < kept[zone]) {
        out.push({ zone, hintZone: zone });
        continue;
      }
      const to = short.findIndex((s) => s > 0);
      short[to]--;
      out.push({ zone, hintZone: to });
    }
  });
  return out;
}

describe('the arithmetic\'s properties', () => {
  test('PreferSameZone with endpoints in proportion to the clients: nothing crosses, every endpoint takes an even share', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 2, maxLength: 6 }),
      fc.integer({ min: 1, max: 4 }),
      (weights, perWeight) => {
        const layout = weights.map((w) => w * perWeight);
        const [t] = route(TrafficPolicy.PREFER_SAME_ZONE, layout, shares(weights), clusterOf(weights));
        expect(t.crossZoneShare).toBe(0);
        expect(close(t.maxLoadRatio, 1)).toBe(true);
      }));
  });

  test('PreferSameZone: removing one zone\'s endpoints moves exactly that zone\'s clients across zones', () => {
    fc.assert(fc.property(scenario, fc.nat(), ({ layout, clientWeights, cpu }, pick) => {
      const withEndpoints = layout.flatMap((n, z) => (n > 0 ? [z] : []));
      if (withEndpoints.length < 2) return;
      const zone = withEndpoints[pick % withEndpoints.length];
      const clients = shares(clientWeights);
      const cluster = clusterOf(cpu);
      const [before] = route(TrafficPolicy.PREFER_SAME_ZONE, layout, clients, cluster);
      const [after] = route(
        TrafficPolicy.PREFER_SAME_ZONE,
        layout.map((n, z) => (z === zone ? 0 : n)),
        clients,
        cluster,
      );
      expect(close(after.crossZoneShare - before.crossZoneShare, clients[zone])).toBe(true);
    }));
  });

  test('no policy: the crossing share is what the clients do not find in their zone, and no endpoint is busier than another', () => {
    fc.assert(fc.property(scenario, ({ layout, clientWeights, cpu }) => {
      const clients = shares(clientWeights);
      const total = layout.reduce((a, b) => a + b, 0);
      const [t] = route(TrafficPolicy.NONE, layout, clients, clusterOf(cpu));
      expect(close(t.crossZoneShare, clients.reduce((s, c, z) => s + c * (1 - layout[z] / total), 0))).toBe(true);
      expect(close(t.maxLoadRatio, 1)).toBe(true);
    }));
  });

  test('PreferSameNode: the busiest endpoint bound is reached by some arrangement on nodes, and none exceeds it', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 4 }), (endpoints, nodes) => {
      // one zone, clients on `nodes` nodes evenly; every arrangement of the endpoints on the nodes
      const [t] = route(TrafficPolicy.PREFER_SAME_NODE, [endpoints], [1], { nodesPerZone: [nodes], cpuShares: [1] });
      let most = 0;
      for (const arrangement of arrangements(endpoints, nodes)) {
        most = Math.max(most, busiestOnNodes(arrangement, nodes));
      }
      expect(close(t.maxLoadRatio, most * endpoints)).toBe(true);
    }));
  });
});

/** Every way to put `n` endpoints on `nodes` nodes, as counts per node. */
function arrangements(n: number, nodes: number): number[][] {
  if (nodes === 1) return [[n]];
  const out: number[][] = [];
  for (let k = 0; k <= n; k++) for (const rest of arrangements(n - k, nodes - 1)) out.push([k, ...rest]);
  return out;
}

/** The busiest endpoint's share when each node's clients use its own endpoints, or the zone's when it has none. */
function busiestOnNodes(perNode: readonly number[], nodes: number): number {
  const total = perNode.reduce((a, b) => a + b, 0);
  const bare = perNode.filter((n) => n === 0).length / nodes;
  return Math.max(...perNode.map((n) => (n > 0 ? 1 / nodes / n + bare / total : 0)));
}
