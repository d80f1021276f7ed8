/**
 * The zone check (pure, deterministic): for every workload of a set of manifests, where its pods can be on an
 * inventory of zones and nodes, and what losing each zone leaves of it. Only hard constraints count (what the
 * scheduler guarantees); the placement math is spread-bounds.ts, exact for the model it describes. The room on
 * each node is node-room.ts, the rules the check relies on constraints.ts, the placement placement.ts, and what a
 * zone loss leaves zone-loss.ts.
 */
import { inNamespace } from './by-namespace';
import { CheckInput, CheckSystem, CheckWorkload } from './check-input';
import { hardConstraints, softZoneRules } from './constraints';
import { exclusionOf, podRequests } from './eligibility';
import { CheckNode, ZoneInventory } from './inventory';
import { AddFinding, FindingSeverity, WorkloadReport, ZoneFinding, ZoneLoss, ZoneReportData } from './model';
import { NodeRoom, pinByVolumes, roomFor } from './node-room';
import { Bounds, Placement, placement, VolumeLayout, volumeLayout } from './placement';
import { reportRunningNow, runningBounds, widerBounds, worseLosses } from './running-now';
import { judgeSystems } from './systems';
import { unknownZoneFindings } from './unknown-zones';
import { drainNeed, Need, needed } from './workload-needs';
import { readManifests } from './workloads';
import { groupMemberships, zoneGroupSystems } from './zone-groups';
import { zoneLocalTrafficFindings } from './zone-local-traffic';
import { reportLosses, zoneLosses } from './zone-loss';
import { reportShiftGateHeld } from './zone-shift-gate';
import { QUORUM_ANNOTATION } from '../contract/zone-check';
import { PodSpec } from '../kubernetes/objects';

/** Checks `manifests` (parsed Kubernetes objects) against `inventory`. */
export function analyzeManifests(manifests: readonly unknown[], inventory: ZoneInventory): ZoneReportData {
  return analyzeInput(readManifests(manifests, inventory.topologyKey), inventory);
}

/** Checks what was read (from manifests, or from a live cluster: live/live-input.ts) against `inventory`. */
export function analyzeInput(read: CheckInput, inventory: ZoneInventory): ZoneReportData {
  const groups = zoneGroupSystems(read.workloads, groupMemberships(read.workloads, inventory.zones));
  const input: CheckInput = { ...read, workloads: groups.workloads, systems: [...read.systems, ...groups.systems] };
  const systemOf = (w: CheckWorkload) => inNamespace(input.systems, w.namespace).find((s) => s.name === w.partOf);
  const reports = input.workloads.map((w) => analyzeWorkload(w, input, inventory, systemOf(w)));
  const zones = inventory.zones;
  const judged = judgeSystems(input.systems, input.workloads, reports, zones);
  return {
    zones: [...zones],
    workloads: [...judged.members, ...judged.systems],
    findings: [
      ...input.findings,
      ...unknownZoneFindings(input, zones, inventory.topologyKey),
      ...zoneLocalTrafficFindings(input.services, input.workloads, judged.members, zones),
    ],
  };
}

function analyzeWorkload(
  w: CheckWorkload, input: CheckInput, inventory: ZoneInventory, system: CheckSystem | undefined,
): WorkloadReport {
  const findings: ZoneFinding[] = [];
  const add: AddFinding = (rule, severity, message, fix) => findings.push({ rule, severity, message, fix });
  const nodes = inventory._nodes;
  const requests = podRequests(w.pod);
  const { room, immediate } = roomFor(w, input, nodes, requests, add);

  pinByVolumes(w, input, nodes, room, add);
  softZoneRules(w.pod, w.podLabels, inventory.topologyKey, add);

  if (w.perNode) {
    // its findings only: a DaemonSet's pods are placed one per node anyway
    hardConstraints(w.pod, w, input.workloads, inventory, add);
    return daemonSet(w, nodes, room, inventory.zones, findings);
  }
  const replicas = w.replicas ?? 1;
  const placed = placement(w, replicas, room, immediate !== undefined, input.workloads, inventory, add);
  const ordinal = volumeLayout(w, replicas, input, inventory, room, placed.zoneSpread);
  if (ordinal !== undefined) reportVolumeLayout(ordinal, inventory.zones, add);
  const specBounds = ordinal?.bounds ?? placed.bounds;
  const now = runningBounds(w, inventory.zones);
  const bounds = now === undefined ? specBounds : widerBounds(specBounds, now);

  reportShiftGateHeld(w, replicas, specBounds, inventory.zones, add);
  const judged = judgedForAvailability(w, add);
  placementFindings(w, replicas, judged, specBounds, placed, inventory, requests, system !== undefined, add);

  // a member of a system is judged with it (systems.ts), not alone
  const systemKind = system?.kind === 'ZoneGroup' ? 'zone group' : system?.kind;
  const judgedWithSystem = system !== undefined && !system.membersJudgedAlone;
  const need: Need = judgedWithSystem ? { count: 0, because: `judged with its ${systemKind} ${system.name}` }
    : !judged ? { count: 0, because: 'runs to completion: not an availability workload' }
      : needed(w, replicas, input.budgets, add);
  if (need.forms !== undefined && specBounds.placed < need.forms) reportNeverForms(specBounds.placed, need, add);
  const drain = drainNeed(w, input.budgets, replicas);
  const specLoss = zoneLosses(w, inventory.zones, placed, specBounds, need, drain);
  const nowLoss = now === undefined ? undefined : zoneLosses(w, inventory.zones, placed, now, need, drain);
  if (now !== undefined && nowLoss !== undefined) reportRunningNow(inventory.zones, now, specLoss, nowLoss, add);
  const zoneLoss = nowLoss === undefined ? specLoss : worseLosses(specLoss, nowLoss);
  reportLosses(w, replicas, zoneLoss, need, placed.zoneSpread, placed.constraints.zone !== undefined, add);
  return {
    ...identity(w),
    replicas,
    ...(w.replicasFrom !== undefined ? { replicasFrom: w.replicasFrom } : {}),
    perZone: perZoneCounts(inventory.zones, bounds.lo, bounds.hi),
    pendingWorstCase: replicas - bounds.placed,
    needed: need.count,
    neededBecause: need.because,
    ...(system !== undefined ? { zoneGroup: system.name } : {}),
    zoneLoss,
    survives: survivesByZone(zoneLoss),
    findings,
  };
}

/** What a StatefulSet's bound volumes fix of its layout, and what its spread holds back. */
function reportVolumeLayout(layout: VolumeLayout, zones: readonly string[], add: AddFinding): void {
  const held = layout.byVolume.placed - layout.bounds.placed;
  add('volume-pinned', FindingSeverity.INFO,
    'each of its pods\' claims is bound to a volume in one zone, so each pod runs only there: '
    + zones.map((z, i) => `${layout.byVolume.hi[i]} in ${z}`).join(', ')
    + (held > 0 ? `; its hard zone spread lets only ${layout.bounds.placed} of them run, the others stay Pending` : ''),
    held > 0 ? 'Move the claims where the spread puts the pods (new volumes in the other zones), or relax the spread.'
      : 'Nothing to fix if intended; to move a pod to another zone, its claim must move (a new volume there).');
}

/** Consensus software of which fewer can be placed than it forms with. */
function reportNeverForms(placed: number, need: Need, add: AddFinding): void {
  add('quorum-never-forms', FindingSeverity.ERROR,
    `only ${placed} of its pods can be placed, and it forms only with ${need.forms}: it never elects a leader, `
    + `even with every zone up (${need.because})`,
    'Give every voter room to be placed (nodes in enough zones for its spread and anti-affinity), or expect fewer voters.');
}

/** The report's kind, namespace (when set) and name, in that order. */
function identity(w: CheckWorkload): Pick<WorkloadReport, 'kind' | 'namespace' | 'name'> {
  return { kind: w.kind, ...(w.namespace !== undefined ? { namespace: w.namespace } : {}), name: w.name };
}

/** Per zone: the pods it holds in every final layout (guaranteed) and in the worst case. */
function perZoneCounts(
  zones: readonly string[], guaranteed: readonly number[], worstCase: readonly number[],
): WorkloadReport['perZone'] {
  return Object.fromEntries(zones.map((z, i) => [z, { guaranteed: guaranteed[i], worstCase: worstCase[i] }]));
}

function survivesByZone(zoneLoss: readonly ZoneLoss[]): WorkloadReport['survives'] {
  return Object.fromEntries(zoneLoss.map((l) => [l.zone, l.survives]));
}

/**
 * Whether the workload is judged for availability: a run-to-completion one only when it asks (a quorum
 * annotation); noted when not.
 */
function judgedForAvailability(w: CheckWorkload, add: AddFinding): boolean {
  const judged = !w.runToCompletion || w.annotations[QUORUM_ANNOTATION] !== undefined;
  if (!judged) {
    const runs = w.kind === 'Pod' ? 'a Pod that is not restarted (restartPolicy Never or OnFailure) runs'
      : `a ${w.kind}'s pods run`;
    add('run-to-completion', FindingSeverity.INFO,
      `${runs} to completion: ` +
      'it is not judged for availability (a zone loss delays it; its pods are retried elsewhere)',
      `Nothing to fix; set the ${QUORUM_ANNOTATION} annotation if it must keep pods running through a zone loss.`);
  }
  return judged;
}

/**
 * Replicas that can stay Pending with every zone up, and zones its pods cannot use (not reported for a zone
 * group's member).
 */
function placementFindings(
  w: CheckWorkload, replicas: number, judged: boolean, bounds: Bounds, placed: Placement, inventory: ZoneInventory,
  requests: ReturnType<typeof podRequests>, grouped: boolean, add: AddFinding,
): void {
  const { caps, zoneSpread } = placed;
  const zones = inventory.zones;
  if (bounds.placed < replicas) {
    add('pending', judged ? FindingSeverity.ERROR : FindingSeverity.INFO,
      `${replicas - bounds.placed} of ${replicas} replicas can stay Pending with every zone up ` +
      `(room per zone for its pods: ${zones.map((z, i) => `${z} ${fmt(caps[i])}`).join(', ')}` +
      `${zoneSpread ? `; zone spread maxSkew ${zoneSpread.maxSkew}` : ''})` +
      excluded(w.pod, inventory._nodes, requests),
      'Give its pods room in every zone (nodes its affinity and tolerations admit, allocatable for its requests), ' +
      'or lower replicas.');
  }
  const unreachable = zones.filter((_, i) => caps[i] === 0);
  if (unreachable.length > 0 && replicas > 0 && !grouped) {
    add('zone-unusable', FindingSeverity.INFO,
      `its pods cannot run in zone(s) ${unreachable.join(', ')} (node affinity, taints, resources or volumes)`,
      'Check its nodeSelector, node affinity, tolerations and requests against the nodes of those zones.');
  }
}

/** A DaemonSet runs one pod on every node it admits: its layout is known, and it lives as long as one zone does. */
function daemonSet(
  w: CheckWorkload, nodes: readonly CheckNode[], room: NodeRoom, zones: readonly string[], findings: ZoneFinding[],
): WorkloadReport {
  const perZone = zones.map((z) => nodes.filter((n) => n.zone === z && room.get(n.name)! > 0).length);
  const replicas = perZone.reduce((a, b) => a + b, 0);
  const need = { count: replicas === 0 ? 0 : 1, because: 'at least one pod (one per node)' };
  const zoneLoss = zones.map((zone, i) => {
    const survivors = replicas - perZone[i];
    return { zone, survivors, survives: survivors >= need.count, replacementsPending: 0, drainBlocked: false };
  });
  return {
    ...identity(w),
    replicas,
    perZone: perZoneCounts(zones, perZone, perZone),
    pendingWorstCase: 0,
    needed: need.count,
    neededBecause: need.because,
    zoneLoss,
    survives: survivesByZone(zoneLoss),
    findings,
  };
}

/**
 * What keeps nodes from taking any of the pods, with how many nodes each reason excludes ("" when every node
 * takes some).
 */
function excluded(pod: PodSpec, nodes: readonly CheckNode[], requests: { cpu: number; memory: number }): string {
  const why = new Map<string, number>();
  for (const n of nodes) {
    const reason = exclusionOf(pod, n, requests);
    if (reason !== undefined) why.set(reason, (why.get(reason) ?? 0) + 1);
  }
  if (why.size === 0) return '';
  const reasons = [...why].map(([reason, count]) => `${count} of ${nodes.length} by ${reason}`);
  return `; nodes it cannot use: ${reasons.join(', ')}`;
}

function fmt(n: number): string {
  return n === Infinity ? 'unlimited' : String(n);
}
