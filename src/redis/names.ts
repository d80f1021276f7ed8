import { LABEL_PREFIX } from '../standard-labels';

/**
 * The names the construct and the runtime manager share (pure, so the controller can import them).
 */

/** The Redis client port of every pod. */
export const REDIS_PORT = 6379;
/** The Redis Cluster bus port (client port + 10000). */
export const REDIS_BUS_PORT = 16379;

/** The label every Redis pod of a `ZonalRedisCluster` carries with its cluster's name (the runtime's selector). */
export const REDIS_CLUSTER_LABEL = `${LABEL_PREFIX}/redis-cluster`;
/** The key of the layout ConfigMap that holds the planned layout (`RedisShardLayout.toJson()`). */
export const LAYOUT_KEY = 'layout.json';
/** The key of the status ConfigMap the runtime manager writes. */
export const STATUS_KEY = 'state.json';

/** The ConfigMap with the planned layout of cluster `name`. */
export function layoutConfigMapName(name: string): string {
  return `${name}-layout`;
}

/** The ConfigMap the runtime manager writes the state of cluster `name` to. */
export function statusConfigMapName(name: string): string {
  return `${name}-status`;
}
