/**
 * The membership phases of `decide` (pure): forget stale nodes, introduce unknown ones (CLUSTER MEET), wait for
 * gossip to converge, and retire nodes the plan no longer has.
 */
import { ClusterAnalysis } from './cluster-analysis';
import { Mode } from './decision';
import { ClusterNodeEntry, isFailed, isMaster, ObservedNode, self, slotCount } from './model';
import { Step } from './steps';

/** Nodes to forget: replaced at their address, removed from the plan, or lost (`fix`, `forget-lost-nodes`). */
export function forgetSteps(c: ClusterAnalysis, mode: Mode): Step[] {
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
      const unservable = isMaster(e) && e.slots.length > 0 && !hasLiveReplica(c, e);
      const lost = isFailed(e) && (mode === 'forget-lost-nodes' || (mode === 'fix' && unservable));
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

/** Planned nodes the anchor and they do not know each other yet: CLUSTER MEET. */
export function meetSteps(c: ClusterAnalysis): Step[] {
  const anchor = c.anchor!;
  return c.reachable
    // nodes outside the plan are never introduced (they are being retired)
    .filter((n) => n !== anchor && c.shardOf(n.name) !== undefined)
    .filter((n) => !knows(anchor, n.id!) || !knows(n, anchor.id!))
    .filter((n) => !anchor.view!.some((e) => e.id === n.id && e.flags.includes('handshake')))
    .map((n) => ({ kind: 'meet', on: anchor.name, address: n.address }));
}

function knows(n: ObservedNode, id: string): boolean {
  return n.view!.some((e) => e.id === id && !e.flags.includes('handshake'));
}

/** Why the planned nodes do not agree yet (gossip still spreading); empty when they do. */
export function unconverged(c: ClusterAnalysis): string[] {
  const out: string[] = [];
  const members = c.reachable.filter((n) => c.shardOf(n.name) !== undefined);
  for (const a of members) {
    for (const b of members) {
      if (a === b) continue;
      if (!knows(a, b.id!)) {
        out.push(`${a.name} does not know ${b.name}`);
        continue;
      }
      const seenAt = addressIn(a, b.id!);
      if (seenAt !== b.address) out.push(`${a.name} sees ${b.name} at ${seenAt}, not at ${b.address}`);
    }
  }
  const reference = slotTable(c.anchor!);
  for (const n of members) {
    if (n === c.anchor || slotTable(n) === reference) continue;
    out.push(`${n.name} does not agree with ${c.anchor!.name} on who serves which slots`);
  }
  return out;
}

/**
 * Where `n` would send a client or a vote for node `id`. A pod replaced keeps its Redis id (its volume) but gets a new
 * IP, which the others learn by gossip: until then, a client redirected there or a failover vote sent there is lost.
 */
function addressIn(n: ObservedNode, id: string): string | undefined {
  return n.view!.find((e) => e.id === id)?.address;
}

/** A node's view of slot ownership as comparable text. */
function slotTable(n: ObservedNode): string {
  return n.view!.filter((e) => isMaster(e) && e.slots.length > 0)
    .map((e) => `${e.id}:${e.slots.map(([a, b]) => `${a}-${b}`).join(',')}`).sort().join(' ');
}

/** Nodes the plan no longer has, empty of slots and still known to others: reset them. */
export function retireSteps(c: ClusterAnalysis): Step[] {
  return c.reachable
    .filter((n) => c.shardOf(n.name) === undefined && slotCount(self(n)!.slots) === 0)
    .filter((n) => c.reachable.some((o) => o !== n && knows(o, n.id!)))
    .map((n) => ({ kind: 'retire', on: n.name, id: n.id! }));
}
