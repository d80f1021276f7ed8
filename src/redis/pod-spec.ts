/**
 * The pod of a Redis Cluster node: pinned to its zone, never on a host with a pod of one of its shards, its
 * password written into an in-memory auth.conf by an init container, Ready once it answers an authenticated
 * PING, and its metrics served by an exporter beside it (exporter.ts).
 */
import { k8s } from 'cdk8s-plus-28';
import { RedisPasswordSecret, ZonalRedisClusterProps } from './cluster-props';
import { DEFAULT_EXPORTER_IMAGE, exporterContainer } from './exporter';
import { RedisShardLayout } from './layout';
import { STATEFULSET_POD_NAME_LABEL } from '../contract/labels';
import {
  REDIS_AUTH_CONF, REDIS_AUTH_DIR, REDIS_AUTH_PASSWORD, REDIS_BUS_PORT, REDIS_PASSWORD_DIR, REDIS_PASSWORD_FILE,
  REDIS_EXPORTER_PASSWORDS, REDIS_PASSWORD_VOLUME, REDIS_PORT, redisPodName,
} from '../contract/redis';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../kubernetes/pod-security';
import { requiredZoneAffinity } from '../topology/affinity';

const UID = 999; // the redis user of the official image
const DATA_DIR = '/data';
const CONFIG_DIR = '/etc/redis';
const DEFAULT_IMAGE = 'docker.io/library/redis:7.2.5';
/** The in-memory volume at `REDIS_AUTH_DIR`. */
const AUTH_VOLUME = 'auth';

/**
 * The init container's script (`sh -c`; $1 the password file, $2 auth.conf, $3 the probe's copy, $4 which
 * Secret key, for messages, $5 the exporter's password file, $6 the Redis port): writes `requirepass` and
 * `masterauth` with every byte of the password hex-escaped (`\xHH`), so quotes, backslashes, spaces, '$' or
 * newlines in it can never break out of redis.conf's double-quoted strings; and the exporter's JSON, each control
 * byte, quote and backslash escaped (`\u00HH`), every other byte as it is (a password that is not UTF-8 reaches the
 * exporter changed: Redis takes it, the exporter is refused). Refuses an empty password, and a NUL byte (which
 * redis-cli's REDISCLI_AUTH, and most clients, cannot send).
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
{
  printf '{"redis://127.0.0.1:%s":"' "$6"
  for h in $(od -An -v -tx1 < "$1"); do
    d=$((0x$h))
    if [ "$d" -lt 32 ] || [ "$d" -eq 34 ] || [ "$d" -eq 92 ] || [ "$d" -eq 127 ]; then printf '\\u00%s' "$h"
    else printf '%b' "\\0$(printf %03o "$d")"
    fi
  done
  printf '"}\n'
} > "$5"
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

/** Where a zone's pods run and what they mount. */
export interface RedisPodOptions {
  readonly zone: string;
  /** The ConfigMap that holds redis.conf. */
  readonly configMap: string;
  /** The labels every pod of the cluster has. */
  readonly selector: { [key: string]: string };
  /** The pods that share a shard with a pod of this zone: never on the same host. */
  readonly peers: string[];
}

/** The pod of one zone's Redis nodes. */
export function redisPodSpec(props: ZonalRedisClusterProps, o: RedisPodOptions): k8s.PodSpec {
  const image = props.image ?? DEFAULT_IMAGE;
  return {
    automountServiceAccountToken: false,
    securityContext: restrictedPodSecurity(UID, UID),
    affinity: redisAffinity(props, o),
    initContainers: [authContainer(image, props.password)],
    containers: [
      redisContainer(props, image), exporterContainer(props.exporterImage ?? DEFAULT_EXPORTER_IMAGE, AUTH_VOLUME),
    ],
    volumes: redisVolumes(props, o.configMap),
  };
}

/** In the zone; hard: never beside a shard peer; soft: one Redis pod per host where there are hosts enough. */
function redisAffinity(props: ZonalRedisClusterProps, o: RedisPodOptions): k8s.Affinity {
  return {
    nodeAffinity: requiredZoneAffinity(props.topology, [o.zone]),
    podAntiAffinity: {
      // Hard: never on a host with another pod of one of this zone's shards.
      requiredDuringSchedulingIgnoredDuringExecution: [{
        topologyKey: props.topology.hostnameKey,
        labelSelector: {
          matchLabels: o.selector,
          matchExpressions: [{ key: STATEFULSET_POD_NAME_LABEL, operator: 'In', values: o.peers }],
        },
      }],
      // Soft: one Redis pod per host where there are hosts enough.
      preferredDuringSchedulingIgnoredDuringExecution: [{
        weight: 100,
        podAffinityTerm: { topologyKey: props.topology.hostnameKey, labelSelector: { matchLabels: o.selector } },
      }],
    },
  };
}

/** redis-server with the ConfigMap's redis.conf and the init container's auth.conf. */
function redisContainer(props: ZonalRedisClusterProps, image: string): k8s.Container {
  return {
    name: 'redis',
    image,
    command: ['redis-server'],
    args: [
      `${CONFIG_DIR}/redis.conf`, '--include', REDIS_AUTH_CONF, '--dir', DATA_DIR, '--cluster-announce-ip', '$(POD_IP)',
    ],
    env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
    ports: [{ name: 'redis', containerPort: REDIS_PORT }, { name: 'bus', containerPort: REDIS_BUS_PORT }],
    // Alive while it accepts connections (no password needed). No startup probe: the port opens before the
    // data loads, so a long append-only file never gets a loading node killed; it is just not Ready yet.
    livenessProbe: {
      tcpSocket: { port: k8s.IntOrString.fromString('redis') },
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    },
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
  };
}

/** redis.conf, the password key, the in-memory auth files, /tmp, and the data (a claim when storage is given). */
function redisVolumes(props: ZonalRedisClusterProps, configMap: string): k8s.Volume[] {
  return [
    { name: 'config', configMap: { name: configMap } },
    // Only the password key, readable by the redis group alone (fsGroup: the kubelet makes the file root:999).
    {
      name: REDIS_PASSWORD_VOLUME,
      secret: {
        secretName: props.password.name,
        items: [{ key: props.password.key, path: REDIS_PASSWORD_FILE }],
        defaultMode: 0o440,
      },
    },
    // In memory: the auth files never touch a disk.
    { name: AUTH_VOLUME, emptyDir: { medium: 'Memory', sizeLimit: k8s.Quantity.fromString('1Mi') } },
    { name: 'tmp', emptyDir: {} },
    ...(props.storage ? [] : [{ name: 'data', emptyDir: {} }]),
  ];
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
    command: [
      'sh', '-c', AUTH_SCRIPT, 'redis-auth', file, REDIS_AUTH_CONF, REDIS_AUTH_PASSWORD,
      `Secret ${password.name} key ${password.key}`, REDIS_EXPORTER_PASSWORDS, `${REDIS_PORT}`,
    ],
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
 * For each zone, the pods (`<name>-<node>`) that share a shard with a pod of that zone, other than those
 * pods: they must never run on the same host. One pass over the shards, however large the layout.
 */
export function shardPeers(layout: RedisShardLayout, name: string): Map<string, string[]> {
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
