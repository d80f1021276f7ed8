/**
 * A ZonalRedisCluster's layout as gauges, after each pass: every reachable node with its zone, role and shard (the
 * pod of the master it serves with), and per zone the masters the layout plans as replicas. The zone alert rules read
 * them: a master and a replica of one shard in one zone, masters not as planned (src/monitoring/redis-rules.ts).
 * Each pass replaces the cluster's series, so a node gone or moved leaves none behind.
 */
import { redisPodName } from '../../../src/contract/redis';
import { RedisRole } from '../../../src/redis/layout';
import { Metrics } from '../metrics';
import type { ClusterState } from '../redis/decide';

type NodeLabels = { namespace: string; cluster: string; pod: string; zone: string; role: string; shard: string };
type ZoneLabels = { namespace: string; cluster: string; zone: string };

export class RedisLayoutGauges {
  /** The series each cluster (`namespace/cluster`) shows now. */
  private readonly shown = new Map<string, { nodes: NodeLabels[]; zones: ZoneLabels[] }>();

  constructor(private readonly metrics: Pick<Metrics, 'redisNode' | 'redisMastersOffPlan'>) {}

  show(key: string, state: Pick<ClusterState, 'nodes'>): void {
    this.forget(key);
    const [namespace, cluster] = key.split('/');
    const pod = (node: string) => redisPodName(cluster, node);
    const nodes: NodeLabels[] = state.nodes
      .filter((n) => n.reachable && n.role !== undefined && n.zone !== undefined)
      .map((n) => ({
        namespace,
        cluster,
        pod: pod(n.name),
        zone: n.zone!,
        role: n.role!,
        shard: pod(n.role === RedisRole.MASTER ? n.name : n.master ?? ''),
      }));
    for (const labels of nodes) this.metrics.redisNode.set(labels, 1);
    const seen = state.nodes.flatMap((n) => [n.zone, n.plannedZone]).filter((z): z is string => z !== undefined);
    const zoneNames = [...new Set(seen)];
    const zones = zoneNames.sort().map((zone) => ({ namespace, cluster, zone }));
    for (const labels of zones) {
      const off = state.nodes.filter((n) => n.reachable && n.zone === labels.zone && n.role === RedisRole.MASTER
        && n.plannedRole === RedisRole.REPLICA).length;
      this.metrics.redisMastersOffPlan.set(labels, off);
    }
    this.shown.set(key, { nodes, zones });
  }

  /** Removes the cluster's series (gone, or about to be shown anew). */
  forget(key: string): void {
    const before = this.shown.get(key);
    if (!before) return;
    for (const labels of before.nodes) this.metrics.redisNode.remove(labels);
    for (const labels of before.zones) this.metrics.redisMastersOffPlan.remove(labels);
    this.shown.delete(key);
  }
}
