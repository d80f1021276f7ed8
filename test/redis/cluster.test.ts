import { App, Chart, Duration, Size, Testing } from 'cdk8s';
import { failoverOptions } from '../../controller/src/redis/manager';
import {
  IZoneController, RedisShardLayout, WebhookFailurePolicy, WebhookTls, ZonalRedisCluster, ZonalRedisClusterProps,
  ZoneController, ZoneControllerProps, ZoneTopology,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';

const topology = new ZoneTopology({ zones: ['a', 'b', 'c'] });
const password = { name: 'redis-password', key: 'password' };

/** The cluster's chart, in an app whose platform chart installs the controller (as a GitOps repository would). */
function synth(
  props: Partial<ZonalRedisClusterProps> = {},
  controller: ZoneControllerProps = { redisManager: true },
): any[] {
  const app = Testing.app();
  return synthIn(app, new ZoneController(new Chart(app, 'platform'), 'controller', controller), props);
}

/** The cluster's chart has a namespace, as a controller that serves it requires. */
function synthIn(app: App, controller: IZoneController, props: Partial<ZonalRedisClusterProps> = {}): any[] {
  const chart = new Chart(app, 'test', { namespace: 'data' });
  new ZonalRedisCluster(chart, 'redis', { controller, topology, masters: 3, password, ...props } as ZonalRedisClusterProps);
  return Testing.synth(chart);
}

const kinds = (objects: any[]) => objects.map((m) => `${m.kind}/${m.metadata.name}`);
const zdbController: ZoneControllerProps = {
  redisManager: true,
  zoneDisruptionBudget: true,
  webhookTls: WebhookTls.selfManaged(),
};

describe('ZonalRedisCluster', () => {
  const manifests = synth({ clusterNodeTimeout: Duration.millis(1500), requireFullCoverage: true });
  const statefulSets = manifests.filter((m) => m.kind === 'StatefulSet');
  const pod = statefulSets[0].spec.template.spec;
  const container = pod.containers[0];

  test('objects: config, layout, headless and client Services, a StatefulSet per zone, one disruption budget', () => {
    expect(kinds(manifests)).toEqual([
      'ConfigMap/redis-config', 'ConfigMap/redis-layout', 'Service/redis-nodes', 'Service/redis',
      'StatefulSet/redis-a', 'StatefulSet/redis-b', 'StatefulSet/redis-c', 'NetworkPolicy/redis', 'PodDisruptionBudget/redis',
    ]);
    expect(manifests.find((m) => m.metadata.name === 'redis-nodes').spec)
      .toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });

  test('the client Service keeps a client in its zone when the cluster supports it (every zone holds nodes); the headless one never', () => {
    const traffic = (t: ZoneTopology) => synth({ topology: t })
      .filter((m) => m.kind === 'Service')
      .map((m) => [m.metadata.name, m.spec.trafficDistribution]);
    const at = (kubernetesVersion: string) => new ZoneTopology({ zones: ['a', 'b', 'c'], kubernetesVersion });
    expect(traffic(at('1.35'))).toEqual([['redis-nodes', undefined], ['redis', 'PreferSameZone']]);
    expect(traffic(at('1.32'))).toEqual([['redis-nodes', undefined], ['redis', 'PreferClose']]);
    expect(traffic(topology)).toEqual([['redis-nodes', undefined], ['redis', undefined]]);
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
    const planned = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 });
    expect(RedisShardLayout.fromJson(json).nodes).toEqual(planned.nodes);
  });

  test('the layout ConfigMap holds the failover policy the manager reads: by default a zone-loss failover after a quarter of the node timeout', () => {
    const policy = (props: Partial<ZonalRedisClusterProps>) => JSON.parse(synth(props)[1].data['failover.json']);
    expect(JSON.parse(manifests[1].data['failover.json'])).toEqual({ clusterNodeTimeoutMs: 1500, zoneLossFailoverAfterMs: 375 });
    expect(policy({})).toEqual({ clusterNodeTimeoutMs: 5000, zoneLossFailoverAfterMs: 1250 });
    expect(policy({ zoneLossFailoverAfter: Duration.millis(400) }))
      .toEqual({ clusterNodeTimeoutMs: 5000, zoneLossFailoverAfterMs: 400 });
    expect(policy({ zoneLossFailover: false })).toEqual({ clusterNodeTimeoutMs: 5000, zoneLossFailoverAfterMs: null });
    // the manager's side of the contract
    expect(failoverOptions(manifests[1].data)).toEqual({ zoneLossFailoverAfterMs: 375 });
    expect(failoverOptions(synth({ zoneLossFailover: false })[1].data)).toEqual({ zoneLossFailoverAfterMs: undefined });
    expect(failoverOptions({ 'layout.json': '{}' })).toEqual({}); // a layout synthesized before the policy existed: Redis alone
    expect(() => failoverOptions({ 'failover.json': '{"clusterNodeTimeoutMs":1000,"zoneLossFailoverAfterMs":1000}' }))
      .toThrow('failover.json: zoneLossFailoverAfterMs=1000 must be a whole number of milliseconds above 0 and below clusterNodeTimeout (1000ms)');
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
    // the manager owns the replicas: scaled up to the layout, down only once the retired nodes are drained and
    // forgotten
    expect(statefulSets.map((s) => 'replicas' in s.spec)).toEqual([false, false, false]);
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
    expect(container.volumeMounts.map((v: any) => [v.mountPath, v.readOnly ?? false])).toEqual([
      ['/etc/redis', true], ['/run/redis-auth', true], ['/data', false], ['/tmp', false],
    ]);
    expect(container.resources.requests).toEqual({ cpu: '100m', memory: '256Mi' });
    const init = pod.initContainers[0];
    expect(init.securityContext).toEqual(container.securityContext);
    expect(init.resources).toEqual({ requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '16Mi' } });
  });

  test('probes: liveness is the open port (no password), readiness an authenticated PING whose password is in no argument', () => {
    expect(container.livenessProbe).toEqual({
      tcpSocket: { port: 'redis' },
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    });
    expect(container.startupProbe).toBeUndefined();
    const [sh, c, script, name, ...args] = container.readinessProbe.exec.command;
    expect([sh, c, name, args]).toEqual(['sh', '-c', 'redis-ready', ['/run/redis-auth/password', '6379']]);
    expect(script).toMatch(/REDISCLI_AUTH="\$\(cat "\$1"; printf x\)"/);
    expect(script).toMatch(/\[ "\$\(redis-cli -h 127.0.0.1 -p "\$2" ping\)" = PONG \]/);
    expect(container.readinessProbe).not.toEqual(container.livenessProbe);
  });

  test('storage: a volume claim per pod of the given size and class', () => {
    const sts = synth({ storage: { size: Size.gibibytes(5), storageClassName: 'zonal' } }).find((m) => m.kind === 'StatefulSet');
    expect(sts.spec.volumeClaimTemplates[0].spec).toEqual({
      accessModes: ['ReadWriteOnce'], storageClassName: 'zonal', resources: { requests: { storage: '5Gi' } },
    });
    expect(sts.spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['config', 'redis-password', 'auth', 'tmp']);
  });

  test('storage classes per zone: each zone\'s StatefulSet claims its zone\'s class; zones not named get storageClassName', () => {
    const objects = synth({
      storage: { size: Size.gibibytes(5), storageClassName: 'zonal', storageClassNamePerZone: { a: 'ssd-a', c: 'ssd-c' } },
    });
    const classes = objects.filter((m) => m.kind === 'StatefulSet')
      .map((sts) => [sts.spec.template.metadata.labels['cdk8s-zones.dev/zone'], sts.spec.volumeClaimTemplates[0].spec.storageClassName]);
    expect(classes).toEqual([['a', 'ssd-a'], ['b', 'zonal'], ['c', 'ssd-c']]);
    const withoutDefault = synth({ storage: { size: Size.gibibytes(5), storageClassNamePerZone: { b: 'ssd-b' } } })
      .filter((m) => m.kind === 'StatefulSet');
    expect(withoutDefault.map((sts) => sts.spec.volumeClaimTemplates[0].spec.storageClassName))
      .toEqual([undefined, 'ssd-b', undefined]);
  });

  test.each([
    [{ storage: { size: Size.gibibytes(1), storageClassNamePerZone: { d: 'ssd' } } },
      "ZonalRedisCluster 'test/redis': storage.storageClassNamePerZone key=\"d\" is not one of the topology's zones [a, b, c]"],
    [{ storage: { size: Size.gibibytes(1), storageClassNamePerZone: { a: 'Bad_Class' } } },
      "ZonalRedisCluster 'test/redis': storage.storageClassNamePerZone[\"a\"]=\"Bad_Class\" is not a DNS subdomain"],
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
    [{ password: { name: 'Bad_Name', key: 'k' } }, "ZonalRedisCluster 'test/redis': password.name=\"Bad_Name\" is not a DNS subdomain"],
    [{ password: 'hunter2' }, "ZonalRedisCluster 'test/redis': password=\"hunter2\" must be a RedisPasswordSecret"],
    [{ storage: { size: 'ten gigs' as any } }, "ZonalRedisCluster 'test/redis': storage.size=\"ten gigs\" must be a cdk8s Size"],
    [{ clusterNodeTimeout: Duration.millis(10) }, "ZonalRedisCluster 'test/redis': clusterNodeTimeout=\"10ms\" must be a whole number of milliseconds from 100 to 2147483647"],
    [{ zoneLossFailoverAfter: Duration.seconds(5) }, "ZonalRedisCluster 'test/redis': zoneLossFailoverAfter=\"5000ms\" must be a whole number of milliseconds above 0 " +
      'and below clusterNodeTimeout (5000ms), after which Redis starts its own failover'],
    [{ clusterNodeTimeout: Duration.seconds(1), zoneLossFailoverAfter: Duration.seconds(2) },
      'zoneLossFailoverAfter="2000ms" must be a whole number of milliseconds above 0 and below clusterNodeTimeout (1000ms)'],
    [{ zoneLossFailoverAfter: Duration.millis(0) }, "ZonalRedisCluster 'test/redis': zoneLossFailoverAfter=\"0ms\" must be a whole number of milliseconds above 0"],
    [{ zoneLossFailoverAfter: Duration.millis(0.5) }, "ZonalRedisCluster 'test/redis': zoneLossFailoverAfter=\"0.5ms\" must be a whole number of milliseconds above 0"],
    [{ zoneLossFailover: false, zoneLossFailoverAfter: Duration.seconds(1) },
      "ZonalRedisCluster 'test/redis': zoneLossFailoverAfter=\"1000ms\" is set but zoneLossFailover is false: leave one of them out"],
    [{ zoneLossFailover: 'no' }, "ZonalRedisCluster 'test/redis': zoneLossFailover=\"no\" must be"],
  ])('refuses %j', (props, message) => {
    expect(() => synth(props as Partial<ZonalRedisClusterProps>)).toThrow(message);
  });
});

describe('ZonalRedisCluster password: required, from a Secret key, through an in-memory file only', () => {
  const objects = synth({ password: { name: 'cache-auth', key: 'redis-password' } });
  const pods = objects.filter((m) => m.kind === 'StatefulSet').map((s) => s.spec.template.spec);
  const [pod] = pods;
  const [init] = pod.initContainers;
  const volume = (name: string) => pod.volumes.find((v: any) => v.name === name);

  test('only the password key is mounted, into the init container alone, readable by the redis group alone', () => {
    expect(volume('redis-password')).toEqual({
      name: 'redis-password',
      secret: { secretName: 'cache-auth', items: [{ key: 'redis-password', path: 'password' }], defaultMode: 0o440 },
    });
    expect(pod.securityContext).toMatchObject({ runAsUser: 999, runAsGroup: 999, fsGroup: 999 });
    expect(init.volumeMounts).toEqual([
      { name: 'redis-password', mountPath: '/etc/redis-password', readOnly: true },
      { name: 'auth', mountPath: '/run/redis-auth' },
    ]);
    expect(pod.containers[0].volumeMounts.map((m: any) => m.name)).not.toContain('redis-password');
    // the exporter reads the password from the in-memory files, read-only
    expect(pod.containers[1].volumeMounts).toEqual([{ name: 'auth', mountPath: '/run/redis-auth', readOnly: true }]);
    expect(volume('auth')).toEqual({ name: 'auth', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } });
  });

  test('the init container runs the Redis image\'s sh with the paths as arguments; redis-server includes the auth.conf it writes', () => {
    expect(init.image).toBe(pod.containers[0].image);
    const [sh, c, script, name, ...args] = init.command;
    expect([sh, c, name, args]).toEqual(['sh', '-c', 'redis-auth',
      ['/etc/redis-password/password', '/run/redis-auth/auth.conf', '/run/redis-auth/password', 'Secret cache-auth key redis-password',
        '/run/redis-auth/exporter.json', '6379']]);
    expect(script).toContain(String.raw`od -An -v -tx1 < "$1" | tr -d ' \n' | sed 's/../\\x&/g'`);
    expect(script).toContain(String.raw`printf 'requirepass "%s"\nmasterauth "%s"\n' "$hex" "$hex" > "$2"`);
    expect(script).toMatch(/^set -eu\numask 077\n/);
    expect(pod.containers[0].args).toEqual(['/etc/redis/redis.conf', '--include', '/run/redis-auth/auth.conf', '--dir', '/data', '--cluster-announce-ip', '$(POD_IP)']);
  });

  test('no container has the password, nor its Secret, in its command, args or environment', () => {
    for (const p of pods) {
      for (const c of [...p.initContainers, ...p.containers]) {
        expect([c.name, JSON.stringify(c.env ?? [])]).not.toEqual([c.name, expect.stringMatching(/secretKeyRef|PASSWORD|REDISCLI_AUTH/)]);
        expect(c.envFrom).toBeUndefined();
      }
      expect(p.containers[0].env).toEqual([{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }]);
    }
    expect(JSON.stringify(objects)).not.toMatch(/requirepass \$|--requirepass|--masterauth/);
  });

  test('protected mode on', () => {
    expect(objects[0].data['redis.conf']).toMatch(/^protected-mode yes$/m);
    expect(objects[0].data['redis.conf']).not.toMatch(/protected-mode no/);
  });

  test('left out: a synth-time error naming the construct, the prop and the rule', () => {
    const chart = new Chart(Testing.app(), 'test', { namespace: 'data' });
    const controller = ZoneController.fromInstalled({ workloadNamespaces: ['data'], redisManager: true });
    const withoutPassword = { controller, topology, masters: 3 } as ZonalRedisClusterProps;
    expect(() => new ZonalRedisCluster(chart, 'redis', withoutPassword)).toThrow(
      "ZonalRedisCluster 'test/redis': password=undefined is required: a RedisPasswordSecret, { name, key } of a Secret created outside the app "
      + 'that holds the password (a Redis Cluster is never left open)');
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

  test('a controller installed by another app that enforces zone disruption budgets in the namespace: the same output', () => {
    const installed = ZoneController.fromInstalled({
      workloadNamespaces: ['data'],
      redisManager: true,
      zoneDisruptionBudget: true,
    });
    expect(synthIn(Testing.app(), installed)).toEqual(synth({}, zdbController));
  });

  test.each([
    ['no zoneDisruptionBudget feature', { redisManager: true }, {}],
    // (the budgets the controller serves are elsewhere)
    ['a webhook that lets evictions through while it is down', { ...zdbController, webhookFailurePolicy: WebhookFailurePolicy.IGNORE, workloadNamespaces: ['shop'] }, {}],
    ["the cluster in the controller's own namespace (the webhook never applies there)", { ...zdbController, workloadNamespaces: ['shop'] }, { namespace: 'cdk8s-zones-system' }],
  ])('otherwise one pod at a time (a PodDisruptionBudget): %s', (_, controller, props) => {
    const objects = synth(props as any, controller as ZoneControllerProps);
    expect(objects.filter((o) => o.kind.endsWith('DisruptionBudget')).map((o) => [o.kind, o.spec.maxUnavailable]))
      .toEqual([['PodDisruptionBudget', 1]]);
  });

  test('a NetworkPolicy: the bus between the cluster\'s pods only, 6379 from clients and the cluster\'s controller', () => {
    const app = Testing.app();
    const controller = new ZoneController(new Chart(app, 'platform'), 'controller', { redisManager: true });
    const cache = new Chart(app, 'test', { namespace: 'data' });
    new ZonalRedisCluster(cache, 'redis', {
      controller,
      topology,
      masters: 3,
      password,
      networkPolicy: { clients: [{ podLabels: { app: 'web' } }] },
    });
    const own = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'redis' };
    expect(Testing.synth(cache).find((o) => o.kind === 'NetworkPolicy').spec).toEqual({
      podSelector: { matchLabels: own },
      policyTypes: ['Ingress'],
      ingress: [
        {
          ports: [{ protocol: 'TCP', port: 'redis' }, { protocol: 'TCP', port: 'bus' }],
          from: [{ podSelector: { matchLabels: own } }],
        },
        { ports: [{ protocol: 'TCP', port: 'redis' }], from: [{ podSelector: { matchLabels: { app: 'web' } } }] },
        {
          ports: [{ protocol: 'TCP', port: 'redis' }],
          from: [{
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'cdk8s-zones-system' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cdk8s-zones-controller', 'app.kubernetes.io/instance': 'cdk8s-zones-controller' } },
          }],
        },
      ],
    });
    // a controller another app installs: its pods, where that app runs them
    const installed = ZoneController.fromInstalled({
      workloadNamespaces: ['data'],
      namespace: 'platform',
      name: 'zones',
      redisManager: true,
    });
    const policy = synthIn(Testing.app(), installed).find((o) => o.kind === 'NetworkPolicy');
    expect(policy.spec.ingress[2].from).toEqual([{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'platform' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cdk8s-zones-controller', 'app.kubernetes.io/instance': 'zones' } },
    }]);
  });

  test('the controller may read this cluster\'s Secret and ConfigMaps by name, in its namespace only', () => {
    const app = Testing.app();
    const platform = new Chart(app, 'platform');
    synthIn(app, new ZoneController(platform, 'controller', { redisManager: true, zoneAnnotator: false }));
    const roles = Testing.synth(platform).filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole');
    expect(roles.map((r) => `${r.kind}/${r.metadata.namespace}`)).toEqual(['Role/cdk8s-zones-system', 'Role/data']);
    expect(roles[1].rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      // patch: the manager removes a manual operation's annotation once it ran; list and watch it by name
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'patch', 'list', 'watch'], resourceNames: ['redis-layout'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: ['redis-status'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['redis-password'] },
      // its StatefulSets, read for their revision and scaled (the manager owns their replicas)
      { apiGroups: ['apps'], resources: ['statefulsets', 'statefulsets/scale'], verbs: ['get', 'patch'], resourceNames: ['redis-a', 'redis-b', 'redis-c'] },
      // its planned pods, by name: deleted one at a time to replace an out-of-date one
      {
        apiGroups: [''],
        resources: ['pods'],
        verbs: ['delete'],
        resourceNames: ['redis-a-0', 'redis-a-1', 'redis-b-0', 'redis-b-1', 'redis-c-0', 'redis-c-1'],
      },
    ]);
    const args = Testing.synth(platform).find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
    expect(args).toEqual(expect.arrayContaining(['--redis-namespaces', 'data']));
  });

  test('a controller installed by another app that enforces no zone disruption budget: no warning, and one pod at a time', () => {
    const chart = new Chart(Testing.app(), 'test', { namespace: 'data' });
    const installed = ZoneController.fromInstalled({ workloadNamespaces: ['data'], redisManager: true });
    const redis = new ZonalRedisCluster(chart, 'redis', { controller: installed, topology, masters: 3, password });
    expect(kinds(Testing.synth(chart))).toContain('PodDisruptionBudget/redis');
    expect(warningsOf(redis)).toEqual([]);
  });
});
