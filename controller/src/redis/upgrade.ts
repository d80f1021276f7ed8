/**
 * Replacing out-of-date pods (pure): which Redis pods the manager deletes now so that their StatefulSets
 * (OnDelete) recreate them at the current template revision, in the order a rolling restart of a Redis
 * Cluster needs (the seed's `RedisClusterManager.rollingRestart`, as decisions):
 *
 * - only while the cluster is otherwise healthy: every slot served, no slot open, nothing settling, every
 *   planned node present, answering, serving queries and (replicas) in sync; so a replaced pod is back and in
 *   sync before the next one goes, and no two zones are ever being replaced at once;
 * - replicas first, zone after zone (in the layout's order);
 * - then masters: each is first failed over (plain `CLUSTER FAILOVER`, which waits until the replica has every
 *   write) to an up-to-date replica in sync in another zone, and deleted only once it is a replica; the manager
 *   fails its shard back to it when it is back in sync (rebalance);
 * - at most `maxPerPass` pods per pass, all of one zone, never two of one shard;
 * - a master with no replica is never deleted: its slots' keys would be gone (an issue says why).
 *
 * With one replica per master, a replaced replica leaves its shard on its master alone until it is back, as any
 * restart does; the manager never deletes a pod while another member of its shard is away or syncing (the
 * cluster is not healthy then), so it never deletes the last in-sync replica of a shard that has lost another.
 */
import type { Issue } from './decide';
import { InventoryNode, isMaster, ObservedNode, self } from './model';
import { RedisShardLayout } from '../../../src/redis/layout';

/**
 * Pods replaced per pass by default: one. Each replaced pod resyncs its shard from the master (a full sync:
 * the master forks and streams a snapshot) and each replaced master costs a failover; one at a time keeps a
 * single shard with reduced redundancy and a single master streaming a snapshot. Watch-driven passes start
 * the next replacement within about a second of the last pod being back in sync, so the rollout takes about
 * pods x (restart + sync).
 */
export const DEFAULT_REPLACED_PER_PASS = 1;

/**
 * A pod to replace: a replica is deleted; a master is failed over to `heir` first, and deleted once it is a
 * replica.
 */
export type Replacement =
  | { readonly kind: 'replica'; readonly node: string; readonly zone: string }
  | { readonly kind: 'master'; readonly node: string; readonly zone: string; readonly heir: string };

export interface UpgradeDecision {
  /** The planned nodes whose pods run an out-of-date revision, in layout order. */
  readonly outdated: string[];
  /** What to replace now (empty while waiting). */
  readonly replace: Replacement[];
  /** Why nothing is replaced now although pods are out of date. */
  readonly waiting?: string;
  /** What keeps a pod from ever being replaced by the manager as things are (reported as issues). */
  readonly issues: Issue[];
}

export interface UpgradeInput {
  readonly layout: RedisShardLayout;
  /** The nodes as just observed (after a converge). */
  readonly nodes: readonly ObservedNode[];
  /** The converge's verdict: every slot served, no issue, no step left. */
  readonly healthy: boolean;
  /** The nodes (planned names) whose pods are out of date. */
  readonly outdated: ReadonlySet<string>;
  /** @default DEFAULT_REPLACED_PER_PASS */
  readonly maxPerPass?: number;
}

export function decideUpgrade(input: UpgradeInput): UpgradeDecision {
  const { layout, nodes } = input;
  const outdated = layout.nodes.map((n) => n.name).filter((n) => input.outdated.has(n));
  if (outdated.length === 0) return { outdated, replace: [], issues: [] };
  const wait = (waiting: string, issues: Issue[] = []): UpgradeDecision => ({ outdated, replace: [], waiting, issues });
  if (!input.healthy) return wait('the cluster is not healthy: a pod is replaced only once every other is back and in sync');
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const isAway = (name: string) => !byName.get(name)?.reachable || !self(byName.get(name)!);
  const away = layout.nodes.filter((p) => isAway(p.name)).map((p) => p.name);
  if (away.length > 0) return wait(`planned nodes away: ${away.join(', ')}`);
  const shardOf = new Map(layout.nodes.map((p) => [p.name, p.shard]));
  const max = Math.max(1, input.maxPerPass ?? DEFAULT_REPLACED_PER_PASS);

  const replicas = outdated.map((n) => byName.get(n)!).filter((n) => !isMaster(self(n)));
  if (replicas.length > 0) {
    const zone = firstZone(layout, replicas);
    const replace: Replacement[] = pick(replicas.filter((n) => n.zone === zone), shardOf, max)
      .map((n) => ({ kind: 'replica', node: n.name, zone }));
    return { outdated, replace, issues: [] };
  }

  const issues: Issue[] = [];
  const candidates: Replacement[] = [];
  for (const m of outdated.map((n) => byName.get(n)!)) {
    const id = self(m)!.id;
    const ownReplicas = nodes.filter((n) => n.reachable && self(n)?.masterId === id);
    const heir = ownReplicas
      .filter((r) => r.zone !== m.zone && r.linkUp && !input.outdated.has(r.name))
      .sort((a, b) => (b.replOffset ?? 0) - (a.replOffset ?? 0) || (a.name < b.name ? -1 : 1))[0];
    if (heir) {
      candidates.push({ kind: 'master', node: m.name, zone: m.zone, heir: heir.name });
    } else {
      issues.push({
        kind: 'upgrade-blocked',
        message: ownReplicas.length === 0
          ? `master ${m.name} is out of date but has no replica: deleting it would lose its slots' keys, so it is not replaced`
          : `master ${m.name} is out of date but none of its replicas (${ownReplicas.map((r) => r.name).join(', ')}) is up to date, in sync and in another zone`,
      });
    }
  }
  if (candidates.length === 0) return { outdated, replace: [], waiting: 'no out-of-date master can fail over', issues };
  const zone = firstZone(layout, candidates.map((c) => byName.get(c.node)!));
  const inZone = candidates.filter((c) => c.zone === zone).map((c) => byName.get(c.node)!);
  const chosen = new Set(pick(inZone, shardOf, max).map((n) => n.name));
  return { outdated, replace: candidates.filter((c) => chosen.has(c.node)), issues };
}

/** The first zone (layout order) that one of `nodes` is in. */
function firstZone(layout: RedisShardLayout, nodes: readonly InventoryNode[]): string {
  return layout.zones.find((z) => nodes.some((n) => n.zone === z))!;
}

/** Up to `max` of `nodes` (in order), never two of one shard. */
function pick<T extends InventoryNode>(nodes: readonly T[], shardOf: ReadonlyMap<string, number>, max: number): T[] {
  const shards = new Set<number>();
  const out: T[] = [];
  for (const n of nodes) {
    if (out.length >= max || shards.has(shardOf.get(n.name)!)) continue;
    shards.add(shardOf.get(n.name)!);
    out.push(n);
  }
  return out;
}

/**
 * The planned nodes whose pods run an out-of-date revision: a pod's `controller-revision-hash` label differs
 * from its StatefulSet's `status.updateRevision`. Undefined while some StatefulSet has not observed its latest
 * spec (`status.observedGeneration < metadata.generation`): its updateRevision may be stale, and nothing is
 * replaced on a stale revision.
 */
export function outdatedNodes(
  statefulSets: readonly {
    metadata: { name: string; generation?: number };
    status?: { observedGeneration?: number; updateRevision?: string };
  }[],
  pods: readonly { node: string; statefulSet: string; revision?: string }[],
): Set<string> | undefined {
  const revisions = new Map<string, string>();
  for (const s of statefulSets) {
    const observed = (s.status?.observedGeneration ?? 0) >= (s.metadata.generation ?? 0);
    if (!observed || !s.status?.updateRevision) return undefined;
    revisions.set(s.metadata.name, s.status.updateRevision);
  }
  const outdated = pods.filter((p) => revisions.has(p.statefulSet) && p.revision !== revisions.get(p.statefulSet));
  return new Set(outdated.map((p) => p.node));
}
