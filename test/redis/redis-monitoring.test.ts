/**
 * A ZonalRedisCluster's metrics: an exporter beside each redis-server (pinned image, its password from the in-memory
 * file the init container writes, restricted, no readiness probe), and, once a TopologyShardedPrometheus monitors the
 * cluster, a scrape of the exporters' port, the Redis zone alert rules of that cluster, and the NetworkPolicy opened
 * to the Prometheus pods on that port only.
 */
import { Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import {
  PrometheusOutput, TopologyShardedPrometheus, ZonalRedisCluster, ZonalRedisClusterProps, ZoneController, ZoneTopology,
} from '../../src';
import { only } from '../util';

const topology = new ZoneTopology({ zones: ['a', 'b', 'c'] });
const password = { name: 'redis-password', key: 'password' };

function monitored(props: Partial<ZonalRedisClusterProps> = {}, monitor = true) {
  const app = Testing.app();
  const controller = new ZoneController(new Chart(app, 'platform'), 'controller', { redisManager: true });
  const chart = new Chart(app, 'test', { namespace: 'data' });
  const redisProps = { controller, topology, masters: 3, password, ...props } as ZonalRedisClusterProps;
  const redis = new ZonalRedisCluster(chart, 'redis', redisProps);
  const monitoring = new Chart(app, 'monitoring', { namespace: 'monitoring' });
  const output = PrometheusOutput.STANDALONE;
  const prometheus = new TopologyShardedPrometheus(monitoring, 'prom', { topology, shards: 3, output });
  if (monitor) prometheus.monitor(redis);
  return { objects: Testing.synth(chart), monitoringObjects: Testing.synth(monitoring), redis, prometheus };
}

test('an exporter beside each redis-server: pinned, its password from the in-memory file the init container wrote, restricted', () => {
  const { objects } = monitored({}, false);
  for (const set of objects.filter((o) => o.kind === 'StatefulSet')) {
    const exporter = set.spec.template.spec.containers.find((c: any) => c.name === 'exporter');
    expect(exporter).toMatchObject({
      image: 'docker.io/oliver006/redis_exporter:v1.67.0',
      args: [
        '--redis.addr', 'redis://127.0.0.1:6379', '--redis.password-file', '/run/redis-auth/exporter.json',
        '--web.listen-address', ':9121',
      ],
      volumeMounts: [{ name: 'auth', mountPath: '/run/redis-auth', readOnly: true }],
      ports: [{ name: 'metrics', containerPort: 9121 }],
      securityContext: {
        allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] },
      },
    });
    // an exporter in trouble never takes the node out of its Services
    expect(exporter.readinessProbe).toBeUndefined();
    expect(exporter.env).toBeUndefined();
  }
  const image = monitored({ exporterImage: 'registry.example.com/redis_exporter:v1.70.0' }, false).objects
    .find((o) => o.kind === 'StatefulSet').spec.template.spec.containers[1].image;
  expect(image).toBe('registry.example.com/redis_exporter:v1.70.0');
});

test('nothing scrapes the exporters until a Prometheus monitors the cluster; then only its pods, on that port only', () => {
  const before = only(monitored({}, false).objects, 'NetworkPolicy').spec.ingress;
  expect(JSON.stringify(before)).not.toContain('"metrics"');
  const after = only(monitored().objects, 'NetworkPolicy').spec.ingress;
  expect(after).toEqual([...before, {
    ports: [{ protocol: 'TCP', port: 'metrics' }],
    from: [{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'monitoring-prom' } },
    }],
  }]);
});

test('the Prometheus scrapes the exporters of the cluster\'s pods and evaluates the cluster\'s zone rules', () => {
  const { monitoringObjects } = monitored();
  const config = monitoringObjects.find((o) => o.kind === 'ConfigMap' && o.data?.['prometheus.yml']).data['prometheus.yml'];
  const job = yaml.parse(config).scrape_configs.find((j: any) => j.job_name === 'data/redis-redis/metrics');
  // the exporter's series describe its own node: the target's namespace, pod and zone are theirs
  expect(job).toMatchObject({ metrics_path: '/metrics' });
  expect(job.honor_labels).toBeUndefined();
  const rules = yaml.parse(only(monitoringObjects, 'ConfigMap', 'monitoring-prom-rules').data['rules.yml']).groups[0].rules;
  expect(rules.map((r: any) => r.alert)).toEqual(['ZonalRedisShardInOneZone', 'ZonalRedisMastersOffPlan', 'ZonalRedisClusterUnhealthy']);
  expect(rules[0].expr).toContain('cdk8s_zones_redis_node{namespace="data", cluster="redis"}');
});
