/**
 * What a `ZonalRedisCluster` and the runtime Redis manager share: ports, labels, ConfigMap names and keys,
 * how pods are named, and where a pod's password lives. Pure, so the controller can import it.
 */
import { PROJECT_DOMAIN } from './labels';
import { asObject } from '../kubernetes/objects';
import { zoneSlugs } from '../kubernetes/zone-slug';

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
 * A manual operation asked of the in-cluster manager, as an annotation on the cluster's layout ConfigMap
 * (`kubectl annotate configmap <name>-layout cdk8s-zones.dev/redis-operation=fix`): who may patch that
 * ConfigMap may run it. The manager runs it at its next full pass, then removes the annotation and reports
 * the result in the status ConfigMap (`lastOperation`) and as an Event.
 */
export const REDIS_OPERATION_ANNOTATION = `${PROJECT_DOMAIN}/redis-operation`;
/**
 * The operations the annotation may ask for: `force-reconcile` runs a full pass now with everything read again
 * (new connections too: after a change made by hand); `reset` destroys every key and needs
 * REDIS_RESET_CONFIRM_ANNOTATION too.
 */
export const REDIS_OPERATIONS = ['fix', 'rebalance', 'forget-lost-nodes', 'force-reconcile', 'reset'] as const;
export type RedisOperation = typeof REDIS_OPERATIONS[number];
/**
 * Pauses the in-cluster manager of a cluster while its layout ConfigMap carries it with the value `true`
 * (`kubectl annotate configmap <name>-layout cdk8s-zones.dev/redis-paused=true`): its passes still observe the
 * cluster and report it (status, Events, metrics), but change nothing in Redis or Kubernetes on their own, for work
 * done by hand. A manual operation asked meanwhile still runs: it is a person's explicit request.
 */
export const REDIS_PAUSED_ANNOTATION = `${PROJECT_DOMAIN}/redis-paused`;
/** The second annotation `reset` needs, with the value `redisResetConfirmation(cluster)`. */
export const REDIS_RESET_CONFIRM_ANNOTATION = `${PROJECT_DOMAIN}/redis-reset-confirm`;

/**
 * The value of REDIS_RESET_CONFIRM_ANNOTATION that confirms a reset of `cluster` (its name, so it is typed on purpose).
 */
export function redisResetConfirmation(cluster: string): string {
  return `destroy-all-data-of-${cluster}`;
}

/** The key of the layout ConfigMap that holds the manager's failover policy (`failoverPolicyJson`). */
export const FAILOVER_POLICY_KEY = 'failover.json';

/** How the manager treats a lost zone (the layout ConfigMap's `failover.json`). */
export interface RedisFailoverPolicy {
  /** The nodes' `cluster-node-timeout`, in ms. */
  readonly clusterNodeTimeoutMs: number;
  /**
   * How long every node of a zone must have been silent to every surviving master (and not answer the manager)
   * before the manager fails the zone's masters over (`CLUSTER FAILOVER FORCE`), in ms; undefined: it never
   * does, Redis fails them over by itself (about 1.6 x cluster-node-timeout + 0.7 s).
   */
  readonly zoneLossFailoverAfterMs?: number;
}

/**
 * Why `zoneLossFailoverAfterMs` cannot go with `clusterNodeTimeoutMs` (undefined when it can): a whole
 * number of ms above 0 and below the node timeout, by which Redis starts its own failover anyway.
 */
export function zoneLossFailoverAfterProblem(afterMs: number, clusterNodeTimeoutMs: number): string | undefined {
  if (!Number.isInteger(afterMs) || afterMs <= 0 || afterMs >= clusterNodeTimeoutMs) {
    return `must be a whole number of milliseconds above 0 and below clusterNodeTimeout (${clusterNodeTimeoutMs}ms), ` +
      'after which Redis starts its own failover';
  }
  return undefined;
}

/**
 * The policy as the layout ConfigMap holds it (`zoneLossFailoverAfterMs: null` when the manager leaves failovers to
 * Redis).
 */
export function failoverPolicyJson(policy: RedisFailoverPolicy): string {
  const { clusterNodeTimeoutMs, zoneLossFailoverAfterMs } = policy;
  const stored = { clusterNodeTimeoutMs, zoneLossFailoverAfterMs: zoneLossFailoverAfterMs ?? null };
  return JSON.stringify(stored, undefined, 2);
}

/** Reads `failoverPolicyJson` back; throws, naming the key, when it is not a valid policy. */
export function parseFailoverPolicy(json: string): RedisFailoverPolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    throw new Error(`${FAILOVER_POLICY_KEY}: not JSON: ${(e as Error).message}`);
  }
  const data = asObject(parsed);
  const timeout = data?.clusterNodeTimeoutMs;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw new Error(`${FAILOVER_POLICY_KEY}: clusterNodeTimeoutMs=${JSON.stringify(timeout)} must be a whole number of ms above 0`);
  }
  const after = data?.zoneLossFailoverAfterMs ?? undefined;
  const afterMs = typeof after === 'number' ? after : undefined;
  const problem = after === undefined ? undefined : zoneLossFailoverAfterProblem(afterMs ?? NaN, timeout);
  if (problem) throw new Error(`${FAILOVER_POLICY_KEY}: zoneLossFailoverAfterMs=${JSON.stringify(after)} ${problem}`);
  return { clusterNodeTimeoutMs: timeout, zoneLossFailoverAfterMs: afterMs };
}

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
/**
 * The password as the metrics exporter reads it (its `--redis.password-file`): a JSON object from the node's own
 * address (`redis://127.0.0.1:6379`) to the password, written by the init container beside the others.
 */
export const REDIS_EXPORTER_PASSWORDS = `${REDIS_AUTH_DIR}/exporter.json`;

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

/** The slug of `zone` in object and node names (`zoneSlugs`, one zone at a time). */
export function redisZoneSlug(zone: string): string {
  return zoneSlugs([zone])[0];
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

/** The label the StatefulSet controller puts on each pod: the template revision the pod was made from. */
export const CONTROLLER_REVISION_LABEL = 'controller-revision-hash';

/** The planned node a pod of cluster `cluster` is, or undefined when the pod is not named after one. */
export function redisNodeOfPod(cluster: string, podName: string): string | undefined {
  return podName.startsWith(`${cluster}-`) ? podName.slice(cluster.length + 1) : undefined;
}
