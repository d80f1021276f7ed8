import { App, Chart, Duration, Testing } from 'cdk8s';
import {
  RedisShardLayout, WebhookFailurePolicy, WebhookTls, ZonalRedisCluster, ZonalRedisClusterProps, ZoneController, ZoneControllerProps, ZoneTopology,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';

const topology = new ZoneTopology({ zones: ['a', 'b', 'c'] });

/** The cluster's chart, in an app whose platform chart installs the controller (as a GitOps repository would). */
function synth(props: Partial<ZonalRedisClusterProps> = {}, controller: ZoneControllerProps = { redisManager: true }): any[] {
  const app = Testing.app();
  new ZoneController(new Chart(app, 'platform'), 'controller', controller);
  return synthIn(app, props);
}

function synthIn(app: App, props: Partial<ZonalRedisClusterProps> = {}): any[] {
  const chart = new Chart(app, 'test');
  new ZonalRedisCluster(chart, 'redis', { topology, masters: 3, ...props });
  return Testing.synth(chart);
}

const kinds = (objects: any[]) => objects.map((m) => `${m.kind}/${m.metadata.name}`);
const zdbController: ZoneControllerProps = { redisManager: true, zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged() };

describe('ZonalRedisCluster', () => {
  const manifests = synth({ clusterNodeTimeout: Duration.millis(1500), requireFullCoverage: true });
  const statefulSets = manifests.filter((m) => m.kind === 'StatefulSet');
  const pod = statefulSets[0].spec.template.spec;
  const container = pod.containers[0];

  test('objects: config, layout, headless and client Services, a StatefulSet per zone, one disruption budget', () => {
    expect(kinds(manifests)).toEqual([
      'ConfigMap/redis-config', 'ConfigMap/redis-layout', 'Service/redis-nodes', 'Service/redis',
      'StatefulSet/redis-a', 'StatefulSet/redis-b', 'StatefulSet/redis-c', 'PodDisruptionBudget/redis',
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
    [{ masters: 2 }, "ZonalRedisCluster 'test/redis': masters=2 must be an integer from 3 to 16384"],
    [{ masters: 20_000 }, "ZonalRedisCluster 'test/redis': masters=20000 must be an integer from 3 to 16384"],
    [{ masters: 1e9 }, "ZonalRedisCluster 'test/redis': masters=1000000000 must be an integer from 3 to 16384"],
    [{ masters: 5000 }, "ZonalRedisCluster 'test/redis': masters=5000 with 10000 nodes makes a layout of"],
    [{ masters: 3, replicasPerMaster: 1e9 }, "ZonalRedisCluster 'test/redis': replicasPerMaster=1000000000 with 3 masters makes 3000000003 nodes"],
    [{ name: 'Redis_Main' }, "ZonalRedisCluster 'test/redis': name=\"Redis_Main\" is not a valid Service name"],
    [{ name: 'r'.repeat(51) }, `ZonalRedisCluster 'test/redis': name="${'r'.repeat(51)}" is too long: at most 50 characters`],
    [{ namespace: 'Bad_NS' }, "ZonalRedisCluster 'test/redis': namespace=\"Bad_NS\" is not a DNS label"],
    [{ password: { name: 'pw', key: 'bad key' } }, "ZonalRedisCluster 'test/redis': password.key=\"bad key\" is not a valid Secret or ConfigMap key"],
    [{ masters: 4 }, "ZonalRedisCluster 'test/redis': masters=4 over 3 zones puts 2 masters in one zone"],
    [{ replicasPerMaster: -1 }, "ZonalRedisCluster 'test/redis': replicasPerMaster=-1 must be an integer >= 0"],
    [{ masters: '3' }, "ZonalRedisCluster 'test/redis': masters=\"3\" must be an integer >= 0"],
    [{ topology: new ZoneTopology({ zones: ['a', 'b'] }) }, "ZonalRedisCluster 'test/redis': zones=[\"a\",\"b\"] has 2 zone(s)"],
    [{ password: { name: 'pw', key: '' } }, "ZonalRedisCluster 'test/redis': password.key=\"\" is not a valid Secret or ConfigMap key"],
    [{ storage: { size: 'ten gigs' } }, "ZonalRedisCluster 'test/redis': storage.size=\"ten gigs\" is not a byte quantity"],
    [{ clusterNodeTimeout: Duration.millis(10) }, "ZonalRedisCluster 'test/redis': clusterNodeTimeout=\"10ms\" must be a whole number of milliseconds from 100 to 2147483647"],
  ])('refuses %j', (props, message) => {
    expect(() => synth(props as Partial<ZonalRedisClusterProps>)).toThrow(message);
  });
});

describe('ZonalRedisCluster disruption budget: never a master and its replica at once', () => {
  test('with a controller that enforces zone disruption budgets: evictions in one zone at a time, up to the whole zone', () => {
    const objects = synth({}, zdbController);
    expect(kinds(objects)).toContain('ZoneDisruptionBudget/redis');
    expect(kinds(objects)).not.toContain('PodDisruptionBudget/redis');
    const zdb = objects.find((o) => o.kind === 'ZoneDisruptionBudget');
    expect(zdb.spec).toEqual({ selector: { matchLabels: { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'redis' } }, maxUnavailable: 2 });
  });

  test('whichever is created first: the controller after the cluster gives the same output', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    new ZonalRedisCluster(chart, 'redis', { topology, masters: 3 });
    new ZoneController(new Chart(app, 'platform'), 'controller', zdbController);
    expect(Testing.synth(chart)).toEqual(synth({}, zdbController));
  });

  test.each([
    ['no zoneDisruptionBudget feature', { redisManager: true }, {}],
    ['a webhook that lets evictions through while it is down', { ...zdbController, webhookFailurePolicy: WebhookFailurePolicy.IGNORE }, {}],
    ["the cluster in the controller's own namespace (the webhook never applies there)", zdbController, { namespace: 'cdk8s-zones-system' }],
  ])('otherwise one pod at a time (a PodDisruptionBudget): %s', (_, controller, props) => {
    const objects = synth(props as any, controller as ZoneControllerProps);
    expect(objects.filter((o) => o.kind.endsWith('DisruptionBudget')).map((o) => [o.kind, o.spec.maxUnavailable]))
      .toEqual([['PodDisruptionBudget', 1]]);
  });

  test('a controller installed by another app: a warning, and one pod at a time', () => {
    const chart = new Chart(Testing.app(), 'test');
    const redis = new ZonalRedisCluster(chart, 'redis', { topology, masters: 3, controllerInstalledElsewhere: true });
    expect(kinds(Testing.synth(chart))).toContain('PodDisruptionBudget/redis');
    expect(warningsOf(redis)).toEqual([expect.stringMatching(/needs the cdk8s-zones controller with redisManager .* controllerInstalledElsewhere says it runs outside this app/)]);
  });
});
