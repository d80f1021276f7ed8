/**
 * A ZoneAwareLokiStack (direct output) monitored by a TopologyShardedPrometheus: every Loki component's pods (the
 * memberlist label) scraped on their HTTP port, the stack's zone rules (its ingesters per zone, its ring), its
 * dashboard row, and its NetworkPolicy opened to the Prometheus pods on the HTTP port. The operator's output is
 * refused with the reason: the Loki operator scrapes its own components.
 */
import { Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { topology, operatorStorage } from './loki-fixtures';
import { PrometheusOutput, TopologyShardedPrometheus, ZoneAwareLokiStack } from '../../src';
import { only } from '../util';

function monitoredLoki(monitor = true) {
  const app = Testing.app();
  const logs = new Chart(app, 'logs', { namespace: 'logs' });
  const loki = new ZoneAwareLokiStack(logs, 'loki', {
    topology, name: 'loki', direct: { objectStorage: { bucket: 'logs', endpoint: 'minio:9000', credentialsSecretName: 'minio' } },
  });
  const monitoring = new Chart(app, 'monitoring', { namespace: 'monitoring' });
  const output = PrometheusOutput.STANDALONE;
  const prometheus = new TopologyShardedPrometheus(monitoring, 'prom', { topology, shards: 3, output });
  if (monitor) prometheus.monitor(loki);
  return { logs: Testing.synth(logs), monitoring: Testing.synth(monitoring), prometheus };
}

test('every Loki component\'s pods scraped on the HTTP port; the stack\'s rules; its NetworkPolicy opened on that port only', () => {
  const { logs, monitoring } = monitoredLoki();
  const config = yaml.parse(monitoring.find((o) => o.kind === 'ConfigMap' && o.data?.['prometheus.yml']).data['prometheus.yml']);
  const job = config.scrape_configs.find((j: any) => j.job_name === 'logs/loki-loki/http');
  expect(job.relabel_configs[0]).toEqual({
    source_labels: ['__meta_kubernetes_pod_label_cdk8s_zones_dev_loki_memberlist', '__meta_kubernetes_pod_labelpresent_cdk8s_zones_dev_loki_memberlist'],
    regex: 'loki;true',
    action: 'keep',
  });
  // every Loki component carries that label and serves /metrics on its http port
  const workloads = logs.filter((o) => o.kind === 'StatefulSet' || o.kind === 'Deployment');
  const lokiPods = workloads.filter((w) => w.spec.template.metadata.labels['cdk8s-zones.dev/loki-memberlist'] === 'loki');
  expect(lokiPods.length).toBeGreaterThan(3);
  for (const w of lokiPods) {
    expect(w.spec.template.spec.containers[0].ports).toContainEqual({ name: 'http', containerPort: 3100 });
  }
  const rules = yaml.parse(only(monitoring, 'ConfigMap', 'monitoring-prom-rules').data['rules.yml']).groups[0].rules;
  expect(rules.map((r: any) => r.alert)).toEqual(['LokiIngestersDownInZone', 'LokiRingOneZoneFromQuorumLoss']);
  expect(rules[0].expr).toBe('count by (namespace, zone) (up{namespace="logs", pod=~"loki-ingester-.+"} == 0) > 0');
  const policy = logs.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'loki');
  const before = monitoredLoki(false).logs.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'loki');
  expect(policy.spec.ingress).toEqual([...before.spec.ingress, {
    ports: [{ protocol: 'TCP', port: 'http' }],
    from: [{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'monitoring-prom' } },
    }],
  }]);
});

test('the operator output is refused, with the reason', () => {
  const chart = new Chart(Testing.app(), 'logs', { namespace: 'logs' });
  const operator = { objectStorage: operatorStorage, storageClassName: 'gp3' };
  const loki = new ZoneAwareLokiStack(chart, 'loki', { topology, operator });
  const prometheus = new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 3 });
  expect(() => prometheus.monitor(loki)).toThrow(
    "ZoneAwareLokiStack 'logs/loki': operator=\"set\" is the Loki operator's output: the operator scrapes its own components");
});
