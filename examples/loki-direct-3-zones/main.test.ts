import { Testing } from 'cdk8s';
import { build } from './main';

describe('example loki-direct-3-zones', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const statefulSets = manifests.filter((m) => m.kind === 'StatefulSet');

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('one ingester StatefulSet per zone, 2 ingesters each, pinned to its zone with the zone in its arguments', () => {
    const zonesOf = (s: any) => {
      const required = s.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
      return required.nodeSelectorTerms[0].matchExpressions[0].values;
    };
    expect(statefulSets.map((s) => [
      s.metadata.name, s.spec.replicas, zonesOf(s),
      s.spec.template.spec.containers[0].args.at(-1),
    ])).toEqual(['zone-a', 'zone-b', 'zone-c'].map((zone) => [
      `logs-ingester-${zone}`, 2, [zone], `-common.storage.ring.instance-availability-zone=${zone}`,
    ]));
  });

  test('the shared Loki config: zone awareness, replication factor 3, memberlist, S3', () => {
    const config = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'logs-config').data['config.yaml'];
    expect(config).toContain('zone_awareness_enabled: true');
    expect(config).toContain('replication_factor: 3');
    expect(config).toContain('- logs-memberlist:7946');
    expect(config).toContain('endpoint: minio.storage.svc:9000');
  });

  test('the namespace enforces Pod Security "restricted"', () => {
    expect(manifests.find((m) => m.kind === 'Namespace').metadata.labels).toEqual({ 'pod-security.kubernetes.io/enforce': 'restricted' });
  });
});
