/**
 * Keys written and read back through real clients of a Redis Cluster: straight to the master of their slot,
 * acknowledged by a replica (`WAIT 1`), and read through a cluster client that follows redirections.
 */
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { RedisProcesses } from './redis-processes';
import { splitAddress, parseClusterNodes } from '../../../controller/src/redis/executor';
import { InventoryNode } from '../../../controller/src/redis/model';

/** A client of one node that fails fast (no retries; `timeoutMs` per command); the caller disconnects it. */
export function nodeClient(
  address: string,
  password?: string,
  options: { timeoutMs?: number; Connector?: RedisOptions['Connector'] } = {},
): Redis {
  const [host, port] = splitAddress(address);
  const timeouts = { connectTimeout: options.timeoutMs, commandTimeout: options.timeoutMs };
  const c = new Redis({
    host,
    port,
    password,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    ...timeouts,
    Connector: options.Connector,
  });
  c.on('error', () => undefined);
  return c;
}

/**
 * Who serves which slot, as one live node sees it (`CLUSTER SLOTS`): the master's address per slot. `client`: one to
 * use (kept).
 */
export async function slotOwners(address: string, password?: string, client?: Redis): Promise<(string | undefined)[]> {
  const c = client ?? nodeClient(address, password);
  try {
    const slots = await c.call('CLUSTER', 'SLOTS') as [number, number, [string, number, string]][];
    const owners = new Array<string | undefined>(16384).fill(undefined);
    for (const [a, b, [h, p]] of slots) for (let s = a; s <= b; s++) owners[s] = `${h}:${p}`;
    return owners;
  } finally {
    if (!client) c.disconnect();
  }
}

/**
 * How many slots no master among `addresses` claims for itself (its own `CLUSTER NODES` line), undefined when no
 * node answered: whether each slot has a live owner now, as the owners see it. One node's `CLUSTER SLOTS` can lag a
 * failover: a master turned replica loses its slots in another node's view before its successor's claim reaches that
 * node (Redis's gossip), although the successor already serves them.
 */
export async function slotsClaimedByNone(addresses: readonly string[], password?: string): Promise<number | undefined> {
  const claimed = new Array<boolean>(16384).fill(false);
  let answered = 0;
  await Promise.all(addresses.map(async (address) => {
    const c = nodeClient(address, password, { timeoutMs: 1000 });
    try {
      const self = parseClusterNodes(await c.call('CLUSTER', 'NODES') as string).find((n) => n.flags.includes('myself'));
      answered++;
      if (!self?.flags.includes('master')) return;
      for (const [a, b] of self.slots) for (let s = a; s <= b; s++) claimed[s] = true;
    } catch {
      // not answering (being restarted): it serves nothing now
    } finally {
      c.disconnect();
    }
  }));
  return answered === 0 ? undefined : claimed.filter((c) => !c).length;
}

/** The hash slot of each key, as the server at `address` computes it (`CLUSTER KEYSLOT`, one round trip). */
export async function keySlots(address: string, keys: readonly string[], password?: string): Promise<number[]> {
  const c = nodeClient(address, password);
  try {
    const pipeline = c.pipeline();
    for (const k of keys) pipeline.call('CLUSTER', 'KEYSLOT', k);
    return (await pipeline.exec() ?? []).map(([err, slot]) => {
      if (err) throw err;
      return slot as number;
    });
  } finally {
    c.disconnect();
  }
}

/**
 * Writes `keys` (all of one master) with SET in one round trip, then asks the master for its connected
 * replicas (ROLE): with one, `WAIT 1` must count it for the keys to be acknowledged; with none (its replica
 * is lost) the master's OK is the acknowledgement, as a WAIT would only wait out its timeout. Throws when a
 * SET fails (MOVED, CLUSTERDOWN, timeout): no key of the batch counts then.
 */
export async function setAcknowledged(c: Redis, keys: readonly string[], waitMs: number): Promise<boolean> {
  const pipeline = c.pipeline();
  for (const k of keys) pipeline.set(k, valueOf(k));
  pipeline.call('ROLE');
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([err]) => err);
  if (failed) throw failed[0];
  const [role, , replicas] = results[results.length - 1][1] as [string, number, unknown[]];
  if (role !== 'master') throw new Error('not a master');
  return replicas.length === 0 || (await c.call('WAIT', '1', String(waitMs)) as number) >= 1;
}

export const valueOf = (key: string) => `value-of-${key}`;

/**
 * Writes keys straight to the master of their slot, each master's batch acknowledged as `setAcknowledged`
 * says; `written` has the keys whose SET succeeded, `acked` those acknowledged. `owners` maps slots to
 * master addresses.
 */
export async function writeKeys(
  owners: (string | undefined)[], prefix: string, count: number, password?: string,
): Promise<{ written: Map<string, string>; acked: Map<string, string> }> {
  const keys = Array.from({ length: count }, (_, i) => `${prefix}:${i}`);
  const anyMaster = owners.find((o) => o !== undefined);
  if (!anyMaster) throw new Error('no slot is served');
  const slots = await keySlots(anyMaster, keys, password);
  const byMaster = new Map<string, string[]>();
  keys.forEach((key, i) => {
    const owner = owners[slots[i]];
    if (!owner) throw new Error(`slot of ${key} is not served`);
    byMaster.set(owner, [...(byMaster.get(owner) ?? []), key]);
  });
  const acked = new Map<string, string>();
  const written = new Map<string, string>();
  await Promise.all([...byMaster].map(async ([address, batch]) => {
    const c = nodeClient(address, password);
    try {
      const ok = await setAcknowledged(c, batch, 2000).catch(() => undefined);
      for (const k of ok === undefined ? [] : batch) written.set(k, valueOf(k));
      for (const k of ok ? batch : []) acked.set(k, valueOf(k));
    } finally {
      c.disconnect();
    }
  }));
  return { written, acked };
}

/** The keys `missingKeys` reads at once. */
const READ_BATCH = 5000;
/** How many times `missingKeys` reads a key whose read failed (no answer, not a missing key) before it gives up. */
const READ_ATTEMPTS = 3;

/**
 * Reads keys through a cluster client (follows MOVED/ASK); returns the keys whose value is missing or wrong. A read
 * that fails is no lost key: it is read again by a new client. ioredis fails reads in flight with "Connection is
 * closed" when a slot map refresh drops their node from its pool (a seed reset out of the cluster answers with no
 * slots at all). Not auto-pipelined: ioredis 6.0's auto-pipelining throws a TypeError out of its own callback when
 * its slot map lacks a key's slot, as during a zone loss.
 */
export async function missingKeys(
  inventory: InventoryNode[],
  expected: Map<string, string>,
  password?: string,
): Promise<string[]> {
  const missing: string[] = [];
  let unread = [...expected.keys()];
  for (let attempt = 1; unread.length > 0; attempt++) {
    const read = await readKeys(inventory, unread, password);
    for (const [k, value] of read.values) if (value !== expected.get(k)) missing.push(k);
    if (read.failed.length > 0 && attempt === READ_ATTEMPTS) {
      throw new Error(`${read.failed.length} keys could not be read ${READ_ATTEMPTS} times: ${read.error}`);
    }
    unread = read.failed;
  }
  return missing;
}

/** GETs `keys` through one cluster client: the values read, and the keys whose GET failed (with the last error). */
async function readKeys(
  inventory: InventoryNode[],
  keys: string[],
  password?: string,
): Promise<{ values: Map<string, string | null>; failed: string[]; error?: unknown }> {
  const cluster = new Cluster(inventory.map((n) => {
    const [host, port] = splitAddress(n.address);
    return { host, port };
  }), {
    clusterRetryStrategy: () => 100,
    enableOfflineQueue: true,
    redisOptions: { connectTimeout: 500, maxRetriesPerRequest: 1, password },
  });
  cluster.on('error', () => undefined);
  const values = new Map<string, string | null>();
  const failed: string[] = [];
  let error: unknown;
  try {
    for (let i = 0; i < keys.length; i += READ_BATCH) {
      const batch = keys.slice(i, i + READ_BATCH);
      const results = await Promise.allSettled(batch.map((k) => cluster.get(k)));
      results.forEach((r, j) => {
        if (r.status === 'fulfilled') {
          values.set(batch[j], r.value);
        } else {
          failed.push(batch[j]);
          error = r.reason;
        }
      });
    }
    return { values, failed, error };
  } finally {
    cluster.disconnect();
  }
}

/**
 * Polls until a live node sees every slot served by a live master and a write of `count` keys spread over
 * every master is acknowledged (`setAcknowledged`: by a replica where the master still has one); resolves
 * to the milliseconds that took and the keys acknowledged.
 */
export async function untilServedAndWritable(redis: RedisProcesses, prefix: string, timeoutMs = 30_000, count = 300):
Promise<{ ms: number; acked: Map<string, string> }> {
  const start = Date.now();
  for (let round = 0; ; round++) {
    const live = redis.live();
    const liveAddresses = new Set(live.map((n) => n.address));
    const owners = await slotOwners(live[0].address, redis.password).catch(() => []);
    if (owners.length === 16384 && owners.every((o) => o !== undefined && liveAddresses.has(o))) {
      const { acked } = await writeKeys(owners, `${prefix}-${round}`, count, redis.password)
        .catch(() => ({ acked: new Map<string, string>() }));
      if (acked.size === count) return { ms: Date.now() - start, acked };
    }
    if (Date.now() - start > timeoutMs) throw new Error(`slots not all served and writable after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
