/**
 * What a `ZonalRedisCluster` and the runtime Redis manager share: ports, labels, ConfigMap names and keys,
 * how pods are named, and where a pod's password lives. Pure, so the controller can import it.
 */
import { PROJECT_DOMAIN } from './labels';
import { zoneSlugs } from '../shared/zone-slug';

/** The Redis client port of every pod. */
export const REDIS_PORT = 6379;
/** The Redis Cluster bus port (client port + 10000). */
export const REDIS_BUS_PORT = 16379;

/** The label every Redis pod of a `ZonalRedisCluster` carries with its cluster's name (the runtime's selector). */
export const REDIS_CLUSTER_LABEL = `${PROJECT_DOMAIN}/redis-cluster`;
/** The key of the layout ConfigMap that holds the planned layout (`RedisShardLayout.toJson()`). */
export const LAYOUT_KEY = 'layout.json';
/** The key of the status ConfigMap the runtime manager writes. */
export const STATUS_KEY = 'state.json';

/**
 * The pod volume of the password Secret (only its password key, as `REDIS_PASSWORD_FILE`). Only the init
 * container mounts it; the runtime finds the cluster's Secret name and key through it.
 */
export const REDIS_PASSWORD_VOLUME = 'redis-password';
/** Where the init container mounts `REDIS_PASSWORD_VOLUME`. */
export const REDIS_PASSWORD_DIR = '/etc/redis-password';
/** The file (the Secret volume item's path) that holds the password, in `REDIS_PASSWORD_DIR`. */
export const REDIS_PASSWORD_FILE = 'password';
/** The in-memory volume (emptyDir, medium Memory) the init container writes the auth files to. */
export const REDIS_AUTH_DIR = '/run/redis-auth';
/** The redis.conf snippet with `requirepass` and `masterauth` (hex-escaped), given to redis-server as `--include`. */
export const REDIS_AUTH_CONF = `${REDIS_AUTH_DIR}/auth.conf`;
/**
 * The password redis-server was started with, for the readiness probe: a copy made by the init container,
 * so a rotated Secret never makes a running pod's probe fail (its redis-server still has the old one).
 */
export const REDIS_AUTH_PASSWORD = `${REDIS_AUTH_DIR}/password`;

/** The ConfigMap with the planned layout of cluster `name`. */
export function layoutConfigMapName(name: string): string {
  return `${name}-layout`;
}

/** The ConfigMap the runtime manager writes the state of cluster `name` to. */
export function statusConfigMapName(name: string): string {
  return `${name}-status`;
}

/**
 * A planned node's name: `<zone slug>-<ordinal>`, its ordinal in the StatefulSet of its zone. The slug is
 * the zone's DNS-safe name (`zoneSlugs`), never the raw zone, which may hold upper case, '_' or '.'.
 */
export function redisNodeName(zoneSlug: string, ordinal: number): string {
  return `${zoneSlug}-${ordinal}`;
}

/** The StatefulSet of cluster `cluster` in the zone whose slug is `zoneSlug`. */
export function redisStatefulSetName(cluster: string, zoneSlug: string): string {
  return `${cluster}-${zoneSlug}`;
}

/** The StatefulSets of cluster `cluster` over `zones` (the zones as the topology names them), in order. */
export function redisStatefulSetNames(cluster: string, zones: readonly string[]): string[] {
  return zoneSlugs(zones).map((slug) => redisStatefulSetName(cluster, slug));
}

/** The pod of a planned node: `<cluster>-<node>`, i.e. `<cluster>-<zone slug>-<ordinal>` (a StatefulSet pod name). */
export function redisPodName(cluster: string, node: string): string {
  return `${cluster}-${node}`;
}

/** The planned node a pod of cluster `cluster` is, or undefined when the pod is not named after one. */
export function redisNodeOfPod(cluster: string, podName: string): string | undefined {
  return podName.startsWith(`${cluster}-`) ? podName.slice(cluster.length + 1) : undefined;
}
