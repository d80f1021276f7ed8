/**
 * The slot phases of `decide` (pure): assign slots (bootstrap; lost slots only in `fix` mode), close slots an
 * interrupted resharding left open, reset masters adrift, attach replicas (CLUSTER REPLICATE), and move slots to
 * their planned shards (reshard).
 */
import { ClusterAnalysis } from './cluster-analysis';
import { Issue } from './decision';
import { ClusterNodeEntry, isFailed, isMaster, ObservedNode, self, toRanges } from './model';
import { Step } from './steps';
import { shardOfSlot } from '../../../src/redis/slots';

export interface SlotPhase {
  readonly steps: Step[];
  /** A failed master's replica should take over by itself: observe again later. */
  readonly waiting: boolean;
  /** Slots are lost, unassigned or not bootstrapped yet: no resharding now. */
  readonly blocked: boolean;
  /** Some slot is assigned (or is being assigned now). */
  readonly bootstrapped: boolean;
  readonly issues: Issue[];
}

/**
 * Slot assignment: bootstrap (every slot to its planned master) when no slot is assigned, and report slots whose
 * master failed or that no master serves; in `fix` mode those give the slots to their shard's master.
 */
export function slotPhase(c: ClusterAnalysis, fix: boolean): SlotPhase {
  const owners = c.owners();
  if (owners.every((o) => o === undefined)) return bootstrap(c);
  const lost = lostSlots(c, owners);
  const unassigned = unassignedSlots(c, owners, fix);
  return {
    steps: unassigned.steps,
    waiting: lost.waiting,
    blocked: lost.blocked || unassigned.blocked,
    bootstrapped: true,
    issues: [...lost.issues, ...unassigned.issues],
  };
}

/** Every planned master gets its shard's slots, once every one of them is available. */
function bootstrap(c: ClusterAnalysis): SlotPhase {
  const missing = c.layout.shards.filter((s) => !isMaster(self(c.byName(s.master) ?? ({} as ObservedNode))));
  if (missing.length > 0) {
    const message = `no slot is assigned and planned masters ${missing.map((s) => s.master).join(', ')} ` +
      'are not available';
    const issues: Issue[] = [{ kind: 'not-bootstrapped', message }];
    return { steps: [], waiting: false, blocked: true, bootstrapped: false, issues };
  }
  const steps: Step[] = c.layout.shards
    .map((s) => ({ kind: 'add-slots', on: s.master, ranges: [[s.slotStart, s.slotEnd]] }));
  return { steps, waiting: false, blocked: true, bootstrapped: false, issues: [] };
}

type Owners = ReturnType<ClusterAnalysis['owners']>;

/** Slots of failed masters: a replica should take over (waiting), or, with none left, they are lost. */
function lostSlots(c: ClusterAnalysis, owners: Owners): { waiting: boolean; blocked: boolean; issues: Issue[] } {
  const lostByOwner = new Map<ClusterNodeEntry, number[]>();
  owners.forEach((o, slot) => {
    if (o !== undefined && isFailed(o)) lostByOwner.set(o, [...(lostByOwner.get(o) ?? []), slot]);
  });
  let waiting = false;
  const issues: Issue[] = [];
  for (const [owner, slots] of lostByOwner) {
    const name = c.nameAt(owner.address) ?? owner.address;
    const ranges = rangesText(slots);
    if (c.view.some((e) => e.masterId === owner.id && !isFailed(e))) {
      waiting = true;
      const message = `master ${name} failed; a replica of it should take over slots ${ranges}`;
      issues.push({ kind: 'failover-pending', message });
    } else {
      issues.push({
        kind: 'slots-lost',
        message: `master ${name} failed with no replica left: slots ${ranges} are not served and their keys are lost ` +
          '(the layout must keep a replica of every master outside its zone; ' +
          'run \'redis fix\' to serve the slots again, empty)',
      });
    }
  }
  return { waiting, blocked: lostByOwner.size > 0, issues };
}

/** Slots no master serves; in `fix` mode, each goes to the master of its planned shard. */
function unassignedSlots(c: ClusterAnalysis, owners: Owners, fix: boolean) {
  const unassigned = owners.flatMap((o, slot) => (o === undefined ? [slot] : []));
  if (unassigned.length === 0) return { steps: [], blocked: false, issues: [] };
  const byShard = new Map<string, number[]>();
  for (const slot of unassigned) {
    const target = c.shardMaster(shardOfSlot(slot, c.layout.masters));
    if (!target) continue;
    byShard.set(target.name, [...(byShard.get(target.name) ?? []), slot]);
  }
  const issue: Issue = {
    kind: 'slots-unassigned',
    message: `${unassigned.length} slots are assigned to no master: ${rangesText(unassigned)}`,
  };
  const adds = [...byShard].map(([on, slots]): Step => ({ kind: 'add-slots', on, ranges: toRanges(slots) }));
  const steps: Step[] = fix ? adds : [];
  return { steps, blocked: true, issues: [issue] };
}

function rangesText(slots: number[]): string {
  return toRanges(slots).map(([a, b]) => `${a}-${b}`).join(',');
}

/**
 * A shard with no master at all whose planned master is a replica of another shard's master: what Redis 7 does
 * to a master a resharding empties (`cluster-allow-replica-migration yes`, the default before the synthesized
 * redis.conf turned it off), e.g. shard 2's master when masters 5 -> 3 moves all of its old slots to shard 1
 * before shard 2 gets its new range. Its data is the other shard's, so it is reset (a new, empty master, met
 * again) and the reshard then gives it its shard's slots.
 */
export function adriftMasterSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
  const steps: Step[] = [];
  for (const shard of c.layout.shards) {
    if (c.shardMaster(shard.index)) continue;
    const planned = c.byName(shard.master);
    const me = planned && self(planned);
    const master = me && !isMaster(me) ? c.node(me.masterId) : undefined;
    // a stand-in replicates the shard assigned to it (stand-ins.ts), whichever that is
    if (!planned || !master || c.shardOf(master.name) === shard.index || c.isStandIn(planned)) continue;
    issues.push({
      kind: 'no-master',
      message: `shard ${shard.index} has no master: its planned master ${shard.master} is a replica of ` +
        `${master.name} (another shard): reset as an empty master`,
    });
    steps.push({ kind: 'retire', on: planned.name, id: planned.id! });
  }
  return steps;
}

export function replicaSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
  const steps: Step[] = [];
  for (const n of c.reachable) {
    const shard = c.shardOf(n.name);
    if (shard === undefined) continue;
    const target = c.shardMaster(shard);
    if (!target) {
      issues.push({ kind: 'no-master', message: `shard ${shard} has no reachable master for ${n.name} to replicate` });
      continue;
    }
    if (target === n) continue;
    const me = self(n)!;
    const emptyMaster = isMaster(me) && me.slots.length === 0;
    const wrongMaster = !isMaster(me) && me.masterId !== target.id;
    if (!emptyMaster && !wrongMaster) continue;
    steps.push({ kind: 'replicate', on: n.name, master: target.name, masterId: target.id! });
  }
  return steps;
}

/**
 * Slots a resharding left open: MIGRATING on their owner and/or IMPORTING on another master (a `migrate`
 * interrupted by a stopped manager, a restarted node, or by hand). A key of such a slot may be on either node,
 * and clients are redirected between them until it is closed. As `redis-cli --cluster fix` does, each is
 * completed towards the node it was moving to: the keys left on the owner follow, and the node takes the slot
 * (the reshard phase then moves it on if the plan wants it elsewhere). A slot whose other node is gone or no
 * master is made STABLE where it is open: the keys on that node are out of reach either way.
 */
export function openSlotSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
  const owners = c.owners();
  const moves = new Map<number, { from: ObservedNode; to: ObservedNode }>();
  const stable = new Map<string, number[]>();
  const closeOn = (node: ObservedNode, slot: number) => stable.set(node.name, [...(stable.get(node.name) ?? []), slot]);
  const liveMaster = (id: string) => {
    const n = c.node(id);
    return n && isMaster(self(n)) ? n : undefined;
  };
  for (const node of c.reachable.filter((n) => isMaster(self(n)))) {
    const me = self(node)!;
    for (const [slot, toId] of me.migrating ?? []) {
      const to = liveMaster(toId);
      if (to && owners[slot]?.id === me.id) moves.set(slot, { from: node, to });
      else closeOn(node, slot);
    }
    for (const [slot] of me.importing ?? []) {
      const owner = owners[slot];
      const from = owner && owner.id !== me.id ? liveMaster(owner.id) : undefined;
      if (from) {
        if (!moves.has(slot)) moves.set(slot, { from, to: node });
      } else {
        closeOn(node, slot);
      }
    }
  }
  const steps: Step[] = [...stable].map(([on, slots]): Step => ({ kind: 'stable', on, slots }));
  steps.push(...migrateSteps([...moves].sort(([a], [b]) => a - b).map(([slot, m]) => ({ slot, ...m }))));
  if (steps.length > 0) {
    const count = moves.size + [...stable.values()].reduce((n, s) => n + s.length, 0);
    const message = `${count} slot(s) left open by an interrupted resharding (MIGRATING/IMPORTING): closing them`;
    issues.push({ kind: 'resharding', message });
  }
  return steps;
}

export function reshardSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
  const N = c.layout.masters;
  const targets = c.layout.shards.map((s) => c.shardMaster(s.index));
  if (targets.some((t) => t === undefined)) return [];
  const moves: SlotMove[] = [];
  c.owners().forEach((owner, slot) => {
    const to = targets[shardOfSlot(slot, N)]!;
    const from = owner && owner.id !== to.id ? c.node(owner.id) : undefined;
    if (from) moves.push({ slot, from, to });
  });
  const message = `${moves.length} slots are not on their planned shard (resharding)`;
  if (moves.length > 0) issues.push({ kind: 'resharding', message });
  return migrateSteps(moves);
}
interface SlotMove {
  readonly slot: number;
  readonly from: ObservedNode;
  readonly to: ObservedNode;
}

/** One `migrate` step per (from, to) pair, with its slots as ranges (`moves` in slot order). */
function migrateSteps(moves: readonly SlotMove[]): Step[] {
  const byPair = new Map<string, { from: ObservedNode; to: ObservedNode; slots: number[] }>();
  for (const { slot, from, to } of moves) {
    const key = `${from.name}>${to.name}`;
    if (!byPair.has(key)) byPair.set(key, { from, to, slots: [] });
    byPair.get(key)!.slots.push(slot);
  }
  return [...byPair.values()]
    .map((m) => ({ kind: 'migrate', from: m.from.name, to: m.to.name, toId: m.to.id!, ranges: toRanges(m.slots) }));
}
