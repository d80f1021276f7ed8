/**
 * What a Redis Cluster's ConfigMaps hold: redis.conf, and the planned layout with the manager's failover
 * policy; both derived from the props and checked against what Redis and a ConfigMap accept.
 */
import { Duration } from 'cdk8s';
import { ZonalRedisClusterProps } from './cluster-props';
import { RedisShardLayout } from './layout';
import {
  FAILOVER_POLICY_KEY, failoverPolicyJson, LAYOUT_KEY, REDIS_PORT, zoneLossFailoverAfterProblem,
} from '../contract/redis';
import { invalidProp } from '../shared/errors';
import { INT32_MAX } from '../shared/props';

/** The most bytes of data a ConfigMap may hold (Kubernetes refuses more). */
const CONFIG_MAP_MAX_BYTES = 1024 * 1024;

/**
 * redis.conf for a cluster node (the integration tiers run redis-server with the synthesized ConfigMap);
 * the data directory is an argument (`--dir`), as the integration tier gives each process its own, and so
 * is the auth.conf the init container writes (`--include`).
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

/** `clusterNodeTimeout` in ms, a whole number Redis accepts. */
export function nodeTimeoutMs(where: string, props: ZonalRedisClusterProps): number {
  const timeout = (props.clusterNodeTimeout ?? Duration.seconds(5)).toMilliseconds();
  if (!Number.isInteger(timeout) || timeout < 100 || timeout > INT32_MAX) {
    throw invalidProp(where, 'clusterNodeTimeout', `${timeout}ms`,
      `must be a whole number of milliseconds from 100 to ${INT32_MAX}`);
  }
  return timeout;
}

/** The layout ConfigMap's data (the planned layout and the failover policy), within what a ConfigMap holds. */
export function layoutConfigMapData(
  where: string, props: ZonalRedisClusterProps, layout: RedisShardLayout, timeout: number,
): { [key: string]: string } {
  const policy = {
    clusterNodeTimeoutMs: timeout, zoneLossFailoverAfterMs: zoneLossFailoverAfterMs(where, props, timeout),
  };
  const data = { [LAYOUT_KEY]: layout.toJson(), [FAILOVER_POLICY_KEY]: failoverPolicyJson(policy) };
  const bytes = Object.entries(data).reduce((sum, [key, text]) => sum + key.length + Buffer.byteLength(text), 0);
  if (bytes > CONFIG_MAP_MAX_BYTES) {
    throw invalidProp(where, 'masters', props.masters,
      `with ${layout.nodes.length} nodes makes a layout of ${bytes} bytes, over the ${CONFIG_MAP_MAX_BYTES} ` +
      'a ConfigMap may hold: use fewer masters or replicas');
  }
  return data;
}

/**
 * The manager's zone-loss failover delay in ms (undefined: off, Redis fails over by itself). By default a
 * quarter of the node timeout: every surviving master has a ping pending to a silent node at most half the
 * node timeout after it fell silent (Redis pings each node at least that often), so silence is confirmed
 * and the failover done within the node timeout.
 */
function zoneLossFailoverAfterMs(
  where: string, props: ZonalRedisClusterProps, clusterNodeTimeoutMs: number,
): number | undefined {
  const after = props.zoneLossFailoverAfter?.toMilliseconds({ integral: false });
  if (props.zoneLossFailover === false) {
    if (after !== undefined) {
      throw invalidProp(where, 'zoneLossFailoverAfter', `${after}ms`,
        'is set but zoneLossFailover is false: leave one of them out');
    }
    return undefined;
  }
  if (after === undefined) return Math.max(1, Math.round(clusterNodeTimeoutMs / 4));
  const problem = zoneLossFailoverAfterProblem(after, clusterNodeTimeoutMs);
  if (problem) throw invalidProp(where, 'zoneLossFailoverAfter', `${after}ms`, problem);
  return after;
}
