/**
 * The `redis` reconciler: for every `ZonalRedisCluster` (pods labelled `cdk8s-zones.dev/redis-cluster`, in
 * the namespaces of `--redis-namespaces`, else in all), reads the planned layout ConfigMap, builds the
 * inventory from the cluster's StatefulSet pods and their zone labels, gets the one password Secret they
 * mount (by name: never a list of Secrets), runs the same manager as the `redis` CLI (bootstrap, heal,
 * reshard, rebalance; never gives lost slots away) and writes the state to the ConfigMap `<cluster>-status`
 * (key `state.json`). Polls every `intervalMs`.
 */
import { REDIS_MANAGER, REDIS_MANAGER_RULES, REDIS_UNNAMED_CLUSTER_RULES } from '../../../src/contract/reconcilers';
import { LAYOUT_KEY, REDIS_CLUSTER_LABEL, STATUS_KEY, layoutConfigMapName, statusConfigMapName } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { isStatus, KubeApi, KubeObject, PODS, Resource, resourcePath, SECRETS } from '../kube/api';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { RedisClusterManager } from '../redis/manager';
import { passwordFromBytes } from '../redis/password';
import { inventoryFromPods, SecretKey } from '../redis/pods';

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
    // The ConfigMaps and Secrets are granted by name, per cluster (redisClusterRules), where ZoneController knows them.
    rbac: [...REDIS_MANAGER_RULES, ...REDIS_UNNAMED_CLUSTER_RULES],
    run: (ctx, signal) => runRedis(ctx, signal, tuning),
  };
}

async function runRedis(ctx: ReconcilerContext, signal: AbortSignal, tuning: RedisReconcilerTuning): Promise<void> {
  const log = ctx.log.with({ reconciler: NAME });
  log.info('started');
  while (!signal.aborted) {
    try {
      const { pods, failures } = await listRedisPods(ctx.kube, ctx.settings.redisNamespaces ?? []);
      for (const [namespace, error] of failures) log.warn('listing redis pods failed', { namespace, error });
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

/**
 * The labelled pods of every namespace (`namespaces` empty), else of each of `namespaces`: one list each,
 * as namespaced Roles allow; a namespace that cannot be listed is reported without hiding the others.
 */
export async function listRedisPods(kube: KubeApi, namespaces: readonly string[]): Promise<{ pods: KubeObject[]; failures: [string, unknown][] }> {
  const scopes = namespaces.length === 0 ? [undefined] : namespaces;
  const lists = await Promise.allSettled(scopes.map((ns) => kube.list(resourcePath(PODS, ns), { labelSelector: REDIS_CLUSTER_LABEL })));
  return {
    pods: lists.flatMap((l) => (l.status === 'fulfilled' ? l.value.items : [])),
    failures: lists.flatMap((l, i): [string, unknown][] => (l.status === 'rejected' ? [[scopes[i] ?? '(every namespace)', l.reason]] : [])),
  };
}

/** The password in the Secret key `ref` of `secret`, or why there is none usable (the Secret is made by hand). */
export function passwordOf(namespace: string, ref: SecretKey, secret: KubeObject): string {
  const what = `Secret ${namespace}/${ref.name} key ${JSON.stringify(ref.key)}`;
  const value: string | undefined = secret.data?.[ref.key];
  if (value === undefined) throw new Error(`${what} does not exist: the Redis pods read their password from it`);
  return passwordFromBytes(Buffer.from(value, 'base64'), what);
}

async function reconcileCluster(ctx: ReconcilerContext, namespace: string, cluster: string, pods: KubeObject[], timeoutMs: number): Promise<void> {
  const layoutMap = await ctx.kube.get(resourcePath(CONFIGMAPS, namespace, layoutConfigMapName(cluster)));
  const layout = RedisShardLayout.fromJson((layoutMap as any).data[LAYOUT_KEY]);
  const inventory = inventoryFromPods(cluster, layout.zones, pods);
  const ref = inventory.passwordSecret;
  const password = ref && passwordOf(namespace, ref, await ctx.kube.get(resourcePath(SECRETS, namespace, ref.name)));
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
