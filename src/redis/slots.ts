/** The number of hash slots of a Redis Cluster. */
export const REDIS_CLUSTER_SLOTS = 16384;

/**
 * The slots shard `index` of `shards` serves: an even split in shard order, as `redis-cli --cluster
 * create` makes it ([first, last], inclusive).
 */
export function slotRange(index: number, shards: number): [number, number] {
  const first = Math.floor((index * REDIS_CLUSTER_SLOTS) / shards);
  const nextFirst = Math.floor(((index + 1) * REDIS_CLUSTER_SLOTS) / shards);
  return [first, nextFirst - 1];
}

/** The shard of `shards` that serves `slot` under the even split of `slotRange`. */
export function shardOfSlot(slot: number, shards: number): number {
  let shard = Math.floor((slot * shards) / REDIS_CLUSTER_SLOTS);
  while (slotRange(shard, shards)[1] < slot) shard++;
  while (slotRange(shard, shards)[0] > slot) shard--;
  return shard;
}
