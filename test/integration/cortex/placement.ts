/* eslint-disable no-bitwise */ // FNV-1 works on 32-bit words
/**
 * Where Cortex's ring puts a series, worked out from the ring's tokens, so a test can tell in advance which
 * series lose their write quorum when some instances are gone. As Cortex 1.21 does it with
 * `-distributor.shard-by-all-labels=true` and zone awareness off: the series' token is the 32-bit FNV-1 hash of
 * the tenant, then of each label's name and value in order (pkg/distributor/distributor.go shardByAllLabels,
 * pkg/ingester/client/fnv.go); its replicas are the first `replicationFactor` distinct instances owning the
 * tokens after it, clockwise (pkg/ring/ring.go Get, pkg/ring/util.go searchToken).
 */

const FNV_OFFSET = 2166136261;
const FNV_PRIME = 16777619;

/** The ring token of a series of `tenant` with these labels (in the order they are sent). */
export function seriesToken(tenant: string, labels: readonly (readonly [string, string])[]): number {
  let h = FNV_OFFSET;
  const add = (s: string) => {
    for (const byte of Buffer.from(s)) h = (Math.imul(h, FNV_PRIME) ^ byte) >>> 0;
  };
  add(tenant);
  for (const [name, value] of labels) {
    if (value.length > 0) add(name), add(value);
  }
  return h;
}

/** The ring's instances as its JSON page lists them. */
export interface RingShard {
  readonly id: string;
  readonly zone: string;
  readonly tokens: readonly number[];
}

/** The ids of the `replicationFactor` distinct instances that own the first tokens after `key`, clockwise. */
export function replicaSet(shards: readonly RingShard[], key: number, replicationFactor: number): string[] {
  const tokens = shards.flatMap((s) => s.tokens.map((t) => ({ t, id: s.id }))).sort((a, b) => a.t - b.t);
  const start = Math.max(0, tokens.findIndex((x) => x.t > key));
  const ids: string[] = [];
  for (let i = 0; i < tokens.length && ids.length < replicationFactor; i++) {
    const { id } = tokens[(start + i) % tokens.length];
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}
