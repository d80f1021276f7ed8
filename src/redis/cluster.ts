import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { RedisPasswordSecret, ZONAL_REDIS_CLUSTER_PROPS, ZonalRedisClusterProps } from './cluster-props';
import { RedisShardLayout } from './layout';
import { CONFIG_HASH_ANNOTATION, STATEFULSET_POD_NAME_LABEL, ZONE_LABEL } from '../contract/labels';
import { redisClusterRules } from '../contract/reconcilers';
import {
  FAILOVER_POLICY_KEY, failoverPolicyJson, LAYOUT_KEY, layoutConfigMapName, REDIS_AUTH_CONF, REDIS_AUTH_DIR, REDIS_AUTH_PASSWORD, REDIS_BUS_PORT,
  REDIS_CLUSTER_LABEL, REDIS_PASSWORD_DIR, REDIS_PASSWORD_FILE, REDIS_PASSWORD_VOLUME, REDIS_PORT, redisPodName, redisStatefulSetName,
  zoneLossFailoverAfterProblem,
} from '../contract/redis';
import { quorumAnnotations, REPLICAS_ANNOTATION, ZONE_MAJORITY } from '../contract/zone-check';
import { MAX_STATEFULSET_NAME, NAME_MAX } from '../kubernetes/kubernetes-names';
import { clientPeers, emitNetworkPolicy } from '../kubernetes/network-policy';
import { derivedName, resolveNamespace } from '../kubernetes/object-names';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../kubernetes/pod-security';
import { sizeQuantity } from '../kubernetes/quantity';
import { KubeServiceWithTraffic } from '../kubernetes/service';
import { standardLabels } from '../kubernetes/standard-labels';
import { zoneSlugs } from '../kubernetes/zone-slug';
import { ZoneDisruptionBudget } from '../rollout/zone-disruption-budget';
import { configHash } from '../shared/config-hash';
import { invalidProp } from '../shared/errors';
import { checkProps, INT32_MAX } from '../shared/props';
import { requiredZoneAffinity } from '../topology/affinity';
import { ZoneStorageClasses } from '../topology/zonal-storage';
import { zoneLocalTraffic } from '../topology/zone-local-traffic';
import { ZoneTopology } from '../topology/zone-topology';
import { controllerPeer, IZoneController } from '../zone-controller/controller-reference';
import { REDIS_MANAGER_FEATURE } from '../zone-controller/features';
import { guardsEvictionsIn, serveWith } from '../zone-controller/requirements';

const UID = 999; // the redis user of the official image
const DATA_DIR = '/data';
const CONFIG_DIR = '/etc/redis';
/** The in-memory volume at `REDIS_AUTH_DIR`. */
const AUTH_VOLUME = 'auth';

/**
 * The init container's script (`sh -c`; $1 the password file, $2 auth.conf, $3 the probe's copy, $4 which
 * Secret key, for messages): writes `requirepass` and `masterauth` with every byte of the password
 * hex-escaped (`\xHH`), so quotes, backslashes, spaces, '$' or newlines in it can never break out of
 * redis.conf's double-quoted strings. Refuses an empty password, and a NUL byte (which redis-cli's
 * REDISCLI_AUTH, and most clients, cannot send).
 */
const AUTH_SCRIPT = String.raw`set -eu
umask 077
if [ ! -s "$1" ]; then
  echo "redis-auth: the password ($4, mounted at $1) is empty: put the password in that Secret key" >&2
  exit 1
fi
hex="$(od -An -v -tx1 < "$1" | tr -d ' \n' | sed 's/../\\x&/g')"
case "$hex" in *'\x00'*)
  echo "redis-auth: the password ($4) holds a NUL byte, which Redis clients cannot send: choose another" >&2
  exit 1;;
esac
printf 'requirepass "%s"\nmasterauth "%s"\n' "$hex" "$hex" > "$2"
cat "$1" > "$3"
`;

/**
 * The readiness probe's script ($1 the password file, $2 the port): an authenticated PING. The password
 * goes through redis-cli's environment (REDISCLI_AUTH), never its arguments; `printf x` keeps the trailing
 * newlines that `$(...)` would strip. redis-cli exits 0 even on an error reply, hence the PONG comparison.
 */
const READY_SCRIPT = [
  'REDISCLI_AUTH="$(cat "$1"; printf x)"',
  'REDISCLI_AUTH="${REDISCLI_AUTH%x}"',
  'export REDISCLI_AUTH',
  '[ "$(redis-cli -h 127.0.0.1 -p "$2" ping)" = PONG ]',
  '',
].join('\n');

/** The most bytes of data a ConfigMap may hold (Kubernetes refuses more). */
const CONFIG_MAP_MAX_BYTES = 1024 * 1024;

/**
 * A Redis Cluster laid out to survive losing a zone: one StatefulSet per zone (pinned to it, pods of one
 * shard never on one host), a headless Service for the cluster bus, a client Service, redis.conf, the
 * planned shard layout as a ConfigMap that the runtime controller (`cdk8s-zones-controller redis`) reads
 * to bootstrap and heal the cluster, and a disruption budget that never lets a master and its replica be
 * evicted together: a ZoneDisruptionBudget (evictions in one zone at a time) when the app's ZoneController
 * enforces them, else a PodDisruptionBudget of one pod at a time.
 */
export class ZonalRedisCluster extends Construct {
  /** The planned layout (which pod is which shard's master or replica). */
  public readonly layout: RedisShardLayout;
  /** The name of the client Service. */
  public readonly serviceName: string;
  /** The name of the ConfigMap that holds the planned layout (key `layout.json`) and the failover policy (key `failover.json`). */
  public readonly layoutConfigMapName: string;

  constructor(scope: Construct, id: string, props: ZonalRedisClusterProps) {
    super(scope, id);
    const where = `ZonalRedisCluster '${this.node.path}'`;
    checkProps(where, props, ZONAL_REDIS_CLUSTER_PROPS, 'ZonalRedisClusterProps');
    const zones = props.topology.zones;
    const storageClasses = ZoneStorageClasses.of(where, 'storage', props.topology, props.storage);
    const slugs = zoneSlugs(zones);
    const name = clusterName(where, this, id, props.name, slugs);
    const namespace = resolveNamespace(where, this, props.namespace);
    this.layout = RedisShardLayout._plan(where, { zones, masters: props.masters, replicasPerMaster: props.replicasPerMaster ?? 1 });
    // The manager may read this cluster's layout, status and password Secret, scale its StatefulSets and delete its
    // planned pods, by name, in its namespace only.
    const controller = serveWith(where, props.controller, REDIS_MANAGER_FEATURE, {
      namespace,
      rules: redisClusterRules({
        cluster: name,
        passwordSecret: props.password.name,
        statefulSets: slugs.map((slug) => redisStatefulSetName(name, slug)),
        pods: this.layout.nodes.map((n) => redisPodName(name, n.name)),
      }),
    });
    const timeout = nodeTimeoutMs(where, props);
    const layoutData = layoutConfigMapData(where, props, this.layout, timeout);

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
      data: layoutData,
    });
    const headless = this.services(name, namespace, labels, selector, props.topology);
    this.serviceName = name;

    const hash = configHash(conf);
    const peers = shardPeers(this.layout, name);
    // for the zone check: the per-zone StatefulSets are one cluster, judged together
    const zoneCheck = quorumAnnotations(ZONE_MAJORITY, 'its layout keeps every shard and a majority of masters when one zone is lost (checked at synth)', name);
    zones.forEach((zone, z) => this.zoneStatefulSet(props, {
      name,
      namespace,
      zone,
      slug: slugs[z],
      labels,
      selector,
      hash,
      configName: config.name,
      serviceName: headless,
      peers: peers.get(zone)!,
      // the manager sizes the StatefulSet; the check counts the planned nodes
      annotations: { ...zoneCheck, [REPLICAS_ANNOTATION]: String(this.layout.nodesInZone(zone).length) },
      storageClass: storageClasses.forZone(zone),
    }));
    emitNetworkPolicy(this, 'network-policy', where, props.networkPolicy, {
      name,
      namespace,
      labels: labels('network-policy'),
      podSelector: selector,
      ingress: [
        { ports: ['redis', 'bus'], from: [{ podLabels: selector }] },
        { ports: ['redis'], from: clientPeers(props.networkPolicy) },
        { ports: ['redis'], from: [controllerPeer(controller)] },
      ],
    });
    this.disruptionBudget(name, namespace, selector, labels('node'), controller);
  }

  /** The headless Service that names the pods (and carries the cluster bus), and the client Service; returns the first's name. */
  private services(
    name: string, namespace: string | undefined, labels: (component: string) => { [key: string]: string }, selector: { [key: string]: string },
    topology: ZoneTopology,
  ): string {
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
    // A client's first connection (before the cluster's redirects) stays in its zone.
    new KubeServiceWithTraffic(this, 'client', {
      metadata: { name, namespace, labels: labels('client') },
      spec: { selector, ports: [{ name: 'redis', port: REDIS_PORT, targetPort: k8s.IntOrString.fromString('redis') }] },
    }, zoneLocalTraffic(topology, topology.zones.filter((z) => this.layout.nodesInZone(z).length > 0).length));
    return headless.name;
  }

  /** A zone's StatefulSet: its pods pinned to the zone, sized by the manager, replaced by it (OnDelete). */
  private zoneStatefulSet(props: ZonalRedisClusterProps, o: ZoneStatefulSetOptions): void {
    const zoneLabels = { ...o.labels('node'), [ZONE_LABEL]: o.zone };
    const zoneSelector = { ...o.selector, [ZONE_LABEL]: o.zone };
    new k8s.KubeStatefulSet(this, o.slug, {
      metadata: { name: redisStatefulSetName(o.name, o.slug), namespace: o.namespace, labels: zoneLabels, annotations: o.annotations },
      spec: {
        // No `replicas`: the manager owns it (as an HPA would). It scales a zone up to the layout at once, and down
        // only once the nodes the layout no longer has are drained of slots and forgotten: applied as-is, a
        // scale-down would delete a shard's master and replica before their slots moved.
        serviceName: o.serviceName,
        podManagementPolicy: 'Parallel',
        // The manager replaces out-of-date pods itself (replicas first, masters after a failover, a zone at a time).
        updateStrategy: { type: 'OnDelete' },
        selector: { matchLabels: zoneSelector },
        template: {
          metadata: { labels: zoneLabels, annotations: { [CONFIG_HASH_ANNOTATION]: o.hash } },
          spec: this.podSpec(props, o.zone, o.configName, o.selector, o.peers),
        },
        volumeClaimTemplates: props.storage && [{
          metadata: { name: 'data' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: o.storageClass,
            resources: { requests: { storage: k8s.Quantity.fromString(sizeQuantity(props.storage.size)) } },
          },
        }],
      },
    });
  }

  /**
   * No eviction may take a master and its replica down together, nor a majority of the masters. A zone holds
   * neither (the layout keeps every replica out of its master's zone and a minority of masters per zone), so
   * evictions in one zone at a time are safe: a ZoneDisruptionBudget, when `controller` enforces
   * them for this namespace (its webhook fails closed). Otherwise one pod at a time: a PodDisruptionBudget.
   */
  private disruptionBudget(name: string, namespace: string | undefined, selector: { [key: string]: string },
    labels: { [key: string]: string }, controller: IZoneController): void {
    if (guardsEvictionsIn(controller, namespace)) {
      new ZoneDisruptionBudget(this, 'zone-disruption-budget', {
        controller, name, namespace, selector, maxUnavailable: Math.max(...Object.values(this.layout.nodesPerZone)),
      });
    } else {
      new k8s.KubePodDisruptionBudget(this, 'pdb', {
        metadata: { name, namespace, labels },
        spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
      });
    }
  }

  private podSpec(props: ZonalRedisClusterProps, zone: string, configMap: string, selector: { [key: string]: string }, peers: string[]): k8s.PodSpec {
    const image = props.image ?? 'docker.io/library/redis:7.2.5';
    return {
      automountServiceAccountToken: false,
      securityContext: restrictedPodSecurity(UID, UID),
      affinity: {
        nodeAffinity: requiredZoneAffinity(props.topology, [zone]),
        podAntiAffinity: {
          // Hard: never on a host with another pod of one of this zone's shards.
          requiredDuringSchedulingIgnoredDuringExecution: [{
            topologyKey: props.topology.hostnameKey,
            labelSelector: {
              matchLabels: selector,
              matchExpressions: [{ key: STATEFULSET_POD_NAME_LABEL, operator: 'In', values: peers }],
            },
          }],
          // Soft: one Redis pod per host where there are hosts enough.
          preferredDuringSchedulingIgnoredDuringExecution: [{
            weight: 100, podAffinityTerm: { topologyKey: props.topology.hostnameKey, labelSelector: { matchLabels: selector } },
          }],
        },
      },
      initContainers: [authContainer(image, props.password)],
      containers: [{
        name: 'redis',
        image,
        command: ['redis-server'],
        args: [`${CONFIG_DIR}/redis.conf`, '--include', REDIS_AUTH_CONF, '--dir', DATA_DIR, '--cluster-announce-ip', '$(POD_IP)'],
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        ports: [{ name: 'redis', containerPort: REDIS_PORT }, { name: 'bus', containerPort: REDIS_BUS_PORT }],
        // Alive while it accepts connections (no password needed). No startup probe: the port opens before the
        // data loads, so a long append-only file never gets a loading node killed; it is just not Ready yet.
        livenessProbe: { tcpSocket: { port: k8s.IntOrString.fromString('redis') }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
        // Ready once it answers an authenticated PING (LOADING, or a wrong password, is not PONG).
        readinessProbe: {
          exec: { command: ['sh', '-c', READY_SCRIPT, 'redis-ready', REDIS_AUTH_PASSWORD, `${REDIS_PORT}`] },
          periodSeconds: 10,
          timeoutSeconds: 5,
          failureThreshold: 3,
        },
        resources: props.resources ?? {
          requests: { cpu: k8s.Quantity.fromString('100m'), memory: k8s.Quantity.fromString('256Mi') },
          limits: { memory: k8s.Quantity.fromString('256Mi') },
        },
        securityContext: restrictedContainerSecurity(),
        volumeMounts: [
          { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
          { name: AUTH_VOLUME, mountPath: REDIS_AUTH_DIR, readOnly: true },
          { name: 'data', mountPath: DATA_DIR },
          { name: 'tmp', mountPath: '/tmp' },
        ],
      }],
      volumes: [
        { name: 'config', configMap: { name: configMap } },
        // Only the password key, readable by the redis group alone (fsGroup: the kubelet makes the file root:999).
        {
          name: REDIS_PASSWORD_VOLUME,
          secret: { secretName: props.password.name, items: [{ key: props.password.key, path: REDIS_PASSWORD_FILE }], defaultMode: 0o440 },
        },
        // In memory: the auth files never touch a disk.
        { name: AUTH_VOLUME, emptyDir: { medium: 'Memory', sizeLimit: k8s.Quantity.fromString('1Mi') } },
        { name: 'tmp', emptyDir: {} },
        ...(props.storage ? [] : [{ name: 'data', emptyDir: {} }]),
      ],
    };
  }
}

/**
 * The manager's zone-loss failover delay in ms (undefined: off, Redis fails over by itself). By default a
 * quarter of the node timeout: every surviving master has a ping pending to a silent node at most half the
 * node timeout after it fell silent (Redis pings each node at least that often), so silence is confirmed
 * and the failover done within the node timeout.
 */
function zoneLossFailoverAfterMs(where: string, props: ZonalRedisClusterProps, clusterNodeTimeoutMs: number): number | undefined {
  const after = props.zoneLossFailoverAfter?.toMilliseconds({ integral: false });
  if (props.zoneLossFailover === false) {
    if (after !== undefined) throw invalidProp(where, 'zoneLossFailoverAfter', `${after}ms`, 'is set but zoneLossFailover is false: leave one of them out');
    return undefined;
  }
  if (after === undefined) return Math.max(1, Math.round(clusterNodeTimeoutMs / 4));
  const problem = zoneLossFailoverAfterProblem(after, clusterNodeTimeoutMs);
  if (problem) throw invalidProp(where, 'zoneLossFailoverAfter', `${after}ms`, problem);
  return after;
}

/**
 * The init container that writes the auth files (`AUTH_SCRIPT`) from the mounted Secret key, with the Redis
 * image's own `sh`, and as restricted as the redis container.
 */
function authContainer(image: string, password: RedisPasswordSecret): k8s.Container {
  const file = `${REDIS_PASSWORD_DIR}/${REDIS_PASSWORD_FILE}`;
  return {
    name: 'auth',
    image,
    command: ['sh', '-c', AUTH_SCRIPT, 'redis-auth', file, REDIS_AUTH_CONF, REDIS_AUTH_PASSWORD, `Secret ${password.name} key ${password.key}`],
    resources: {
      requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('16Mi') },
      limits: { memory: k8s.Quantity.fromString('16Mi') },
    },
    securityContext: restrictedContainerSecurity(),
    volumeMounts: [
      { name: REDIS_PASSWORD_VOLUME, mountPath: REDIS_PASSWORD_DIR, readOnly: true },
      { name: AUTH_VOLUME, mountPath: REDIS_AUTH_DIR },
    ],
  };
}

/**
 * redis.conf for a cluster node (the integration tiers run redis-server with the synthesized ConfigMap);
 * the data directory is an argument (`--dir`), as the integration tier gives each process its own, and so
 * is the auth.conf the init container writes (`--include`).
 */
function redisConf(clusterNodeTimeoutMs: number, requireFullCoverage: boolean): string {
  return [
    `port ${REDIS_PORT}`,
    'cluster-enabled yes',
    'cluster-config-file nodes.conf',
    `cluster-node-timeout ${clusterNodeTimeoutMs}`,
    `cluster-require-full-coverage ${requireFullCoverage ? 'yes' : 'no'}`,
    // Replicas of a master that was away for long still take over: the zone-loss case.
    'cluster-replica-validity-factor 0',
    // A master emptied by a resharding stays a master (Redis 7 would make it a replica of whoever took its last
    // slot: masters 5 -> 3 moves every slot of shard 2's master away before it gets its new range). The manager
    // attaches every replica itself, as planned.
    'cluster-allow-replica-migration no',
    'appendonly yes',
    // The password comes with `--include` (auth.conf); without one, only loopback clients are answered.
    'protected-mode yes',
    '',
  ].join('\n');
}

/**
 * For each zone, the pods (`<name>-<node>`) that share a shard with a pod of that zone, other than those
 * pods: they must never run on the same host. One pass over the shards, however large the layout.
 */
function shardPeers(layout: RedisShardLayout, name: string): Map<string, string[]> {
  const peers = new Map(layout.zones.map((zone) => [zone, new Set<string>()]));
  const byName = new Map(layout.nodes.map((n) => [n.name, n]));
  for (const shard of layout.shards) {
    const members = [shard.master, ...shard.replicas].map((n) => byName.get(n)!);
    for (const own of members) {
      for (const other of members) if (other !== own) peers.get(own.zone)!.add(redisPodName(name, other.name));
    }
  }
  return new Map([...peers].map(([zone, set]) => [zone, [...set].sort()]));
}

/** What one zone's StatefulSet is made of. */
interface ZoneStatefulSetOptions {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly zone: string;
  readonly slug: string;
  readonly labels: (component: string) => { [key: string]: string };
  readonly selector: { [key: string]: string };
  /** The hash of redis.conf (a change rolls the pods). */
  readonly hash: string;
  readonly configName: string;
  /** The headless Service that names the pods. */
  readonly serviceName: string;
  /** The addresses of the pods' shard peers (their init container waits for them). */
  readonly peers: string[];
  readonly annotations: { [key: string]: string };
  readonly storageClass: string | undefined;
}

/** `clusterNodeTimeout` in ms, a whole number Redis accepts. */
function nodeTimeoutMs(where: string, props: ZonalRedisClusterProps): number {
  const timeout = (props.clusterNodeTimeout ?? Duration.seconds(5)).toMilliseconds();
  if (!Number.isInteger(timeout) || timeout < 100 || timeout > INT32_MAX) {
    throw invalidProp(where, 'clusterNodeTimeout', `${timeout}ms`, `must be a whole number of milliseconds from 100 to ${INT32_MAX}`);
  }
  return timeout;
}

/** The layout ConfigMap's data (the planned layout and the failover policy), within what a ConfigMap holds. */
function layoutConfigMapData(where: string, props: ZonalRedisClusterProps, layout: RedisShardLayout, timeout: number): { [key: string]: string } {
  const policy = { clusterNodeTimeoutMs: timeout, zoneLossFailoverAfterMs: zoneLossFailoverAfterMs(where, props, timeout) };
  const data = { [LAYOUT_KEY]: layout.toJson(), [FAILOVER_POLICY_KEY]: failoverPolicyJson(policy) };
  const bytes = Object.entries(data).reduce((sum, [key, text]) => sum + key.length + Buffer.byteLength(text), 0);
  if (bytes > CONFIG_MAP_MAX_BYTES) {
    throw invalidProp(where, 'masters', props.masters,
      `with ${layout.nodes.length} nodes makes a layout of ${bytes} bytes, over the ${CONFIG_MAP_MAX_BYTES} a ConfigMap may hold: use fewer masters or replicas`);
  }
  return data;
}

/** The cluster's name: `name`, or one derived from the construct path; short enough for every object named after it. */
function clusterName(where: string, scope: Construct, id: string, name: string | undefined, slugs: readonly string[]): string {
  // StatefulSets are <name>-<zone slug> (at most 52 characters); Services <name> and <name>-nodes (63).
  const room = Math.min(MAX_STATEFULSET_NAME - 1 - Math.max(...slugs.map((z) => z.length)), NAME_MAX - '-nodes'.length);
  const chosen = name ?? derivedName(scope, room, id);
  if (chosen.length > room) {
    throw invalidProp(where, 'name', chosen, `is too long: at most ${room} characters leave room for the zone in the StatefulSet names (${redisStatefulSetName(chosen, slugs[0])}, ...)`);
  }
  return chosen;
}
