/**
 * The Redis cluster manager's decisions (pure): from the planned layout and what the nodes report, the next
 * steps towards the plan. The executor runs the steps, observes again and asks again, until nothing is
 * left to do. First, when a whole zone is lost and the fast path is on, its masters fail over to replicas in
 * other zones (CLUSTER FAILOVER FORCE) before Redis would do it by itself. Then, in order: forget stale nodes,
 * introduce unknown nodes (CLUSTER MEET), wait for gossip, assign slots (bootstrap; lost slots only in `fix`
 * mode), attach replicas (CLUSTER REPLICATE), move slots to the planned shards (reshard), fail masters back to
 * their planned nodes (rebalance), and retire nodes the plan no longer has.
 */
import { ClusterAnalysis, cmp } from './cluster-analysis';
import { rebalanceSteps, shiftSteps } from './failovers';
import { ClusterNodeEntry, isFailed, isMaster, ObservedNode, self, slotCount, toRanges } from './model';
import { Step } from './steps';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';
import { REDIS_CLUSTER_SLOTS, shardOfSlot } from '../../../src/redis/slots';

export type IssueKind =
  | 'unreachable' | 'zone-silent' | 'zone-shifted' | 'zone-lost' | 'converging' | 'resharding' | 'replica-syncing' | 'failover-pending' | 'slots-lost'
  | 'slots-unassigned' | 'zone-majority' | 'no-master' | 'not-bootstrapped' | 'absent' | 'upgrade-blocked' | 'refusing-queries';

/** Something not as planned that the steps do not (yet) fix. */
export interface Issue {
  readonly kind: IssueKind;
  readonly message: string;
}

export interface Decision {
  /** The steps to run now (one phase at a time; observe again afterwards). */
  readonly steps: Step[];
  /** What is wrong, whether or not a step fixes it. */
  readonly issues: Issue[];
  /** True when the cluster is expected to change by itself (gossip, an automatic failover): observe again later. */
  readonly waiting: boolean;
}

export type Mode =
  /** Every automatic phase; never loses data. */
  | 'reconcile'
  /** `reconcile`, and also gives slots nobody can serve any more to a master of their shard (their keys are lost). */
  | 'fix'
  /** Only the failovers that move masters back to their planned nodes. */
  | 'rebalance'
  /** Only forgets failed nodes, including ones of the inventory that do not answer. */
  | 'forget-lost-nodes';

export interface DecideOptions {
  readonly mode?: Mode;
  /** Rebalance with `CLUSTER FAILOVER TAKEOVER` (no agreement of the master; only when asked). */
  readonly takeover?: boolean;
  /**
   * In `reconcile` and `fix`: fail the masters of a lost zone over (`force-failover`) once no node of the zone
   * answers and every surviving master has heard nothing from any of them for this long (ms). Undefined: never;
   * Redis does it by itself, about 1.6 x cluster-node-timeout + 0.7 s after the loss.
   */
  readonly zoneLossFailoverAfterMs?: number;
  /**
   * Planned masters not to fail their shards back to (yet): ones an upgrade just failed over away from, to
   * replace their pods. A fail-back now would undo the upgrade's failover, and the upgrade's next one would
   * come while the masters still refuse a second vote for that shard, and hang with the shard's writes paused.
   */
  readonly holdFailBack?: ReadonlySet<string>;
  /**
   * Zones out of service (a ZoneShift): each master in one fails over gracefully (`CLUSTER FAILOVER`) to a replica
   * of it in sync in another zone, and no shard fails back into one.
   */
  readonly outOfServiceZones?: ReadonlySet<string>;
}

/** The next steps towards the planned layout. */
export function decide(layout: RedisShardLayout, nodes: ObservedNode[], options: DecideOptions = {}): Decision {
  const mode = options.mode ?? 'reconcile';
  const c = new ClusterAnalysis(layout, nodes);
  const issues: Issue[] = [];
  for (const n of nodes.filter((x) => !c.reachable.includes(x))) {
    issues.push({ kind: 'unreachable', message: `${n.name} (${n.address}, zone ${n.zone}) does not answer` });
  }
  // a planned node with no instance at all (a pod not created yet, Pending, or replaced) is no healthy cluster either
  const present = new Set(nodes.map((n) => n.name));
  const absent = layout.nodes.filter((p) => !present.has(p.name)).map((p) => p.name);
  if (absent.length > 0) {
    issues.push({ kind: 'absent', message: `planned nodes with no instance in the inventory (no pod, or no pod IP yet): ${absent.join(', ')}` });
  }
  if (!c.anchor) return { steps: [], issues, waiting: false };
  const after = options.zoneLossFailoverAfterMs;
  const zoneLoss = after !== undefined && (mode === 'reconcile' || mode === 'fix') ? zoneLossPhase(c, after, issues) : { steps: [], waiting: false };
  if (zoneLoss.steps.length > 0) return { steps: zoneLoss.steps, issues, waiting: false };
  // while a zone falls silent, observe again soon: its masters may have to fail over
  const done = (steps: Step[], waiting = false): Decision => ({ steps, issues, waiting: waiting || zoneLoss.waiting });

  const forgets = forgetSteps(c, mode);
  if (forgets.length > 0 || mode === 'forget-lost-nodes') return done(forgets);

  if (mode !== 'rebalance') {
    const meets = meetSteps(c);
    if (meets.length > 0) return done(meets);
  }
  const strangers = unconverged(c);
  if (strangers.length > 0) {
    issues.push({ kind: 'converging', message: `nodes do not all know each other yet: ${strangers.join(', ')}` });
    return done([], true);
  }

  const slots = slotPhase(c, mode === 'fix', issues);
  if (slots.steps.length > 0 || slots.waiting || !slots.bootstrapped) return done(slots.steps, slots.waiting);

  if (mode !== 'rebalance') {
    const open = openSlotSteps(c, issues);
    if (open.length > 0) return done(open);
  }
  if (mode !== 'rebalance') {
    const adrift = adriftMasterSteps(c, issues);
    if (adrift.length > 0) return done(adrift);
    const replicas = replicaSteps(c, issues);
    if (replicas.length > 0) return done(replicas);
    if (!slots.blocked) {
      const moves = reshardSteps(c, issues);
      if (moves.length > 0) return done(moves);
    }
  }

  const shifted = options.outOfServiceZones ?? new Set<string>();
  if (mode !== 'rebalance' && shifted.size > 0) {
    const away = shiftSteps(c, shifted);
    issues.push(...away.staying.map((message) => ({ kind: 'zone-shifted' as const, message })));
    if (away.steps.length > 0) return done(away.steps);
  }
  const held = new Set([...options.holdFailBack ?? [], ...layout.nodes.filter((n) => shifted.has(n.zone)).map((n) => n.name)]);
  const failovers = rebalanceSteps(c, options.takeover ?? false, held);
  const perZone = c.mastersPerZone();
  for (const [zone, count] of Object.entries(perZone)) {
    if (count > layout.maxMastersPerZone) {
      issues.push({
        kind: 'zone-majority',
        message: `zone ${zone} holds ${count} masters (at most ${layout.maxMastersPerZone} so that losing it keeps a majority)`,
      });
    }
  }
  const syncing = c.reachable.filter((n) => !isMaster(self(n)) && !n.linkUp).map((n) => n.name);
  if (syncing.length > 0) issues.push({ kind: 'replica-syncing', message: `replicas not in sync with their master yet: ${syncing.join(', ')}` });
  // a node that refuses queries is no healthy cluster, though every view agrees: Redis lets it serve again by itself
  const refusing = c.reachable.filter((n) => n.stateOk === false).map((n) => n.name);
  if (refusing.length > 0) issues.push({ kind: 'refusing-queries', message: `nodes that answer CLUSTERDOWN (cluster_state:fail) until they rejoin: ${refusing.join(', ')}` });
  const settling = syncing.length > 0 || refusing.length > 0;
  if (failovers.length > 0 || mode === 'rebalance') return done(failovers, failovers.length === 0 && settling);

  const retire = retireSteps(c);
  return done(retire, retire.length === 0 && settling);
}

/**
 * A zone loss confirmed from both sides: no node of the zone answers the manager, and every surviving master
 * (the reachable ones, a majority of all masters, as a forced failover must still be elected) has had a ping
 * to each of them unanswered for `afterMs` (by its own clock), or flags it failing. Then the best replica of
 * each of the zone's masters takes over (reachable, so in another zone; the most replication offset, so every
 * write any reachable replica acknowledged). Two zones silent at once is no loss the layout survives, and more
 * likely the manager cut off: failovers are left to Redis.
 */
function zoneLossPhase(c: ClusterAnalysis, afterMs: number, issues: Issue[]): { steps: Step[]; waiting: boolean } {
  const none = { steps: [], waiting: false };
  const dark = c.layout.zones.map((zone) => darkZone(c, zone)).filter((z): z is DarkZone => z !== undefined);
  if (dark.length === 0) return none;
  if (dark.length > 1) {
    issues.push({
      kind: 'zone-silent',
      message: `zones ${dark.map((z) => z.zone).join(', ')} do not answer: more than one zone is no loss the layout survives ` +
        '(the manager may be the one cut off), so their failovers are left to Redis',
    });
    return none;
  }
  const { zone, masters, members } = dark[0];
  const voters = c.reachable.filter((n) => isMaster(self(n)) && slotCount(self(n)!.slots) > 0);
  const total = c.view.filter((e) => isMaster(e) && e.slots.length > 0).length;
  if (voters.length * 2 <= total) {
    issues.push({
      kind: 'zone-silent',
      message: `zone ${zone} does not answer, but only ${voters.length} of ${total} masters do: a forced failover could not be elected, left to Redis`,
    });
    return none;
  }
  const silentMs = Math.min(...voters.flatMap((v) => members.map((m) => silence(v, m))));
  if (silentMs === 0) return none; // the masters still hear from it: only the manager is cut off
  if (silentMs < afterMs) {
    issues.push({
      kind: 'zone-silent',
      message: `zone ${zone} does not answer and has been silent to every surviving master for ${silentMs} ms: its masters fail over at ${afterMs} ms`,
    });
    return { steps: [], waiting: true };
  }
  issues.push({
    kind: 'zone-lost',
    message: `zone ${zone} is lost: no node answers and every surviving master (${voters.map((v) => v.name).join(', ')}) has heard nothing ` +
      `from them for ${afterMs} ms or more: its masters fail over to replicas in other zones`,
  });
  const steps: Step[] = [];
  for (const master of masters) {
    const heir = c.reachable.filter((n) => !isMaster(self(n)) && self(n)!.masterId === master.id)
      .sort((a, b) => (b.replOffset ?? 0) - (a.replOffset ?? 0) || cmp(a.name, b.name))[0];
    if (heir) steps.push({ kind: 'force-failover', on: heir.name, master: c.nameAt(master.address) ?? master.address, zone });
  }
  return { steps, waiting: false };
}

interface DarkZone {
  readonly zone: string;
  /** The masters with slots of the zone (the anchor's view). */
  readonly masters: ClusterNodeEntry[];
  /** Its nodes that are cluster members (by address). */
  readonly members: string[];
}

/** `zone` when none of its nodes answers the manager and it holds masters with slots; else undefined. */
function darkZone(c: ClusterAnalysis, zone: string): DarkZone | undefined {
  const nodes = c.nodes.filter((n) => n.zone === zone);
  if (nodes.length === 0 || nodes.some((n) => c.reachable.includes(n))) return undefined;
  const addresses = new Set(nodes.map((n) => n.address));
  const known = c.view.filter((e) => addresses.has(e.address) && !e.flags.includes('handshake'));
  const masters = known.filter((e) => isMaster(e) && e.slots.length > 0);
  return masters.length === 0 ? undefined : { zone, masters, members: known.map((e) => e.address) };
}

/** How long (ms) `viewer` has heard nothing from the node at `address`: Infinity when it flags it failing, 0 when it answers. */
function silence(viewer: ObservedNode, address: string): number {
  const e = viewer.view!.find((x) => x.address === address && !x.flags.includes('handshake'));
  if (!e) return 0;
  if (e.flags.includes('fail') || e.flags.includes('fail?')) return Infinity;
  if (e.pingPendingSinceMs === undefined || viewer.clockMs === undefined) return 0;
  return Math.max(0, viewer.clockMs - e.pingPendingSinceMs);
}

function forgetSteps(c: ClusterAnalysis, mode: Mode): Step[] {
  const steps: Step[] = [];
  const liveIds = new Set(c.reachable.map((n) => n.id!));
  // A failed node at an address the inventory does not list may be a planned node that is away (a pod
  // rescheduled: no address yet, or a new one and not answering yet) and comes back with its id and data.
  // Only once every planned node answers is such a node known to be gone.
  const allPlannedAnswer = c.layout.nodes.every((p) => c.byName(p.name) !== undefined);
  const seen = new Set<string>();
  for (const knower of c.reachable) {
    for (const e of knower.view!) {
      // a node in handshake (after CLUSTER MEET) has a temporary id until it answers: never forgotten
      if (liveIds.has(e.id) || seen.has(e.id) || e.flags.includes('handshake')) continue;
      const name = c.nameAt(e.address);
      const replaced = name !== undefined && c.byName(name) !== undefined; // another id answers at its address now
      const removed = name === undefined && isFailed(e) && allPlannedAnswer;
      const lost = isFailed(e) && (mode === 'forget-lost-nodes' || (mode === 'fix' && isMaster(e) && e.slots.length > 0 && !hasLiveReplica(c, e)));
      if (!(replaced || removed || lost)) continue;
      seen.add(e.id);
      const on = c.reachable.filter((n) => n.view!.some((x) => x.id === e.id)).map((n) => n.name);
      steps.push({ kind: 'forget', id: e.id, address: e.address, on });
    }
  }
  return steps;
}

function hasLiveReplica(c: ClusterAnalysis, master: ClusterNodeEntry): boolean {
  return c.reachable.some((n) => self(n)?.masterId === master.id);
}

function meetSteps(c: ClusterAnalysis): Step[] {
  const anchor = c.anchor!;
  return c.reachable
    // nodes outside the plan are never introduced (they are being retired)
    .filter((n) => n !== anchor && c.shardOf(n.name) !== undefined && (!knows(anchor, n.id!) || !knows(n, anchor.id!)))
    .filter((n) => !anchor.view!.some((e) => e.id === n.id && e.flags.includes('handshake')))
    .map((n) => ({ kind: 'meet', on: anchor.name, address: n.address }));
}

function knows(n: ObservedNode, id: string): boolean {
  return n.view!.some((e) => e.id === id && !e.flags.includes('handshake'));
}

function unconverged(c: ClusterAnalysis): string[] {
  const out: string[] = [];
  const members = c.reachable.filter((n) => c.shardOf(n.name) !== undefined);
  for (const a of members) {
    for (const b of members) if (a !== b && !knows(a, b.id!)) out.push(`${a.name} does not know ${b.name}`);
  }
  const reference = slotTable(c.anchor!);
  for (const n of members) {
    if (n !== c.anchor && slotTable(n) !== reference) out.push(`${n.name} does not agree with ${c.anchor!.name} on who serves which slots`);
  }
  return out;
}

/** A node's view of slot ownership as comparable text. */
function slotTable(n: ObservedNode): string {
  return n.view!.filter((e) => isMaster(e) && e.slots.length > 0)
    .map((e) => `${e.id}:${e.slots.map(([a, b]) => `${a}-${b}`).join(',')}`).sort().join(' ');
}

function slotPhase(c: ClusterAnalysis, fix: boolean, issues: Issue[]): { steps: Step[]; waiting: boolean; blocked: boolean; bootstrapped: boolean } {
  const owners = c.owners();
  const N = c.layout.masters;
  if (owners.every((o) => o === undefined)) {
    const missing = c.layout.shards.filter((s) => !isMaster(self(c.byName(s.master) ?? ({} as ObservedNode))));
    if (missing.length > 0) {
      issues.push({ kind: 'not-bootstrapped', message: `no slot is assigned and planned masters ${missing.map((s) => s.master).join(', ')} are not available` });
      return { steps: [], waiting: false, blocked: true, bootstrapped: false };
    }
    const steps: Step[] = c.layout.shards.map((s) => ({ kind: 'add-slots', on: s.master, ranges: [[s.slotStart, s.slotEnd]] }));
    return { steps, waiting: false, blocked: true, bootstrapped: false };
  }

  let waiting = false;
  let blocked = false;
  const unassigned: number[] = [];
  const lostByOwner = new Map<ClusterNodeEntry, number[]>();
  owners.forEach((o, slot) => {
    if (o === undefined) unassigned.push(slot);
    else if (isFailed(o)) lostByOwner.set(o, [...(lostByOwner.get(o) ?? []), slot]);
  });
  for (const [owner, slots] of lostByOwner) {
    blocked = true;
    const name = c.nameAt(owner.address) ?? owner.address;
    const ranges = toRanges(slots).map(([a, b]) => `${a}-${b}`).join(',');
    if (c.view.some((e) => e.masterId === owner.id && !isFailed(e))) {
      waiting = true;
      issues.push({ kind: 'failover-pending', message: `master ${name} failed; a replica of it should take over slots ${ranges}` });
    } else {
      issues.push({
        kind: 'slots-lost',
        message: `master ${name} failed with no replica left: slots ${ranges} are not served and their keys are lost ` +
          '(the layout must keep a replica of every master outside its zone; run \'redis fix\' to serve the slots again, empty)',
      });
    }
  }
  if (unassigned.length > 0) {
    blocked = true;
    const byShard = new Map<string, number[]>();
    for (const slot of unassigned) {
      const target = c.shardMaster(shardOfSlot(slot, N));
      if (!target) continue;
      byShard.set(target.name, [...(byShard.get(target.name) ?? []), slot]);
    }
    issues.push({ kind: 'slots-unassigned', message: `${unassigned.length} slots are assigned to no master: ${toRanges(unassigned).map(([a, b]) => `${a}-${b}`).join(',')}` });
    if (fix) return { steps: [...byShard].map(([on, slots]) => ({ kind: 'add-slots', on, ranges: toRanges(slots) })), waiting, blocked, bootstrapped: true };
  }
  return { steps: [], waiting, blocked, bootstrapped: true };
}

/**
 * A shard with no master at all whose planned master is a replica of another shard's master: what Redis 7 does
 * to a master a resharding empties (`cluster-allow-replica-migration yes`, the default before the synthesized
 * redis.conf turned it off), e.g. shard 2's master when masters 5 -> 3 moves all of its old slots to shard 1
 * before shard 2 gets its new range. Its data is the other shard's, so it is reset (a new, empty master, met
 * again) and the reshard then gives it its shard's slots.
 */
function adriftMasterSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
  const steps: Step[] = [];
  for (const shard of c.layout.shards) {
    if (c.shardMaster(shard.index)) continue;
    const planned = c.byName(shard.master);
    const me = planned && self(planned);
    const master = me && !isMaster(me) ? c.node(me.masterId) : undefined;
    if (!planned || !master || c.shardOf(master.name) === shard.index) continue;
    issues.push({
      kind: 'no-master',
      message: `shard ${shard.index} has no master: its planned master ${shard.master} is a replica of ${master.name} (another shard): reset as an empty master`,
    });
    steps.push({ kind: 'retire', on: planned.name, id: planned.id! });
  }
  return steps;
}

function replicaSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
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
    if (emptyMaster || wrongMaster) steps.push({ kind: 'replicate', on: n.name, master: target.name, masterId: target.id! });
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
function openSlotSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
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
    issues.push({ kind: 'resharding', message: `${count} slot(s) left open by an interrupted resharding (MIGRATING/IMPORTING): closing them` });
  }
  return steps;
}

function reshardSteps(c: ClusterAnalysis, issues: Issue[]): Step[] {
  const N = c.layout.masters;
  const targets = c.layout.shards.map((s) => c.shardMaster(s.index));
  if (targets.some((t) => t === undefined)) return [];
  const moves: SlotMove[] = [];
  c.owners().forEach((owner, slot) => {
    const to = targets[shardOfSlot(slot, N)]!;
    const from = owner && owner.id !== to.id ? c.node(owner.id) : undefined;
    if (from) moves.push({ slot, from, to });
  });
  if (moves.length > 0) issues.push({ kind: 'resharding', message: `${moves.length} slots are not on their planned shard (resharding)` });
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
  return [...byPair.values()].map((m) => ({ kind: 'migrate', from: m.from.name, to: m.to.name, toId: m.to.id!, ranges: toRanges(m.slots) }));
}

function retireSteps(c: ClusterAnalysis): Step[] {
  return c.reachable
    .filter((n) => c.shardOf(n.name) === undefined && slotCount(self(n)!.slots) === 0)
    .filter((n) => c.reachable.some((o) => o !== n && knows(o, n.id!)))
    .map((n) => ({ kind: 'retire', on: n.name, id: n.id! }));
}

/** A plan-independent summary of the cluster for the state output and the status ConfigMap. */
export function summarize(layout: RedisShardLayout, nodes: ObservedNode[], decision: Decision) {
  const c = new ClusterAnalysis(layout, nodes);
  const served = c.owners().filter((o) => o !== undefined && !isFailed(o)).length;
  return {
    healthy: decision.steps.length === 0 && decision.issues.length === 0 && served === REDIS_CLUSTER_SLOTS,
    slotsServed: served,
    mastersPerZone: c.mastersPerZone(),
    maxMastersPerZone: layout.maxMastersPerZone,
    nodes: nodes.map((n) => {
      const me = n.reachable ? self(n) : undefined;
      const planned = layout.nodes.find((p) => p.name === n.name);
      return {
        name: n.name,
        zone: n.zone,
        address: n.address,
        reachable: n.reachable,
        id: n.id,
        role: me ? (isMaster(me) ? RedisRole.MASTER : RedisRole.REPLICA) : undefined,
        master: me && !isMaster(me) ? (c.node(me.masterId)?.name ?? me.masterId) : undefined,
        slots: me ? slotCount(me.slots) : undefined,
        plannedShard: planned?.shard,
        plannedRole: planned?.role,
      };
    }),
    issues: decision.issues,
    nextSteps: decision.steps,
  };
}

export type ClusterState = ReturnType<typeof summarize>;
