/**
 * The Redis cluster as the manager understands it (pure): the observed nodes by name and id, the view it trusts
 * for slot ownership, and who serves each shard. Its decisions (decide.ts) and the executor read it.
 */
import { ClusterNodeEntry, isMaster, ObservedNode, self, slotCount } from './model';
import { RedisShardLayout } from '../../../src/redis/layout';
import { REDIS_CLUSTER_SLOTS } from '../../../src/redis/slots';

/** The cluster as the manager understands it: the nodes by name and id, and the authoritative view. */
export class ClusterAnalysis {
  public readonly reachable: ObservedNode[];
  /** The reachable node whose view is used for slot ownership (the one with the most slots). */
  public readonly anchor?: ObservedNode;
  private readonly byId = new Map<string, ObservedNode>();

  constructor(public readonly layout: RedisShardLayout, public readonly nodes: ObservedNode[]) {
    this.reachable = nodes.filter((n) => n.reachable && n.id && n.view);
    for (const n of this.reachable) this.byId.set(n.id!, n);
    const slotsOf = (n: ObservedNode) => slotCount(self(n)?.slots ?? []);
    this.anchor = [...this.reachable].sort((a, b) => slotsOf(b) - slotsOf(a) || cmp(a.name, b.name))[0];
  }

  public node(id: string | undefined): ObservedNode | undefined {
    return id === undefined ? undefined : this.byId.get(id);
  }

  public byName(name: string): ObservedNode | undefined {
    return this.reachable.find((n) => n.name === name);
  }

  /** The anchor's view of the cluster (empty without a reachable node). */
  public get view(): ClusterNodeEntry[] {
    return this.anchor?.view ?? [];
  }

  /** The planned shard of an inventory node, or undefined for a node outside the plan. */
  public shardOf(name: string): number | undefined {
    return this.layout.nodes.find((n) => n.name === name)?.shard;
  }

  /**
   * The node acting as master of `shard`: a reachable node of the shard that is a master with slots (the
   * most slots), else its planned master when reachable and a master.
   */
  public shardMaster(shard: number): ObservedNode | undefined {
    const members = this.reachable.filter((n) => this.shardOf(n.name) === shard && isMaster(self(n)));
    const serving = members.filter((n) => slotCount(self(n)!.slots) > 0)
      .sort((a, b) => slotCount(self(b)!.slots) - slotCount(self(a)!.slots) || cmp(a.name, b.name));
    if (serving.length > 0) return serving[0];
    return members.find((n) => n.name === this.layout.shards[shard].master);
  }

  /** For each slot, the id of the master that serves it in the anchor's view (undefined: unassigned). */
  public owners(): (ClusterNodeEntry | undefined)[] {
    const owners = new Array<ClusterNodeEntry | undefined>(REDIS_CLUSTER_SLOTS).fill(undefined);
    for (const e of this.view) {
      if (!isMaster(e)) continue;
      for (const [a, b] of e.slots) for (let s = a; s <= b; s++) owners[s] = e;
    }
    return owners;
  }

  /** Masters that serve slots per zone (reachable nodes only). */
  public mastersPerZone(): { [zone: string]: number } {
    const counts: { [zone: string]: number } = Object.fromEntries(this.layout.zones.map((z) => [z, 0]));
    for (const n of this.reachable) {
      if (isMaster(self(n)) && slotCount(self(n)!.slots) > 0) counts[n.zone] = (counts[n.zone] ?? 0) + 1;
    }
    return counts;
  }

  /** The inventory node (by name) at `address`, if any. */
  public nameAt(address: string): string | undefined {
    return this.nodes.find((n) => n.address === address)?.name;
  }
}

/** Names in code-point order (the same on every machine, unlike localeCompare). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
