/**
 * Every public entry point, fed every kind of wrong value a JavaScript caller can pass. For each parameter
 * and each prop of each struct (nested ones too), read from the jsii assembly so that a new prop is covered
 * without writing a case, the test passes values of the wrong type, null, NaN, Infinity, enum values that
 * do not exist and props that do not exist. Each must be refused with the library's error (who, prop,
 * value, rule), never accepted silently and never crash with a TypeError. The tally is the audit's
 * figure: bad inputs tried, clear errors, silent, crashes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Duration, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import * as lib from '../src';

const ASSEMBLY = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '.jsii'), 'utf8'));
const TYPES: Record<string, any> = ASSEMBLY.types;

const topology = () => new lib.ZoneTopology({ zones: ['a', 'b', 'c'] });
/** The Redis password Secret key a ZonalRedisCluster requires. */
const PW: lib.RedisPasswordSecret = { name: 'redis-auth', key: 'password' };
const quantity = (q: string) => k8s.Quantity.fromString(q);
const resources = () => ({ requests: { cpu: quantity('100m'), memory: quantity('128Mi') }, limits: { memory: quantity('256Mi') } });
const inventory = () => new lib.LonghornInventory(INVENTORY);
const INVENTORY: lib.LonghornInventoryProps = {
  nodes: ['a', 'b', 'c'].map((zone) => ({
    name: `n-${zone}`,
    zone,
    tags: ['fast'],
    allowScheduling: true,
    disks: [{
      name: 'd1',
      capacity: Size.tebibytes(1),
      available: Size.gibibytes(900),
      reserved: Size.gibibytes(10),
      scheduled: Size.kibibytes(0),
      diskType: lib.LonghornDiskType.FILESYSTEM,
      tags: ['ssd'],
      allowScheduling: true,
    }],
  })),
};
const SCHEDULING: lib.LonghornReplicaScheduling = {
  numberOfReplicas: 3,
  replicaSoftAntiAffinity: lib.AntiAffinity.DISABLED,
  replicaZoneSoftAntiAffinity: lib.AntiAffinity.DISABLED,
  replicaDiskSoftAntiAffinity: lib.AntiAffinity.ENABLED,
  diskSelector: ['ssd'],
  nodeSelector: ['fast'],
  dataLocality: lib.LonghornDataLocality.DISABLED,
  replicaAutoBalance: lib.LonghornReplicaAutoBalance.DISABLED,
  dataEngine: lib.LonghornDataEngine.V1,
  settings: {
    replicaSoftAntiAffinity: lib.AntiAffinity.DISABLED,
    replicaZoneSoftAntiAffinity: lib.AntiAffinity.ENABLED,
    replicaDiskSoftAntiAffinity: lib.AntiAffinity.ENABLED,
    storageOverProvisioningPercentage: 100,
    storageMinimalAvailablePercentage: 25,
    replicaAutoBalance: lib.LonghornReplicaAutoBalance.DISABLED,
    defaultReplicaCount: 3,
    defaultDataLocality: lib.LonghornDataLocality.DISABLED,
    allowEmptyNodeSelectorVolume: true,
    allowEmptyDiskSelectorVolume: true,
    storageReservedPercentageForDefaultDisk: 30,
  },
};
const RULE: lib.RelabelRule = {
  sourceLabels: ['__address__'],
  separator: ';',
  targetLabel: 'x',
  regex: '(.*)',
  modulus: 3,
  replacement: '$1',
  action: lib.RelabelAction.HASHMOD,
};

/**
 * A chart in an app whose platform chart runs the controller with every feature (the constructs' requirement),
 * serving the chart's namespace.
 */
function chart(): Chart {
  const app = Testing.app();
  const controller = new lib.ZoneController(new Chart(app, 'platform'), 'controller', {
    redisManager: true,
    zoneAwareUpdate: true,
    zoneDisruptionBudget: true,
    zoneShift: true,
    webhookTls: lib.WebhookTls.selfManaged(),
    workloadNamespaces: ['apps'],
  });
  const made = new Chart(app, 'test', { namespace: 'apps' });
  CONTROLLER.set(made, controller);
  return made;
}
/** The controller of each chart() (the constructs name it in their `controller` prop). */
const CONTROLLER = new WeakMap<Chart, lib.ZoneController>();
/** A chart() and its controller. */
function chartAndController(): [Chart, lib.ZoneController] {
  const c = chart();
  return [c, CONTROLLER.get(c)!];
}
const synth = (scope: Chart) => Testing.synth(scope);
const statefulSet = (scope: Chart) => new kplus.StatefulSet(scope, 'db', {
  strategy: kplus.StatefulSetUpdateStrategy.onDelete(), containers: [{ image: 'postgres:17', portNumber: 5432 }],
});
const deployment = (scope: Chart) => new kplus.Deployment(scope, 'web', { containers: [{ image: 'nginx', portNumber: 8080 }] });

/**
 * Each callable of the public API: valid arguments (fresh on every call), and how to call it (synthesizing,
 * so synth-time checks run too). Constructs list [scope, id, props]; only props are varied.
 */
/**
 * `vary`: the parameters to vary (by default the props of a construct, or every parameter); `offset`: where they start
 * in `args`.
 */
const ENTRIES: Record<string, {
  args: () => unknown[];
  call: (args: any[]) => unknown;
  vary?: number[];
  offset?: number;
}> = {
  'ZoneTopology.<init>': {
    args: () => [{
      zones: ['a', 'b', 'c'],
      topologyKey: 'topology.kubernetes.io/zone',
      region: 'r1',
      regionKey: 'topology.kubernetes.io/region',
      hostnameKey: 'kubernetes.io/hostname',
      kubernetesVersion: '1.35',
    }],
    call: ([p]) => new lib.ZoneTopology(p),
  },
  'TopologySpread.acrossZones': {
    args: () => [{
      topology: topology(),
      podLabels: { app: 'web' },
      selector: { matchLabels: { app: 'web' } },
      maxSkew: 1,
      whenUnsatisfiable: lib.WhenUnsatisfiable.DO_NOT_SCHEDULE,
      minDomains: 3,
      matchLabelKeys: ['pod-template-hash'],
      nodeAffinityPolicy: lib.NodeInclusionPolicy.HONOR,
      nodeTaintsPolicy: lib.NodeInclusionPolicy.IGNORE,
    }],
    call: ([p]) => lib.TopologySpread.acrossZones(p),
  },
  'TopologySpread.acrossHosts': {
    args: () => [{
      topology: topology(),
      podLabels: { app: 'web' },
      maxSkew: 2,
      whenUnsatisfiable: lib.WhenUnsatisfiable.SCHEDULE_ANYWAY,
      matchLabelKeys: ['pod-template-hash'],
    }],
    call: ([p]) => lib.TopologySpread.acrossHosts(p),
  },
  'ZoneAffinity.restrictToZones': { args: () => [topology()], call: ([t]) => lib.ZoneAffinity.restrictToZones(t) },
  'ZoneAffinity.podAntiAffinity': {
    args: () => [{
      topology: topology(),
      domain: lib.FailureDomain.HOST,
      podLabels: { app: 'web' },
      selector: { matchLabels: { app: 'web' } },
      required: false,
      weight: 50,
    }],
    call: ([p]) => lib.ZoneAffinity.podAntiAffinity(p),
  },
  'Quorum.atLeast': { args: () => [2], call: ([n]) => lib.Quorum.atLeast(n) },
  'Survival.check': {
    args: () => [{ a: 1, b: 1, c: 1 }, lib.Quorum.majority(), 1],
    call: ([r, q, k]) => lib.Survival.check(r, q, k),
  },
  'Survival.maxPerZone': { args: () => [5, lib.Quorum.majority(), 1], call: ([t, q, k]) => lib.Survival.maxPerZone(t, q, k) },
  'Zonal.spread': {
    args: () => {
      const c = chart();
      const props = {
        topology: topology(),
        maxSkew: 1,
        spreadAcrossHosts: true,
        restrictToZones: true,
        hostSpread: { maxSkew: 2 },
      };
      return [deployment(c), props, c];
    },
    call: ([w, o, c]) => { lib.Zonal.spread(w, o); synth(c); },
    vary: [0, 1],
  },
  'Zonal.spreadAcrossHosts': {
    args: () => { const c = chart(); return [deployment(c), { topology: topology(), maxSkew: 1 }, c]; },
    call: ([w, o, c]) => { lib.Zonal.spreadAcrossHosts(w, o); synth(c); },
    vary: [0, 1],
  },
  'Zonal.pinToZone': {
    args: () => { const c = chart(); return [deployment(c), { topology: topology(), zone: 'a' }, c]; },
    call: ([w, o, c]) => { lib.Zonal.pinToZone(w, o); synth(c); },
    vary: [0, 1],
  },
  'ZoneInventory.<init>': {
    args: () => [{
      zones: ['a', 'b', 'c'],
      nodes: [{
        name: 'n1',
        zone: 'a',
        labels: { disk: 'ssd' },
        taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }],
        allocatableCpu: '4',
        allocatableMemory: '16Gi',
        allocatablePods: 110,
      }],
      topologyKey: 'topology.kubernetes.io/zone',
      hostnameKey: 'kubernetes.io/hostname',
    }],
    call: ([p]) => new lib.ZoneInventory(p),
  },
  'ZoneInventory.equalNodes': { args: () => [['a', 'b', 'c'], 2], call: ([z, n]) => lib.ZoneInventory.equalNodes(z, n) },
  'ZoneReport.analyze': {
    args: () => [[{
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'w' } },
        template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    }], lib.ZoneInventory.equalNodes(['a', 'b', 'c'], 2)],
    call: ([m, i]) => lib.ZoneReport.analyze(m, i),
    // the manifests are anything a YAML file holds: what is no Kubernetes object is reported as skipped, not
    // refused (test/check/analyze.test.ts); a manifests value that is no list is refused there too
    vary: [1],
  },
  'ZoneReport.of': {
    args: () => { const c = chart(); deployment(c); return [c, lib.ZoneInventory.equalNodes(['a', 'b', 'c'], 2)]; },
    call: ([c, i]) => lib.ZoneReport.of(c, i),
  },
  'ZoneReport.ofApp': {
    args: () => {
      const c = chart();
      deployment(c);
      return [c.node.root, lib.ZoneInventory.equalNodes(['a', 'b', 'c'], 2)];
    },
    call: ([a, i]) => lib.ZoneReport.ofApp(a, i),
  },
  'ZoneCheckValidation.<init>': {
    args: () => [{ zones: ['a', 'b', 'c'], nodesPerZone: 3, failOn: lib.ZoneCheckFailOn.ERROR }],
    call: ([p]) => new lib.ZoneCheckValidation(p),
  },
  'LonghornInventory.<init>': { args: () => [INVENTORY], call: ([p]) => new lib.LonghornInventory(p) },
  'LonghornPlacement.plan': {
    args: () => [inventory(), { ...SCHEDULING, size: Size.gibibytes(10), existingReplicas: [{ node: 'n-a', disk: 'd1' }] }],
    call: ([i, r]) => lib.LonghornPlacement.plan(i, r),
  },
  'LonghornStorageClass.<init>': {
    args: () => [chart(), 'sc', {
      ...SCHEDULING,
      name: 'longhorn-zonal',
      staleReplicaTimeout: Duration.minutes(30),
      volumeBindingMode: lib.VolumeBindingMode.WAIT_FOR_FIRST_CONSUMER,
      allowVolumeExpansion: true,
      reclaimPolicy: kplus.PersistentVolumeReclaimPolicy.RETAIN,
      defaultClass: false,
      inventory: inventory(),
      representativeVolumeSize: Size.gibibytes(10),
      extraParameters: { fsType: 'ext4' },
    }],
    call: ([c, id, p]) => { new lib.LonghornStorageClass(c, id, p); synth(c); },
  },
  'LonghornVolume.<init>': {
    args: () => [chart(), 'vol', {
      ...SCHEDULING,
      size: Size.gibibytes(10),
      name: 'data',
      namespace: 'longhorn-system',
      staleReplicaTimeout: Duration.minutes(30),
      inventory: inventory(),
      extraSpec: { frontend: 'blockdev' },
    }],
    call: ([c, id, p]) => { new lib.LonghornVolume(c, id, p); synth(c); },
  },
  'LonghornSettings.<init>': {
    args: () => [chart(), 'settings', { ...SCHEDULING.settings, namespace: 'longhorn-system', extraSettings: { 'replica-replenishment-wait-interval': '600' } }],
    call: ([c, id, p]) => { new lib.LonghornSettings(c, id, p); synth(c); },
  },
  'TopologyShardedPrometheus.<init>': {
    args: () => [chart(), 'prom', {
      topology: topology(),
      shards: 6,
      shardsPerZone: { a: 2, b: 2, c: 2 },
      replicas: 2,
      mode: lib.ShardingMode.TOPOLOGY,
      output: lib.PrometheusOutput.OPERATOR,
      operatorSharding: lib.OperatorSharding.PER_ZONE,
      externalLabelName: 'zone',
      externalLabels: { cluster: 'c1' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      name: 'prom',
      namespace: 'monitoring',
      image: 'quay.io/prometheus/prometheus:v3.5.0',
      scrapeInterval: Duration.seconds(30),
      retention: Duration.hours(24),
      resources: resources(),
      storage: { size: Size.gibibytes(10), storageClassName: 'zonal', storageClassNamePerZone: { a: 'zonal-a', b: 'zonal-b', c: 'zonal-c' } },
      scrapeClasses: [{
        name: 'extra',
        isDefault: false,
        relabelings: [RULE],
        metricRelabelings: [RULE],
        attachNodeMetadata: true,
      }],
      monitorSelector: { matchLabels: { team: 'a' } },
      remoteWrite: [{ url: 'https://mimir.example/api/v1/push', name: 'mimir', bearerTokenSecret: { name: 'mimir', key: 'token' } }],
    }],
    call: ([c, id, p]) => { new lib.TopologyShardedPrometheus(c, id, p); synth(c); },
  },
  'TopologyShardedPrometheus.<init> (agent)': {
    args: () => [chart(), 'agent', {
      topology: topology(),
      shards: 3,
      output: lib.PrometheusOutput.AGENT,
      namespace: 'monitoring',
      storage: { size: Size.gibibytes(10) },
      remoteWrite: [{ url: 'https://mimir.example/api/v1/push', bearerTokenSecret: { name: 'mimir', key: 'token' } }],
    }],
    call: ([c, id, p]) => { new lib.TopologyShardedPrometheus(c, id, p); synth(c); },
  },
  'ShardPlan.plan': {
    args: () => [{ topology: topology(), shards: 4, shardsPerZone: { a: 2, b: 1, c: 1 } }],
    call: ([p]) => lib.ShardPlan.plan(p),
  },
  'ShardRelabeling.forShard': {
    args: () => [{ topology: topology(), zone: 'a', inZoneIndex: 0, zoneShards: 2, hashLabel: '__address__' }],
    call: ([p]) => lib.ShardRelabeling.forShard(p),
  },
  'ShardRelabeling.byAddress': { args: () => [0, 2, '__address__'], call: ([i, n, l]) => lib.ShardRelabeling.byAddress(i, n, l) },
  'ShardRelabeling.toOperator': { args: () => [[RULE]], call: ([r]) => lib.ShardRelabeling.toOperator(r) },
  'ShardRelabeling.toPrometheusConfig': { args: () => [[RULE]], call: ([r]) => lib.ShardRelabeling.toPrometheusConfig(r) },
  'Hashmod.bucket': { args: () => ['10.0.0.1:9090', 3], call: ([v, m]) => lib.Hashmod.bucket(v, m) },
  'Hashmod.bucketOfLabels': { args: () => [['10.0.0.1:9090', 'x'], 3], call: ([v, m]) => lib.Hashmod.bucketOfLabels(v, m) },
  'ZoneAnnotation.valueFor': { args: () => [{ 'topology.kubernetes.io/zone': 'a' }, ['topology.kubernetes.io/zone']], call: ([l, k]) => lib.ZoneAnnotation.valueFor(l, k) },
  'ZoneController.<init>': {
    args: () => [new Chart(Testing.app(), 'c'), 'zones', {
      namespace: 'zones',
      createNamespace: true,
      name: 'zones',
      image: 'example.com/zones:1',
      replicas: 2,
      topology: topology(),
      zoneAnnotator: true,
      zoneAwareUpdate: true,
      zoneDisruptionBudget: true,
      redisManager: true,
      installCrds: true,
      webhookTls: lib.WebhookTls.certManager({ issuerName: 'ca' }),
      webhookFailurePolicy: lib.WebhookFailurePolicy.FAIL,
      resources: resources(),
      workloadNamespaces: ['apps', 'shop'],
      networkPolicy: { enabled: true, clients: [{ namespaceLabels: { team: 'ops' }, podLabels: { app: 'prometheus' } }] },
    }],
    call: ([c, id, p]) => { new lib.ZoneController(c, id, p); synth(c); },
  },
  'ZoneController.waitForZoneCommand': {
    args: () => [new lib.ZoneController(new Chart(Testing.app(), 'c'), 'zones'), '/etc/zone/zone', 60],
    call: ([zc, f, t]) => zc.waitForZoneCommand(f, t),
    offset: 1,
  },
  'WebhookTls.certManager': {
    args: () => [{ issuerName: 'ca', issuerKind: lib.CertManagerIssuerKind.CLUSTER_ISSUER }],
    call: ([o]) => lib.WebhookTls.certManager(o),
  },
  'ZoneController.addZoneShiftGate': {
    args: () => {
      const [c, controller] = chartAndController();
      return [deployment(c), controller, c];
    },
    call: ([w, controller, c]) => { lib.ZoneController.addZoneShiftGate(w, controller); synth(c); },
    vary: [0, 1],
  },
  'ZoneController.fromInstalled': {
    args: () => [{
      workloadNamespaces: ['apps'],
      namespace: 'platform',
      name: 'zones',
      image: 'registry.example.com/zones:1',
      zoneAnnotator: true,
      zoneAwareUpdate: true,
      zoneDisruptionBudget: true,
      redisManager: true,
      webhookFailurePolicy: lib.WebhookFailurePolicy.IGNORE,
    }],
    call: ([p]) => lib.ZoneController.fromInstalled(p),
  },
  'ZoneSource.controller': {
    args: () => [new lib.ZoneController(new Chart(Testing.app(), 'c'), 'zones')],
    call: ([zc]) => lib.ZoneSource.controller(zc),
  },
  'RolloutTarget.statefulSet': { args: () => [statefulSet(chart())], call: ([s]) => lib.RolloutTarget.statefulSet(s) },
  'RolloutTarget.statefulSetName': { args: () => ['db'], call: ([n]) => lib.RolloutTarget.statefulSetName(n) },
  'RolloutTarget.statefulSetGroup': { args: () => [[statefulSet(chart())]], call: ([g]) => lib.RolloutTarget.statefulSetGroup(g) },
  'RolloutTarget.statefulSetGroupNames': { args: () => [['ingester-a', 'ingester-b']], call: ([g]) => lib.RolloutTarget.statefulSetGroupNames(g) },
  'RolloutTarget.deployment': { args: () => [deployment(chart())], call: ([d]) => lib.RolloutTarget.deployment(d) },
  'RolloutTarget.deploymentName': { args: () => ['web'], call: ([n]) => lib.RolloutTarget.deploymentName(n) },
  'ZoneAwareUpdate.<init>': {
    args: () => {
      const [c, controller] = chartAndController();
      return [c, 'rollout', {
        controller,
        target: lib.RolloutTarget.statefulSet(statefulSet(c)),
        maxUnavailable: 2,
        exponentialFactor: 2,
        dryRun: false,
        name: 'db',
        namespace: 'apps',
        pauseCondition: { label: 'example.com/pause', annotation: 'example.com/pause=true', prometheusQueryUrl: 'http://prom:9090/api/v1/query?query=up' },
        readyCheck: { path: '/ready', port: 3100 },
      }];
    },
    call: ([c, id, p]) => { new lib.ZoneAwareUpdate(c, id, p); synth(c); },
  },
  'ZoneDisruptionBudget.<init>': {
    args: () => {
      const [c, controller] = chartAndController();
      return [c, 'budget', { controller, selector: { app: 'db' }, maxUnavailable: '25%', dryRun: false, name: 'db', namespace: 'apps' }];
    },
    call: ([c, id, p]) => { new lib.ZoneDisruptionBudget(c, id, p); synth(c); },
  },
  'ZoneAwareLokiStack.<init>': {
    args: () => [chart(), 'loki', {
      topology: topology(),
      replicationFactor: 3,
      maxSkew: 1,
      name: 'logs',
      namespace: 'logging',
      operator: {
        size: lib.LokiStackSize.ONE_X_MEDIUM,
        ingesterReplicas: 3,
        objectStorage: { secretName: 'logs-s3', type: lib.LokiObjectStorageType.S3 },
        storageClassName: 'gp3',
        extraTopologyKeys: ['topology.kubernetes.io/region'],
      },
    }],
    call: ([c, id, p]) => { new lib.ZoneAwareLokiStack(c, id, p); synth(c); },
  },
  'ZoneAwareLokiStack.<init> (direct)': {
    args: () => {
      const [c, controller] = chartAndController();
      return [c, 'loki', {
        topology: topology(),
        direct: {
          controller,
          zoneSource: lib.ZoneSource.perZoneStatefulSets(),
          ingesterReplicasPerZone: 2,
          replicas: 3,
          objectStorage: {
            bucket: 'logs',
            endpoint: 'minio:9000',
            region: 'eu',
            credentialsSecretName: 'minio',
            insecure: true,
            forcePathStyle: true,
          },
          ingesterStorage: {
            size: Size.gibibytes(10),
            storageClassName: 'zonal',
            storageClassNamePerZone: { a: 'zonal-a', c: 'zonal-c' },
          },
          ruler: true,
          gateway: true,
          image: 'docker.io/grafana/loki:3.7.8',
          gatewayImage: 'docker.io/nginxinc/nginx-unprivileged:1.29-alpine',
          resources: resources(),
          ingesterResources: resources(),
          ingesterRollout: lib.IngesterRollout.ZONE_AWARE,
        },
      }];
    },
    call: ([c, id, p]) => { new lib.ZoneAwareLokiStack(c, id, p); synth(c); },
  },
  'RedisShardLayout.plan': {
    args: () => [{ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 }],
    call: ([p]) => lib.RedisShardLayout.plan(p),
  },
  'RedisShardLayout.fromJson': {
    args: () => [lib.RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 }).toJson()],
    call: ([j]) => lib.RedisShardLayout.fromJson(j),
  },
  'ZonalRedisCluster.<init>': {
    args: () => {
      const [c, controller] = chartAndController();
      return [c, 'redis', {
        controller,
        topology: topology(),
        masters: 3,
        replicasPerMaster: 1,
        name: 'redis',
        namespace: 'data',
        image: 'docker.io/library/redis:7.2.5',
        resources: resources(),
        storage: { size: Size.gibibytes(1), storageClassName: 'zonal', storageClassNamePerZone: { b: 'zonal-b' } },
        password: { name: 'redis', key: 'password' },
        clusterNodeTimeout: Duration.seconds(5),
        zoneLossFailover: true,
        zoneLossFailoverAfter: Duration.seconds(1),
        requireFullCoverage: false,
      }];
    },
    call: ([c, id, p]) => { new lib.ZonalRedisCluster(c, id, p); synth(c); },
  },
};

/**
 * Queries that answer about a value rather than build from it (a wrong value gets a wrong-value answer), and
 * ZoneCheckValidation.validate, whose argument is the cdk8s CLI's context (test/check/validation-plugin.test.ts).
 */
const QUERIES = new Set([
  'ZoneTopology.hasZone', 'ZoneTopology.nodeLabelsForZone', 'Quorum.required', 'ShardPlan.shardFor', 'ShardPlan.shardsInZone',
  'RedisShardLayout.node', 'RedisShardLayout.nodesInZone', 'RedisShardLayout.toJson', 'ZoneController.isZoneController',
  'ZoneReport.survivesLossOf', 'ZoneReport.failingOnLossOf', 'ZoneCheckValidation.validate',
]);

/**
 * Every callable of the assembly with parameters: `Class.<init>` and `Class.method`, with the jsii types of its
 * parameters.
 */
function callables(): Map<string, any[]> {
  const found = new Map<string, any[]>();
  for (const type of Object.values(TYPES)) {
    if (type.kind !== 'class') continue;
    if (type.initializer?.parameters?.length) found.set(`${type.name}.<init>`, type.initializer.parameters);
    for (const m of type.methods ?? []) if (m.parameters?.length) found.set(`${type.name}.${m.name}`, m.parameters);
  }
  return found;
}

/** Values of the wrong kind for a jsii type reference. */
function hostile(type: any): unknown[] {
  if (type.primitive === 'string') return [42, true, null, { x: 1 }, ['x']];
  if (type.primitive === 'number') return ['3', Number.NaN, Number.POSITIVE_INFINITY, null, true];
  if (type.primitive === 'boolean') return ['yes', 1, null];
  if (type.primitive === 'any' || type.primitive === 'json') return [];
  if (type.union) return [true, null, { x: 1 }, []];
  if (type.collection?.kind === 'array') return ['x', 42, { x: 1 }, [null]];
  if (type.collection?.kind === 'map') {
    const hasTypedValues = type.collection.elementtype.primitive !== 'any';
    return ['x', 42, [], ...(hasTypedValues ? [{ k: null }] : [])];
  }
  const fqn: string = type.fqn;
  const local = TYPES[fqn];
  if (local?.kind === 'enum') return ['Sometimes', 42, null];
  if (local?.kind === 'interface' && local.datatype) return ['x', 42, [], null];
  return ['x', 42, { x: 1 }, null]; // a class (ours or a dependency's) or a dependency's struct or enum
}

/** The props of a struct, its parents' included. */
function structProps(fqn: string): any[] {
  const t = TYPES[fqn];
  if (!t) return [];
  return [...(t.interfaces ?? []).flatMap(structProps), ...(t.properties ?? [])];
}

interface Mutation {
  readonly label: string;
  /** The name the error must mention. */
  readonly prop: string;
  readonly value: unknown;
}

/** Every mutation of `value` (of jsii type `type`): hostile values for it, then for each of its props, recursively. */
function mutations(type: any, value: unknown, label: string, prop: string): Mutation[] {
  const out: Mutation[] = hostile(type).map((v) => ({ label: `${label}=${show(v)}`, prop, value: v }));
  const struct = TYPES[type.fqn];
  if (struct?.kind === 'interface' && struct.datatype && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const p of structProps(type.fqn)) {
      for (const m of mutations(p.type, (value as any)[p.name], `${label}.${p.name}`, p.name)) {
        out.push({ ...m, value: { ...(value as object), [p.name]: m.value } });
      }
    }
    out.push({ label: `${label}.bogusProp`, prop: 'bogusProp', value: { ...(value as object), bogusProp: 1 } });
  }
  const isStructList = type.collection?.kind === 'array'
    && Array.isArray(value)
    && value.length > 0
    && TYPES[type.collection.elementtype.fqn]?.datatype;
  if (isStructList) {
    for (const m of mutations(type.collection.elementtype, value[0], `${label}[0]`, m0(label))) {
      out.push({ ...m, value: [m.value, ...value.slice(1)] });
    }
  }
  return out;
}
const m0 = (label: string) => label.split(/[.[]/).pop()!;

function show(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** What happened to one bad input. */
type Outcome = 'clear' | 'silent' | 'crash' | 'unclear';

function run(
  entry: typeof ENTRIES[string],
  index: number,
  value: unknown,
  prop: string,
): { outcome: Outcome; message: string } {
  const args = entry.args();
  args[index + (entry.offset ?? 0)] = value;
  try {
    entry.call(args);
    return { outcome: 'silent', message: 'accepted' };
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    const isCrash = !(e instanceof Error)
      || e instanceof TypeError
      || e instanceof RangeError
      || e instanceof SyntaxError;
    if (isCrash) return { outcome: 'crash', message };
    // The library's format: `<who>: <prop path>=<value> <rule>`, naming the prop (or its parent, for a wrong
    // container).
    const clear = /^[\w.]+( '[^']*')?(\.\w+)?(\([^)]*\))?: \S+=/m.test(message.replace(/^Validation failed with the following errors:\n\s+\[[^\]]*\] /, ''))
      && message.includes(prop);
    return { outcome: clear ? 'clear' : 'unclear', message };
  }
}

const all = callables();
const cases: [string, string, number, unknown, string][] = [];
for (const [name, params] of all) {
  if (QUERIES.has(name)) continue;
  for (const entryName of Object.keys(ENTRIES).filter((k) => k === name || k.startsWith(`${name} (`))) {
    const entry = ENTRIES[entryName];
    const valid = entry.args();
    const isConstructor = name.endsWith('.<init>') && params.length === 3 && params[0].name === 'scope';
    const varied = entry.vary ?? (isConstructor ? [2] : params.map((_: any, i: number) => i));
    for (const i of varied) {
      for (const m of mutations(params[i].type, valid[i + (entry.offset ?? 0)], params[i].name, params[i].name)) {
        cases.push([entryName, m.label, i, m.value, m.prop]);
      }
    }
  }
}

test('every public callable (but the queries) has a valid call to vary, and that call succeeds', () => {
  const hasEntry = (n: string) => Object.keys(ENTRIES).some((k) => k === n || k.startsWith(`${n} (`));
  const missing = [...all.keys()].filter((n) => !QUERIES.has(n) && !hasEntry(n));
  expect(missing).toEqual([]);
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const result = (() => {
      try {
        entry.call(entry.args());
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect({ name, result }).toEqual({ name, result: 'ok' });
  }
});

const tally: Record<Outcome, number> = { clear: 0, silent: 0, crash: 0, unclear: 0 };
afterAll(() => {
  // The audit's figures (kept in the issue's closing note).
  process.stdout.write(`bad inputs tried: ${cases.length}; clear errors: ${tally.clear}; silent: ${tally.silent}; crashes: ${tally.crash}; unclear: ${tally.unclear}\n`);
});

test.each(cases)('%s %s: refused with a clear error', (entryName, _label, index, value, prop) => {
  const { outcome, message } = run(ENTRIES[entryName], index, value, prop);
  tally[outcome]++;
  expect({ outcome, message }).toEqual({ outcome: 'clear', message: expect.stringContaining(prop) });
});

describe('the inputs of the outside audit, each refused with who, prop, value and rule', () => {
  const app = () => chart();
  /** Props of a ZonalRedisCluster in `c`, with its controller and `props`. */
  /** A ZonalRedisCluster in `c`, served by its controller. */
  const newRedis = (c: Chart, props: Omit<lib.ZonalRedisClusterProps, 'controller'>) =>
    new lib.ZonalRedisCluster(c, 'r', { controller: CONTROLLER.get(c)!, ...props });
  test.each<[string, () => unknown, RegExp]>([
    ['Redis name with upper case', () => newRedis(app(), { topology: topology(), masters: 3, name: 'Redis_Main', password: PW }), /ZonalRedisCluster 'test\/r': name="Redis_Main" is not a valid Service name/],
    ['LonghornStorageClass name', () => new lib.LonghornStorageClass(app(), 'sc', { name: 'Bad_Name' }), /LonghornStorageClass 'test\/sc': name="Bad_Name" is not a DNS subdomain/],
    ['Prometheus namespace', () => new lib.TopologyShardedPrometheus(app(), 'p', { topology: topology(), shards: 3, namespace: 'Bad_NS' }), /namespace="Bad_NS" is not a DNS label/],
    ['a Secret key with a space', () => newRedis(app(), { topology: topology(), masters: 3, password: { name: 'pw', key: 'bad key' } }), /password.key="bad key" is not a valid Secret or ConfigMap key/],
    [
      'an empty S3 bucket',
      () => new lib.ZoneAwareLokiStack(app(), 'l', { topology: topology(), direct: { objectStorage: { bucket: '' } } }),
      /direct.objectStorage.bucket="" is not a DNS subdomain/,
    ],
    ['maxSkew beyond int32', () => lib.TopologySpread.acrossZones({ topology: topology(), podLabels: { app: 'a' }, maxSkew: 3e9 }), /maxSkew=3000000000 must be an integer from 1 to 2147483647/],
    ['invalid podLabels', () => lib.TopologySpread.acrossZones({ topology: topology(), podLabels: { 'bad key': 'x' } }), /podLabels key="bad key" is not a valid label key/],
    [
      'an enum string that does not exist',
      () => lib.TopologySpread.acrossZones({
        topology: topology(),
        podLabels: { app: 'a' },
        whenUnsatisfiable: 'Sometimes' as any,
      }),
      /whenUnsatisfiable="Sometimes" must be one of WhenUnsatisfiable.DO_NOT_SCHEDULE/,
    ],
    ['20,000 Redis masters', () => newRedis(app(), { topology: topology(), masters: 20_000, password: PW }), /masters=20000 must be an integer from 3 to 16384/],
    ['a Redis layout over 1 MiB', () => newRedis(app(), { topology: topology(), masters: 4500, password: PW }), /masters=4500 with 9000 nodes makes a layout of \d+ bytes, over the 1048576 a ConfigMap may hold/],
    ['1e9 Prometheus shards', () => new lib.TopologyShardedPrometheus(app(), 'p', { topology: topology(), shards: 1e9 }), /shards=1000000000 must be an integer from 1 to 1000/],
    ['1e9 Redis masters', () => newRedis(app(), { topology: topology(), masters: 1e9, password: PW }), /masters=1000000000 must be an integer from 3 to 16384/],
    [
      '1e5 standalone shards',
      () => new lib.TopologyShardedPrometheus(app(), 'p', {
        topology: topology(),
        shards: 1e5,
        output: lib.PrometheusOutput.STANDALONE,
      }),
      /shards=100000 must be an integer from 1 to 1000/,
    ],
    ['zones as a string', () => new lib.ZoneTopology({ zones: 'zone-a' as any }), /ZoneTopology: zones="zone-a" must be a list of at least one zone name/],
    ['a null zone', () => new lib.ZoneTopology({ zones: [null as any] }), /ZoneTopology: zones\[0\]=null must be a zone name/],
    ['NaN printed as NaN', () => newRedis(app(), { topology: topology(), masters: Number.NaN, password: PW }), /masters=NaN must be/],
    [
      'Infinity printed as Infinity',
      () => lib.TopologySpread.acrossZones({
        topology: topology(),
        podLabels: { app: 'a' },
        maxSkew: Number.POSITIVE_INFINITY,
      }),
      /maxSkew=Infinity must be/,
    ],
  ])('%s', (_, make, message) => {
    // Constructs are synthesized too: some limits are checked with the whole app.
    expect(() => {
      const made = make();
      if (made instanceof lib.ZonalRedisCluster || made instanceof lib.TopologyShardedPrometheus) synth(Chart.of(made));
    }).toThrow(message);
  });

  test('a long construct id becomes a valid label value and object name', () => {
    const c = app();
    const id = `Long_Construct.Id-${'x'.repeat(80)}`;
    new lib.ZoneDisruptionBudget(c, id, { controller: CONTROLLER.get(c)!, selector: { app: 'db' }, maxUnavailable: 1 });
    const zdb = synth(c).find((o) => o.kind === 'ZoneDisruptionBudget');
    expect(zdb.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(zdb.metadata.labels['app.kubernetes.io/instance']).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
  });

  test('the biggest inputs are refused before anything is planned that could not be stored', () => {
    expect(() => newRedis(app(), { topology: topology(), masters: 16_384, password: PW })).toThrow(/replicasPerMaster=1 with 16384 masters makes 32768 nodes/);
    expect(() => lib.RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1e9 })).toThrow(/replicasPerMaster=1000000000 with 3 masters/);
  });
});
