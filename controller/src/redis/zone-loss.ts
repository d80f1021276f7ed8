/**
 * The zone-loss phase of `decide` (pure): when a whole zone is lost and the fast path is on, its masters fail
 * over to replicas in other zones (CLUSTER FAILOVER FORCE) before Redis would do it by itself.
 */
import { ClusterAnalysis, cmp } from './cluster-analysis';
import { Issue } from './decision';
import { ClusterNodeEntry, isMaster, ObservedNode, self, slotCount } from './model';
import { Step } from './steps';

export interface ZoneLoss {
  readonly steps: Step[];
  /** A zone falls silent: observe again soon, its masters may have to fail over. */
  readonly waiting: boolean;
  readonly issues: Issue[];
}

/**
 * A zone loss confirmed from both sides: no node of the zone answers the manager, and every surviving master
 * (the reachable ones, a majority of all masters, as a forced failover must still be elected) has had a ping
 * to each of them unanswered for `afterMs` (by its own clock), or flags it failing. Then the best replica of
 * each of the zone's masters takes over (reachable, so in another zone; the most replication offset, so every
 * write any reachable replica acknowledged). Two zones silent at once is no loss the layout survives, and more
 * likely the manager cut off: failovers are left to Redis.
 */
export function zoneLoss(c: ClusterAnalysis, afterMs: number): ZoneLoss {
  const dark = c.layout.zones.map((zone) => darkZone(c, zone)).filter((z): z is DarkZone => z !== undefined);
  if (dark.length === 0) return nothing();
  if (dark.length > 1) {
    return nothing({
      kind: 'zone-silent',
      message: `zones ${dark.map((z) => z.zone).join(', ')} do not answer: more than one zone is no loss the layout ` +
        'survives (the manager may be the one cut off), so their failovers are left to Redis',
    });
  }
  const { zone, members } = dark[0];
  const voters = c.reachable.filter((n) => isMaster(self(n)) && slotCount(self(n)!.slots) > 0);
  const total = c.view.filter((e) => isMaster(e) && e.slots.length > 0).length;
  if (voters.length * 2 <= total) {
    return nothing({
      kind: 'zone-silent',
      message: `zone ${zone} does not answer, but only ${voters.length} of ${total} masters do: a forced failover ` +
        'could not be elected, left to Redis',
    });
  }
  const silentMs = Math.min(...voters.flatMap((v) => members.map((m) => silence(v, m))));
  if (silentMs === 0) return nothing(); // the masters still hear from it: only the manager is cut off
  if (silentMs < afterMs) {
    const message = `zone ${zone} does not answer and has been silent to every surviving master for ${silentMs} ms: ` +
      `its masters fail over at ${afterMs} ms`;
    return { steps: [], waiting: true, issues: [{ kind: 'zone-silent', message }] };
  }
  return failOverZone(c, dark[0], voters, afterMs);
}

function nothing(...issues: Issue[]): ZoneLoss {
  return { steps: [], waiting: false, issues };
}

/** The zone is lost: the best reachable replica of each of its masters takes over. */
function failOverZone(c: ClusterAnalysis, dark: DarkZone, voters: ObservedNode[], afterMs: number): ZoneLoss {
  const { zone, masters } = dark;
  const issue: Issue = {
    kind: 'zone-lost',
    message: `zone ${zone} is lost: no node answers and every surviving master ` +
      `(${voters.map((v) => v.name).join(', ')}) has heard nothing from them for ${afterMs} ms or more: ` +
      'its masters fail over to replicas in other zones',
  };
  const steps: Step[] = [];
  for (const master of masters) {
    const heir = c.reachable.filter((n) => !isMaster(self(n)) && self(n)!.masterId === master.id)
      .sort((a, b) => (b.replOffset ?? 0) - (a.replOffset ?? 0) || cmp(a.name, b.name))[0];
    const name = c.nameAt(master.address) ?? master.address;
    if (heir) steps.push({ kind: 'force-failover', on: heir.name, master: name, zone });
  }
  return { steps, waiting: false, issues: [issue] };
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

/**
 * How long (ms) `viewer` has heard nothing from the node at `address`: Infinity when it flags it failing, 0 when
 * it answers.
 */
function silence(viewer: ObservedNode, address: string): number {
  const e = viewer.view!.find((x) => x.address === address && !x.flags.includes('handshake'));
  if (!e) return 0;
  if (e.flags.includes('fail') || e.flags.includes('fail?')) return Infinity;
  if (e.pingPendingSinceMs === undefined || viewer.clockMs === undefined) return 0;
  return Math.max(0, viewer.clockMs - e.pingPendingSinceMs);
}
