import { Testing } from 'cdk8s';
import { build } from './main';

describe('example prometheus-standalone', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const statefulSets = manifests.filter((m) => m.kind === 'StatefulSet');
  const config = (name: string): string => manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === name).data['prometheus.yml'];

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('seven shards: three in zone-a, two in zone-b and zone-c, each pinned to its zone', () => {
    expect(statefulSets.map((s) => [s.metadata.name, s.spec.template.spec.nodeSelector['topology.kubernetes.io/zone']])).toEqual([
      ['prometheus-zone-a-0', 'zone-a'], ['prometheus-zone-b-0', 'zone-b'], ['prometheus-zone-c-0', 'zone-c'],
      ['prometheus-zone-a-1', 'zone-a'], ['prometheus-zone-b-1', 'zone-b'], ['prometheus-zone-c-1', 'zone-c'],
      ['prometheus-zone-a-2', 'zone-a'],
    ]);
  });

  test('every shard works: the in-zone modulus is the zone\'s shard count', () => {
    // every job (pods, service endpoints, the shards' own) hashes into the zone's shard count, keeps the shard's bucket
    const sharding = (name: string) => [...config(name).matchAll(/modulus: (\d+)\n\s+action: hashmod\n\s+- source_labels:\n\s+- __tmp_hash\n\s+- __tmp_disable_sharding\n\s+regex: (.*)\n/g)]
      .map((m) => [Number(m[1]), m[2]]);
    expect(sharding('prometheus-zone-a-2')).toEqual([[3, '2;|.+;.+'], [3, '2;|.+;.+'], [3, '2;|.+;.+']]);
    expect(sharding('prometheus-zone-c-1')).toEqual([[2, '1;|.+;.+'], [2, '1;|.+;.+'], [2, '1;|.+;.+']]);
    expect(config('prometheus-zone-b-0')).toContain('regex: zone-b;|.*;.+');
  });

  test('least-privilege discovery RBAC and Pod Security "restricted" pods', () => {
    expect(manifests.find((m) => m.kind === 'ClusterRole').rules.flatMap((r: any) => r.resources)).toEqual(['nodes', 'pods', 'services', 'endpointslices']);
    for (const s of statefulSets) {
      const pod = s.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.containers[0].securityContext).toMatchObject({
        allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] },
      });
    }
  });
});
