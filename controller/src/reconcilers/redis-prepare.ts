/**
 * A Redis cluster's full pass begins here: its layout ConfigMap and password Secret read again, its manager
 * (re)built when they or the pods changed, and what its quick passes reuse until the next full pass.
 */
import { recordedStatus, Reported } from './redis-status';
import { REDIS_MANAGER } from '../../../src/contract/reconcilers';
import { LAYOUT_KEY, layoutConfigMapName, statusConfigMapName } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { isStatus, KubeObject, resourcePath } from '../kube/api';
import { ReconcilerContext } from '../reconciler';
import type { RedisClusterManager } from '../redis/manager';
import { operationRequest } from '../redis/operations';
import { passwordFromBytes } from '../redis/password';
import { SecretKey, inventoryFromPods, withoutDeletedPods } from '../redis/pods';
import { CONFIGMAPS, SECRETS } from '../resources';

/** What a cluster's full pass set up, and its quick passes reuse. */
export interface WatchedCluster extends Reported {
  readonly manager: RedisClusterManager;
  /** What the manager was built from (layout, inventory, password, policy): a new manager when it changes. */
  inputs: string;
  /** How often the cluster is observed between full passes; undefined: only at full passes. */
  readonly watchMs?: number;
  /** Nodes a scale-up added, until the cluster is first healthy with them. */
  readonly growing: Set<string>;
  /** Pods deleted to replace them (node -> uid), until a listing shows their successors. */
  readonly deleted: Map<string, string>;
  /**
   * Planned masters an upgrade failed over away from and has not replaced yet: no fail-back to them until then
   * (ms).
   */
  readonly heldFailBack: Map<string, number>;
  /** When the next full pass is due without a watch event (while pods are replaced or a StatefulSet scaled). */
  fullPassAt?: number;
}

/**
 * How often a cluster with a zone-loss failover delay of `afterMs` is observed: twice within the delay, so the
 * manager notices a silent zone early enough to act when it expires (and no more often than every 100 ms).
 */
export function watchIntervalMs(afterMs: number | undefined): number | undefined {
  return afterMs === undefined ? undefined : Math.max(100, Math.floor(afterMs / 2));
}

/** The password in the Secret key `ref` of `secret`, or why there is none usable (the Secret is made by hand). */
export function passwordOf(namespace: string, ref: SecretKey, secret: KubeObject): string {
  const what = `Secret ${namespace}/${ref.name} key ${JSON.stringify(ref.key)}`;
  const value: string | undefined = secret.data?.[ref.key];
  if (value === undefined) throw new Error(`${what} does not exist: the Redis pods read their password from it`);
  return passwordFromBytes(Buffer.from(value, 'base64'), what);
}

/**
 * Reads the cluster's layout ConfigMap and password Secret, and (re)builds its manager when they or the pods
 * changed.
 */
export async function prepare(
  ctx: ReconcilerContext, namespace: string, cluster: string, pods: KubeObject[], timeoutMs: number,
  last: WatchedCluster | undefined,
): Promise<WatchedCluster> {
  // Loaded on the first cluster: the Redis client is the largest module the controller has, and most runs never
  // need it.
  const { failoverOptions, RedisClusterManager: Manager } = await import('../redis/manager.js');
  const layoutMap = await ctx.kube.get(resourcePath(CONFIGMAPS, namespace, layoutConfigMapName(cluster)));
  const data: Record<string, string> | undefined = (layoutMap as any).data;
  const layout = RedisShardLayout.fromJson(data?.[LAYOUT_KEY] ?? '');
  const failover = failoverOptions(data);
  const planned = new Set(layout.nodes.map((n) => n.name));
  const counted = withoutDeletedPods(cluster, pods, last?.deleted ?? new Map(), planned);
  const inventory = inventoryFromPods(cluster, layout.zones, counted.pods);
  const ref = inventory.passwordSecret;
  const password = ref && passwordOf(namespace, ref, await ctx.kube.get(resourcePath(SECRETS, namespace, ref.name)));
  const inputs = JSON.stringify([data?.[LAYOUT_KEY], failover, inventory.nodes, password]);
  const recorded = last ?? recordedStatus(await statusMapOf(ctx, namespace, cluster));
  const rest = {
    subject: { ...layoutMap, apiVersion: 'v1', kind: 'ConfigMap' },
    health: recorded.health,
    lastOperation: recorded.lastOperation,
    skipped: [...counted.skipped, ...inventory.skipped],
    watchMs: watchIntervalMs(failover.zoneLossFailoverAfterMs),
    lastStatus: last?.lastStatus,
    writtenAt: last?.writtenAt ?? 0,
    growing: last?.growing ?? new Set<string>(),
    deleted: counted.pending,
    heldFailBack: last?.heldFailBack ?? new Map<string, number>(),
  };
  // force-reconcile: everything afresh, new connections included (after a change made by hand)
  const forced = operationRequest(layoutMap.metadata.annotations, cluster);
  const afresh = forced && 'operation' in forced && forced.operation === 'force-reconcile';
  if (last && last.inputs === inputs && !afresh) return { ...last, ...rest };
  last?.manager.close();
  const log = ctx.log.with({ reconciler: REDIS_MANAGER, cluster });
  const manager = new Manager(layout, inventory.nodes, { password, timeoutMs, ...failover, log });
  return { manager, inputs, ...rest };
}

/** The cluster's status ConfigMap, if any. */
async function statusMapOf(ctx: ReconcilerContext, namespace: string, cluster: string) {
  return ctx.kube.get(resourcePath(CONFIGMAPS, namespace, statusConfigMapName(cluster))).catch((err) => {
    if (isStatus(err, 404)) return undefined;
    throw err;
  });
}
