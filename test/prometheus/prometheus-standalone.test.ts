import { Size } from 'cdk8s';
import { PrometheusOutput, ZoneTopology } from '../../src';
import { only } from '../util';
import { shardConfig, synthesize } from './prometheus-fixtures';

describe('TopologyShardedPrometheus, standalone output', () => {
  const { objects } = synthesize({
    shards: 4,
    output: PrometheusOutput.STANDALONE,
    replicas: 2,
    externalLabels: { cluster: 'prod' },
  });
  const statefulSets = objects.filter((o) => o.kind === 'StatefulSet');

  test('per shard a StatefulSet, a ConfigMap and a PodDisruptionBudget, named by zone and in-zone index', () => {
    const names = ['mon-prom-zone-a-0', 'mon-prom-zone-b-0', 'mon-prom-zone-c-0', 'mon-prom-zone-a-1'];
    for (const kind of ['StatefulSet', 'ConfigMap', 'PodDisruptionBudget']) {
      expect(objects.filter((o) => o.kind === kind).map((o) => o.metadata.name)).toEqual(names);
    }
    expect(only(objects, 'Service').spec).toMatchObject({ clusterIP: 'None', selector: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'mon-prom' } });
    expect(only(objects, 'PodDisruptionBudget', 'mon-prom-zone-a-1').spec).toEqual({
      maxUnavailable: 1, selector: statefulSets[3].spec.selector,
    });
  });

  test('a NetworkPolicy isolates the shards: the web port from the namespace by default, or from the clients named; ingress only', () => {
    const instance = { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'mon-prom' };
    expect(only(objects, 'NetworkPolicy').spec).toEqual({
      podSelector: { matchLabels: instance },
      policyTypes: ['Ingress'],
      ingress: [{ ports: [{ protocol: 'TCP', port: 'web' }], from: [{ podSelector: { matchLabels: {} } }] }],
    });
    const grafana = { namespaceLabels: { team: 'observability' }, podLabels: { app: 'grafana' } };
    const custom = synthesize({
      shards: 3,
      output: PrometheusOutput.STANDALONE,
      networkPolicy: { clients: [grafana] },
    }).objects;
    expect(only(custom, 'NetworkPolicy').spec.ingress).toEqual([{
      ports: [{ protocol: 'TCP', port: 'web' }],
      from: [{ namespaceSelector: { matchLabels: { team: 'observability' } }, podSelector: { matchLabels: { app: 'grafana' } } }],
    }]);
    const off = synthesize({
      shards: 3,
      output: PrometheusOutput.STANDALONE,
      networkPolicy: { enabled: false },
    }).objects;
    expect(off.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  test('each shard is pinned to its zone and its prometheus.yml keeps only its slice of its zone', () => {
    const sts = only(objects, 'StatefulSet', 'mon-prom-zone-a-1');
    expect(sts.spec.replicas).toBe(2);
    expect(sts.spec.template.spec.nodeSelector).toEqual({ 'topology.kubernetes.io/zone': 'zone-a' });
    const config = shardConfig(objects, 'mon-prom-zone-a-1');
    expect(config.global).toEqual({
      scrape_interval: '30s',
      external_labels: { cluster: 'prod', zone: 'zone-a', prometheus_replica: '${POD_NAME}' },
    });
    expect(config.scrape_configs.map((j: any) => [j.job_name, j.kubernetes_sd_configs])).toEqual([
      ['kubernetes-pods', [{ role: 'pod', attach_metadata: { node: true } }]],
      ['kubernetes-service-endpoints', [{ role: 'endpointslice', attach_metadata: { node: true } }]],
    ]);
    for (const job of config.scrape_configs) {
      expect(job.relabel_configs.slice(-4).map((r: any) => r.modulus ?? r.regex)).toEqual(['(?:zone-a)?;|.*;.+', '(.+);', 2, '1;|.+;.+']);
    }
  });

  test('the pods meet Pod Security "restricted", with probes and resource requests', () => {
    for (const sts of statefulSets) {
      const spec = sts.spec.template.spec;
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(spec.volumes.every((v: any) => v.configMap || v.emptyDir)).toBe(true);
      for (const c of spec.containers) {
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(c.resources.requests).toEqual({ cpu: '100m', memory: '512Mi' });
        expect(c.readinessProbe.httpGet.path).toBe('/-/ready');
        expect(c.livenessProbe.httpGet.path).toBe('/-/healthy');
        expect(c.image).toBe('quay.io/prometheus/prometheus:v3.5.0');
      }
    }
  });

  test('a config change rolls the pods: the template carries a hash of the prometheus.yml', () => {
    const hash = (o: any[]) => only(o, 'StatefulSet', 'mon-prom-zone-a-0').spec.template.metadata.annotations['cdk8s-zones.dev/config-hash'];
    const other = synthesize({
      shards: 4,
      output: PrometheusOutput.STANDALONE,
      replicas: 2,
      externalLabels: { cluster: 'test' },
    }).objects;
    expect(hash(objects)).toMatch(/^[0-9a-f]{16}$/);
    expect(hash(other)).not.toBe(hash(objects));
  });

  test('persistent storage: a volume claim template instead of the emptyDir', () => {
    const sts = synthesize({ output: PrometheusOutput.STANDALONE, storage: { size: Size.gibibytes(20) } }).objects
      .find((o) => o.kind === 'StatefulSet');
    expect(sts.spec.volumeClaimTemplates).toEqual([{
      metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
    }]);
    expect(sts.spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['config']);
  });

  test('zone names that are not DNS labels become safe object names', () => {
    const odd = new ZoneTopology({ zones: ['EU_West.1a', 'eu-west-1b'] });
    const names = synthesize({ topology: odd, shards: 2, output: PrometheusOutput.STANDALONE }).objects
      .filter((o) => o.kind === 'StatefulSet').map((o) => o.metadata.name);
    // the valid zone keeps its name; the other one is cleaned and told apart by a hash of the zone
    expect(names).toEqual([expect.stringMatching(/^mon-prom-eu-west-1a-[0-9a-f]{6}-0$/), 'mon-prom-eu-west-1b-0']);
    const clash = new ZoneTopology({ zones: ['a.b', 'a_b'] });
    const clashing = synthesize({ topology: clash, shards: 2, output: PrometheusOutput.STANDALONE }).objects
      .filter((o) => o.kind === 'StatefulSet').map((o) => o.metadata.name);
    expect(clashing).toEqual([expect.stringMatching(/^mon-prom-a-b-[0-9a-f]{6}-0$/), expect.stringMatching(/^mon-prom-a-b-[0-9a-f]{6}-0$/)]);
    expect(new Set(clashing).size).toBe(2);
  });
});
