import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { RedisShardLayout } from './layout';
import { CONFIG_HASH_ANNOTATION, ZONE_LABEL } from '../contract/labels';
import { LAYOUT_KEY, layoutConfigMapName, REDIS_BUS_PORT, REDIS_CLUSTER_LABEL, REDIS_PORT } from '../contract/redis';
import { configHash } from '../shared/config-hash';
import { invalidProp } from '../shared/errors';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../shared/pod-security';
import { parseBytes } from '../shared/quantity';
import { standardLabels } from '../shared/standard-labels';
import { ZoneAffinity } from '../topology/affinity';
import { ZoneTopology } from '../topology/zone-topology';

/** The label StatefulSets put on each pod with its own name. */
const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
const UID = 999; // the redis user of the official image
const DATA_DIR = '/data';
const CONFIG_DIR = '/etc/redis';

/** Persistent storage for each Redis node. */
export interface RedisStorage {
  /** The size of each node's volume, a Kubernetes quantity such as '10Gi'. */
  readonly size: string;
  /**
   * The StorageClass of the volumes (use one with `volumeBindingMode: WaitForFirstConsumer` so each
   * volume is created in its pod's zone).
   *
   * @default - the cluster's default StorageClass
   */
  readonly storageClassName?: string;
}

/** A key of an existing Secret that holds the Redis password. */
export interface RedisPasswordSecret {
  /** The Secret's name (in the cluster's namespace). */
  readonly name: string;
  /** The key in the Secret whose value is the password. */
  readonly key: string;
}

/**
 * Props of `ZonalRedisCluster`.
 */
export interface ZonalRedisClusterProps {
  /** The zones; one StatefulSet per zone is pinned to it. */
  readonly topology: ZoneTopology;

  /** The number of masters (shards): 3 or more, and at most floor((masters - 1) / 2) in any zone. */
  readonly masters: number;

  /**
   * Replicas per master, each in a zone other than its master's.
   *
   * @default 1
   */
  readonly replicasPerMaster?: number;

  /**
   * The name of the objects (StatefulSets are `<name>-<zone>`).
   *
   * @default - the construct's id
   */
  readonly name?: string;

  /**
   * The namespace of every object.
   *
   * @default - none (the namespace of the kubectl context)
   */
  readonly namespace?: string;

  /**
   * The Redis image (7.0 or newer: the runtime uses CLUSTER ADDSLOTSRANGE).
   *
   * @default 'docker.io/library/redis:7.2.5'
   */
  readonly image?: string;

  /**
   * Resources of each Redis container.
   *
   * @default - requests cpu 100m, memory 256Mi; limits memory 256Mi
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * A persistent volume per node (data survives a pod restart).
   *
   * @default - an emptyDir: a restarted pod comes back empty and resyncs from its shard
   */
  readonly storage?: RedisStorage;

  /**
   * The Secret key with the password (requirepass and masterauth, passed through the environment, never
   * written into a manifest).
   *
   * @default - no password
   */
  readonly password?: RedisPasswordSecret;

  /**
   * `cluster-node-timeout`: how long a master must be unreachable before its replica takes over.
   *
   * @default Duration.seconds(5)
   */
  readonly clusterNodeTimeout?: Duration;

  /**
   * `cluster-require-full-coverage`: refuse every query while any slot is unserved (Redis's default).
   * With false, the slots still served keep answering during a failover.
   *
   * @default false
   */
  readonly requireFullCoverage?: boolean;
}

/**
 * A Redis Cluster laid out to survive losing a zone: one StatefulSet per zone (pinned to it, pods of one
 * shard never on one host), a headless Service for the cluster bus, a client Service, redis.conf, a
 * PodDisruptionBudget per zone, and the planned shard layout as a ConfigMap that the runtime controller
 * (`cdk8s-zones-controller redis`) reads to bootstrap and heal the cluster.
 */
export class ZonalRedisCluster extends Construct {
  /** The planned layout (which pod is which shard's master or replica). */
  public readonly layout: RedisShardLayout;
  /** The name of the client Service. */
  public readonly serviceName: string;
  /** The name of the ConfigMap that holds the planned layout (key `layout.json`). */
  public readonly layoutConfigMapName: string;

  constructor(scope: Construct, id: string, props: ZonalRedisClusterProps) {
    super(scope, id);
    const where = `ZonalRedisCluster '${this.node.path}'`;
    const name = props.name ?? id;
    const namespace = props.namespace;
    this.layout = RedisShardLayout._plan(where, {
      zones: props.topology.zones, masters: props.masters, replicasPerMaster: props.replicasPerMaster ?? 1,
    });
    if (props.storage) parseBytes(where, 'storage.size', props.storage.size);
    if (props.password && (!props.password.name || !props.password.key)) {
      throw invalidProp(where, 'password', props.password, 'must name both the Secret (name) and the key in it that holds the password (key)');
    }
    const timeout = (props.clusterNodeTimeout ?? Duration.seconds(5)).toMilliseconds();
    if (!Number.isInteger(timeout) || timeout < 100) {
      throw invalidProp(where, 'clusterNodeTimeout', `${timeout}ms`, 'must be a whole number of milliseconds >= 100');
    }

    const labels = (component: string) => ({ ...standardLabels('redis', name, component), [REDIS_CLUSTER_LABEL]: name });
    const selector = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': name };

    const conf = redisConf(timeout, props.requireFullCoverage ?? false);
    const config = new k8s.KubeConfigMap(this, 'config', {
      metadata: { name: `${name}-config`, namespace, labels: labels('config') },
      data: { 'redis.conf': conf },
    });
    this.layoutConfigMapName = layoutConfigMapName(name);
    new k8s.KubeConfigMap(this, 'layout', {
      metadata: { name: this.layoutConfigMapName, namespace, labels: labels('layout') },
      data: { [LAYOUT_KEY]: this.layout.toJson() },
    });
    const headless = new k8s.KubeService(this, 'nodes', {
      metadata: { name: `${name}-nodes`, namespace, labels: labels('node') },
      spec: {
        clusterIp: 'None',
        publishNotReadyAddresses: true, // the cluster bus must reach nodes that are not Ready yet
        selector,
        ports: [
          { name: 'redis', port: REDIS_PORT, targetPort: k8s.IntOrString.fromString('redis') },
          { name: 'bus', port: REDIS_BUS_PORT, targetPort: k8s.IntOrString.fromString('bus') },
        ],
      },
    });
    this.serviceName = name;
    new k8s.KubeService(this, 'client', {
      metadata: { name, namespace, labels: labels('client') },
      spec: { selector, ports: [{ name: 'redis', port: REDIS_PORT, targetPort: k8s.IntOrString.fromString('redis') }] },
    });

    const hash = configHash(conf);
    for (const zone of props.topology.zones) {
      const zoneLabels = { ...labels('node'), [ZONE_LABEL]: zone };
      const zoneSelector = { ...selector, [ZONE_LABEL]: zone };
      const statefulSet = `${name}-${zone}`;
      new k8s.KubeStatefulSet(this, zone, {
        metadata: { name: statefulSet, namespace, labels: zoneLabels },
        spec: {
          replicas: this.layout.nodesPerZone[zone],
          serviceName: headless.name,
          podManagementPolicy: 'Parallel',
          // The runtime controller restarts pods itself (replicas first, masters after a failover).
          updateStrategy: { type: 'OnDelete' },
          selector: { matchLabels: zoneSelector },
          template: {
            metadata: { labels: zoneLabels, annotations: { [CONFIG_HASH_ANNOTATION]: hash } },
            spec: this.podSpec(props, zone, name, config.name, selector),
          },
          volumeClaimTemplates: props.storage && [{
            metadata: { name: 'data' },
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: props.storage.storageClassName,
              resources: { requests: { storage: k8s.Quantity.fromString(props.storage.size) } },
            },
          }],
        },
      });
      new k8s.KubePodDisruptionBudget(this, `${zone}-pdb`, {
        metadata: { name: statefulSet, namespace, labels: zoneLabels },
        spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: zoneSelector } },
      });
    }
  }

  /** The pod names (`<name>-<zone>-<ordinal>`) that share a shard with a pod of `zone`, other than that pod. */
  private shardPeersOf(zone: string, name: string): string[] {
    const peers = new Set<string>();
    for (const own of this.layout.nodesInZone(zone)) {
      for (const other of this.layout.nodes) {
        if (other.shard === own.shard && other.name !== own.name) peers.add(`${name}-${other.name}`);
      }
    }
    return [...peers].sort();
  }

  private podSpec(props: ZonalRedisClusterProps, zone: string, name: string, configMap: string, selector: { [key: string]: string }): k8s.PodSpec {
    const secret = props.password && { secretKeyRef: { name: props.password.name, key: props.password.key } };
    const auth = secret ? ['--requirepass', '$(REDIS_PASSWORD)', '--masterauth', '$(REDIS_PASSWORD)'] : [];
    const probe = (extra: Partial<k8s.Probe>): k8s.Probe => ({
      exec: { command: ['redis-cli', '-h', '127.0.0.1', '-p', `${REDIS_PORT}`, 'ping'] }, periodSeconds: 10, timeoutSeconds: 5, ...extra,
    });
    return {
      automountServiceAccountToken: false,
      securityContext: restrictedPodSecurity(UID, UID),
      affinity: {
        nodeAffinity: ZoneAffinity.pinToZone(props.topology, zone),
        podAntiAffinity: {
          // Hard: never on a host with another pod of one of this zone's shards.
          requiredDuringSchedulingIgnoredDuringExecution: [{
            topologyKey: props.topology.hostnameKey,
            labelSelector: {
              matchLabels: selector,
              matchExpressions: [{ key: POD_NAME_LABEL, operator: 'In', values: this.shardPeersOf(zone, name) }],
            },
          }],
          // Soft: one Redis pod per host where there are hosts enough.
          preferredDuringSchedulingIgnoredDuringExecution: [{
            weight: 100, podAffinityTerm: { topologyKey: props.topology.hostnameKey, labelSelector: { matchLabels: selector } },
          }],
        },
      },
      containers: [{
        name: 'redis',
        image: props.image ?? 'docker.io/library/redis:7.2.5',
        command: ['redis-server'],
        args: [`${CONFIG_DIR}/redis.conf`, '--dir', DATA_DIR, '--cluster-announce-ip', '$(POD_IP)', ...auth],
        env: [
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          ...(secret ? [
            { name: 'REDIS_PASSWORD', valueFrom: secret },
            { name: 'REDISCLI_AUTH', valueFrom: secret }, // redis-cli (the probes) reads it
          ] : []),
        ],
        ports: [{ name: 'redis', containerPort: REDIS_PORT }, { name: 'bus', containerPort: REDIS_BUS_PORT }],
        // Loading a large append-only file can take a while after a restart.
        startupProbe: probe({ failureThreshold: 30 }),
        readinessProbe: probe({ failureThreshold: 3 }),
        livenessProbe: probe({ failureThreshold: 6 }),
        resources: props.resources ?? {
          requests: { cpu: k8s.Quantity.fromString('100m'), memory: k8s.Quantity.fromString('256Mi') },
          limits: { memory: k8s.Quantity.fromString('256Mi') },
        },
        securityContext: restrictedContainerSecurity(),
        volumeMounts: [
          { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
          { name: 'data', mountPath: DATA_DIR },
          { name: 'tmp', mountPath: '/tmp' },
        ],
      }],
      volumes: [
        { name: 'config', configMap: { name: configMap } },
        { name: 'tmp', emptyDir: {} },
        ...(props.storage ? [] : [{ name: 'data', emptyDir: {} }]),
      ],
    };
  }
}

/**
 * redis.conf for a cluster node (the same text the integration tier runs redis-server with); the data
 * directory is an argument (`--dir`), as the integration tier gives each process its own.
 */
export function redisConf(clusterNodeTimeoutMs: number, requireFullCoverage: boolean): string {
  return [
    `port ${REDIS_PORT}`,
    'cluster-enabled yes',
    'cluster-config-file nodes.conf',
    `cluster-node-timeout ${clusterNodeTimeoutMs}`,
    `cluster-require-full-coverage ${requireFullCoverage ? 'yes' : 'no'}`,
    // Replicas of a master that was away for long still take over: the zone-loss case.
    'cluster-replica-validity-factor 0',
    'appendonly yes',
    'protected-mode no',
    '',
  ].join('\n');
}
