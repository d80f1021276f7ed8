/**
 * The thin IO side of the Redis cluster manager (ioredis): observes the nodes and runs the steps that
 * decide.ts chose. Nothing here decides anything.
 */
import Redis from 'ioredis';
import { ClusterAnalysis } from './cluster-analysis';
import { attemptFailover, failoverFailure } from './graceful-failover';
import { ClusterNodeEntry, InventoryNode, isMaster, joinAddress, ObservedNode, self } from './model';
import { Step } from './steps';

/** Parses `CLUSTER NODES` (one node per line); addresses in the inventory's form. */
export function parseClusterNodes(text: string): ClusterNodeEntry[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((line) => {
    const [id, addr, flags, master, pingSent, , , link, ...slots] = line.trim().split(' ');
    const hostPort = joinAddress(...splitAddress(addr.split('@')[0]));
    const open = slots.map((s) => /^\[(\d+)-([<>])-([0-9a-f]+)\]$/.exec(s)).filter((m): m is RegExpExecArray => m !== null);
    const openSlots = (arrow: string) => open
      .filter((m) => m[2] === arrow)
      .map((m): [number, string] => [Number(m[1]), m[3]]);
    return {
      id,
      address: hostPort,
      flags: flags.split(',').filter((f) => f !== 'noflags'),
      masterId: master === '-' ? undefined : master,
      connected: link === 'connected',
      slots: slots.filter((s) => !s.startsWith('[')).map((s) => {
        const [a, b] = s.split('-').map(Number);
        return [a, b ?? a] as [number, number];
      }),
      ...(Number(pingSent) > 0 ? { pingPendingSinceMs: Number(pingSent) } : {}),
      ...(open.length > 0 ? { migrating: openSlots('>'), importing: openSlots('<') } : {}),
    };
  });
}

export interface ConnectionOptions {
  /** The password (requirepass) of every node. */
  readonly password?: string;
  /** How long a node may take to answer before it counts as unreachable (default 1000 ms). */
  readonly timeoutMs?: number;
}

/** One connection per node address, opened on first use; `close()` ends them all. */
export class RedisNodes {
  private readonly clients = new Map<string, Redis>();

  constructor(private readonly options: ConnectionOptions = {}) {}

  public client(address: string): Redis {
    let client = this.clients.get(address);
    if (!client) {
      const [host, port] = splitAddress(address);
      client = new Redis({
        host,
        port,
        password: this.options.password,
        connectTimeout: this.options.timeoutMs ?? 1000,
        commandTimeout: this.options.timeoutMs ?? 1000,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: true,
        lazyConnect: true,
        retryStrategy: () => null, // a dead node fails fast; the next call reconnects
      });
      client.on('error', () => undefined); // reported by the calls that fail
      this.clients.set(address, client);
    }
    if (client.status === 'end' || client.status === 'close') {
      this.clients.delete(address);
      client.disconnect();
      return this.client(address);
    }
    return client;
  }

  /** Runs one command on a node. */
  public async call(address: string, ...args: (string | number)[]): Promise<unknown> {
    const client = this.client(address);
    if (client.status === 'wait') await client.connect();
    return client.call(String(args[0]), ...args.slice(1).map(String));
  }

  /** Runs commands in one round trip on a node; throws the first error. */
  public async pipeline(address: string, commands: (string | number)[][]): Promise<unknown[]> {
    if (commands.length === 0) return [];
    const client = this.client(address);
    if (client.status === 'wait') await client.connect();
    const pipeline = client.pipeline();
    for (const [name, ...args] of commands) pipeline.call(String(name), ...args.map(String));
    const results = await pipeline.exec();
    return (results ?? []).map(([err, value]) => {
      if (err) throw err;
      return value;
    });
  }

  /** Observes every node of the inventory (in parallel); a node that does not answer is unreachable. */
  public async observe(inventory: readonly InventoryNode[]): Promise<ObservedNode[]> {
    return Promise.all(inventory.map(async (n): Promise<ObservedNode> => {
      try {
        // TIME right after CLUSTER NODES (one connection, in order): the node's pending pings against its own clock
        const [id, nodes, [seconds, micros], info, clusterInfo] = await Promise.all([
          this.call(n.address, 'CLUSTER', 'MYID'),
          this.call(n.address, 'CLUSTER', 'NODES'),
          this.call(n.address, 'TIME'),
          this.call(n.address, 'INFO', 'replication'),
          this.call(n.address, 'CLUSTER', 'INFO'),
        ]) as [string, string, [string, string], string, string];
        return {
          ...n,
          reachable: true,
          id,
          view: parseClusterNodes(nodes),
          linkUp: /master_link_status:up/.test(info),
          replOffset: replicationOffset(info),
          clockMs: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000),
          stateOk: /^cluster_state:ok\r?$/m.test(clusterInfo),
        };
      } catch {
        this.drop(n.address);
        return { ...n, reachable: false };
      }
    }));
  }

  public close(): void {
    for (const c of this.clients.values()) c.disconnect();
    this.clients.clear();
  }

  private drop(address: string): void {
    this.clients.get(address)?.disconnect();
    this.clients.delete(address);
  }
}

/** A node's replication offset from `INFO replication`: what it processed as a replica, else its own as a master. */
export function replicationOffset(info: string): number | undefined {
  const m = /^slave_repl_offset:(\d+)/m.exec(info) ?? /^master_repl_offset:(\d+)/m.exec(info);
  return m ? Number(m[1]) : undefined;
}

/** Redis gives up a manual failover (FORCE included) after 5 s (CLUSTER_MF_TIMEOUT); the step waits a little longer. */
const FORCE_FAILOVER_WAIT_MS = 6_000;

/** Runs one step. */
export async function execute(redis: RedisNodes, step: Step, c: ClusterAnalysis, password?: string): Promise<void> {
  const at = (name: string) => {
    const node = c.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node named ${name}`);
    return node.address;
  };
  switch (step.kind) {
    case 'meet': {
      const [host, port] = splitAddress(step.address);
      await redis.call(at(step.on), 'CLUSTER', 'MEET', host, port);
      return;
    }
    case 'add-slots':
      await redis.call(at(step.on), 'CLUSTER', 'ADDSLOTSRANGE', ...step.ranges.flat());
      return;
    case 'replicate':
      await redis.call(at(step.on), 'CLUSTER', 'REPLICATE', step.masterId);
      return;
    case 'failover': {
      const attempt = await attemptFailover(redis, at(step.on), step.takeover);
      if (attempt.outcome !== 'promoted') throw failoverFailure(step.on, attempt);
      return;
    }
    case 'force-failover': {
      // One attempt, awaited: a second one would restart the election, and masters that voted in the first
      // refuse to vote for a replica of the same master again for 2 x cluster-node-timeout.
      const address = at(step.on);
      await redis.call(address, 'CLUSTER', 'FAILOVER', 'FORCE');
      const tookOver = async () => ((await redis.call(address, 'ROLE')) as string[])[0] === 'master';
      await until(tookOver, FORCE_FAILOVER_WAIT_MS, `${step.on} to take over ${step.master}`, 20);
      return;
    }
    case 'forget':
      await Promise.all(step.on.map((name) => redis.call(at(name), 'CLUSTER', 'FORGET', step.id).catch(() => undefined)));
      return;
    case 'retire': {
      const others = c.reachable.filter((n) => n.name !== step.on);
      await Promise.all(others.map((n) => redis.call(n.address, 'CLUSTER', 'FORGET', step.id).catch(() => undefined)));
      await redis.call(at(step.on), 'CLUSTER', 'RESET', 'HARD');
      return;
    }
    case 'stable':
      await redis.pipeline(at(step.on), step.slots.map((s) => ['CLUSTER', 'SETSLOT', s, 'STABLE']));
      return;
    case 'migrate':
      await migrate(redis, c, at(step.from), at(step.to), step.toId, step.ranges, password);
      return;
  }
}

/**
 * Moves slots with their keys, one slot at a time, as `redis-cli --cluster reshard` does: the target
 * imports, the source migrates, MIGRATE moves the keys in batches, then every master learns the new owner.
 * A key is always readable from its source or (after an ASK redirect) its target: no key is lost.
 */
async function migrate(
  redis: RedisNodes,
  c: ClusterAnalysis,
  from: string,
  to: string,
  toId: string,
  ranges: [number, number][],
  password?: string,
): Promise<void> {
  const fromId = c.nodes.find((n) => n.address === from)!.id!;
  const [host, port] = splitAddress(to);
  const auth = password ? ['AUTH', password] : [];
  const masters = c.reachable.filter((n) => isMaster(self(n))).map((n) => n.address);
  const slots = ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
  for (let i = 0; i < slots.length; i += MIGRATE_BATCH) {
    const batch = slots.slice(i, i + MIGRATE_BATCH);
    await redis.pipeline(to, batch.map((s) => ['CLUSTER', 'SETSLOT', s, 'IMPORTING', fromId]));
    await redis.pipeline(from, batch.map((s) => ['CLUSTER', 'SETSLOT', s, 'MIGRATING', toId]));
    for (let pending = batch; pending.length > 0;) {
      const keys = await redis.pipeline(from, pending.map((s) => ['CLUSTER', 'GETKEYSINSLOT', s, 1000])) as string[][];
      const moves = keys.filter((k) => k.length > 0).map((k) => ['MIGRATE', host, port, '', 0, 10_000, 'REPLACE', ...auth, 'KEYS', ...k]);
      await redis.pipeline(from, moves);
      pending = pending.filter((_, j) => keys[j].length === 1000); // a full page: look again
    }
    const assign = batch.map((s) => ['CLUSTER', 'SETSLOT', s, 'NODE', toId]);
    await redis.pipeline(to, assign);
    await redis.pipeline(from, assign);
    const others = masters.filter((a) => a !== from && a !== to);
    await Promise.all(others.map((a) => redis.pipeline(a, assign).catch(() => undefined)));
  }
}

/** Slots moved per round trip. */
const MIGRATE_BATCH = 128;

export function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), Number(address.slice(i + 1))];
}

/** Polls `check` until it is true; throws after `timeoutMs`. */
export async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
