import { Testing } from 'cdk8s';
import { build } from './main';

describe('example prometheus-3-zones', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const prometheuses = manifests.filter((m) => m.kind === 'Prometheus');

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('one Prometheus per zone, two shards of two replicas each, pinned to its zone', () => {
    expect(prometheuses.map((p) => [p.metadata.name, p.spec.shards, p.spec.replicas, p.spec.nodeSelector])).toEqual([
      ['prometheus-zone-a', 2, 2, { 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'zone-a' }],
      ['prometheus-zone-b', 2, 2, { 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'zone-b' }],
      ['prometheus-zone-c', 2, 2, { 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'zone-c' }],
    ]);
  });

  test('each keeps only its zone (the first also unzoned targets) and labels its samples with it', () => {
    const keep = prometheuses.map((p) => p.spec.scrapeClasses[0].relabelings.find((r: any) => r.action === 'keep').regex);
    expect(keep).toEqual(['(?:zone-a)?;|.*;.+', 'zone-b;|.*;.+', 'zone-c;|.*;.+']);
    expect(prometheuses.map((p) => p.spec.externalLabels)).toEqual([
      { cluster: 'example', zone: 'zone-a' }, { cluster: 'example', zone: 'zone-b' }, { cluster: 'example', zone: 'zone-c' },
    ]);
    for (const p of prometheuses) {
      expect(p.spec.scrapeClasses[0]).toMatchObject({ default: true, attachMetadata: { node: true } });
    }
  });

  test('the namespace enforces Pod Security "restricted" and the pods run as non-root with RuntimeDefault seccomp', () => {
    expect(manifests.find((m) => m.kind === 'Namespace').metadata.labels).toEqual({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    for (const p of prometheuses) {
      expect(p.metadata.namespace).toBe('monitoring');
      expect(p.spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    }
  });
});
