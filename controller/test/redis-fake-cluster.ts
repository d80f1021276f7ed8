/**
 * An in-memory Redis Cluster for the manager's unit tests: one truth (who is master of what, who owns
 * which slot, who knows whom), the steps of decide.ts applied as Redis would apply them, and the automatic
 * failover Redis does after cluster-node-timeout (a replica of a lost master takes over when a majority of
 * the masters that serve slots is up). A clock (`advance`) times how long each stopped node has been
 * silent: the others have a ping to it pending since it stopped, and flag it failed `failAfterMs` later.
 */
import { ClusterNodeEntry, InventoryNode, ObservedNode, toRanges } from '../src/redis/model';
import { Step } from '../src/redis/steps';

interface FakeNode {
  id: string;
  readonly name: string;
  zone: string;
  address: string;
  up: boolean;
  /** When it stopped (the fake's clock). */
  downSince?: number;
  masterId?: string;
  known: Set<string>;
  replOffset: number;
}

export interface FakeClusterOptions {
  /** How long after a node stops the others flag it failed (Redis: about 1.5 x cluster-node-timeout). @default 0 */
  readonly failAfterMs?: number;
}

export class FakeCluster {
  public readonly nodes = new Map<string, FakeNode>();
  /** The id of the master that serves each slot. */
  public readonly owner: (string | undefined)[] = new Array(16384).fill(undefined);
  private ids = 0;
  private readonly takeovers = new Map<string, string>(); // promoted id -> former master id
  private readonly former = new Map<string, string>(); // id of a replaced node -> its address
  /** Where a viewer still sees a node that moved (viewer's name -> moved node's id -> its old address). */
  private readonly staleAddresses = new Map<string, Map<string, string>>();
  /** The clock (ms) every node shares. */
  private now = 1_000_000;

  constructor(inventory: InventoryNode[], private readonly options: FakeClusterOptions = {}) {
    for (const n of inventory) this.add(n);
  }

  public add(n: InventoryNode): void {
    const id = this.newId();
    this.nodes.set(n.name, { ...n, id, up: true, known: new Set([id]), replOffset: 0 });
  }

  /** Time passes. */
  public advance(ms: number): void {
    this.now += ms;
  }

  public get inventory(): InventoryNode[] {
    return [...this.nodes.values()].map(({ name, zone, address }) => ({ name, zone, address }));
  }

  public byName(name: string): FakeNode {
    return this.nodes.get(name)!;
  }

  private byId(id: string | undefined): FakeNode | undefined {
    return [...this.nodes.values()].find((n) => n.id === id);
  }

  public slotsOf(id: string): number[] {
    const slots: number[] = [];
    this.owner.forEach((o, s) => { if (o === id) slots.push(s); });
    return slots;
  }

  /** Every owner's slot ranges, in one pass. */
  private slotRanges(): Map<string, [number, number][]> {
    const bySlot = new Map<string, number[]>();
    this.owner.forEach((o, s) => { if (o !== undefined) (bySlot.get(o) ?? bySlot.set(o, []).get(o)!).push(s); });
    return new Map([...bySlot].map(([id, slots]) => [id, toRanges(slots)]));
  }

  public role(name: string): 'master' | 'replica' {
    return this.byName(name).masterId === undefined ? 'master' : 'replica';
  }

  public observe(): ObservedNode[] {
    const ranges = this.slotRanges();
    return [...this.nodes.values()].map((n) => {
      if (!n.up) return { name: n.name, zone: n.zone, address: n.address, reachable: false };
      const view: ClusterNodeEntry[] = [...n.known].map((id) => this.entry(n, id, ranges.get(id) ?? []));
      const master = this.byId(n.masterId);
      const observed = { name: n.name, zone: n.zone, address: n.address, reachable: true, id: n.id, view };
      return { ...observed, linkUp: master?.up === true, replOffset: n.replOffset, clockMs: this.now };
    });
  }

  /** Stops `name` (its process dies, or is cut off from everyone). */
  public kill(name: string): void {
    const n = this.byName(name);
    n.up = false;
    n.downSince = this.now;
  }

  /**
   * Starts `name` again: with its data and config (it rejoins; a master whose slots were taken over comes
   * back as a replica of the new owner), or `fresh` (a replaced node: new id, empty, alone).
   */
  public start(name: string, fresh = false): void {
    const n = this.byName(name);
    n.up = true;
    n.downSince = undefined;
    if (fresh) {
      const old = n.id;
      this.former.set(old, n.address);
      n.id = this.newId();
      n.masterId = undefined;
      n.known = new Set([n.id]);
      for (const other of this.nodes.values()) if (other.masterId === old) other.masterId = undefined;
      return;
    }
    if (n.masterId === undefined && this.slotsOf(n.id).length === 0) {
      const taker = [...this.nodes.values()]
        .find((o) => o.up
          && o.id !== n.id
          && o.masterId === undefined
          && o.known.has(n.id)
          && this.tookOver(o.id, n.id));
      if (taker) n.masterId = taker.id;
    }
  }

  /** `name` stands in: started fresh (new id, empty, alone) in another zone, at another address (a new pod there). */
  public standIn(name: string, zone: string, address: string): void {
    this.start(name, true);
    const n = this.byName(name);
    n.zone = zone;
    n.address = address;
  }

  /**
   * `name` starts again at `address` with its id and data (a pod replaced: its volume, a new IP); every other node
   * sees it at its old address until `spreadAddresses` (gossip).
   */
  public move(name: string, address: string): void {
    const n = this.byName(name);
    for (const other of this.nodes.values()) {
      if (other === n) continue;
      const stale = this.staleAddresses.get(other.name) ?? new Map<string, string>();
      this.staleAddresses.set(other.name, stale.set(n.id, n.address));
    }
    n.address = address;
  }

  /** Gossip spreads every moved node's new address. */
  public spreadAddresses(): void {
    this.staleAddresses.clear();
  }

  private tookOver(promoted: string, former: string): boolean {
    return this.takeovers.get(promoted) === former;
  }

  /** What Redis does after cluster-node-timeout: a replica of each lost master takes over, given a majority. */
  public autoFailover(): void {
    if (!this.majorityUp()) return;
    const masters = [...this.nodes.values()].filter((n) => n.masterId === undefined && this.slotsOf(n.id).length > 0);
    for (const m of masters.filter((x) => !x.up)) {
      const replica = [...this.nodes.values()].find((r) => r.up && r.masterId === m.id);
      if (!replica) continue;
      this.promote(replica, m);
    }
  }

  public apply(step: Step): void {
    const on = (name: string) => {
      const n = this.byName(name);
      if (!n.up) throw new Error(`${name} is down`);
      return n;
    };
    switch (step.kind) {
      case 'meet': {
        const a = on(step.on);
        const b = [...this.nodes.values()].find((n) => n.address === step.address && n.up)!;
        // gossip: both sides learn everything the other knows (the fake converges at once)
        const all = new Set([...a.known, ...b.known]);
        for (const n of this.nodes.values()) if (n.up && (all.has(n.id))) n.known = new Set([...all, ...n.known]);
        return;
      }
      case 'add-slots': {
        const n = on(step.on);
        for (const [a, b] of step.ranges) {
          for (let s = a; s <= b; s++) {
            if (this.owner[s] !== undefined) throw new Error(`ERR Slot ${s} is already busy`);
            this.owner[s] = n.id;
          }
        }
        return;
      }
      case 'replicate': {
        const n = on(step.on);
        if (n.masterId === undefined && this.slotsOf(n.id).length > 0) throw new Error('ERR To set a master the node must be empty');
        n.masterId = step.masterId;
        return;
      }
      case 'failover': {
        const n = on(step.on);
        const master = this.byId(n.masterId);
        if (!master) throw new Error('ERR You should send CLUSTER FAILOVER to a replica');
        if (!master.up && !step.takeover) throw new Error('ERR Master is down or failed, please use CLUSTER FAILOVER FORCE');
        this.promote(n, master);
        if (master.up) master.masterId = n.id;
        return;
      }
      case 'force-failover': {
        const n = on(step.on);
        const master = this.byId(n.masterId);
        if (!master) throw new Error('ERR You should send CLUSTER FAILOVER to a replica');
        if (!this.majorityUp()) throw new Error(`timed out waiting for ${step.on} to take over ${step.master}`); // no election won
        this.promote(n, master);
        return;
      }
      case 'forget':
        for (const name of step.on) {
          const n = on(name);
          if (n.masterId === step.id) throw new Error("ERR Can't forget my master!");
          n.known.delete(step.id);
        }
        if (![...this.nodes.values()].some((n) => n.up && n.known.has(step.id))) {
          this.owner.forEach((o, s) => { if (o === step.id) this.owner[s] = undefined; });
        }
        return;
      case 'migrate': {
        const from = on(step.from);
        on(step.to);
        for (const [a, b] of step.ranges) {
          for (let s = a; s <= b; s++) {
            if (this.owner[s] !== from.id) throw new Error(`slot ${s} is not served by ${step.from}`);
            this.owner[s] = step.toId;
          }
        }
        return;
      }
      case 'retire': {
        const n = on(step.on);
        for (const other of this.nodes.values()) if (other !== n) other.known.delete(n.id);
        n.known = new Set([n.id]);
        n.masterId = undefined;
        return;
      }
    }
  }

  /** Applies steps until decide has nothing left (or `max` rounds); returns the rounds' steps. */
  public run(decideNext: (nodes: ObservedNode[]) => { steps: Step[] }, max = 50): Step[][] {
    const rounds: Step[][] = [];
    for (let i = 0; i < max; i++) {
      const { steps } = decideNext(this.observe());
      if (steps.length === 0) return rounds;
      rounds.push(steps);
      for (const step of steps) this.apply(step);
    }
    throw new Error(`no convergence after ${max} rounds; last: ${JSON.stringify(rounds[rounds.length - 1])}`);
  }

  /** Whether a majority of the masters that serve slots is up (an election can be won). */
  private majorityUp(): boolean {
    const masters = [...this.nodes.values()].filter((n) => n.masterId === undefined && this.slotsOf(n.id).length > 0);
    return masters.filter((m) => m.up).length > masters.length / 2;
  }

  private promote(replica: FakeNode, master: FakeNode): void {
    this.owner.forEach((o, s) => { if (o === master.id) this.owner[s] = replica.id; });
    replica.masterId = undefined;
    this.takeovers.set(replica.id, master.id);
    for (const n of this.nodes.values()) if (n.masterId === master.id && n !== replica) n.masterId = replica.id;
  }

  private entry(viewer: FakeNode, id: string, slots: [number, number][]): ClusterNodeEntry {
    const myself = id === viewer.id;
    const n = this.byId(id);
    if (!n) {
      // a node replaced (new id): the others still remember the old one, failed
      return { id, address: this.former.get(id) ?? '', flags: ['master', 'fail'], connected: false, slots };
    }
    const failed = !n.up && this.now - n.downSince! >= (this.options.failAfterMs ?? 0);
    const flags = [...(myself ? ['myself'] : []), n.masterId === undefined ? 'master' : 'slave', ...(failed ? ['fail'] : [])];
    return {
      id,
      address: this.staleAddresses.get(viewer.name)?.get(id) ?? n.address,
      flags,
      masterId: n.masterId,
      connected: n.up,
      slots,
      ...(n.up ? {} : { pingPendingSinceMs: n.downSince }),
    };
  }

  private newId(): string {
    return (++this.ids).toString(16).padStart(40, '0');
  }
}
