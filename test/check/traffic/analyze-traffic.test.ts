/**
 * The traffic report of manifests (src/check/traffic/analyze-traffic.ts): per Service, the endpoints the check
 * places, the policy, the crossing share and busiest endpoint at worst (and now), the findings with their fixes,
 * the costs, and what it cannot route.
 */
import { ZoneInventory } from '../../../src/check/inventory';
import { analyzeTraffic } from '../../../src/check/traffic/analyze-traffic';
import { ServiceTrafficReport } from '../../../src/check/traffic/traffic-model';
import { TrafficOptions } from '../../../src/check/traffic/traffic-options';
import { readManifests } from '../../../src/check/workloads';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const ZONES = ['a', 'b', 'c'];

function deployment(
  name: string,
  replicas: number,
  opts: { spread?: boolean; namespace?: string; pod?: any; labels?: any } = {},
): any {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: 8080 }] }],
          topologySpreadConstraints: opts.spread === false ? [] : [{
            topologyKey: ZONE_KEY, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels },
          }],
          ...opts.pod,
        },
      },
    },
  };
}

function service(name: string, spec: any = {}, metadata: any = {}): any {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, ...metadata },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 'http' }], ...spec },
  };
}

function traffic(objects: any[], options?: TrafficOptions, inventory = ZoneInventory.equalNodes(ZONES, 2)) {
  return analyzeTraffic(readManifests(objects, inventory.topologyKey), inventory, options);
}
const only = (objects: any[], options?: TrafficOptions): ServiceTrafficReport => {
  const [s, ...rest] = traffic(objects, options).services;
  expect(rest).toEqual([]);
  return s;
};
const rules = (s: ServiceTrafficReport) => s.findings.map((f) => f.rule);

describe('a Service without a policy', () => {
  test('3 replicas one per zone, clients as the nodes: 2/3 of the requests cross, evenly loaded, and PreferSameZone is the fix', () => {
    const s = only([deployment('web', 3), service('web')]);
    expect(s.policy).toBe('None');
    expect(s.workloads).toEqual(['Deployment/-/web']);
    expect(s.endpointsPerZone).toEqual({
      a: { guaranteed: 1, worstCase: 1 },
      b: { guaranteed: 1, worstCase: 1 },
      c: { guaranteed: 1, worstCase: 1 },
    });
    expect(s.crossZoneShare).toEqual({ worst: 0.6667 });
    expect(s.maxLoadRatio).toBe(1);
    const [finding] = s.findings;
    expect(finding.rule).toBe('traffic-crosses-zones');
    expect(finding.message).toContain('67% of its requests may cross zones');
    expect(finding.message).toContain('PreferSameZone, 0% at worst');
    expect(finding.fix).toBe('Set spec.trafficDistribution: PreferSameZone on the Service.');
  });

  test('unspread pods: PreferSameZone alone would not keep them in, so the fix spreads them first', () => {
    const s = only([deployment('web', 3, { spread: false }), service('web')]);
    expect(s.endpointsPerZone.a).toEqual({ guaranteed: 0, worstCase: 3 });
    expect(s.findings[0].fix).toMatch(/^First spread its pods with a hard zone spread/);
  });
});

describe('zone-local policies', () => {
  test('PreferSameZone over one pod per zone: nothing crosses, and nothing to report', () => {
    const s = only([deployment('web', 3), service('web', { trafficDistribution: 'PreferSameZone' })]);
    expect(s).toMatchObject({ policy: 'PreferSameZone', crossZoneShare: { worst: 0 }, maxLoadRatio: 1, findings: [] });
  });

  test('PreferSameZone with 2 pods over 3 zones: a zone may have none, its clients (a third) cross', () => {
    const s = only([deployment('web', 2), service('web', { trafficDistribution: 'PreferSameZone' })]);
    expect(s.crossZoneShare).toEqual({ worst: 0.3333 });
    expect(rules(s)).toEqual(['zone-local-traffic-gap']);
    const routes = Object.values(s.worstLayout!.routes);
    expect(routes.filter((r) => r.clusterWide)).toEqual([{ endpoints: 2, local: 0, clusterWide: true }]);
    expect(routes.filter((r) => !r.clusterWide)).toEqual(
      [1, 2].map(() => ({ endpoints: 1, local: 1, clusterWide: false })),
    );
  });

  test('PreferSameZone over 6 unspread pods: one pod alone in its zone takes its zone\'s third and more (2.33x)', () => {
    const s = only([deployment('web', 6, { spread: false }), service('web', { trafficDistribution: 'PreferSameZone' })]);
    expect(s.maxLoadRatio).toBe(2.33);
    expect(rules(s)).toEqual(['zone-local-traffic-gap', 'zone-local-overload']);
    expect(s.findings[1].fix).toContain('service.kubernetes.io/topology-mode: Auto');
  });

  test('topology-mode Auto over 4 pods in 3 equal zones falls back, and says 6 ready endpoints are enough', () => {
    const s = only([deployment('web', 4), service('web', {}, { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } })]);
    expect(s.policy).toBe('TopologyAuto');
    expect(s.crossZoneShare!.worst).toBe(0.6667);
    const fallBack = s.findings.find((f) => f.rule === 'topology-hints-fall-back')!;
    expect(fallBack.message).toContain('minimums add up to 6');
    expect(fallBack.fix).toContain('at least 6 endpoints');
    expect(rules(s)).toContain('traffic-crosses-zones');
  });

  test('internalTrafficPolicy Local: nothing crosses, but a client on a node without a pod gets no answer', () => {
    const s = only([deployment('web', 3), service('web', { internalTrafficPolicy: 'Local', trafficDistribution: 'PreferSameZone' })]);
    expect(s).toMatchObject({ policy: 'NodeLocal', crossZoneShare: { worst: 0 } });
    expect(rules(s)).toEqual(['node-local-drops']);
    const agent = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: 1 }] }] },
        },
      },
    };
    const onEveryNode = only([agent, service('agent', { internalTrafficPolicy: 'Local' })]);
    expect(onEveryNode).toMatchObject({ policy: 'NodeLocal', crossZoneShare: { worst: 0 }, maxLoadRatio: 1, findings: [] });
  });

  test('topology-mode Auto over 6 pods two per zone: hinted, nothing crosses; the annotation wins over trafficDistribution', () => {
    const s = only([deployment('web', 6), service('web', { trafficDistribution: 'PreferSameNode' },
      { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } })]);
    expect(s).toMatchObject({ policy: 'TopologyAuto', crossZoneShare: { worst: 0 }, findings: [] });
  });
});

describe('the CPU per zone that topology-aware hints follow', () => {
  const node = (name: string, zone: string, cpu: string, extra: { labels?: any; taints?: any[] } = {}) => ({
    name,
    zone,
    labels: { [ZONE_KEY]: zone, ...extra.labels },
    allocatableCpu: cpu,
    ...(extra.taints ? { taints: extra.taints } : {}),
  });
  const auto = service('web', {}, { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } });

  test('control-plane nodes and nodes that are not Ready (tainted so) do not count, as the EndpointSlice controller leaves them out', () => {
    const inventory = new ZoneInventory({
      zones: ZONES,
      nodes: [
        node('a1', 'a', '8'), node('b1', 'b', '8'), node('c1', 'c', '8'),
        node('a-cp', 'a', '64', { labels: { 'node-role.kubernetes.io/control-plane': '' } }),
        node('b-down', 'b', '64', { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] }),
      ],
    });
    // equal CPU left: 6 endpoints two per zone are hinted as they are (a zone's extra 64 cores would take more)
    const [s] = traffic([deployment('web', 6), auto], undefined, inventory).services;
    expect(s.crossZoneShare).toEqual({ worst: 0 });
  });
});

describe('what the report cannot route, and bad input', () => {
  test('one replica: its endpoint is in one zone whatever the policy', () => {
    expect(rules(only([deployment('web', 1), service('web', { trafficDistribution: 'PreferSameZone' })])))
      .toContain('endpoints-in-one-zone');
  });

  test('a headless Service is noted, not told to set a policy that does not apply to it', () => {
    const s = only([deployment('web', 3), service('web', { clusterIP: 'None' })]);
    expect(s.policy).toBe('Headless');
    expect(rules(s)).toEqual(['headless-service']);
  });

  test('ExternalName and selector-less Services are skipped with a note each', () => {
    const data = traffic([service('alias', { type: 'ExternalName', externalName: 'db.example.com', selector: undefined }),
      service('manual', { selector: undefined })]);
    expect(data.services).toEqual([]);
    expect(data.findings.map((f) => f.rule)).toEqual(['external-name-service', 'service-without-selector']);
  });

  test('a selector that matches nothing (or only pods of another namespace) is a warning, with no figures', () => {
    const s = only([deployment('web', 3, { namespace: 'other' }), service('web', {}, { namespace: 'shop' })]);
    expect(rules(s)).toEqual(['service-selects-nothing']);
    expect(s.crossZoneShare).toBeUndefined();
  });

  test('a named targetPort no container declares: those pods serve nothing, and the Service says so', () => {
    const s = only([deployment('web', 3), service('web', { ports: [{ port: 80, targetPort: 'grpc' }] })]);
    expect(rules(s)).toEqual(['target-port-missing']);
    expect(s.findings[0].message).toContain('"grpc"');
    expect(s.workloads).toEqual([]);
  });

  test('a selector over two workloads counts their pods together, noted', () => {
    const s = only([deployment('web', 3, { labels: { app: 'web', track: 'stable' } }),
      deployment('canary', 1, { labels: { app: 'web', track: 'canary' }, spread: false }), service('web')]);
    expect(s.workloads).toEqual(['Deployment/-/web', 'Deployment/-/canary']);
    expect(Object.values(s.endpointsPerZone).map((c) => c.worstCase)).toEqual([2, 2, 2]);
    expect(rules(s)).toContain('service-selects-several-workloads');
  });

  test('--clients naming a workload the input lacks is bad usage, naming it', () => {
    expect(() => traffic([deployment('web', 3), service('web')], { clients: [{ workload: { kind: 'Deployment', name: 'nope' } }] }))
      .toThrow('the input has no workload -/Deployment/nope');
  });
});

describe('clients and costs', () => {
  const pinnedClient = deployment('client', 2, { spread: false, pod: { nodeSelector: { [ZONE_KEY]: 'a' } } });

  test('clients pinned to zone a: no policy sends 2/3 of their requests across, PreferSameZone none', () => {
    const clients = [{ workload: { kind: 'Deployment', name: 'client' } }];
    const plain = traffic([deployment('web', 3), service('web'), pinnedClient], { clients }).services[0];
    expect(plain.clients).toBe('Deployment/-/client');
    expect(plain.crossZoneShare).toEqual({ worst: 0.6667 });
    expect(plain.worstLayout!.clientsPerZone).toEqual({ a: 1, b: 0, c: 0 });
    const local = traffic([deployment('web', 3), service('web', { trafficDistribution: 'PreferSameZone' }), pinnedClient], { clients });
    expect(local.services[0].crossZoneShare).toEqual({ worst: 0 });
    // all of zone a's clients on its one endpoint: 3x an even share
    expect(local.services[0].maxLoadRatio).toBe(3);
  });

  test('a Service\'s clients named for it, the others as the nodes', () => {
    const data = traffic([deployment('web', 3), service('web'), deployment('api', 3), service('api'), pinnedClient],
      { clients: [{ service: { name: 'api' }, workload: { kind: 'deployment', name: 'client' } }] });
    expect(data.services.map((s) => [s.name, s.clients])).toEqual([['web', 'nodes'], ['api', 'Deployment/-/client']]);
  });

  test('the monthly cost: GB x crossing share x price, both directions; the total adds the Services up', () => {
    const data = traffic([deployment('web', 3), service('web'), deployment('api', 3), service('api')], {
      costs: { pricePerGb: 0.01, gbPerMonth: 1000, perService: [{ service: { name: 'api' }, gbPerMonth: 3000 }] },
    });
    expect(data.services.map((s) => s.monthlyCost)).toEqual([{ worst: 13.33 }, { worst: 40 }]);
    expect(data.monthlyCost).toEqual({ worst: 53.33 });
    expect(data.pricePerGb).toBe(0.01);
  });
});

describe('now (what runs, read live)', () => {
  test('pods running all in zone a under PreferSameZone: now the other zones\' clients cross', () => {
    const read = readManifests([deployment('web', 3), service('web', { trafficDistribution: 'PreferSameZone' })], ZONE_KEY);
    const live = { ...read, workloads: read.workloads.map((w) => ({ ...w, running: { a: 3 } })) };
    const inventory = ZoneInventory.equalNodes(ZONES, 2);
    const [s] = analyzeTraffic(live, inventory).services;
    expect(s.endpointsPerZone.a).toEqual({ guaranteed: 1, worstCase: 3, now: 3 });
    expect(s.crossZoneShare).toEqual({ worst: 0.6667, now: 0.6667 });
  });
});
