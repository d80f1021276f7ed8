/**
 * `TopologyShardedPrometheus.monitor(target)`: for the operator output a PodMonitor whose selector is the target's pod
 * labels and a PrometheusRule with its zone alert rules, both in its namespace and labelled for `monitorSelector`,
 * picked up by every zone's Prometheus (whose zone relabeling keeps a shard to its zone's pods); for the standalone
 * output a scrape job in every shard's prometheus.yml, sharded as every other job, and the rules as a rule file every
 * shard mounts. The target's NetworkPolicy admits the shards' pods on its metrics port, and only that. Bad input: a
 * target twice, a target in a namespace the Prometheus does not look in, anything but a component of the library, a
 * standalone shard whose rule files' volume was taken away, a monitorSelector the monitors cannot carry.
 */
import { Chart, JsonPatch, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import {
  PrometheusOutput, ShardingMode, TopologyShardedPrometheus, TopologyShardedPrometheusProps, ZonalRedisCluster,
  ZoneController, ZoneTopology,
} from '../../src';
import { controllerAlertGroup } from '../../src/monitoring/controller-rules';
import { only } from '../util';

const topology = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });

function monitored(props: Partial<TopologyShardedPrometheusProps> = {}, monitor = true) {
  const app = Testing.app();
  const chart = new Chart(app, 'mon', { namespace: 'monitoring', disableResourceNameHashes: true });
  const controller = new ZoneController(chart, 'controller', { image: 'registry.example.com/cdk8s-zones/controller:1.0.0' });
  const prometheus = new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 3, ...props });
  if (monitor) prometheus.monitor(controller);
  return { objects: Testing.synth(chart), chart, controller, prometheus };
}

/** The rule that labels a series with its pod's node's zone, in prometheus-operator's spelling. */
const NODE_ZONE_TO_LABEL = {
  sourceLabels: ['__meta_kubernetes_node_label_topology_kubernetes_io_zone', '__meta_kubernetes_node_labelpresent_topology_kubernetes_io_zone', 'zone'],
  regex: '(.+);true;',
  targetLabel: 'zone',
  replacement: '$1',
  action: 'replace',
};

const controllerPolicy = (objects: any[]) => objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.namespace === 'cdk8s-zones-system');

describe('operator output', () => {
  const { objects } = monitored({ monitorSelector: { matchLabels: { team: 'platform' } } });

  test('a PodMonitor in the controller\'s namespace selects exactly its pods, on its metrics port, labelled for monitorSelector', () => {
    expect(only(objects, 'PodMonitor')).toEqual({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: { name: 'mon-prom-zone-controller-cdk8s-zones-controller', namespace: 'cdk8s-zones-system', labels: { team: 'platform' } },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'cdk8s-zones-controller', 'app.kubernetes.io/instance': 'cdk8s-zones-controller' } },
        // each series labelled with its pod's zone, from its node (the scrape class attaches the node's metadata),
        // unless the series has a zone (or namespace, pod) of its own: what it describes, which wins (honorLabels)
        podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', honorLabels: true, relabelings: [NODE_ZONE_TO_LABEL] }],
      },
    });
    // the selector reaches the controller's pods: their template carries those labels, and the port is theirs
    const pods = only(objects, 'Deployment').spec.template;
    expect(pods.metadata.labels).toMatchObject(only(objects, 'PodMonitor').spec.selector.matchLabels);
    expect(pods.spec.containers[0].ports).toContainEqual({ name: 'metrics', containerPort: 8080 });
  });

  test('a PrometheusRule beside it holds the controller\'s rules; every zone\'s Prometheus selects both', () => {
    const rule = only(objects, 'PrometheusRule');
    expect(rule.metadata).toEqual({
      name: 'mon-prom-zone-controller-cdk8s-zones-controller', namespace: 'cdk8s-zones-system', labels: { team: 'platform' },
    });
    expect(rule.spec.groups.map((g: any) => g.name)).toEqual(['cdk8s-zones-controller/cdk8s-zones-system/cdk8s-zones-controller']);
    const alerts = controllerAlertGroup().rules.map((r) => r.alert);
    expect(rule.spec.groups[0].rules.map((r: any) => r.alert)).toEqual(alerts);
    for (const prometheus of objects.filter((o) => o.kind === 'Prometheus')) {
      expect(prometheus.spec).toMatchObject({
        podMonitorSelector: { matchLabels: { team: 'platform' } },
        podMonitorNamespaceSelector: {},
        ruleSelector: { matchLabels: { team: 'platform' } },
        ruleNamespaceSelector: {},
      });
      // the zone relabeling of the default scrape class keeps each Prometheus to its zone's pods
      expect(prometheus.spec.scrapeClasses[0]).toMatchObject({ name: 'zone-sharding', default: true });
    }
  });

  test('the controller\'s NetworkPolicy admits the Prometheus pods of the monitoring namespace on the metrics port only', () => {
    expect(controllerPolicy(objects).spec.ingress).toContainEqual({
      ports: [{ protocol: 'TCP', port: 'metrics' }],
      from: [{
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
        podSelector: { matchLabels: { 'cdk8s-zones.dev/instance': 'mon-prom' } },
      }],
    });
    const before = controllerPolicy(monitored({}, false).objects).spec.ingress;
    expect(controllerPolicy(objects).spec.ingress).toHaveLength(before.length + 1);
  });

  test('an agent scrapes the controller and gets no rules (it evaluates none)', () => {
    const agent = monitored({ output: PrometheusOutput.AGENT, remoteWrite: [{ url: 'https://mimir.example.com/api/v1/push' }] }).objects;
    expect(agent.filter((o) => o.kind === 'PodMonitor')).toHaveLength(1);
    expect(agent.filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    for (const a of agent.filter((o) => o.kind === 'PrometheusAgent')) expect(a.spec.ruleSelector).toBeUndefined();
  });

  test('monitorNamespaces: every selector of monitors and rules names them', () => {
    const { objects: limited } = monitored({ monitorNamespaces: ['cdk8s-zones-system', 'apps'] });
    const names = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['cdk8s-zones-system', 'apps'] }] };
    for (const prometheus of limited.filter((o) => o.kind === 'Prometheus')) {
      for (const kind of ['serviceMonitor', 'podMonitor', 'probe', 'scrapeConfig', 'rule']) {
        expect(prometheus.spec[`${kind}NamespaceSelector`]).toEqual(names);
      }
    }
  });
});

describe('standalone output', () => {
  const { objects } = monitored({ output: PrometheusOutput.STANDALONE });
  const configs = objects.filter((o) => o.kind === 'ConfigMap' && o.data?.['prometheus.yml']);

  test('every shard scrapes the controller\'s pods on their metrics port, zone-locally', () => {
    expect(configs).toHaveLength(3);
    for (const map of configs) {
      const config = yaml.parse(map.data['prometheus.yml']);
      const job = config.scrape_configs.find((j: any) => j.job_name === 'cdk8s-zones-system/zone-controller-cdk8s-zones-controller/metrics');
      expect(job.kubernetes_sd_configs).toEqual([
        { role: 'pod', namespaces: { names: ['cdk8s-zones-system'] }, attach_metadata: { node: true } },
      ]);
      expect(job.metrics_path).toBe('/metrics');
      expect(job.honor_labels).toBe(true); // its series' zone, namespace and pod: what they describe
      expect(job.relabel_configs.slice(0, 3)).toEqual([
        { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name', '__meta_kubernetes_pod_labelpresent_app_kubernetes_io_name'], regex: 'cdk8s-zones-controller;true', action: 'keep' },
        { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_instance', '__meta_kubernetes_pod_labelpresent_app_kubernetes_io_instance'], regex: 'cdk8s-zones-controller;true', action: 'keep' },
        { source_labels: ['__meta_kubernetes_pod_container_port_name'], regex: 'metrics', action: 'keep' },
      ]);
      // its series labelled with their pod's zone; the same zone rules as the shard's other jobs
      const other = config.scrape_configs.find((j: any) => j.job_name === 'kubernetes-pods');
      const firstShardRule = other.relabel_configs.findIndex((r: any) => JSON.stringify(r).includes('__tmp_'));
      const shardRules = other.relabel_configs.slice(firstShardRule);
      expect(shardRules.length).toBeGreaterThan(2);
      expect(job.relabel_configs.slice(-shardRules.length - 1)).toEqual([{
        source_labels: NODE_ZONE_TO_LABEL.sourceLabels, regex: '(.+);true;', target_label: 'zone', replacement: '$1', action: 'replace',
      }, ...shardRules]);
      expect(config.rule_files).toEqual(['/etc/prometheus-rules/rules.yml']);
    }
  });

  test('the rules in one ConfigMap, mounted by every shard; a change of rules rolls the shards', () => {
    const rules = only(objects, 'ConfigMap', 'mon-prom-rules');
    expect(yaml.parse(rules.data['rules.yml']).groups[0].rules.map((r: any) => r.alert))
      .toEqual(controllerAlertGroup().rules.map((r) => r.alert));
    for (const set of objects.filter((o) => o.kind === 'StatefulSet')) {
      expect(set.spec.template.spec.volumes).toContainEqual({ name: 'rules', configMap: { name: 'mon-prom-rules' } });
      expect(set.spec.template.spec.containers[0].volumeMounts)
        .toContainEqual({ name: 'rules', mountPath: '/etc/prometheus-rules', readOnly: true });
    }
    const hash = (objs: any[]) => objs.find((o) => o.kind === 'StatefulSet').spec.template.metadata.annotations;
    expect(hash(objects)).not.toEqual(hash(monitored({ output: PrometheusOutput.STANDALONE }, false).objects));
  });

  test('nothing monitored: no rule file, no rules volume (the output is as before)', () => {
    const { objects: plain } = monitored({ output: PrometheusOutput.STANDALONE }, false);
    expect(plain.filter((o) => o.metadata.name === 'mon-prom-rules')).toEqual([]);
    for (const set of plain.filter((o) => o.kind === 'StatefulSet')) {
      expect(set.spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['config', 'data']);
    }
    expect(yaml.parse(plain.find((o) => o.kind === 'ConfigMap').data['prometheus.yml']).rule_files).toBeUndefined();
  });
});

describe('a Prometheus monitoring itself', () => {
  function selfMonitored(props: Partial<TopologyShardedPrometheusProps>) {
    const chart = new Chart(Testing.app(), 'mon', { namespace: 'monitoring', disableResourceNameHashes: true });
    const prometheus = new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 3, ...props });
    prometheus.monitor(prometheus);
    return Testing.synth(chart);
  }

  test('operator output: its shards\' pods on the web port, and the rule that tells a shard that lost its zone\'s targets', () => {
    const objects = selfMonitored({});
    expect(only(objects, 'PodMonitor').spec).toMatchObject({
      selector: { matchLabels: { 'cdk8s-zones.dev/instance': 'mon-prom' } },
      podMetricsEndpoints: [{ port: 'web', path: '/metrics' }],
    });
    // prometheus-operator's pods of this Prometheus carry that label
    for (const p of objects.filter((o) => o.kind === 'Prometheus')) {
      expect(p.spec.podMetadata.labels).toMatchObject({ 'cdk8s-zones.dev/instance': 'mon-prom' });
    }
    const rule = only(objects, 'PrometheusRule').spec.groups[0].rules[0];
    expect(rule.alert).toBe('PrometheusShardLostZoneTargets');
    expect(rule.expr).toContain('prometheus_target_scrape_pool_targets{namespace="monitoring", pod=~"prometheus-mon-prom-.+"}');
  });

  test('standalone output: its own job scrapes its zone\'s shards, and its NetworkPolicy admits its own pods on the web port', () => {
    const objects = selfMonitored({ output: PrometheusOutput.STANDALONE });
    const config = yaml.parse(objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'mon-prom-zone-a-0').data['prometheus.yml']);
    expect(config.scrape_configs.map((j: any) => j.job_name)).toContain('monitoring/prometheus-mon-prom/web');
    const instance = { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'mon-prom' };
    expect(only(objects, 'NetworkPolicy').spec.ingress).toContainEqual({
      ports: [{ protocol: 'TCP', port: 'web' }],
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } }, podSelector: { matchLabels: instance } }],
    });
    expect(yaml.parse(only(objects, 'ConfigMap', 'mon-prom-rules').data['rules.yml']).groups[0].rules[0].expr)
      .toContain('pod=~"mon-prom-.+"');
  });

  test('address mode: scraped, with no zone rule (its shards are not zone-local)', () => {
    const objects = selfMonitored({ mode: ShardingMode.ADDRESS });
    expect(objects.filter((o) => o.kind === 'PodMonitor')).toHaveLength(1);
    expect(objects.filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
  });
});

test('components of two kinds with one name in one namespace: their monitors apart', () => {
  const chart = new Chart(Testing.app(), 'mon', { namespace: 'monitoring', disableResourceNameHashes: true });
  const controller = new ZoneController(chart, 'controller', { image: 'registry.example.com/cdk8s-zones/controller:1.0.0', redisManager: true });
  const password = { name: 'redis-password', key: 'password' };
  const redis = new ZonalRedisCluster(chart, 'redis', { controller, topology, masters: 3, password, name: 'mon-prom' });
  const prometheus = new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 3 });
  prometheus.monitor(redis);
  prometheus.monitor(prometheus);
  const monitors = Testing.synth(chart).filter((o) => o.kind === 'PodMonitor');
  expect(monitors.map((o) => `${o.metadata.namespace}/${o.metadata.name}`))
    .toEqual(['monitoring/mon-prom-redis-mon-prom', 'monitoring/mon-prom-prometheus-mon-prom']);
});

describe('bad input', () => {
  test('the same target twice', () => {
    const { controller, prometheus } = monitored();
    expect(() => prometheus.monitor(controller)).toThrow(
      "TopologyShardedPrometheus 'mon/prom'.monitor: target=\"ZoneController 'mon/controller'\" is monitored already: each target once");
  });

  test('a target in a namespace the Prometheus does not look in', () => {
    expect(() => monitored({ monitorNamespaces: ['apps'] })).toThrow(
      "TopologyShardedPrometheus 'mon/prom'.monitor: target=\"ZoneController 'mon/controller'\" is in namespace \"cdk8s-zones-system\", " +
      'which this Prometheus does not look in (monitorNamespaces ["apps"]): add the namespace to monitorNamespaces');
  });

  test('anything but a component of the library, from JavaScript too', () => {
    const { chart, prometheus } = monitored({}, false);
    expect(() => prometheus.monitor(chart)).toThrow(
      "TopologyShardedPrometheus 'mon/prom'.monitor: target=\"mon\" is not a component the library can monitor: pass a ZoneController, " +
      'ZonalRedisCluster, ZoneAwareLokiStack or TopologyShardedPrometheus');
    expect(() => prometheus.monitor(undefined as any)).toThrow(/target=undefined is not a component the library can monitor/);
  });

  test('a monitorSelector the monitors cannot carry', () => {
    expect(() => monitored({ monitorSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } })).toThrow(
      /monitorSelector=.* cannot select the monitors and rules monitor\(\) writes/);
  });

  test('a standalone shard whose rule files\' volume an escape hatch took away', () => {
    const { chart, prometheus, controller } = monitored({ output: PrometheusOutput.STANDALONE }, false);
    prometheus.monitor(controller);
    prometheus.statefulSets[1].addJsonPatch(JsonPatch.remove('/spec/template/spec/volumes/2'));
    expect(() => Testing.synth(chart)).toThrow(
      /StatefulSet mon-prom-zone-b-0 does not mount the rule files' volume \(ConfigMap mon-prom-rules at \/etc\/prometheus-rules\)/);
  });
});
