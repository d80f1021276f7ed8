import { describe, invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';
import { ZoneTopology } from '../topology/zone-topology';

/**
 * Where one Prometheus shard runs and which targets it keeps: the targets of `zone` whose hash falls in
 * bucket `inZoneIndex` of `zoneShards`.
 */
export interface ShardAssignment {
  /** The shard's global index, 0 to shards - 1. */
  readonly index: number;
  /** The zone the shard runs in and scrapes. */
  readonly zone: string;
  /** The position of `zone` in the topology's zone list. */
  readonly zoneIndex: number;
  /** The shard's index inside its zone, 0 to `zoneShards` - 1: the hash bucket it keeps. */
  readonly inZoneIndex: number;
  /** The number of shards in the zone: the modulus of the in-zone hash. */
  readonly zoneShards: number;
}

/**
 * Input of `ShardPlan.plan`.
 */
export interface ShardPlanProps {
  /** The zones to shard over; shard `i` goes to zone `i % zones` (without weights). */
  readonly topology: ZoneTopology;

  /** The number of shards, at least one per zone. */
  readonly shards: number;

  /**
   * How many shards each zone gets, for zones with more targets. Must name every zone of the topology,
   * each with at least one shard, and sum to `shards`.
   *
   * @default - `shards` spread round-robin: zone `i % zones` gets shard `i`
   */
  readonly shardsPerZone?: { [zone: string]: number };
}

/**
 * The most shards a plan may have. Each shard is a Prometheus server (a StatefulSet, and with the
 * standalone output its own prometheus.yml and PodDisruptionBudget); more than this is beyond any
 * deployment a zone-sharded setup is meant for, and would only make a chart of thousands of objects.
 */
export const MAX_SHARDS = 1000;

const PROPS: PropSpec<ShardPlanProps> = {
  topology: Props.instanceOf(ZoneTopology),
  shards: Props.integer(1),
  shardsPerZone: Props.optional(Props.mapOf(Props.integer(1, undefined, 'a zone without a shard is not scraped'))),
};

/**
 * Which zone each Prometheus shard runs in, and which slice of that zone's targets it scrapes (pure).
 *
 * Shards are dealt round-robin over the zones in the topology's order, so without weights shard `i` is in
 * zone `i % zones` and raising `shards` never moves an existing shard. Unlike prometheus-operator's
 * formula (modulus `floor(shards / zones)`, which leaves the extra shards idle when `shards` is not a
 * multiple of the zone count), the modulus of a zone is the number of shards in that zone: every shard
 * scrapes, and every (zone, hash bucket) pair belongs to exactly one shard.
 */
export class ShardPlan {
  /** Plans `shards` shards over the topology's zones; throws on a plan that would leave a zone unscraped. */
  public static plan(props: ShardPlanProps): ShardPlan {
    checkProps('ShardPlan', props, PROPS, 'ShardPlanProps');
    return new ShardPlan(planShards('ShardPlan', props.topology.zones, props.shards, props.shardsPerZone));
  }

  /** @internal */
  public static _of(
    where: string,
    zones: string[],
    shards: number,
    shardsPerZone?: { [zone: string]: number },
  ): ShardPlan {
    return new ShardPlan(planShards(where, zones, shards, shardsPerZone));
  }

  /** Every shard, by global index. */
  public readonly shards: ShardAssignment[];

  private constructor(shards: ShardAssignment[]) {
    this.shards = shards;
  }

  /** The shards of `zone`, by in-zone index (empty for a zone outside the plan). */
  public shardsInZone(zone: string): ShardAssignment[] {
    return this.shards.filter((s) => s.zone === zone).sort((a, b) => a.inZoneIndex - b.inZoneIndex);
  }

  /**
   * The shard that scrapes the targets of `zone` whose in-zone hash is `bucket`; throws when the zone is
   * not planned or the bucket is outside `0 .. zoneShards - 1`.
   */
  public shardFor(zone: string, bucket: number): ShardAssignment {
    const shard = this.shards.find((s) => s.zone === zone && s.inZoneIndex === bucket);
    if (!shard) {
      throw invalidProp('ShardPlan.shardFor', 'zone/bucket', `${zone}/${bucket}`, 'is not scraped by any shard of this plan');
    }
    return shard;
  }
}

/** Plans the shards; `where` names the caller in error messages. */
export function planShards(
  where: string, zones: string[], shards: number, shardsPerZone?: { [zone: string]: number },
): ShardAssignment[] {
  checkShardCount(where, shards);
  if (shards < zones.length) {
    throw invalidProp(where, 'shards', shards,
      `is less than the ${zones.length} zones [${zones.join(', ')}]: zone(s) ${zones.slice(shards).join(', ')} ` +
      'would not be scraped (every zone needs at least one shard)');
  }
  const counts = shardsPerZone === undefined
    ? evenCounts(zones.length, shards)
    : weightedCounts(where, zones, shards, shardsPerZone);

  // Deal shards round-robin over the zones that still need one: with even counts this is zone i % Z.
  const assigned: ShardAssignment[] = [];
  const next = zones.map(() => 0);
  for (let round = 0; assigned.length < shards; round++) {
    zones.forEach((zone, zoneIndex) => {
      if (round < counts[zoneIndex]) {
        assigned.push({
          index: assigned.length,
          zone,
          zoneIndex,
          inZoneIndex: next[zoneIndex]++,
          zoneShards: counts[zoneIndex],
        });
      }
    });
  }
  return assigned;
}

/** Refuses a shard count that is not a whole number from 1 to `MAX_SHARDS`. */
export function checkShardCount(where: string, shards: number): void {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) {
    throw invalidProp(where, 'shards', shards, `must be an integer from 1 to ${MAX_SHARDS} (each shard is a Prometheus server)`);
  }
}

function evenCounts(zoneCount: number, shards: number): number[] {
  return Array.from({ length: zoneCount }, (_, z) => Math.floor(shards / zoneCount) + (z < shards % zoneCount ? 1 : 0));
}

function weightedCounts(
  where: string,
  zones: string[],
  shards: number,
  shardsPerZone: { [zone: string]: number },
): number[] {
  for (const [zone, count] of Object.entries(shardsPerZone)) {
    if (!zones.includes(zone)) {
      throw invalidProp(where, `shardsPerZone[${JSON.stringify(zone)}]`, count,
        `names a zone that is not in the topology [${zones.join(', ')}]`);
    }
    if (!Number.isInteger(count) || count < 1) {
      throw invalidProp(where, `shardsPerZone[${JSON.stringify(zone)}]`, count,
        'must be an integer >= 1: a zone without a shard is not scraped');
    }
  }
  const missing = zones.filter((zone) => shardsPerZone[zone] === undefined);
  if (missing.length > 0) {
    throw invalidProp(where, 'shardsPerZone', shardsPerZone,
      `has no entry for zone(s) ${missing.join(', ')}: every zone of the topology needs at least one shard`);
  }
  const sum = zones.reduce((total, zone) => total + shardsPerZone[zone], 0);
  if (sum !== shards) {
    throw invalidProp(where, 'shardsPerZone', shardsPerZone, `sums to ${sum}, not to shards=${describe(shards)}`);
  }
  return zones.map((zone) => shardsPerZone[zone]);
}
