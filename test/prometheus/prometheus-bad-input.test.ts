import { Chart, Duration, Size, Testing } from 'cdk8s';
import { synthesize, topology } from './prometheus-fixtures';
import {
  OperatorSharding, PrometheusOutput, ShardingMode, TopologyShardedPrometheus, TopologyShardedPrometheusProps,
  ZoneTopology,
} from '../../src';

describe('TopologyShardedPrometheus refuses bad input with a clear error', () => {
  const where = "TopologyShardedPrometheus 'mon/prom'";
  test.each<[Partial<TopologyShardedPrometheusProps>, string]>([
    [{ shards: 2 }, 'shards=2 is less than the 3 zones [zone-a, zone-b, zone-c]: zone(s) zone-c would not be scraped'],
    [{ shards: 0 }, 'shards=0 must be an integer from 1 to 2147483647'],
    [{ shards: 0, mode: ShardingMode.ADDRESS }, 'shards=0 must be an integer from 1 to 2147483647'],
    [{ shardsPerZone: { 'zone-a': 2, 'zone-b': 2, 'zone-c': 1 } }, 'shardsPerZone={"zone-a":2,"zone-b":2,"zone-c":1} sums to 5, not to shards=6'],
    [{ shardsPerZone: { 'zone-a': 2, 'zone-b': 2, 'zone-c': 1, 'zone-x': 1 } }, 'shardsPerZone["zone-x"]=1 names a zone that is not in the topology'],
    [{ mode: ShardingMode.ADDRESS, shardsPerZone: { 'zone-a': 6 } }, 'shardsPerZone={"zone-a":6} only applies to mode ShardingMode.TOPOLOGY'],
    [{ mode: ShardingMode.ADDRESS, externalLabelName: 'az' }, 'externalLabelName="az" only applies to mode ShardingMode.TOPOLOGY'],
    [{ mode: ShardingMode.ADDRESS, operatorSharding: OperatorSharding.SHARDING_STRATEGY }, 'operatorSharding="sharding-strategy" only applies to mode ShardingMode.TOPOLOGY'],
    [{ replicas: 0 }, 'replicas=0 must be an integer from 1 to 2147483647'],
    [{ replicas: 1.5 }, 'replicas=1.5 must be an integer from 1 to 2147483647'],
    [{ externalLabelName: 'zone-name' }, 'externalLabelName="zone-name" is not a valid label name'],
    [{ externalLabelName: '1zone' }, 'externalLabelName="1zone" is not a valid label name'],
    [{ externalLabelName: '__zone' }, 'externalLabelName="__zone" is not a valid label name'],
    [{ externalLabelName: 'prometheus_replica' }, 'externalLabelName="prometheus_replica" is set on every Prometheus already'],
    [{ externalLabels: { zone: 'x' } }, 'externalLabels={"zone":"x"} sets "zone", which externalLabelName gives each shard\'s zone'],
    [{ output: PrometheusOutput.STANDALONE, scrapeClasses: [] }, 'scrapeClasses=[] only applies to outputs PrometheusOutput.OPERATOR and PrometheusOutput.AGENT'],
    [{ output: PrometheusOutput.STANDALONE, remoteWrite: [{ url: 'https://m.example/push' }] },
      'remoteWrite=[{"url":"https://m.example/push"}] only applies to outputs PrometheusOutput.OPERATOR and PrometheusOutput.AGENT'],
    [{ output: PrometheusOutput.AGENT }, 'remoteWrite=undefined must name at least one endpoint with output PrometheusOutput.AGENT'],
    [{ output: PrometheusOutput.AGENT, remoteWrite: [] }, 'remoteWrite=[] must name at least one endpoint with output PrometheusOutput.AGENT'],
    [{ output: PrometheusOutput.AGENT, remoteWrite: [{ url: 'https://m.example/push' }], retention: Duration.days(15) },
      'retention=[Duration] does not apply to output PrometheusOutput.AGENT'],
    [{ output: PrometheusOutput.AGENT, remoteWrite: [{ url: 'https://m.example/push' }], networkPolicy: {} },
      'networkPolicy={} only applies to output PrometheusOutput.STANDALONE'],
    [{ remoteWrite: [{ url: 'mimir:9009/push' }] }, 'remoteWrite[0].url="mimir:9009/push" must be an http:// or https:// URL'],
    [{ remoteWrite: [{ url: 'not a url' }] }, 'remoteWrite[0].url="not a url" is not a URL'],
    [{ remoteWrite: [{ url: 'user:secret@m.example/push' }] }, 'remoteWrite[0].url="<credentials>@m.example/push" must be an http:// or https:// URL'],
    [{ remoteWrite: [{ url: 'https://user:secret@m.example/push' }] },
      'remoteWrite[0].url="https://<credentials>@m.example/push" must not hold credentials: give bearerTokenSecret'],
    [{ remoteWrite: [{ url: 'https://a.example', name: 'q' }, { url: 'https://b.example', name: 'q' }] }, 'remoteWrite[].name="q" must be unique among the endpoints'],
    [{ remoteWrite: [{ url: 'https://a.example', bearerTokenSecret: { name: 'Token', key: 'token' } }] }, 'remoteWrite[0].bearerTokenSecret.name="Token"'],
    [{ remoteWrite: [{ url: 'https://a.example', bearerTokenSecret: { name: 'token', key: 'a/b' } }] },
      'remoteWrite[0].bearerTokenSecret.key="a/b" must be a Secret key'],
    [{ networkPolicy: { enabled: false } }, 'networkPolicy={"enabled":false} only applies to output PrometheusOutput.STANDALONE'],
    [{ output: PrometheusOutput.STANDALONE, networkPolicy: { clients: [{ podLabels: { 'bad key': 'x' } }] } },
      'networkPolicy.clients[0].podLabels key="bad key" is not a valid label key'],
    [{ resources: { requests: {} } as any }, 'resources={"requests":{}} must set limits.memory'],
    [{ operatorSharding: OperatorSharding.SHARDING_STRATEGY, shardsPerZone: { 'zone-a': 4, 'zone-b': 1, 'zone-c': 1 } },
      'shardsPerZone={"zone-a":4,"zone-b":1,"zone-c":1} cannot be expressed with prometheus-operator\'s shardingStrategy'],
    [{ scrapeClasses: [{ name: 'a', isDefault: true }, { name: 'b', isDefault: true }] }, 'scrapeClasses=["a","b"] has more than one default class'],
    [{ scrapeClasses: [{ name: 'zone-sharding' }] }, 'scrapeClasses[].name="zone-sharding" must be non-empty and unique; zone-sharding is the construct\'s own class'],
    [{ scrapeClasses: [{ name: 'a', attachNodeMetadata: false }] }, 'scrapeClasses["a"].attachNodeMetadata=false cannot be false'],
    [{ name: 'a-name-long-enough-to-break-the-statefulset-name-limit' }, 'name="a-name-long-enough-to-break-the-statefulset-name-limit" is too long: ' +
      'it makes the StatefulSet name "prometheus-a-name-long-enough-to-break-the-statefulset-name-limit-zone-a-shard-1" (80 characters), over the 52'],
    [{ name: 'Prom' }, 'name="Prom" is not a valid Service name (DNS-1035 label)'],
    [{ scrapeInterval: '30s' as any }, 'scrapeInterval="30s" must be a Duration'],
    [{ scrapeInterval: Duration.millis(0.5) }, 'scrapeInterval="0.5ms" must be a positive whole number of milliseconds'],
    [{ retention: Duration.seconds(0) }, 'retention="0ms" must be a positive whole number of milliseconds'],
    [{ storage: { size: '50Gi' as any } }, 'storage.size="50Gi" must be a cdk8s Size'],
    [{ storage: { size: Size.kibibytes(0) } }, 'storage.size=[Size 0Ki] must be larger than zero'],
    [{
      topology: new ZoneTopology({ zones: ['a', 'b'], topologyKey: 'example.com/zone' }),
      shards: 2,
      operatorSharding: OperatorSharding.SHARDING_STRATEGY,
    },
    'operatorSharding="sharding-strategy" needs the topology key topology.kubernetes.io/zone'],
    [{ nodeSelector: { 'bad key': 'x' } }, 'nodeSelector key="bad key" is not a valid label key'],
  ])('%j', (props, message) => {
    expect(() => synthesize(props)).toThrow(`${where}: ${message}`);
  });

  test('a namespace is needed for the ClusterRoleBinding subject', () => {
    const chart = new Chart(Testing.app(), 'mon');
    expect(() => new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 3 }))
      .toThrow("TopologyShardedPrometheus 'mon/prom': namespace=undefined must be set (or the chart's namespace)");
    const withProp = new TopologyShardedPrometheus(chart, 'other', { topology, shards: 3, namespace: 'obs' });
    expect(withProp.serviceAccount.metadata.namespace).toBe('obs');
  });
});
