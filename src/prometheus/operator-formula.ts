/**
 * prometheus-operator's topology sharding formula (spec.shardingStrategy, mode Topology), reproduced to
 * compare against and to warn about: shard `i` scrapes zone `values[i % Z]`, in-zone bucket
 * `floor(i / Z)`, modulus `max(floor(shards / Z), 1)`. When `shards` is not a multiple of `Z` the shards
 * whose bucket is >= the modulus match no target: they run and scrape nothing.
 */
export interface OperatorShard {
  readonly index: number;
  readonly zone: string;
  readonly inZoneIndex: number;
  readonly modulus: number;
  /** True when the shard's bucket can never be hit. */
  readonly idle: boolean;
}

/** Every shard of prometheus-operator's topology formula. */
export function operatorTopologyShards(zones: string[], shards: number): OperatorShard[] {
  const modulus = Math.max(Math.floor(shards / zones.length), 1);
  return Array.from({ length: shards }, (_, index) => {
    const inZoneIndex = Math.floor(index / zones.length);
    return { index, zone: zones[index % zones.length], inZoneIndex, modulus, idle: inZoneIndex >= modulus };
  });
}
