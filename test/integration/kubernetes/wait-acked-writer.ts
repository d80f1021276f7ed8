/**
 * Continuous writes to a Redis cluster, each SET followed by `WAIT 1 <ms>` on the same connection (one round
 * trip, in order): a write counts as acknowledged only when the SET succeeded and WAIT answered that at least one
 * replica has it. Those are the writes a failover must never lose. Each of a few slots per shard is written in its
 * own sequential loop, straight to the master the slot map names; a refused write (MOVED while a failover is under
 * way, a paused master's timeout) asks for the slot map again.
 */
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis from 'ioredis';
import { waitFor } from './wait';
import { keySlots, nodeClient, slotOwners } from '../redis/redis-keys';

export interface WaitAckedWriterOptions {
  /** The nodes to ask for the slot map, in order. */
  readonly seeds: () => string[];
  readonly password?: string;
  /** The slot ranges to write to (the shards'): `slotsPerRange` slots of each, by hash tag. */
  readonly ranges: readonly [number, number][];
  /** @default 2 */
  readonly slotsPerRange?: number;
  readonly prefix: string;
  /** WAIT's timeout. @default 1000 */
  readonly waitMs?: number;
}

/**
 * How long a command may take: a master in a graceful failover pauses its writers until the replica took over,
 * at most 2 x Redis's 5 s manual failover timeout (CLUSTER_MF_TIMEOUT).
 */
const COMMAND_TIMEOUT_MS = 12_000;

export class WaitAckedWriter {
  static async start(opts: WaitAckedWriterOptions): Promise<WaitAckedWriter> {
    const candidates = Array.from({ length: 4000 }, (_, i) => `w${i}`);
    const slots = await keySlots(opts.seeds()[0], candidates, opts.password);
    const tags = opts.ranges.flatMap(([a, b]) => {
      const inRange = candidates.filter((_, i) => slots[i] >= a && slots[i] <= b).slice(0, opts.slotsPerRange ?? 2);
      if (inRange.length < (opts.slotsPerRange ?? 2)) throw new Error(`not enough hash tags found for slots ${a}-${b}`);
      return inRange.map((tag) => [slots[candidates.indexOf(tag)], tag] as const);
    });
    const writer = new WaitAckedWriter(opts);
    writer.running = Promise.all(tags.map(([slot, tag]) => writer.loop(slot, tag)));
    return writer;
  }

  /** The acknowledged writes: key -> value. */
  readonly acked = new Map<string, string>();
  /** SETs that succeeded but WAIT found no replica with them in time (not acknowledged). */
  unacknowledged = 0;
  /** Writes refused or unanswered (MOVED, CLUSTERDOWN, a timeout). */
  refused = 0;
  private readonly clients = new Map<string, Redis>();
  private owners?: Promise<(string | undefined)[]>;
  private stopped = false;
  private running?: Promise<unknown>;

  private constructor(private readonly opts: WaitAckedWriterOptions) {}

  /** Every write tried so far. */
  get attempted(): number {
    return this.acked.size + this.unacknowledged + this.refused;
  }

  /** Waits until `count` more writes than now are acknowledged. */
  async untilMoreAcked(count: number, timeoutMs = 60_000): Promise<void> {
    const target = this.acked.size + count;
    await waitFor(
      `${count} more acknowledged writes`,
      async () => ({ done: this.acked.size >= target, state: this.summary() }),
      { timeoutMs, intervalMs: 50 },
    );
  }

  summary(): string {
    return `${this.attempted} writes: ${this.acked.size} acknowledged, ${this.unacknowledged} unacknowledged, ${this.refused} refused`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    for (const c of this.clients.values()) c.disconnect();
  }

  private async loop(slot: number, tag: string): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const key = `{${tag}}:${this.opts.prefix}:${n}`;
      const value = `value-of-${key}`;
      try {
        const owner = (await (this.owners ??= this.slotMap()))[slot];
        if (!owner) throw new Error(`slot ${slot} is not served`);
        const [[setError], [waitError, replicas]] = (await this.client(owner).pipeline()
          .set(key, value).call('WAIT', '1', String(this.opts.waitMs ?? 1000)).exec())!;
        if (setError) throw setError;
        if (!waitError && Number(replicas) >= 1) this.acked.set(key, value);
        else this.unacknowledged++;
      } catch {
        this.refused++;
        this.owners = undefined; // failed over or not served yet: ask again
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  private async slotMap(): Promise<(string | undefined)[]> {
    for (const seed of this.opts.seeds()) {
      const owners = await slotOwners(seed, this.opts.password, this.client(seed)).catch(() => undefined);
      if (owners) return owners;
    }
    throw new Error('no seed answers');
  }

  private client(address: string): Redis {
    let c = this.clients.get(address);
    if (!c || c.status === 'end') {
      c = nodeClient(address, this.opts.password, { timeoutMs: COMMAND_TIMEOUT_MS });
      this.clients.set(address, c);
    }
    return c;
  }
}
