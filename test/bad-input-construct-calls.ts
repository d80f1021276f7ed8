/**
 * The bad-input audit's valid calls (bad-input.test.ts) of the constructs: Longhorn, Prometheus, the controller
 * and its resources, Loki, Redis.
 */
import { Chart, Duration, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import * as lib from '../src';
import {
  Call,
  chart,
  chartAndController,
  deployment,
  inventory,
  resources,
  RULE,
  SCHEDULING,
  statefulSet,
  synth,
  topology,
} from './bad-input-fixtures';

export const CONSTRUCT_CALLS: Record<string, Call> = {
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
      monitorNamespaces: ['monitoring', 'apps'],
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
  'TopologyShardedPrometheus.monitor': {
    args: () => {
      const c = new Chart(Testing.app(), 'm', { namespace: 'monitoring' });
      const prometheus = new lib.TopologyShardedPrometheus(c, 'prom', { topology: topology(), shards: 3 });
      return [prometheus, new lib.ZoneController(c, 'zones')];
    },
    call: ([prometheus, target]) => { prometheus.monitor(target); synth(Chart.of(prometheus)); },
    offset: 1,
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
  'ZoneController.recoverFromLostZone': {
    args: () => {
      const [c, controller] = chartAndController();
      const sts = new kplus.StatefulSet(c, 'cache', { replicas: 3, containers: [{ image: 'redis:7.4', portNumber: 6379 }] });
      return [sts, controller, 1, c];
    },
    call: ([sts, controller, atOnce, c]) => {
      lib.ZoneController.recoverFromLostZone(sts, controller, atOnce);
      synth(c);
    },
    vary: [0, 1, 2],
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
