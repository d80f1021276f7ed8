/** A zone dashboard to test: a Prometheus's, monitoring the controller, a Redis cluster, a Loki stack and itself. */
import { Chart, Testing } from 'cdk8s';
import {
  PrometheusOutput, TopologyShardedPrometheus, ZonalRedisCluster, ZoneAwareLokiStack, ZoneController, ZoneTopology,
} from '../../src';
import { only } from '../util';

const topology = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });

/** The dashboard ConfigMap and its parsed JSON, of a Prometheus (of `output`) monitoring the app's components. */
export function dashboardOf(output = PrometheusOutput.OPERATOR): { configMap: any; dashboard: any } {
  const app = Testing.app();
  const platform = new Chart(app, 'platform');
  const controller = new ZoneController(platform, 'controller', { image: 'example.com/controller:1', redisManager: true });
  const cache = new Chart(app, 'cache', { namespace: 'cache' });
  const redis = new ZonalRedisCluster(cache, 'redis', { controller, topology, masters: 3, password: { name: 'p', key: 'p' } });
  const logs = new Chart(app, 'logs', { namespace: 'logs' });
  const storage = { bucket: 'logs', endpoint: 'minio:9000', credentialsSecretName: 'minio' };
  const loki = new ZoneAwareLokiStack(logs, 'loki', { topology, name: 'loki', direct: { objectStorage: storage } });
  const monitoring = new Chart(app, 'monitoring', { namespace: 'monitoring' });
  const prometheus = new TopologyShardedPrometheus(monitoring, 'prom', { topology, shards: 3, output });
  prometheus.monitor(controller);
  prometheus.monitor(redis);
  prometheus.monitor(loki);
  prometheus.monitor(prometheus);
  const configMap = only(Testing.synth(monitoring), 'ConfigMap', 'monitoring-prom-dashboard');
  const [json] = Object.values(configMap.data) as string[];
  return { configMap, dashboard: JSON.parse(json) };
}

