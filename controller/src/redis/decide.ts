/**
 * The Redis cluster manager's decisions (pure): from the planned layout and what the nodes report, the next
 * steps towards the plan. The executor runs the steps, observes again and asks again, until nothing is
 * left to do. `decide` runs a table of phases in order; each applies in some modes only, reports the issues it
 * sees, and either decides the steps to run now or lets the next phase decide. First, when a whole zone is lost
 * and the fast path is on, its masters fail over to replicas in other zones (CLUSTER FAILOVER FORCE) before Redis
 * would do it by itself. Then, in order: forget stale nodes, introduce unknown nodes (CLUSTER MEET), wait for
 * gossip, assign slots (bootstrap; lost slots only in `fix` mode), attach replicas (CLUSTER REPLICATE; a stand-in to
 * the shard stand-ins.ts assigns it), move slots to the planned shards (reshard), fail masters back to their planned
 * nodes (rebalance; never to a stand-in), and retire nodes the plan no longer has.
 */
import { ClusterAnalysis } from './cluster-analysis';
import { DecideOptions, Decision, Issue, Mode } from './decision';
import { rebalanceSteps, shiftSteps } from './failovers';
import { forgetSteps, meetSteps, retireSteps, unconverged } from './membership';
import { isFailed, isMaster, ObservedNode, self, slotCount } from './model';
import { adriftMasterSteps, openSlotSteps, replicaSteps, reshardSteps, slotPhase } from './slot-phases';
import { Step } from './steps';
import { zoneLoss } from './zone-loss';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';
import { REDIS_CLUSTER_SLOTS } from '../../../src/redis/slots';

export type { DecideOptions, Decision, Issue, IssueKind, Mode } from './decision';

/** What earlier phases found out, for later ones. */
interface Findings {
  /** A zone falls silent: observe again soon, its masters may have to fail over. */
  readonly zoneSilent?: boolean;
  /** Slots are lost, unassigned or not bootstrapped yet: no resharding. */
  readonly slotsBlocked?: boolean;
  /** Replicas are syncing or nodes refuse queries: the cluster settles by itself. */
  readonly settling?: boolean;
}

interface Situation {
  readonly c: ClusterAnalysis;
  readonly mode: Mode;
  readonly options: DecideOptions;
  readonly found: Findings;
}

/** What a phase decides: the issues it sees, and the steps to run now (which end the decision) or none. */
interface Outcome {
  readonly issues?: Issue[];
  /** The steps to run now; undefined: the next phase decides. */
  readonly steps?: Step[];
  /** With `steps`: the cluster is expected to change by itself. */
  readonly waiting?: boolean;
  readonly found?: Findings;
}

interface Phase {
  readonly name: string;
  /** When the phase applies. */
  readonly when: (s: Situation) => boolean;
  /** What it decides. */
  readonly decide: (s: Situation) => Outcome;
}

const always = () => true;
/** Every mode but `rebalance`, which only fails masters back. */
const automatic = (s: Situation) => s.mode !== 'rebalance';

/** The phases, in order: the first that decides steps ends the decision (the last always does). */
const PHASES: readonly Phase[] = [
  { name: 'unanswered', when: always, decide: unanswered },
  { name: 'anchor', when: always, decide: (s) => (s.c.anchor ? {} : { steps: [] }) },
  { name: 'zone-loss', when: zoneLossApplies, decide: zoneLossPhase },
  { name: 'forget', when: always, decide: forgetPhase },
  { name: 'meet', when: automatic, decide: (s) => stepsIfAny(meetSteps(s.c)) },
  { name: 'converge', when: always, decide: convergePhase },
  { name: 'slots', when: always, decide: slotsPhase },
  { name: 'open-slots', when: automatic, decide: (s) => withIssues(openSlotSteps, s.c) },
  { name: 'adrift-masters', when: automatic, decide: (s) => withIssues(adriftMasterSteps, s.c) },
  { name: 'replicas', when: automatic, decide: (s) => withIssues(replicaSteps, s.c) },
  { name: 'reshard', when: (s) => automatic(s) && !s.found.slotsBlocked, decide: (s) => withIssues(reshardSteps, s.c) },
  { name: 'zone-shift', when: (s) => automatic(s) && outOfService(s).size > 0, decide: zoneShiftPhase },
  { name: 'health', when: always, decide: healthPhase },
  { name: 'stand-ins', when: always, decide: standInsPhase },
  { name: 'rebalance', when: always, decide: rebalancePhase },
  { name: 'retire', when: always, decide: retirePhase },
];

/** The next steps towards the planned layout. */
export function decide(layout: RedisShardLayout, nodes: ObservedNode[], options: DecideOptions = {}): Decision {
  let s: Situation = { c: new ClusterAnalysis(layout, nodes), mode: options.mode ?? 'reconcile', options, found: {} };
  const issues: Issue[] = [];
  for (const phase of PHASES) {
    if (!phase.when(s)) continue;
    const outcome = phase.decide(s);
    issues.push(...outcome.issues ?? []);
    if (outcome.steps) {
      return { steps: outcome.steps, issues, waiting: (outcome.waiting ?? false) || (s.found.zoneSilent ?? false) };
    }
    s = { ...s, found: { ...s.found, ...outcome.found } };
  }
  throw new Error('redis decide: no phase decided (the retire phase always does)');
}

/** Nodes that do not answer, and planned nodes with no instance at all. */
function unanswered({ c }: Situation): Outcome {
  const issues: Issue[] = c.nodes.filter((x) => !c.reachable.includes(x))
    .map((n) => ({ kind: 'unreachable', message: `${n.name} (${n.address}, zone ${n.zone}) does not answer` }));
  // a planned node with no instance (a pod not created yet, Pending, or replaced) is no healthy cluster either
  const present = new Set(c.nodes.map((n) => n.name));
  const absent = c.layout.nodes.filter((p) => !present.has(p.name)).map((p) => p.name);
  if (absent.length > 0) {
    const message = `planned nodes with no instance in the inventory (no pod, or no pod IP yet): ${absent.join(', ')}`;
    issues.push({ kind: 'absent', message });
  }
  return { issues };
}

function zoneLossApplies(s: Situation): boolean {
  return s.options.zoneLossFailoverAfterMs !== undefined && (s.mode === 'reconcile' || s.mode === 'fix');
}

function zoneLossPhase(s: Situation): Outcome {
  const loss = zoneLoss(s.c, s.options.zoneLossFailoverAfterMs!);
  if (loss.steps.length > 0) return { issues: loss.issues, steps: loss.steps };
  return { issues: loss.issues, found: { zoneSilent: loss.waiting } };
}

/** `forget-lost-nodes` mode ends here, with or without steps. */
function forgetPhase(s: Situation): Outcome {
  const forgets = forgetSteps(s.c, s.mode);
  return forgets.length > 0 || s.mode === 'forget-lost-nodes' ? { steps: forgets } : {};
}

function convergePhase({ c }: Situation): Outcome {
  const strangers = unconverged(c);
  if (strangers.length === 0) return {};
  const message = `nodes do not all know each other yet: ${strangers.join(', ')}`;
  return { issues: [{ kind: 'converging', message }], steps: [], waiting: true };
}

function slotsPhase(s: Situation): Outcome {
  const slots = slotPhase(s.c, s.mode === 'fix');
  if (slots.steps.length > 0 || slots.waiting || !slots.bootstrapped) {
    return { issues: slots.issues, steps: slots.steps, waiting: slots.waiting };
  }
  return { issues: slots.issues, found: { slotsBlocked: slots.blocked } };
}

function outOfService(s: Situation): ReadonlySet<string> {
  return s.options.outOfServiceZones ?? new Set<string>();
}

function zoneShiftPhase(s: Situation): Outcome {
  const away = shiftSteps(s.c, outOfService(s));
  const issues = away.staying.map((message): Issue => ({ kind: 'zone-shifted', message }));
  return away.steps.length > 0 ? { issues, steps: away.steps } : { issues };
}

/** What keeps the cluster from being healthy though no step fixes it (yet); reported in every mode. */
function healthPhase({ c }: Situation): Outcome {
  const issues: Issue[] = Object.entries(c.mastersPerZone())
    .filter(([, count]) => count > c.layout.maxMastersPerZone)
    .map(([zone, count]) => ({
      kind: 'zone-majority',
      message: `zone ${zone} holds ${count} masters (at most ${c.layout.maxMastersPerZone} so that losing it ` +
        'keeps a majority)',
    }));
  const syncing = c.reachable.filter((n) => !isMaster(self(n)) && !n.linkUp).map((n) => n.name);
  if (syncing.length > 0) {
    const message = `replicas not in sync with their master yet: ${syncing.join(', ')}`;
    issues.push({ kind: 'replica-syncing', message });
  }
  // a node that refuses queries is no healthy cluster, though every view agrees: Redis lets it serve again by itself
  const refusing = c.reachable.filter((n) => n.stateOk === false).map((n) => n.name);
  if (refusing.length > 0) {
    const message = `nodes that answer CLUSTERDOWN (cluster_state:fail) until they rejoin: ${refusing.join(', ')}`;
    issues.push({ kind: 'refusing-queries', message });
  }
  return { issues, found: { settling: syncing.length > 0 || refusing.length > 0 } };
}

/** The nodes standing in outside their planned zone (a lost zone's, brought back elsewhere): not as planned. */
function standInsPhase({ c }: Situation): Outcome {
  const issues = c.reachable.filter((n) => c.isStandIn(n)).map((n): Issue => {
    const planned = c.layout.node(n.name);
    const master = c.shardMaster(c.shardOf(n.name)!);
    const role = master === n ? `master of shard ${c.shardOf(n.name)}` : `in shard ${c.shardOf(n.name)}, whose master ` +
      (master ? `${master.name} is in zone ${master.zone}` : 'is not reachable');
    const stranded = c.strandedStandIns.includes(n.name)
      ? ` (no shard has its master outside zone ${n.zone}: this copy does not survive losing it)` : '';
    return { kind: 'stand-in', message: `${n.name}, planned in zone ${planned.zone}, stands in in zone ${n.zone}: ${role}${stranded}` };
  });
  return { issues };
}

/** Masters back to their planned nodes, except held ones and those in zones out of service; `rebalance` ends here. */
function rebalancePhase(s: Situation): Outcome {
  const shifted = outOfService(s);
  const inShifted = s.c.layout.nodes.filter((n) => shifted.has(n.zone)).map((n) => n.name);
  const held = new Set([...s.options.holdFailBack ?? [], ...inShifted]);
  const failovers = rebalanceSteps(s.c, s.options.takeover ?? false, held);
  if (failovers.length === 0 && s.mode !== 'rebalance') return {};
  return { steps: failovers, waiting: failovers.length === 0 && (s.found.settling ?? false) };
}

function retirePhase(s: Situation): Outcome {
  const retire = retireSteps(s.c);
  return { steps: retire, waiting: retire.length === 0 && (s.found.settling ?? false) };
}

/** Steps when there are any; else the next phase decides. */
function stepsIfAny(steps: Step[]): Outcome {
  return steps.length > 0 ? { steps } : {};
}

/** A phase of slot-phases.ts, which reports issues into a list as it finds steps. */
function withIssues(phase: (c: ClusterAnalysis, issues: Issue[]) => Step[], c: ClusterAnalysis): Outcome {
  const issues: Issue[] = [];
  const steps = phase(c, issues);
  return steps.length > 0 ? { issues, steps } : { issues };
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
        plannedZone: planned?.zone,
      };
    }),
    issues: decision.issues,
    nextSteps: decision.steps,
  };
}

export type ClusterState = ReturnType<typeof summarize>;
