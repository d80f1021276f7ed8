/**
 * Every prometheus-operator custom resource the construct emits passes the upstream CRD's OpenAPI schema
 * (strict: unknown fields are errors), for both examples and a table of construct configurations.
 */
import { App, Chart, Duration, Size, Testing } from 'cdk8s';
import { build as build3Zones } from '../../../examples/prometheus-3-zones/main';
import { build as buildStandalone } from '../../../examples/prometheus-standalone/main';
import {
  OperatorSharding, PrometheusOutput, RelabelAction, ShardingMode, TopologyShardedPrometheus,
  TopologyShardedPrometheusProps, ZoneTopology,
} from '../../../src';
import { CrdSchemas } from '../crd-schema';

const schemas = CrdSchemas.fromShared();
const topology = new ZoneTopology({ zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });

function customResources(manifests: any[]): any[] {
  return manifests.filter((m) => m.apiVersion.includes('.coreos.com/'));
}

function configuration(props: Partial<TopologyShardedPrometheusProps>): any[] {
  const chart = new Chart(Testing.app(), 'mon', { disableResourceNameHashes: true });
  new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 6, namespace: 'monitoring', ...props });
  return Testing.synth(chart);
}

const cases: [string, Partial<TopologyShardedPrometheusProps>][] = [
  ['per zone, defaults', {}],
  ['per zone, 7 shards, everything set', {
    shards: 7,
    replicas: 2,
    nodeSelector: { 'node.kubernetes.io/instance-type': 'm7i.large', 'topology.kubernetes.io/zone': 'overridden' },
    externalLabels: { cluster: 'prod', region: 'eu-west-1' },
    externalLabelName: 'az',
    image: 'quay.io/prometheus/prometheus:v3.5.0',
    scrapeInterval: Duration.seconds(15),
    retention: Duration.days(15),
    storage: { size: Size.gibibytes(100), storageClassName: 'gp3' },
    monitorSelector: { matchLabels: { team: 'infra' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
    scrapeClasses: [
      { name: 'default', isDefault: true, relabelings: [{ sourceLabels: ['__meta_kubernetes_pod_label_app'], targetLabel: 'app' }] },
      { name: 'no-go', metricRelabelings: [{ sourceLabels: ['__name__'], regex: 'go_.*', action: RelabelAction.DROP }] },
    ],
  }],
  ['per zone, Kubernetes 1.35, no zone label', { topology: new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.35' }), externalLabelName: '' }],
  ['per zone, weighted', { shards: 7, shardsPerZone: { 'eu-west-1a': 3, 'eu-west-1b': 2, 'eu-west-1c': 2 } }],
  ['per zone, region', { topology: new ZoneTopology({ zones: ['a', 'b'], region: 'eu-1' }), shards: 4 }],
  ['shardingStrategy', {
    operatorSharding: OperatorSharding.SHARDING_STRATEGY,
    shards: 9,
    externalLabelName: 'az',
    scrapeClasses: [{ name: 'x', isDefault: true }],
  }],
  ['shardingStrategy, no zone label', { operatorSharding: OperatorSharding.SHARDING_STRATEGY, externalLabelName: '' }],
  ['address mode', {
    mode: ShardingMode.ADDRESS,
    shards: 4,
    scrapeClasses: [{ name: 'nodes', isDefault: true, attachNodeMetadata: true }],
  }],
  ['per zone, remote write with a bearer token', { remoteWrite: [{ url: 'https://mimir.example/api/v1/push', name: 'mimir', bearerTokenSecret: { name: 'mimir', key: 'token' } }] }],
  ...agentCases(),
];

/** The agent output (PrometheusAgent) in every layout above that an agent can have (no retention). */
function agentCases(): [string, Partial<TopologyShardedPrometheusProps>][] {
  const remoteWrite = [{ url: 'https://mimir.example/api/v1/push', name: 'mimir', bearerTokenSecret: { name: 'mimir', key: 'token' } }];
  return [
    ['agent, per zone', {}],
    ['agent, per zone, weighted, storage, scrape classes', {
      shards: 7,
      shardsPerZone: { 'eu-west-1a': 3, 'eu-west-1b': 2, 'eu-west-1c': 2 },
      replicas: 2,
      storage: { size: Size.gibibytes(10), storageClassName: 'gp3' },
      scrapeClasses: [{ name: 'default', isDefault: true, relabelings: [{ sourceLabels: ['__meta_kubernetes_pod_label_app'], targetLabel: 'app' }] }],
    }],
    ['agent, shardingStrategy', { operatorSharding: OperatorSharding.SHARDING_STRATEGY, shards: 9 }],
    ['agent, address mode', { mode: ShardingMode.ADDRESS, shards: 4 }],
  ].map(([name, props]) => [name as string, { ...props as object, output: PrometheusOutput.AGENT, remoteWrite }]);
}

describe('every emitted custom resource passes the upstream CRD schema', () => {
  test.each(cases)('%s', (_, props) => {
    const resources = customResources(configuration(props));
    expect(resources.length).toBeGreaterThan(0);
    for (const r of resources) {
      expect({ name: r.metadata.name, errors: schemas.errors(r) }).toEqual({ name: r.metadata.name, errors: [] });
    }
  });

  test.each([
    // three Prometheus resources, and the PodMonitor and PrometheusRule of their own monitoring
    ['prometheus-3-zones', build3Zones, 5],
    ['prometheus-standalone', buildStandalone, 0],
  ] as const)('example %s', (_, build, expected) => {
    const app = new App();
    build(app);
    const manifests = app.charts.flatMap((c) => Testing.synth(c));
    const resources = customResources(manifests);
    expect(resources).toHaveLength(expected);
    for (const r of resources) {
      expect({ name: r.metadata.name, errors: schemas.errors(r) }).toEqual({ name: r.metadata.name, errors: [] });
    }
  });

  test('the agent cases are checked against the PrometheusAgent CRD', () => {
    const [agent] = customResources(configuration(agentCases()[0][1]));
    expect([agent.apiVersion, agent.kind]).toEqual(['monitoring.coreos.com/v1alpha1', 'PrometheusAgent']);
    // a field only Prometheus has fails against the agent's schema
    expect(schemas.errors({ ...agent, spec: { ...agent.spec, retention: '24h' } }).join('\n')).toMatch(/additional properties \(retention\)/);
  });

  test('the validator is strict: a misspelt field of the emitted Prometheus fails', () => {
    const [prometheus] = customResources(configuration({}));
    const broken = { ...prometheus, spec: { ...prometheus.spec, shardingStrategy: { mode: 'Zone' }, nodeSelectors: {} } };
    expect(schemas.errors(broken).join('\n')).toMatch(/additional properties \(nodeSelectors\)[\s\S]*allowed values/);
  });
});
