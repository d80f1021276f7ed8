/**
 * The Redis cluster as the manager understands it (pure): the observed nodes by name and id, the view it trusts
 * for slot ownership, who serves each shard, and which shard each stand-in (a node outside its planned zone) takes
 * part in. Its decisions (decide.ts) and the executor read it.
 */
import { ClusterNodeEntry, InventoryNode, isMaster, ObservedNode, self, slotCount } from './model';
import { assignStandIns, ShardCover } from './stand-ins';
import { RedisNodePlan, RedisShardLayout } from '../../../src/redis/layout';
import { REDIS_CLUSTER_SLOTS, shardOfSlot } from '../../../src/redis/slots';

/** The cluster as the manager understands it: the nodes by name and id, and the authoritative view. */
export class ClusterAnalysis {
  public readonly reachable: ObservedNode[];
  /** The reachable node whose view is used for slot ownership (the one with the most slots). */
  public readonly anchor?: ObservedNode;
  /** Reachable stand-ins with no shard whose master is in another zone (their copy shares its master's zone). */
  public readonly strandedStandIns: string[];
  private readonly byId = new Map<string, ObservedNode>();
  /** The layout's nodes by name: `shardOf` and `isStandIn` are asked for every node, shard by shard. */
  private readonly plannedNodes: ReadonlyMap<string, RedisNodePlan>;
  /** The shard of each reachable stand-in: the one it serves as a master, else the one assigned to it. */
  private readonly standInShards = new Map<string, number>();

  constructor(public readonly layout: RedisShardLayout, public readonly nodes: ObservedNode[]) {
    this.plannedNodes = new Map(layout.nodes.map((p) => [p.name, p]));
    this.reachable = nodes.filter((n) => n.reachable && n.id && n.view);
    for (const n of this.reachable) this.byId.set(n.id!, n);
    const slotsOf = (n: ObservedNode) => slotCount(self(n)?.slots ?? []);
    this.anchor = [...this.reachable].sort((a, b) => slotsOf(b) - slotsOf(a) || cmp(a.name, b.name))[0];
    this.strandedStandIns = this.assignStandIns();
  }

  /** Whether `n` runs outside its planned zone (a lost zone's node brought back elsewhere). */
  public isStandIn(n: InventoryNode): boolean {
    const planned = this.plannedNodes.get(n.name);
    return planned !== undefined && planned.zone !== n.zone;
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

  /** The shard of an inventory node (planned; a stand-in's its own), or undefined for a node outside the plan. */
  public shardOf(name: string): number | undefined {
    return this.standInShards.get(name) ?? this.plannedNodes.get(name)?.shard;
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
    return members.find((n) => n.name === this.layout.shards[shard].master && !this.isStandIn(n));
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

  /**
   * Gives each reachable stand-in its shard (stand-ins.ts): a master with slots keeps the shard it serves; the others
   * are assigned one to replicate. Returns the stranded ones.
   */
  private assignStandIns(): string[] {
    const standIns = this.reachable.filter((n) => this.isStandIn(n));
    for (const n of standIns) {
      const me = self(n)!;
      if (isMaster(me) && me.slots.length > 0) {
        this.standInShards.set(n.name, shardOfSlot(me.slots[0][0], this.layout.masters));
      }
    }
    const replicas = standIns.filter((n) => !this.standInShards.has(n.name)).map((n) => {
      const me = self(n)!;
      const master = isMaster(me) ? undefined : this.node(me.masterId);
      const replicating = master && this.shardOf(master.name);
      return { name: n.name, zone: n.zone, plannedShard: this.shardOf(n.name)!, replicating };
    });
    if (replicas.length === 0) return [];
    const { shards, stranded } = assignStandIns(replicas, this.layout.shards.map((s) => this.cover(s.index)));
    for (const [name, shard] of shards) this.standInShards.set(name, shard);
    return stranded;
  }

  /** Where `shard`'s master runs, and how many of its replicas (no stand-ins) are outside that zone. */
  private cover(shard: number): ShardCover {
    const master = this.shardMaster(shard);
    if (!master) return { index: shard, outsideReplicas: 0 };
    const servesSlots = (n: ObservedNode) => isMaster(self(n)) && slotCount(self(n)!.slots) > 0;
    const outsideReplicas = this.reachable.filter((n) => n !== master && !this.isStandIn(n) && !servesSlots(n)
      && this.shardOf(n.name) === shard && n.zone !== master.zone).length;
    return { index: shard, masterZone: master.zone, outsideReplicas };
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
