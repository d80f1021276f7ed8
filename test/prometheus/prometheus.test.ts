import { Size } from 'cdk8s';
import {
  OperatorSharding, PrometheusOutput, RelabelAction, ShardingMode, TopologyShardedPrometheusProps, ZoneTopology,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';
import { only } from '../util';
import { prometheuses, shardConfig, synthesize, topology } from './prometheus-fixtures';

describe('TopologyShardedPrometheus, operator output, one Prometheus per zone (default)', () => {
  test('7 shards over 3 zones: shards 3/2/2, each Prometheus pinned to its zone with the zone label', () => {
    const { objects } = synthesize({ shards: 7, nodeSelector: { 'topology.kubernetes.io/zone': 'stale', 'pool': 'monitoring' } });
    const proms = prometheuses(objects);
    expect(proms.map((p) => [p.metadata.name, p.spec.shards, p.spec.nodeSelector, p.spec.externalLabels])).toEqual([
      ['mon-prom-zone-a', 3, { 'topology.kubernetes.io/zone': 'zone-a', 'pool': 'monitoring' }, { zone: 'zone-a' }],
      ['mon-prom-zone-b', 2, { 'topology.kubernetes.io/zone': 'zone-b', 'pool': 'monitoring' }, { zone: 'zone-b' }],
      ['mon-prom-zone-c', 2, { 'topology.kubernetes.io/zone': 'zone-c', 'pool': 'monitoring' }, { zone: 'zone-c' }],
    ]);
    for (const p of proms) {
      expect(p.spec).toMatchObject({
        replicas: 1,
        serviceAccountName: 'mon-prom',
        serviceDiscoveryRole: 'EndpointSlice',
        serviceMonitorSelector: {},
      });
      expect(p.spec.shardingStrategy).toBeUndefined();
    }
  });

  test('a default scrape class reads the zone (node metadata attached) and keeps only the Prometheus zone', () => {
    const [a, b] = prometheuses(synthesize({}).objects);
    expect(a.spec.scrapeClasses).toHaveLength(1);
    expect(a.spec.scrapeClasses[0]).toMatchObject({ name: 'zone-sharding', default: true, attachMetadata: { node: true } });
    const keep = (p: any) => p.spec.scrapeClasses[0].relabelings.find((r: any) => r.action === 'keep');
    expect(keep(a)).toEqual({ sourceLabels: ['__tmp_topology', '__tmp_disable_sharding'], regex: '(?:zone-a)?;|.*;.+', action: 'keep' });
    expect(keep(b).regex).toBe('zone-b;|.*;.+');
  });

  test('the user\'s scrape classes get the zone rules appended; no extra class when one of them is the default', () => {
    const scrapeClasses = [
      { name: 'default', isDefault: true, relabelings: [{ targetLabel: 'team', replacement: 'infra' }] },
      { name: 'tls', metricRelabelings: [{ sourceLabels: ['__name__'], regex: 'go_.*', action: RelabelAction.DROP }] },
    ];
    const [a] = prometheuses(synthesize({ scrapeClasses }).objects);
    expect(a.spec.scrapeClasses.map((c: any) => c.name)).toEqual(['default', 'tls']);
    expect(a.spec.scrapeClasses[0].relabelings[0]).toEqual({ targetLabel: 'team', replacement: 'infra', action: 'replace' });
    for (const c of a.spec.scrapeClasses) {
      expect(c.attachMetadata).toEqual({ node: true });
      expect(c.relabelings.at(-1).regex).toBe('(?:zone-a)?;|.*;.+');
    }
    expect(a.spec.scrapeClasses[1].metricRelabelings).toEqual([{ sourceLabels: ['__name__'], regex: 'go_.*', action: 'drop' }]);
    const withoutDefault = prometheuses(synthesize({ scrapeClasses: [scrapeClasses[1]] }).objects)[0];
    expect(withoutDefault.spec.scrapeClasses.map((c: any) => c.name)).toEqual(['zone-sharding', 'tls']);
  });

  test('RBAC: read pods, services, EndpointSlices and nodes (node labels carry the zone); cluster-scoped objects have no namespace', () => {
    const { objects } = synthesize({});
    const role = only(objects, 'ClusterRole');
    expect(role.metadata).toEqual(expect.objectContaining({ name: 'monitoring-mon-prom' }));
    expect(role.metadata.namespace).toBeUndefined();
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['nodes', 'pods', 'services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
    ]);
    const binding = only(objects, 'ClusterRoleBinding');
    expect(binding.metadata.namespace).toBeUndefined();
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'mon-prom', namespace: 'monitoring' }]);
  });

  test('Kubernetes 1.35: the zone comes from the pod label, so no node metadata and no access to nodes', () => {
    const { objects } = synthesize({ topology: new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.35' }) });
    const [a] = prometheuses(objects);
    expect(a.spec.scrapeClasses[0].attachMetadata).toBeUndefined();
    expect(a.spec.scrapeClasses[0].relabelings.map((r: any) => r.sourceLabels[0])).toContain('__meta_kubernetes_pod_label_topology_kubernetes_io_zone');
    expect(only(objects, 'ClusterRole').rules[0].resources).toEqual(['pods', 'services']);
  });

  test('externalLabelName: renamed, disabled with an empty string, merged with externalLabels', () => {
    const { objects } = synthesize({ externalLabelName: 'az', externalLabels: { cluster: 'prod' } });
    expect(prometheuses(objects)[0].spec.externalLabels)
      .toEqual({ cluster: 'prod', az: 'zone-a' });
    expect(prometheuses(synthesize({ externalLabelName: '' }).objects)[0].spec.externalLabels).toBeUndefined();
  });

  test('region, storage, image, resources and the monitor selector reach every Prometheus', () => {
    const regional = new ZoneTopology({ zones: ['a', 'b'], region: 'eu-1' });
    const { objects } = synthesize({
      topology: regional,
      shards: 2,
      storage: { size: Size.gibibytes(50), storageClassName: 'zonal' },
      image: 'example.com/prometheus:v3',
      monitorSelector: { matchLabels: { team: 'infra' } },
    });
    const [a] = prometheuses(objects);
    expect(a.spec.nodeSelector).toEqual({ 'topology.kubernetes.io/zone': 'a', 'topology.kubernetes.io/region': 'eu-1' });
    expect(a.spec.storage.volumeClaimTemplate.spec).toEqual({
      accessModes: ['ReadWriteOnce'], storageClassName: 'zonal', resources: { requests: { storage: '50Gi' } },
    });
    expect(a.spec.image).toBe('example.com/prometheus:v3');
    expect(a.spec.resources).toEqual({ requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '2Gi' } });
    expect(a.spec.podMonitorSelector).toEqual({ matchLabels: { team: 'infra' } });
  });
});

describe('TopologyShardedPrometheus, agent output (PrometheusAgent)', () => {
  const remoteWrite = [{ url: 'https://mimir.example/api/v1/push', name: 'mimir', bearerTokenSecret: { name: 'mimir-token', key: 'token' } }];
  const agents = (objects: any[]) => objects.filter((o) => o.kind === 'PrometheusAgent');

  test('one PrometheusAgent per zone with the same zone-local sharding as the Prometheus output; samples go by remote write', () => {
    const server = synthesize({ shards: 7 }).objects;
    const agent = synthesize({ shards: 7, output: PrometheusOutput.AGENT, remoteWrite }).objects;
    expect(prometheuses(agent)).toEqual([]);
    const proms = prometheuses(server);
    const ags = agents(agent);
    expect(ags.map((a) => [a.apiVersion, a.metadata.name])).toEqual(proms.map((p) => ['monitoring.coreos.com/v1alpha1', p.metadata.name]));
    ags.forEach((a, i) => {
      // what decides which shard scrapes what, and where it runs, is the same field for field
      for (const field of ['shards', 'nodeSelector', 'externalLabels', 'scrapeClasses', 'podMetadata', 'topologySpreadConstraints', 'serviceAccountName']) {
        expect([field, a.spec[field]]).toEqual([field, proms[i].spec[field]]);
      }
      expect(a.spec.remoteWrite).toEqual([
        { url: 'https://mimir.example/api/v1/push', name: 'mimir', authorization: { type: 'Bearer', credentials: { name: 'mimir-token', key: 'token' } } },
      ]);
      expect(a.spec.retention).toBeUndefined();
    });
    // the ServiceAccount and its discovery RBAC are the same
    const rbac = (objects: any[]) => objects.filter((o) => /Role|ServiceAccount/.test(o.kind));
    expect(rbac(agent)).toEqual(rbac(server));
  });

  test('shardingStrategy and address mode work the same way', () => {
    const strategy = agents(synthesize({
      shards: 9, output: PrometheusOutput.AGENT, remoteWrite, operatorSharding: OperatorSharding.SHARDING_STRATEGY,
    }).objects);
    expect(strategy.map((a) => [a.metadata.name, a.spec.shards, a.spec.shardingStrategy])).toEqual([
      ['mon-prom', 9, { mode: 'Topology', topology: { values: ['zone-a', 'zone-b', 'zone-c'], externalLabelName: 'zone' } }],
    ]);
    const byAddress = { shards: 4, output: PrometheusOutput.AGENT, remoteWrite, mode: ShardingMode.ADDRESS };
    const address = agents(synthesize(byAddress).objects);
    expect(address.map((a) => [a.metadata.name, a.spec.shards, a.spec.shardingStrategy])).toEqual([['mon-prom', 4, undefined]]);
  });

  test('address mode and shardingStrategy emit the same object: switching between them changes it in place', () => {
    for (const output of [PrometheusOutput.OPERATOR, PrometheusOutput.AGENT]) {
      const names = [{ mode: ShardingMode.ADDRESS }, { operatorSharding: OperatorSharding.SHARDING_STRATEGY }]
        .map((props) => synthesize({ ...props, output, remoteWrite }).objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'))
          .map((o) => `${o.kind}/${o.metadata.name}`));
      expect(names[0]).toEqual(names[1]);
    }
  });

  test('the Prometheus output may remote-write too; without remoteWrite it has none', () => {
    expect(prometheuses(synthesize({ remoteWrite: [{ url: 'http://thanos-receive:19291/api/v1/receive' }] }).objects)
      .map((p) => p.spec.remoteWrite)).toEqual(Array(3).fill([{ url: 'http://thanos-receive:19291/api/v1/receive' }]));
    expect(prometheuses(synthesize({}).objects).map((p) => p.spec.remoteWrite)).toEqual(Array(3).fill(undefined));
  });
});

describe('TopologyShardedPrometheus, operator output with spec.shardingStrategy', () => {
  test('one Prometheus with upstream\'s topology sharding; no warning when shards is a multiple of the zones', () => {
    const { objects, chart } = synthesize({ operatorSharding: OperatorSharding.SHARDING_STRATEGY, shards: 9 });
    const [p] = prometheuses(objects);
    expect(prometheuses(objects)).toHaveLength(1);
    expect(p.metadata.name).toBe('mon-prom');
    expect(p.spec).toMatchObject({
      shards: 9, shardingStrategy: { mode: 'Topology', topology: { values: ['zone-a', 'zone-b', 'zone-c'], externalLabelName: 'zone' } },
    });
    expect(p.spec.nodeSelector).toBeUndefined();
    expect(warningsOf(chart)).toEqual([]);
  });

  test('10 shards over 3 zones: warns that shard 9 scrapes nothing', () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { chart } = synthesize({ operatorSharding: OperatorSharding.SHARDING_STRATEGY, shards: 11 });
      expect(warningsOf(chart)).toEqual([
        "mon/prom: shards=11 over 3 zones with prometheus-operator's shardingStrategy: it gives each zone floor(11/3)=3 hash bucket(s), " +
        'so shard(s) 9 (zone zone-a, bucket 3), 10 (zone zone-b, bucket 3) scrape no target (prometheus-operator issue #8664). ' +
        'Use OperatorSharding.PER_ZONE (every shard scrapes), or shards=9 or 12.',
      ]);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('TopologyShardedPrometheus, address mode', () => {
  test('operator: one Prometheus with classic sharding, spread over zones and hosts, no zone label', () => {
    const { objects } = synthesize({ mode: ShardingMode.ADDRESS, shards: 4 });
    const [p] = prometheuses(objects);
    expect(p.spec.shards).toBe(4);
    expect(p.spec.externalLabels).toBeUndefined();
    expect(p.spec.scrapeClasses).toBeUndefined();
    expect(p.spec.topologySpreadConstraints.map((c: any) => [c.topologyKey, c.whenUnsatisfiable])).toEqual([
      ['topology.kubernetes.io/zone', 'ScheduleAnyway'], ['kubernetes.io/hostname', 'ScheduleAnyway'],
    ]);
    expect(only(objects, 'ClusterRole').rules[0].resources).toEqual(['pods', 'services']);
  });

  test('standalone: one StatefulSet per shard, hashing over all shards', () => {
    const { objects } = synthesize({ mode: ShardingMode.ADDRESS, shards: 3, output: PrometheusOutput.STANDALONE });
    expect(objects.filter((o) => o.kind === 'StatefulSet').map((o) => o.metadata.name)).toEqual(['mon-prom-0', 'mon-prom-1', 'mon-prom-2']);
    const rules = shardConfig(objects, 'mon-prom-1').scrape_configs[0].relabel_configs.slice(-3);
    expect(rules.map((r: any) => [r.action, r.modulus ?? r.regex])).toEqual([['replace', '(.+);'], ['hashmod', 3], ['keep', '1;|.+;.+']]);
  });
});

describe('TopologyShardedPrometheus storage classes per zone', () => {
  const storage = { size: Size.gibibytes(50), storageClassName: 'standard', storageClassNamePerZone: { 'zone-a': 'ssd-a', 'zone-c': 'ssd-c' } };
  const classOf = (claimTemplate: any) => claimTemplate.spec.storageClassName;

  test.each([PrometheusOutput.OPERATOR, PrometheusOutput.AGENT])('%s output, one resource per zone: each zone\'s claims get its class', (output) => {
    const objects = synthesize({ storage, output, remoteWrite: [{ url: 'https://m.example/push' }] }).objects
      .filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(objects.map((o) => [o.metadata.labels['cdk8s-zones.dev/zone'], classOf(o.spec.storage.volumeClaimTemplate)]))
      .toEqual([['zone-a', 'ssd-a'], ['zone-b', 'standard'], ['zone-c', 'ssd-c']]);
  });

  test('standalone output: every shard\'s StatefulSet claims its zone\'s class', () => {
    const sts = synthesize({ storage, output: PrometheusOutput.STANDALONE, shards: 4 }).objects
      .filter((o) => o.kind === 'StatefulSet');
    expect(sts.map((o) => [o.metadata.name, classOf(o.spec.volumeClaimTemplates[0])]).sort()).toEqual([
      ['mon-prom-zone-a-0', 'ssd-a'], ['mon-prom-zone-a-1', 'ssd-a'], ['mon-prom-zone-b-0', 'standard'], ['mon-prom-zone-c-0', 'ssd-c'],
    ]);
  });

  test.each<[Partial<TopologyShardedPrometheusProps>, string]>([
    [{ storage: { size: Size.gibibytes(1), storageClassNamePerZone: { 'zone-x': 'ssd' } } }, 'storage.storageClassNamePerZone key="zone-x" is not one of the topology\'s zones'],
    [{ storage, mode: ShardingMode.ADDRESS }, 'needs shards of one zone each: address mode spreads every shard over the zones'],
    [{ storage, operatorSharding: OperatorSharding.SHARDING_STRATEGY }, 'with shardingStrategy one resource (one storage class) spans the zones'],
  ])('refused: %j', (props, message) => {
    expect(() => synthesize(props)).toThrow(message);
  });
});
