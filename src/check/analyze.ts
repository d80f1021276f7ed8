/**
 * The zone check (pure, deterministic): for every workload of a set of manifests, where its pods can be on an
 * inventory of zones and nodes, and what losing each zone leaves of it. Only hard constraints count (what the
 * scheduler guarantees); the placement math is spread-bounds.ts, exact for the model it describes.
 */
import { CheckInput, CheckStorageClass, CheckWorkload } from './check-input';
import { affinityAdmits, exclusionOf, podRequests, roomOn, selects, selfTerms, toleratesTaints, usesHostPorts } from './eligibility';
import { CheckNode, ZoneInventory } from './inventory';
import { AddFinding, FindingSeverity, WorkloadReport, ZoneFinding, ZoneLoss, ZoneReportData } from './model';
import { searchLayouts } from './node-search';
import { HardSpread, placementBounds } from './spread-bounds';
import { drainNeed, Need, needed, ringSurvives, zonesLeft } from './workload-needs';
import { readManifests, volumeOf } from './workloads';
import { GroupMembership, groupMemberships, zoneGroupReports } from './zone-groups';
import { zoneLocalTrafficFindings } from './zone-local-traffic';
import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { QUORUM_ANNOTATION } from '../contract/zone-check';
import { arrayOf, NodeSelectorTerm, PodSpec, TopologySpreadConstraint } from '../kubernetes/objects';
import { RevisionLabel } from '../topology/spread';

/** Checks `manifests` (parsed Kubernetes objects) against `inventory`. */
export function analyzeManifests(manifests: readonly unknown[], inventory: ZoneInventory): ZoneReportData {
  const input = readManifests(manifests, inventory.topologyKey);
  const groups = groupMemberships(input.workloads, inventory.zones);
  const workloads = input.workloads.map((w, i) => analyzeWorkload(w, input, inventory, groups.get(i)));
  return {
    zones: [...inventory.zones],
    workloads: [...workloads, ...zoneGroupReports(input.workloads, workloads, inventory.zones, groups)],
    findings: [...input.findings, ...zoneLocalTrafficFindings(input.zoneLocalServices, input.workloads, workloads, inventory.zones)],
  };
}

function analyzeWorkload(w: CheckWorkload, input: CheckInput, inventory: ZoneInventory, group: GroupMembership | undefined): WorkloadReport {
  const findings: ZoneFinding[] = [];
  const add = (rule: string, severity: FindingSeverity, message: string, fix: string) => findings.push({ rule, severity, message, fix });
  const zones = inventory.zones;
  const nodes = inventory._nodes;
  const pod = w.pod;
  const requests = podRequests(pod);
  const { room, immediate } = roomFor(w, input, nodes, requests, add);

  pinByVolumes(w, input, nodes, room, add);
  softZoneRules(pod, w.podLabels, inventory.topologyKey, add);

  if (w.perNode) {
    hardConstraints(pod, w, input.workloads, inventory, add); // its findings (a DaemonSet's pods are placed one per node anyway)
    return daemonSet(w, nodes, room, zones, findings);
  }
  const replicas = w.replicas ?? 1;
  const placed = placement(w, replicas, room, immediate !== undefined, input.workloads, inventory, add);
  const { zoneSpread, constraints } = placed;
  const bounds = ordinalLayout(w, replicas, input, inventory, room) ?? placed.bounds;

  const judged = judgedForAvailability(w, add);
  placementFindings(w, replicas, judged, bounds, placed, inventory, requests, group !== undefined, add);

  // a member of a zone group is judged with its group (zone-groups.ts), not alone
  const need = group !== undefined ? { count: 0, because: `judged with its zone group ${group.name}` }
    : !judged ? { count: 0, because: 'runs to completion: not an availability workload' } : needed(w, replicas, input.budgets, add);
  const zoneLoss = zoneLosses(w, zones, placed, bounds, need, drainNeed(w, input.budgets, replicas));
  reportLosses(w, replicas, zoneLoss, need, zoneSpread, constraints.zone !== undefined, add);
  return {
    kind: w.kind,
    ...(w.namespace !== undefined ? { namespace: w.namespace } : {}),
    name: w.name,
    replicas,
    ...(w.replicasFrom !== undefined ? { replicasFrom: w.replicasFrom } : {}),
    perZone: Object.fromEntries(zones.map((z, i) => [z, { guaranteed: bounds.lo[i], worstCase: bounds.hi[i] }])),
    pendingWorstCase: replicas - bounds.placed,
    needed: need.count,
    neededBecause: need.because,
    ...(group !== undefined ? { zoneGroup: group.name } : {}),
    zoneLoss,
    survives: Object.fromEntries(zoneLoss.map((l) => [l.zone, l.survives])),
    findings,
  };
}

/** Whether the workload is judged for availability: a run-to-completion one only when it asks (a quorum annotation); noted when not. */
function judgedForAvailability(w: CheckWorkload, add: AddFinding): boolean {
  const judged = !w.runToCompletion || w.annotations[QUORUM_ANNOTATION] !== undefined;
  if (!judged) {
    add('run-to-completion', FindingSeverity.INFO,
      `${w.kind === 'Pod' ? 'a Pod that is not restarted (restartPolicy Never or OnFailure) runs' : `a ${w.kind}'s pods run`} to completion: ` +
      'it is not judged for availability (a zone loss delays it; its pods are retried elsewhere)',
      `Nothing to fix; set the ${QUORUM_ANNOTATION} annotation if it must keep pods running through a zone loss.`);
  }
  return judged;
}

/** Replicas that can stay Pending with every zone up, and zones its pods cannot use (not reported for a zone group's member). */
function placementFindings(
  w: CheckWorkload, replicas: number, judged: boolean, bounds: Bounds, placed: ReturnType<typeof placement>, inventory: ZoneInventory,
  requests: ReturnType<typeof podRequests>, grouped: boolean, add: AddFinding,
): void {
  const { caps, zoneSpread } = placed;
  const zones = inventory.zones;
  if (bounds.placed < replicas) {
    add('pending', judged ? FindingSeverity.ERROR : FindingSeverity.INFO, `${replicas - bounds.placed} of ${replicas} replicas can stay Pending with every zone up ` +
      `(room per zone for its pods: ${zones.map((z, i) => `${z} ${fmt(caps[i])}`).join(', ')}` +
      `${zoneSpread ? `; zone spread maxSkew ${zoneSpread.maxSkew}` : ''})${excluded(w.pod, inventory._nodes, requests)}`,
    'Give its pods room in every zone (nodes its affinity and tolerations admit, allocatable for its requests), or lower replicas.');
  }
  const unreachable = zones.filter((_, i) => caps[i] === 0);
  if (unreachable.length > 0 && replicas > 0 && !grouped) {
    add('zone-unusable', FindingSeverity.INFO,
      `its pods cannot run in zone(s) ${unreachable.join(', ')} (node affinity, taints, resources or volumes)`,
      'Check its nodeSelector, node affinity, tolerations and requests against the nodes of those zones.');
  }
}

/**
 * The room each node has for the workload's pods: what its affinity and tolerations admit, for its requests. A
 * volume's StorageClass limited to some zones keeps the pods out of the others; one binding Immediate picks each
 * volume's zone before the pod is scheduled, so the hard spread no longer decides where the pods go (a warning).
 */
function roomFor(
  w: CheckWorkload, input: CheckInput, nodes: readonly CheckNode[], requests: ReturnType<typeof podRequests>, add: AddFinding,
): { room: Map<string, number>; immediate: ReturnType<typeof storageClassOf> } {
  const admits = (n: CheckNode) => affinityAdmits(w.pod, n) && toleratesTaints(w.pod, n);
  const room = new Map(nodes.map((n) => [n.name, admits(n) ? roomOn(n, requests) : 0]));
  const classes = w.claimClasses.map((name) => storageClassOf(name, input.storageClasses));
  for (const c of classes) {
    if (!c) continue;
    if (c.zones) for (const n of nodes) if (!c.zones.includes(n.zone)) room.set(n.name, 0);
  }
  const immediate = classes.find((c) => c?.immediate && (c.zones === undefined || c.zones.length > 1));
  if (immediate) {
    add('immediate-binding', FindingSeverity.WARNING,
      `its volumes use StorageClass ${immediate.name} with volumeBindingMode Immediate: each volume's zone is chosen before its pod is scheduled, ` +
      'so the zone spread cannot hold and every replica may end up in one zone', 'Use a StorageClass with volumeBindingMode: WaitForFirstConsumer.');
  }
  return { room, immediate };
}

/** What losing each zone leaves: survivors, whether they meet the need, replacements Pending, whether a drain is blocked. */
function zoneLosses(
  w: CheckWorkload, zones: readonly string[], placed: ReturnType<typeof placement>, bounds: ReturnType<typeof placement>['bounds'],
  need: Need, budgetNeeds: number | undefined,
): ZoneLoss[] {
  const { caps, zoneSpread, constraints } = placed;
  return zones.map((zone, z) => {
    const survivors = bounds.survivors?.[z] ?? bounds.placed - bounds.hi[z];
    const lost = bounds.hi[z];
    // a hard constraint the scheduler enforces but the check cannot model may keep every replacement Pending
    const pending = constraints.unmodelled ? lost : replacementsPending(w, z, lost, bounds, caps, zoneSpread, constraints.zone);
    // A budget allows an eviction only while the pods left healthy stay at its need, and a replacement exists
    // only after its eviction: the zone's first eviction needs placed - 1, and its pending replacements
    // (evicted last) leave placed - pending.
    const drainBlocked = budgetNeeds !== undefined && lost > 0 && bounds.placed - Math.max(1, pending) < budgetNeeds;
    const survives = need.ring !== undefined ? ringSurvives(need.ring, bounds.lo, bounds.hi, z)
      : need.zoneMajority ? zonesLeft(bounds.lo, bounds.hi, z) : survivors >= need.count;
    return { zone, survivors, survives, replacementsPending: pending, drainBlocked };
  });
}

/**
 * Where the workload's `replicas` pods can be, from the room each node has for them: its hard spread
 * constraints, pod (anti-)affinity to its own pods, and (with `immediate` volume binding) no zone spread.
 */
function placement(
  w: CheckWorkload, replicas: number, room: Map<string, number>, immediate: boolean, others: readonly CheckWorkload[],
  inventory: ZoneInventory, add: AddFinding,
): { bounds: Bounds; caps: number[]; zoneSpread?: HardSpread; constraints: Constraints } {
  const { zones, _nodes: nodes } = inventory;
  const pod = w.pod;
  let constraints: Constraints = hardConstraints(pod, w, others, inventory, add);
  let antiZone = selfTerms(pod, w.podLabels, 'podAntiAffinity');
  if (w.runToCompletion && (constraints.zone || constraints.host || antiZone.length > 0)) {
    // the scheduler counts only running pods: a finished pod frees its place for the next, in any zone
    add('job-constraints-while-running', FindingSeverity.INFO,
      'its spread and anti-affinity count only its running pods: once some finish, the others may go anywhere, so the check does not rely on them',
      'Nothing to fix; give it parallelism and a budget if its pods must be spread while they run.');
    constraints = {};
    antiZone = [];
  }
  // a host port (or the host's network) is the node's: two of its pods never share a node (the scheduler's NodePorts filter)
  if (antiZone.includes(inventory.hostnameKey) || usesHostPorts(pod)) for (const [name, r] of room) room.set(name, Math.min(r, 1));
  const colocated = selfTerms(pod, w.podLabels, 'podAffinity').includes(inventory.topologyKey);
  const zoneSpread = constraints.zone && !immediate ? zoneSpreadOf(constraints.zone, nodes, pod, zones) : undefined;
  const zoneCaps = (rooms: Map<string, number>) => {
    const caps = zones.map((z) => nodes.filter((n) => n.zone === z).reduce((sum, n) => sum + rooms.get(n.name)!, 0));
    return antiZone.includes(inventory.topologyKey) ? caps.map((c) => Math.min(c, 1)) : caps;
  };
  const host = hostSpreadRoom(constraints.host, nodes, room, pod, replicas);
  const caps = zoneCaps(host.most);
  let bounds: Bounds = placementBounds(replicas, caps, zoneSpread);
  if (host.spread && zoneSpread) {
    // A hard host spread and a hard zone spread together can stop placement earlier than either alone (a zone
    // that may not grow keeps its nodes' counts down, which holds the other nodes back): every placement order
    // is tried, or, when there are too many, the pods placed are those sure to fit with maxSkew per node.
    const least = placementBounds(replicas, zoneCaps(host.least), zoneSpread);
    const most = bounds;
    const searched = antiZone.includes(inventory.topologyKey) ? undefined : searchLayouts({
      replicas,
      zones: zones.length,
      nodes: nodes.map((n) => ({ zone: zones.indexOf(n.zone), room: Math.min(room.get(n.name)!, replicas) })),
      zoneSpread,
      hostSpread: host.spread,
    });
    bounds = searched ?? {
      placed: least.placed,
      lo: least.lo.map((v, i) => Math.min(v, most.lo[i])),
      hi: most.hi.map((v, i) => Math.max(v, least.hi[i])),
    };
  }
  if (colocated) {
    // the first pod picks a zone and every other one follows it: any zone may hold them all
    const usable = caps.filter((c) => c > 0);
    const placed = Math.min(replicas, usable.length > 0 ? Math.min(...usable) : 0);
    bounds = { placed, lo: caps.map(() => 0), hi: caps.map((c) => Math.min(c, replicas)) };
    add('self-affinity-one-zone', FindingSeverity.ERROR,
      `required pod affinity to its own pods on ${inventory.topologyKey} puts every replica in the zone of the first one`,
      'Remove the required pod affinity, or make it preferred.');
  }

  return { bounds, caps, zoneSpread, constraints };
}

/** A pod spec that requires the nodes a PersistentVolume's node affinity names. */
function volumeNodes(terms: readonly NodeSelectorTerm[]): PodSpec {
  return { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } };
}

/**
 * The claims every pod mounts (the pod template's), bound to PersistentVolumes with node affinity, keep the
 * pods on those volumes' nodes.
 */
function pinByVolumes(w: CheckWorkload, input: CheckInput, nodes: readonly CheckNode[], room: Map<string, number>, add: AddFinding): void {
  for (const claim of w.podClaims) {
    const volume = volumeOf(input, w.namespace, claim);
    if (!volume) continue;
    for (const n of nodes) if (!affinityAdmits(volumeNodes(volume.nodeTerms), n)) room.set(n.name, 0);
    add('volume-pinned', FindingSeverity.INFO, `its claim ${claim} is bound to PersistentVolume ${volume.name}, whose node affinity keeps its pods on its nodes`,
      'Nothing to fix if that is intended; a zonal volume pins every pod that mounts it to its zone.');
  }
}

/**
 * Preferred (soft) rules on the zone key, which the scheduler may set aside under pressure: pod anti-affinity to
 * its own pods and node affinity. They guarantee nothing, so the check does not count them; an info note says so.
 */
function softZoneRules(
  pod: PodSpec, podLabels: { readonly [key: string]: string }, zoneKey: string, add: AddFinding,
): void {
  const antiAffinity = arrayOf(pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
    .map((r) => r?.podAffinityTerm)
    .some((t) => t?.topologyKey === zoneKey && selects(t.labelSelector, podLabels));
  const nodeAffinity = arrayOf(pod.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
    .map((r) => r?.preference)
    .some((t) => arrayOf(t?.matchExpressions).some((e) => e?.key === zoneKey));
  for (const [present, what] of [[antiAffinity, 'pod anti-affinity to its own pods'], [nodeAffinity, 'node affinity']] as const) {
    if (!present) continue;
    add('soft-zone-affinity', FindingSeverity.INFO,
      `its preferred (soft) ${what} on ${zoneKey} guarantees nothing: the scheduler may set it aside and put its pods in fewer zones`,
      'Use a topologySpreadConstraint with whenUnsatisfiable: DoNotSchedule (or a required rule) if the zones must hold.');
  }
}

/**
 * A StatefulSet whose every pod has a claim bound in advance to a PersistentVolume in one zone (node
 * affinity): pod i runs in its volume's zone, so the layout is known exactly (undefined otherwise).
 */
function ordinalLayout(
  w: CheckWorkload, replicas: number, input: CheckInput, inventory: ZoneInventory, room: Map<string, number>,
): Bounds | undefined {
  if (w.kind !== 'StatefulSet' || w.claimTemplates.length === 0 || replicas === 0) return undefined;
  const counts = inventory.zones.map(() => 0);
  for (let i = 0; i < replicas; i++) {
    const zones = new Set<number>();
    for (const t of w.claimTemplates) {
      const volume = volumeOf(input, w.namespace, `${t}-${w.name}-${i}`);
      if (!volume) continue;
      const usable = inventory._nodes.filter((n) => room.get(n.name)! > 0 && affinityAdmits(volumeNodes(volume.nodeTerms), n));
      usable.forEach((n) => zones.add(inventory.zones.indexOf(n.zone)));
    }
    if (zones.size !== 1) return undefined;
    counts[[...zones][0]]++;
  }
  return { placed: replicas, lo: counts, hi: [...counts] };
}

/** Where the pods can be: placed in every final layout, per zone the fewest and most, per zone lost the fewest left (when known exactly). */
interface Bounds {
  readonly placed: number;
  readonly lo: number[];
  readonly hi: number[];
  readonly survivors?: number[];
}

/** The label each built-in controller sets on its pods, whose value no other workload's pods carry. */
const REVISION_KEY: { [kind: string]: string } = {
  Deployment: RevisionLabel.POD_TEMPLATE_HASH, StatefulSet: RevisionLabel.CONTROLLER_REVISION_HASH, DaemonSet: RevisionLabel.CONTROLLER_REVISION_HASH,
};

/**
 * Whether a constraint's matchLabelKeys still select `other`'s pods beside `w`'s: Kubernetes adds each key's value
 * from the incoming pod to the selector (a key the pod lacks adds nothing), so a key whose values differ, or the
 * revision label w's controller sets (unique to w), keeps the other's pods out.
 */
function sameMatchLabelKeys(keys: unknown, w: CheckWorkload, other: CheckWorkload): boolean {
  if (!Array.isArray(keys)) return true;
  return keys.every((k) => typeof k !== 'string'
    || (k !== REVISION_KEY[w.kind] && (!(k in w.podLabels) || w.podLabels[k] === other.podLabels[k])));
}

/**
 * The pod's hard spread constraints on the zone and hostname keys that select its own pods and only those: a
 * selector that also selects another workload's pods spreads both together, which guarantees nothing about
 * this one's pods (the other's may fill a zone), so it is reported and not relied on.
 */
function hardConstraints(
  pod: PodSpec, w: CheckWorkload, others: readonly CheckWorkload[], inventory: ZoneInventory, add: AddFinding,
): Constraints {
  const all = arrayOf(pod.topologySpreadConstraints);
  const out: { zone?: HardConstraint; host?: HardConstraint; unmodelled?: boolean } = {};
  for (const c of all) {
    const key = c?.topologyKey === inventory.topologyKey ? 'zone' : c?.topologyKey === inventory.hostnameKey ? 'host' : undefined;
    if (!key) continue;
    if (!selects(c.labelSelector, w.podLabels)) {
      add('spread-selector-mismatch', FindingSeverity.WARNING,
        `its ${c.topologyKey} spread constraint selects ${JSON.stringify(c.labelSelector ?? {})}, which does not match the pod labels ` +
        `${JSON.stringify(w.podLabels)}: the constraint does nothing for these pods`, 'Make the labelSelector select the pod template\'s labels.');
      continue;
    }
    // a soft constraint guarantees nothing and blocks nothing, whoever else it selects
    if (c.whenUnsatisfiable !== 'DoNotSchedule') {
      if (key === 'zone') {
        add('soft-zone-spread', FindingSeverity.INFO,
          `its zone spread is ${c.whenUnsatisfiable ?? 'ScheduleAnyway'}: the scheduler may pack its pods into fewer zones under pressure`,
          'Use whenUnsatisfiable: DoNotSchedule for a guarantee.');
      }
      continue;
    }
    // a workload scaled to 0 (a Deployment an Argo Rollout took over with workloadRef) has no pods to share
    const shared = others.filter((o) => o !== w && o.replicas !== 0 && o.namespace === w.namespace && selects(c.labelSelector, o.podLabels)
      && sameMatchLabelKeys(c.matchLabelKeys, w, o));
    if (shared.length > 0) {
      add('spread-selector-shared', FindingSeverity.WARNING,
        `its ${c.topologyKey} spread constraint also selects the pods of ${shared.map((o) => `${o.kind} ${o.name}`).join(', ')}: ` +
        'it spreads them together, so it guarantees nothing about this workload\'s own pods (and replacements after a zone loss may all stay Pending)',
        'Select only this workload\'s pods (add a label only it has, or matchLabelKeys: [pod-template-hash] / [controller-revision-hash]).');
      out.unmodelled = true;
      continue;
    }
    const maxSkew = Number.isInteger(c.maxSkew) && (c.maxSkew ?? 0) >= 1 ? c.maxSkew ?? 1 : 1;
    if (!out[key] || maxSkew < out[key].maxSkew) out[key] = { ...c, maxSkew };
  }
  return out;
}

/** The hard spread constraints the check relies on, and whether one it cannot model (a shared selector) binds too. */
interface Constraints {
  readonly zone?: HardConstraint;
  readonly host?: HardConstraint;
  readonly unmodelled?: boolean;
}

/** A hard (DoNotSchedule) spread constraint the check relies on, its maxSkew a whole number of at least 1. */
interface HardConstraint extends TopologySpreadConstraint {
  readonly maxSkew: number;
}

/** Whether `count` domains are fewer than the constraint's minDomains (a whole number; else it sets none). */
function fewerThanMinDomains(c: TopologySpreadConstraint, count: number): boolean {
  return Number.isInteger(c.minDomains) && count < (c.minDomains ?? 0);
}

/** Whether a spread constraint `c` counts node `n` as a domain, by its nodeAffinityPolicy (default Honor) and nodeTaintsPolicy (default Ignore). */
function countedBy(c: HardConstraint, pod: PodSpec, n: CheckNode): boolean {
  return (c.nodeAffinityPolicy === 'Ignore' || affinityAdmits(pod, n)) && (c.nodeTaintsPolicy !== 'Honor' || toleratesTaints(pod, n));
}

/** The zone spread as spread-bounds models it: its domains are the zones of the nodes its policies count. */
function zoneSpreadOf(
  c: HardConstraint, nodes: readonly CheckNode[], pod: PodSpec, zones: readonly string[],
): HardSpread {
  const domains = zones.map((z) => nodes.some((n) => n.zone === z && countedBy(c, pod, n)));
  const count = domains.filter(Boolean).length;
  return { maxSkew: c.maxSkew, minIsZero: fewerThanMinDomains(c, count), domains };
}

/**
 * Each node's room under a hard host spread: at most the emptiest counted node's count + maxSkew, that count
 * being at most its room and at most the average (maxSkew alone while there are fewer nodes than minDomains),
 * and at least maxSkew, which it is sure to take while any counted node is still empty.
 */
function hostSpreadRoom(
  c: HardConstraint | undefined, nodes: readonly CheckNode[], room: Map<string, number>, pod: PodSpec, replicas: number,
): { most: Map<string, number>; least: Map<string, number>; spread?: HardSpread } {
  if (!c) return { most: room, least: room };
  const counted = nodes.filter((n) => countedBy(c, pod, n));
  if (counted.length === 0) return { most: room, least: room };
  const minIsZero = fewerThanMinDomains(c, counted.length);
  // the emptiest counted node holds at most its room, and at most the average
  const capMin = minIsZero ? 0 : Math.min(...counted.map((n) => room.get(n.name)!), Math.floor(replicas / counted.length));
  const most = new Map(nodes.map((n) => [n.name, Math.min(room.get(n.name)!, capMin + c.maxSkew, replicas)]));
  const least = new Map(nodes.map((n) => [n.name, Math.min(most.get(n.name)!, c.maxSkew)]));
  return { most, least, spread: { maxSkew: c.maxSkew, minIsZero, domains: nodes.map((n) => counted.includes(n)) } };
}

/**
 * Replacements for the pods of lost zone `z` that stay Pending: all of them for a StatefulSet with volumes
 * (its claims are bound to volumes in that zone); with a hard zone spread, the lost zone's nodes (NotReady)
 * still count as a domain with no pods unless nodeTaintsPolicy is Honor, so no other zone may grow beyond
 * maxSkew; without one, they pack into the other zones' room.
 */
function replacementsPending(
  w: CheckWorkload, z: number, lost: number, bounds: Bounds, caps: number[], spread: HardSpread | undefined,
  c: HardConstraint | undefined,
): number {
  if (lost === 0 || w.runToCompletion) return 0;
  if (w.claimClasses.length > 0) return lost;
  const others = caps.map((_, i) => i).filter((i) => i !== z);
  if (!spread) return Math.max(0, lost - (others.reduce((s, i) => s + caps[i], 0) - (bounds.placed - lost)));
  const stillDomain = c?.nodeTaintsPolicy !== 'Honor';
  const domainsLeft = spread.domains.filter((d, i) => d && i !== z).length;
  if (stillDomain || spread.minIsZero || (c !== undefined && fewerThanMinDomains(c, domainsLeft))) {
    // the minimum is 0: another zone takes a replacement only while it holds fewer than maxSkew pods
    const room = others.reduce((s, i) => s + Math.max(0, Math.min(caps[i], spread.maxSkew) - bounds.lo[i]), 0);
    return Math.max(0, lost - room);
  }
  const without = { ...spread, domains: spread.domains.map((d, i) => d && i !== z) };
  const after = placementBounds(bounds.placed, caps.map((cap, i) => (i === z ? 0 : cap)), without);
  return Math.max(0, bounds.placed - after.placed);
}

function reportLosses(
  w: CheckWorkload, replicas: number, losses: ZoneLoss[], need: Need, spread: HardSpread | undefined, hasZoneSpread: boolean, add: AddFinding,
): void {
  const failing = losses.filter((l) => !l.survives);
  if (failing.length === 0) return;
  const replicasFrom = w.replicasFrom;
  // the library's construct is named only to users of the library (its own objects)
  const spreadHint = w.fromLibrary ? ' (in cdk8s-zones: Zonal.spread)' : '';
  if (replicas === 1) {
    add('single-replica', FindingSeverity.ERROR, `it has one replica${replicasFrom ? ` (${replicasFrom})` : ''}: losing its zone loses it`,
      'Run at least 2 replicas spread across zones (3 for a quorum).');
  }
  add('zone-loss', FindingSeverity.ERROR,
    `${replicasFrom ? `of its ${replicas} replicas (${replicasFrom}), ` : ''}` +
    `losing ${failing.map((l) => `${l.zone} leaves ${l.survivors}`).join(', ')} in the worst case; ` +
    `it needs ${need.zoneMajority ? need.because : `${need.count} (${need.because})`}`,
    spread
      ? 'Add replicas or lower maxSkew so that no zone holds more than it can lose.'
      : `Spread it across zones: a topologySpreadConstraint on ${WELL_KNOWN_ZONE_KEY} with whenUnsatisfiable: DoNotSchedule${spreadHint}.`);
  if (!hasZoneSpread && replicas > 1) {
    add('no-hard-zone-spread', FindingSeverity.WARNING,
      'nothing keeps its pods from all landing in one zone (no DoNotSchedule spread constraint on the zone key)',
      `Add a topologySpreadConstraint on ${WELL_KNOWN_ZONE_KEY} with whenUnsatisfiable: DoNotSchedule${spreadHint}.`);
  }
}

/** A DaemonSet runs one pod on every node it admits: its layout is known, and it lives as long as one zone does. */
function daemonSet(
  w: CheckWorkload, nodes: readonly CheckNode[], room: Map<string, number>, zones: readonly string[], findings: ZoneFinding[],
): WorkloadReport {
  const perZone = zones.map((z) => nodes.filter((n) => n.zone === z && room.get(n.name)! > 0).length);
  const replicas = perZone.reduce((a, b) => a + b, 0);
  const need = { count: replicas === 0 ? 0 : 1, because: 'at least one pod (one per node)' };
  const zoneLoss = zones.map((zone, i) => {
    const survivors = replicas - perZone[i];
    return { zone, survivors, survives: survivors >= need.count, replacementsPending: 0, drainBlocked: false };
  });
  return {
    kind: w.kind,
    ...(w.namespace !== undefined ? { namespace: w.namespace } : {}),
    name: w.name,
    replicas,
    perZone: Object.fromEntries(zones.map((z, i) => [z, { guaranteed: perZone[i], worstCase: perZone[i] }])),
    pendingWorstCase: 0,
    needed: need.count,
    neededBecause: need.because,
    zoneLoss,
    survives: Object.fromEntries(zoneLoss.map((l) => [l.zone, l.survives])),
    findings,
  };
}

function storageClassOf(name: string | undefined, classes: readonly CheckStorageClass[]): CheckStorageClass | undefined {
  return name === undefined ? classes.find((c) => c.isDefault) : classes.find((c) => c.name === name);
}

/** What keeps nodes from taking any of the pods, with how many nodes each reason excludes ("" when every node takes some). */
function excluded(pod: PodSpec, nodes: readonly CheckNode[], requests: { cpu: number; memory: number }): string {
  const why = new Map<string, number>();
  for (const n of nodes) {
    const reason = exclusionOf(pod, n, requests);
    if (reason !== undefined) why.set(reason, (why.get(reason) ?? 0) + 1);
  }
  if (why.size === 0) return '';
  return `; nodes it cannot use: ${[...why].map(([reason, count]) => `${count} of ${nodes.length} by ${reason}`).join(', ')}`;
}

function fmt(n: number): string {
  return n === Infinity ? 'unlimited' : String(n);
}
