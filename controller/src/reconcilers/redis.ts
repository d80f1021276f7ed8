/**
 * The `redis` reconciler: for every `ZonalRedisCluster` (pods labelled `cdk8s-zones.dev/redis-cluster`),
 * reads the planned layout ConfigMap, builds the inventory from the pods and their zone labels, runs the
 * same manager as the `redis` CLI (bootstrap, heal, reshard, rebalance; never gives lost slots away) and
 * writes the state to the ConfigMap `<cluster>-status` (key `state.json`). Polls every `intervalMs`.
 */
import { REDIS_MANAGER, REDIS_MANAGER_RULES } from '../../../src/contract/reconcilers';
import { LAYOUT_KEY, REDIS_CLUSTER_LABEL, STATUS_KEY, layoutConfigMapName, statusConfigMapName } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { isStatus, KubeObject, PODS, Resource, resourcePath, SECRETS } from '../kube/api';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { RedisClusterManager } from '../redis/manager';
import { inventoryFromPods } from '../redis/pods';

const NAME = REDIS_MANAGER;
const CONFIGMAPS: Resource = { apiVersion: 'v1', plural: 'configmaps', namespaced: true };

export interface RedisReconcilerTuning {
  /** @default 15_000 */
  readonly intervalMs?: number;
  /** How long one pass may drive one cluster. @default 60_000 */
  readonly passTimeoutMs?: number;
}

export function redisReconciler(tuning: RedisReconcilerTuning = {}): Reconciler {
  return {
    name: NAME,
    summary: 'bootstrap and heal ZonalRedisClusters to their planned layout; state in <cluster>-status',
    rbac: REDIS_MANAGER_RULES,
    run: (ctx, signal) => runRedis(ctx, signal, tuning),
  };
}

async function runRedis(ctx: ReconcilerContext, signal: AbortSignal, tuning: RedisReconcilerTuning): Promise<void> {
  const log = ctx.log.with({ reconciler: NAME });
  log.info('started');
  while (!signal.aborted) {
    try {
      const pods = (await ctx.kube.list(resourcePath(PODS), { labelSelector: REDIS_CLUSTER_LABEL })).items;
      const clusters = new Map<string, KubeObject[]>();
      for (const pod of pods) {
        const key = `${pod.metadata.namespace}/${pod.metadata.labels![REDIS_CLUSTER_LABEL]}`;
        clusters.set(key, [...(clusters.get(key) ?? []), pod]);
      }
      for (const [key, members] of clusters) {
        if (signal.aborted) break;
        const [namespace, cluster] = key.split('/');
        await reconcileCluster(ctx, namespace, cluster, members, tuning.passTimeoutMs ?? 60_000)
          .catch((error) => {
            ctx.metrics.reconcileErrors.inc({ reconciler: NAME });
            log.warn('redis cluster reconcile failed', { cluster: key, error });
          });
      }
    } catch (error) {
      log.warn('listing redis pods failed', { error });
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, tuning.intervalMs ?? 15_000);
      signal.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined); }, { once: true });
    });
  }
}

async function reconcileCluster(ctx: ReconcilerContext, namespace: string, cluster: string, pods: KubeObject[], timeoutMs: number): Promise<void> {
  const layoutMap = await ctx.kube.get(resourcePath(CONFIGMAPS, namespace, layoutConfigMapName(cluster)));
  const layout = RedisShardLayout.fromJson((layoutMap as any).data[LAYOUT_KEY]);
  const inventory = inventoryFromPods(cluster, pods);
  let password: string | undefined;
  if (inventory.passwordSecret) {
    const secret: any = await ctx.kube.get(resourcePath(SECRETS, namespace, inventory.passwordSecret.name));
    password = Buffer.from(secret.data[inventory.passwordSecret.key], 'base64').toString('utf8');
  }
  const manager = new RedisClusterManager(layout, inventory.nodes, { password, timeoutMs, log: ctx.log.with({ reconciler: NAME, cluster }) });
  try {
    const state = await manager.converge();
    ctx.metrics.reconciles.inc({ reconciler: NAME });
    await writeStatus(ctx, namespace, cluster, { ...state, skippedPods: inventory.skipped, updated: new Date().toISOString() });
  } finally {
    manager.close();
  }
}

async function writeStatus(ctx: ReconcilerContext, namespace: string, cluster: string, state: object): Promise<void> {
  const name = statusConfigMapName(cluster);
  const body = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { [REDIS_CLUSTER_LABEL]: cluster } },
    data: { [STATUS_KEY]: JSON.stringify(state, undefined, 2) },
  };
  try {
    await ctx.kube.replace(resourcePath(CONFIGMAPS, namespace, name), body);
  } catch (err) {
    if (!isStatus(err, 404)) throw err;
    await ctx.kube.create(resourcePath(CONFIGMAPS, namespace), body);
  }
}
