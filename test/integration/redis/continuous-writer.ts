/**
 * A client that writes to every slot of a Redis Cluster until stopped, and measures how long a slot refused
 * writes.
 */
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis, { RedisOptions } from 'ioredis';
import { nodeClient, slotOwners, keySlots, setAcknowledged, valueOf } from './redis-keys';

export interface WriterOptions {
  /** The nodes to ask for the slot map (CLUSTER SLOTS), in order, after a start and after any failure. */
  readonly seeds: () => string[];
  /** The slot ranges to write to: one slot of each (by a hash tag), keys `{tag}:<prefix>:<n>`. */
  readonly ranges: readonly [number, number][];
  readonly prefix: string;
  readonly password?: string;
  /** How its connections are made (ZoneNetwork.clientFrom: a client inside a zone). */
  readonly Connector?: RedisOptions['Connector'];
  /** Keys per slot per round. @default 10 */
  readonly batch?: number;
}

/**
 * A client that writes until stopped, in rounds: `batch` keys to the master of each of its slots (as the
 * slot map says), acknowledged as `setAcknowledged` says. Records every key whose SET succeeded
 * (`written`) and the acknowledged ones (`acked`); a key whose write failed or timed out is in neither.
 */
export class ContinuousWriter {
  /** Starts writing; the first seed computes the hash tags' slots. */
  public static async start(options: WriterOptions): Promise<ContinuousWriter> {
    const candidates = Array.from({ length: 2000 }, (_, i) => `t${i}`);
    const slots = await keySlots(options.seeds()[0], candidates, options.password);
    const tags = new Map(options.ranges.map(([a, b]) => {
      const i = slots.findIndex((s) => s >= a && s <= b);
      if (i < 0) throw new Error(`no hash tag found for slots ${a}-${b}`);
      return [slots[i], candidates[i]] as [number, string];
    }));
    const writer = new ContinuousWriter(tags, options);
    writer.running = writer.loop();
    return writer;
  }

  public readonly written = new Map<string, string>();
  public readonly acked = new Map<string, string>();
  /**
   * The longest time (ms) one slot refused writes: from the start of the first failed SET (moved, down, no
   * answer) to the start of the next one that succeeded, whether or not a replica acknowledged it.
   */
  public longestRefusalMs = 0;
  /** Each slot's start of a refusal under way. */
  private readonly refusedSince = new Map<number, number>();
  private readonly clients = new Map<string, Redis>();
  private stopped = false;
  private running?: Promise<void>;
  private count = 0;

  /** `tags`: the hash tag of each slot it writes to. */
  private constructor(public readonly tags: ReadonlyMap<number, string>, private readonly options: WriterOptions) {}

  public async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    for (const c of this.clients.values()) c.disconnect();
  }

  private async loop(): Promise<void> {
    let owners: (string | undefined)[] | undefined;
    while (!this.stopped) {
      try {
        owners ??= await this.slotMap();
        await this.round(owners);
      } catch {
        owners = undefined; // failed over, cut off, or not served: ask again
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  private async slotMap(): Promise<(string | undefined)[]> {
    for (const seed of this.options.seeds()) {
      const owners = await slotOwners(seed, this.options.password, this.client(seed)).catch(() => undefined);
      if (owners) return owners;
    }
    throw new Error('no seed answers');
  }

  private async round(owners: (string | undefined)[]): Promise<void> {
    const results = await Promise.allSettled([...this.tags].map(async ([slot, tag]) => {
      const started = Date.now();
      try {
        const owner = owners[slot];
        if (!owner) throw new Error(`slot ${slot} is not served`);
        const keys = Array.from({ length: this.options.batch ?? 10 }, () => `{${tag}}:${this.options.prefix}:${this.count++}`);
        const acked = await setAcknowledged(this.client(owner), keys, WRITER_WAIT_MS);
        for (const k of keys) this.written.set(k, valueOf(k));
        for (const k of acked ? keys : []) this.acked.set(k, valueOf(k));
      } catch (err) {
        if (!this.refusedSince.has(slot)) this.refusedSince.set(slot, started);
        throw err;
      }
      const since = this.refusedSince.get(slot);
      if (since !== undefined) this.longestRefusalMs = Math.max(this.longestRefusalMs, started - since);
      this.refusedSince.delete(slot);
    }));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private client(address: string): Redis {
    let c = this.clients.get(address);
    if (!c || c.status === 'end') {
      const clientOptions = { timeoutMs: WRITER_TIMEOUT_MS, Connector: this.options.Connector };
      c = nodeClient(address, this.options.password, clientOptions);
      this.clients.set(address, c);
    }
    return c;
  }
}

/** How long the writer's WAIT waits for a replica, and its commands for an answer (a cut-off node never answers). */
const WRITER_WAIT_MS = 200;
const WRITER_TIMEOUT_MS = 500;
