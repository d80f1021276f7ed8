/**
 * The props of ZonalRedisCluster and their run-time checks.
 */
import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { NETWORK_POLICY_PROPS, NetworkPolicyOptions } from '../kubernetes/network-policy';
import { Props, PropSpec } from '../shared/props';
import { ZONAL_STORAGE_PROPS, ZonalStorage } from '../topology/zonal-storage';
import { ZoneTopology } from '../topology/zone-topology';
import { IZoneController, CONTROLLER_PROP } from '../zone-controller/controller-reference';

/**
 * A key of a Secret, created outside the app, that holds the Redis password.
 *
 * Create it with `kubectl create secret generic`, sealed-secrets, external-secrets, ... Every byte of the
 * value is the password (a trailing newline included); it must not be empty nor hold a NUL byte.
 */
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
  /**
   * The runtime controller that bootstraps and heals the cluster: a `ZoneController` of this app with
   * `redisManager`, or `ZoneController.fromInstalled(...)` for one another app installs (serving this
   * namespace). When it also enforces zone disruption budgets here (its webhook failing closed), evictions
   * may take a zone's pods at once (a ZoneDisruptionBudget); otherwise one pod at a time (a PodDisruptionBudget).
   */
  readonly controller: IZoneController;

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
   * The name of the objects: the client Service, `<name>-nodes` (headless), `<name>-<zone slug>` (StatefulSets).
   *
   * @default - the construct's id when it is a valid name short enough, else one made from the construct path
   */
  readonly name?: string;

  /**
   * The namespace of every object.
   *
   * @default - the chart's namespace
   */
  readonly namespace?: string;

  /**
   * The Redis image (7.0 or newer: the runtime uses CLUSTER ADDSLOTSRANGE).
   *
   * @default 'docker.io/library/redis:7.2.5'
   */
  readonly image?: string;

  /**
   * The image of the metrics exporter beside each redis-server (oliver006/redis_exporter, 1.x).
   *
   * @default 'docker.io/oliver006/redis_exporter:v1.67.0'
   */
  readonly exporterImage?: string;

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
  readonly storage?: ZonalStorage;

  /**
   * The Secret key that holds the password every node requires.
   *
   * Redis gets it as `requirepass` and, for replication, `masterauth`. Required: a cluster without one
   * answers anyone who reaches its pods. Not generated, since a generated password would either change on
   * every synth or need the controller to create Secrets, and a GitOps repository must never hold it:
   * create the Secret outside the app (sealed-secrets, external-secrets, `kubectl create secret generic`).
   * An init container turns the key (mounted as a file) into an in-memory redis.conf include; the password
   * is never in a manifest, a command line or the redis container's environment.
   */
  readonly password: RedisPasswordSecret;

  /**
   * `cluster-node-timeout`: how long a master must be unreachable before its replica takes over.
   *
   * @default Duration.seconds(5)
   */
  readonly clusterNodeTimeout?: Duration;

  /**
   * Whether the manager fails a lost zone's masters over itself, sooner than Redis: once every node of a zone
   * has been silent to every surviving master for `zoneLossFailoverAfter` and does not answer the manager, it
   * runs `CLUSTER FAILOVER FORCE` on the best replica of each of the zone's masters (still elected by a
   * majority of the masters, so a cut-off minority never wins). With false, Redis fails them over by itself,
   * about 1.6 x clusterNodeTimeout + 0.7 s after the loss, refusing writes to their slots until then.
   *
   * @default true
   */
  readonly zoneLossFailover?: boolean;

  /**
   * How long every node of a zone must be silent before the manager fails its masters over
   * (`zoneLossFailover`): above 0 and below `clusterNodeTimeout`. The trade-off: a zone only slow or cut off
   * for longer than this also gets its masters failed over, and writes they took without replicating them
   * are lost when they come back (docs/redis.md).
   *
   * @default - a quarter of clusterNodeTimeout
   */
  readonly zoneLossFailoverAfter?: Duration;

  /**
   * `cluster-require-full-coverage`: refuse every query while any slot is unserved (Redis's default).
   * With false, the slots still served keep answering during a failover.
   *
   * @default false
   */
  readonly requireFullCoverage?: boolean;

  /**
   * Bring a lost zone's nodes back in the surviving zones: when a ZoneShift declares the zone lost (docs/redis.md),
   * `controller` (with `lostZoneRecovery` and `zoneAnnotator`) deletes each zone StatefulSet's claims and pods there,
   * and they come back empty on the other zones' nodes, as stand-ins under their own names. The layout keeps a copy
   * of every shard outside each zone, so no acknowledged write is lost. The manager reads each pod's real zone (the
   * zone annotation) and attaches a stand-in as a replica of a shard whose master is in another zone; a stand-in
   * is never failed back to as a master.
   *
   * @default false
   */
  readonly lostZoneRecovery?: boolean;

  /**
   * The NetworkPolicy of the Redis pods: `clients` may connect to 6379; the cluster bus (16379) and 6379 are
   * open between the cluster's own pods, 6379 to the pods of `controller` (the Redis manager), and the exporters'
   * metrics (9121) to the Prometheus that monitors the cluster (`TopologyShardedPrometheus.monitor`).
   *
   * @default - a NetworkPolicy; clients from the cluster's namespace
   */
  readonly networkPolicy?: NetworkPolicyOptions;
}

export const ZONAL_REDIS_CLUSTER_PROPS: PropSpec<ZonalRedisClusterProps> = {
  controller: CONTROLLER_PROP,
  topology: Props.instanceOf(ZoneTopology),
  masters: Props.integer(0, Number.MAX_SAFE_INTEGER),
  replicasPerMaster: Props.optional(Props.integer(0, Number.MAX_SAFE_INTEGER)),
  name: Props.optional(KubeProps.serviceName()),
  namespace: Props.optional(KubeProps.dnsLabel()),
  image: Props.optional(KubeProps.image()),
  exporterImage: Props.optional(KubeProps.image()),
  resources: Props.optional(KubeProps.resources()),
  storage: Props.optional(Props.struct(ZONAL_STORAGE_PROPS, 'ZonalStorage')),
  password: {
    ...Props.struct<RedisPasswordSecret>({ name: KubeProps.dnsSubdomain(), key: KubeProps.dataKey() }, 'RedisPasswordSecret'),
    expected: 'a RedisPasswordSecret, { name, key } of a Secret created outside the app that holds the password (a Redis Cluster is never left open)',
  },
  clusterNodeTimeout: Props.optional(KubeProps.duration()),
  zoneLossFailover: Props.optional(Props.boolean()),
  zoneLossFailoverAfter: Props.optional(KubeProps.duration()),
  requireFullCoverage: Props.optional(Props.boolean()),
  lostZoneRecovery: Props.optional(Props.boolean()),
  networkPolicy: Props.optional(Props.struct(NETWORK_POLICY_PROPS, 'NetworkPolicyOptions')),
};
