/**
 * What a `ZonalRedisCluster` and the runtime Redis manager share: ports, labels, ConfigMap names and keys,
 * how pods are named, and how the password reaches a pod. Pure, so the controller can import it.
 */
import { PROJECT_DOMAIN } from './labels';

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
/** The environment variable of the Redis container that holds the password (from a Secret key). */
export const REDIS_PASSWORD_ENV = 'REDIS_PASSWORD';

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

/** The pod of a planned node: `<cluster>-<node>`, i.e. `<cluster>-<zone slug>-<ordinal>` (a StatefulSet pod name). */
export function redisPodName(cluster: string, node: string): string {
  return `${cluster}-${node}`;
}

/** The planned node a pod of cluster `cluster` is, or undefined when the pod is not named after one. */
export function redisNodeOfPod(cluster: string, podName: string): string | undefined {
  return podName.startsWith(`${cluster}-`) ? podName.slice(cluster.length + 1) : undefined;
}
