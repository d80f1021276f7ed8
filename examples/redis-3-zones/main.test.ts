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

  test('one StatefulSet per zone, pinned to it, scaled by the manager; the layout ConfigMap names each pod\'s role', () => {
    const pinnedTo = (s: any) => {
      const required = s.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
      return required.nodeSelectorTerms[0].matchExpressions[0].values;
    };
    expect(statefulSets.map((s) => [s.metadata.name, s.spec.replicas, pinnedTo(s)])).toEqual([
      ['redis-zone-a', undefined, ['zone-a']], ['redis-zone-b', undefined, ['zone-b']], ['redis-zone-c', undefined, ['zone-c']],
    ]);
    const layout = JSON.parse(manifests.find((m) => m.metadata.name === 'redis-layout').data['layout.json']);
    expect(layout.nodes.map((n: any) => `${n.name}:${n.role}${n.shard}`)).toEqual([
      'zone-a-0:master0', 'zone-a-1:replica2', 'zone-b-0:replica0', 'zone-b-1:master1', 'zone-c-0:replica1', 'zone-c-1:master2',
    ]);
  });

  test('the password: a Secret made outside the app (none in it), mounted into the init container only, never in args or env', () => {
    expect(manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    const pod = statefulSets[0].spec.template.spec;
    expect(pod.volumes).toContainEqual({
      name: 'redis-password', secret: { secretName: 'redis-password', items: [{ key: 'password', path: 'password' }], defaultMode: 0o440 },
    });
    expect(pod.initContainers.map((c: any) => c.volumeMounts.map((m: any) => m.name))).toEqual([['redis-password', 'auth']]);
    const container = pod.containers[0];
    expect(container.args).toEqual(['/etc/redis/redis.conf', '--include', '/run/redis-auth/auth.conf', '--dir', '/data', '--cluster-announce-ip', '$(POD_IP)']);
    expect(container.env).toEqual([{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }]);
    expect(manifests.find((m) => m.metadata.name === 'redis-config').data['redis.conf']).not.toMatch(/pass/);
  });
});
