import { Chart, Duration, Testing } from 'cdk8s';
import { RedisShardLayout, ZonalRedisCluster, ZonalRedisClusterProps, ZoneTopology } from '../../src';

const topology = new ZoneTopology({ zones: ['a', 'b', 'c'] });

function synth(props: Partial<ZonalRedisClusterProps> = {}): any[] {
  const chart = new Chart(Testing.app(), 'test');
  new ZonalRedisCluster(chart, 'redis', { topology, masters: 3, ...props });
  return Testing.synth(chart);
}

describe('ZonalRedisCluster', () => {
  const manifests = synth({ clusterNodeTimeout: Duration.millis(1500), requireFullCoverage: true });
  const statefulSets = manifests.filter((m) => m.kind === 'StatefulSet');
  const pod = statefulSets[0].spec.template.spec;
  const container = pod.containers[0];

  test('objects: config, layout, headless and client Services, then a StatefulSet and a PDB per zone', () => {
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'ConfigMap/redis-config', 'ConfigMap/redis-layout', 'Service/redis-nodes', 'Service/redis',
      'StatefulSet/redis-a', 'PodDisruptionBudget/redis-a', 'StatefulSet/redis-b', 'PodDisruptionBudget/redis-b',
      'StatefulSet/redis-c', 'PodDisruptionBudget/redis-c',
    ]);
    expect(manifests.find((m) => m.metadata.name === 'redis-nodes').spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });

  test('redis.conf: cluster mode, append-only, the node timeout and full coverage as given', () => {
    const conf = manifests[0].data['redis.conf'];
    expect(conf).toMatch(/^cluster-enabled yes$/m);
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^cluster-node-timeout 1500$/m);
    expect(conf).toMatch(/^cluster-require-full-coverage yes$/m);
    expect(synth()[0].data['redis.conf']).toMatch(/^cluster-require-full-coverage no$/m);
  });

  test('the layout ConfigMap holds the planned layout', () => {
    const json = manifests[1].data['layout.json'];
    expect(RedisShardLayout.fromJson(json).nodes).toEqual(RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 }).nodes);
  });

  test('each StatefulSet is pinned to its zone; pods of a shard are kept off one host, hard', () => {
    expect(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] },
    ]);
    // zone a holds master 0 (replica on b-0) and the replica of shard 2 (master on c-1)
    expect(pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([{
      topologyKey: 'kubernetes.io/hostname',
      labelSelector: {
        matchLabels: { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'redis' },
        matchExpressions: [{ key: 'statefulset.kubernetes.io/pod-name', operator: 'In', values: ['redis-b-0', 'redis-c-1'] }],
      },
    }]);
    expect(statefulSets.map((s) => s.spec.updateStrategy.type)).toEqual(['OnDelete', 'OnDelete', 'OnDelete']);
  });

  test('restricted pod security: non-root, read-only root, writable data and tmp, probes, requests', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.volumeMounts.map((v: any) => v.mountPath)).toEqual(['/etc/redis', '/data', '/tmp']);
    expect(container.readinessProbe.exec.command).toEqual(['redis-cli', '-h', '127.0.0.1', '-p', '6379', 'ping']);
    expect(container.resources.requests).toEqual({ cpu: '100m', memory: '256Mi' });
  });

  test('storage: a volume claim per pod of the given size and class', () => {
    const sts = synth({ storage: { size: '5Gi', storageClassName: 'zonal' } }).find((m) => m.kind === 'StatefulSet');
    expect(sts.spec.volumeClaimTemplates[0].spec).toEqual({
      accessModes: ['ReadWriteOnce'], storageClassName: 'zonal', resources: { requests: { storage: '5Gi' } },
    });
    expect(sts.spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['config', 'tmp']);
  });

  test.each([
    [{ masters: 2 }, "ZonalRedisCluster 'test/redis': masters=2 must be an integer >= 3"],
    [{ masters: 4 }, "ZonalRedisCluster 'test/redis': masters=4 over 3 zones puts 2 masters in one zone"],
    [{ replicasPerMaster: -1 }, "ZonalRedisCluster 'test/redis': replicasPerMaster=-1 must be an integer >= 0"],
    [{ topology: new ZoneTopology({ zones: ['a', 'b'] }) }, "ZonalRedisCluster 'test/redis': zones=[\"a\",\"b\"] has 2 zone(s)"],
    [{ password: { name: 'pw', key: '' } }, "ZonalRedisCluster 'test/redis': password={\"name\":\"pw\",\"key\":\"\"} must name both the Secret"],
    [{ storage: { size: 'ten gigs' } }, "ZonalRedisCluster 'test/redis': storage.size=\"ten gigs\" is not a byte quantity"],
    [{ clusterNodeTimeout: Duration.millis(10) }, "ZonalRedisCluster 'test/redis': clusterNodeTimeout=\"10ms\" must be a whole number of milliseconds >= 100"],
  ])('refuses %j', (props, message) => {
    expect(() => synth(props as Partial<ZonalRedisClusterProps>)).toThrow(message);
  });
});
