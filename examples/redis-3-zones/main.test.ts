import { Testing } from 'cdk8s';
import { build } from './main';

describe('example redis-3-zones', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const statefulSets = manifests.filter((m) => m.kind === 'StatefulSet');

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('one StatefulSet of 2 pods per zone, pinned to it; the layout ConfigMap names each pod\'s role', () => {
    const pinnedTo = (s: any) =>
      s.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values;
    expect(statefulSets.map((s) => [s.metadata.name, s.spec.replicas, pinnedTo(s)])).toEqual([
      ['redis-zone-a', 2, ['zone-a']], ['redis-zone-b', 2, ['zone-b']], ['redis-zone-c', 2, ['zone-c']],
    ]);
    const layout = JSON.parse(manifests.find((m) => m.metadata.name === 'redis-layout').data['layout.json']);
    expect(layout.nodes.map((n: any) => `${n.name}:${n.role}${n.shard}`)).toEqual([
      'zone-a-0:master0', 'zone-a-1:replica2', 'zone-b-0:replica0', 'zone-b-1:master1', 'zone-c-0:replica1', 'zone-c-1:master2',
    ]);
  });

  test('the password comes from the Secret through the environment, never in a manifest', () => {
    const container = statefulSets[0].spec.template.spec.containers[0];
    expect(container.env).toContainEqual({ name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'redis-password', key: 'password' } } });
    expect(container.args).toEqual(['/etc/redis/redis.conf', '--dir', '/data', '--cluster-announce-ip', '$(POD_IP)', '--requirepass', '$(REDIS_PASSWORD)', '--masterauth', '$(REDIS_PASSWORD)']);
    expect(manifests.find((m) => m.metadata.name === 'redis-config').data['redis.conf']).not.toMatch(/pass/);
  });
});
