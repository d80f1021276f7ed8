/**
 * Stand-ins (pure): planned nodes that run outside their planned zone. A ZonalRedisCluster with lostZoneRecovery
 * brings a lost zone's nodes back, empty, on the other zones' nodes, under their own names. Such a node adds a copy
 * that survives a zone's loss only as a replica of a master in another zone, so the manager chooses the shard each
 * stand-in replicates: as many shards as can be given a copy outside their master's zone get one, and the other
 * stand-ins go where such copies are fewest. A stand-in is never failed back to as a master (failovers.ts), since
 * its zone would then hold a master more than the layout plans.
 */

/** A stand-in as the assignment sees it. */
export interface StandIn {
  readonly name: string;
  /** The zone it runs in. */
  readonly zone: string;
  readonly plannedShard: number;
  /** The shard whose master it replicates now, if any. */
  readonly replicating?: number;
}

/** A shard as the assignment sees it. */
export interface ShardCover {
  readonly index: number;
  /** The zone of the master serving it now; undefined: no master (nothing to replicate). */
  readonly masterZone?: string;
  /** Its replicas that are no stand-ins and run outside its master's zone. */
  readonly outsideReplicas: number;
}

export interface StandInAssignment {
  /** The shard each stand-in replicates. */
  readonly shards: Map<string, number>;
  /** Stand-ins with no shard whose master is in another zone: they keep their planned shard. */
  readonly stranded: string[];
}

/**
 * The shard each stand-in replicates. First, a maximum matching of stand-ins to the shards with no copy outside
 * their master's zone (each such shard covered by a stand-in outside that zone): the stand-ins that cover one now
 * keep it, and the others are matched by augmenting paths, so a matching that is already maximum never changes.
 * Then each other stand-in, in name order, joins the shard with the fewest copies outside its master's zone, the
 * one it replicates now where that ties (no needless full sync), then its planned shard, then the lowest index.
 */
export function assignStandIns(standIns: readonly StandIn[], shards: readonly ShardCover[]): StandInAssignment {
  const ordered = [...standIns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const reachable = (s: StandIn) => shards.filter((c) => c.masterZone !== undefined && c.masterZone !== s.zone);
  const covering = coverUncovered(ordered, reachable);
  const outside = new Map(shards.map((c) => [c.index, c.outsideReplicas]));
  for (const shard of covering.values()) outside.set(shard, outside.get(shard)! + 1);
  const assigned = new Map(covering);
  const stranded: string[] = [];
  for (const standIn of ordered.filter((s) => !covering.has(s.name))) {
    const rank = (c: ShardCover) => [
      outside.get(c.index)!, Number(c.index !== standIn.replicating), Number(c.index !== standIn.plannedShard), c.index,
    ];
    const best = reachable(standIn).sort((a, b) => compareRanks(rank(a), rank(b)))[0];
    if (best === undefined) stranded.push(standIn.name);
    assigned.set(standIn.name, best?.index ?? standIn.plannedShard);
    if (best) outside.set(best.index, outside.get(best.index)! + 1);
  }
  return { shards: assigned, stranded };
}

/** A maximum matching of stand-ins to the shards with no copy outside their master's zone: stand-in -> shard. */
function coverUncovered(ordered: readonly StandIn[], reachable: (s: StandIn) => ShardCover[]): Map<string, number> {
  const candidates = new Map(ordered.map((s) => [s.name, reachable(s)
    .filter((c) => c.outsideReplicas === 0)
    .map((c) => c.index)
    .sort((a, b) => Number(a !== s.plannedShard) - Number(b !== s.plannedShard) || a - b)]));
  const coveredBy = new Map<number, string>();
  for (const s of ordered) {
    const now = s.replicating;
    if (now !== undefined && candidates.get(s.name)!.includes(now) && !coveredBy.has(now)) coveredBy.set(now, s.name);
  }
  const augment = (name: string, seen: Set<number>): boolean => {
    for (const shard of candidates.get(name)!) {
      if (seen.has(shard)) continue;
      seen.add(shard);
      const holder = coveredBy.get(shard);
      if (holder === undefined || augment(holder, seen)) {
        coveredBy.set(shard, name);
        return true;
      }
    }
    return false;
  };
  const matched = () => new Set(coveredBy.values());
  for (const s of ordered) if (!matched().has(s.name)) augment(s.name, new Set());
  return new Map([...coveredBy].map(([shard, name]) => [name, shard]));
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  const i = a.findIndex((x, k) => x !== b[k]);
  return i < 0 ? 0 : a[i] - b[i];
}
