/**
 * Where a workload's pods can be, from the room each node has for them: its hard spread constraints, pod
 * (anti-)affinity to its own pods, host ports, and volumes bound in advance. The per-zone math is spread-bounds.ts;
 * a hard host spread together with a hard zone spread is searched node by node (node-search.ts).
 */
import { CheckInput, CheckWorkload } from './check-input';
import { Constraints, fewerThanMinDomains, HardConstraint, hardConstraints } from './constraints';
import { affinityAdmits, selfTerms, toleratesTaints, usesHostPorts } from './eligibility';
import { CheckNode, ZoneInventory } from './inventory';
import { AddFinding, FindingSeverity } from './model';
import { NodeRoom, volumeNodes } from './node-room';
import { searchLayouts } from './node-search';
import { volumeOf } from './workloads';
import { PodSpec } from '../kubernetes/objects';
import { HardSpread, PlacementBounds, placementBounds } from '../topology/spread-bounds';

/**
 * Where the pods can be: placed in every final layout, per zone the fewest and most, per zone lost the fewest
 * left (when known exactly).
 */
export interface Bounds extends PlacementBounds {
  readonly survivors?: number[];
}

/** Where the workload's pods can be, with the room per zone and the spread constraints that decided it. */
export interface Placement {
  readonly bounds: Bounds;
  /** Per zone, how many of the pods it has room for. */
  readonly caps: number[];
  /** The hard zone spread as spread-bounds models it (none with Immediate volume binding). */
  readonly zoneSpread?: HardSpread;
  readonly constraints: Constraints;
}

/**
 * Where the workload's `replicas` pods can be, from the room each node has for them: its hard spread
 * constraints, pod (anti-)affinity to its own pods, and (with `immediate` volume binding) no zone spread.
 */
export function placement(
  w: CheckWorkload, replicas: number, room: NodeRoom, immediate: boolean, others: readonly CheckWorkload[],
  inventory: ZoneInventory, add: AddFinding,
): Placement {
  const { zones, _nodes: nodes } = inventory;
  const pod = w.pod;
  const { constraints, antiZone } = rulesWhileRunning(w,
    hardConstraints(pod, w, others, inventory, add), selfTerms(pod, w.podLabels, 'podAntiAffinity'), add);
  // a host port (or the host's network) is the node's: two of its pods never share a node
  // (the scheduler's NodePorts filter)
  if (antiZone.includes(inventory.hostnameKey) || usesHostPorts(pod)) {
    for (const [name, r] of room) room.set(name, Math.min(r, 1));
  }
  const onePerZone = antiZone.includes(inventory.topologyKey);
  const zoneSpread = constraints.zone && !immediate ? zoneSpreadOf(constraints.zone, nodes, pod, zones) : undefined;
  const host = hostSpreadRoom(constraints.host, nodes, room, pod, replicas);
  const caps = zoneCaps(inventory, host.most, onePerZone);
  let bounds: Bounds = placementBounds(replicas, caps, zoneSpread);
  if (host.spread && zoneSpread) {
    const least = placementBounds(replicas, zoneCaps(inventory, host.least, onePerZone), zoneSpread);
    bounds = hostAndZoneBounds(replicas, inventory, room, { zoneSpread, hostSpread: host.spread, onePerZone },
      { least, most: bounds });
  }
  if (selfTerms(pod, w.podLabels, 'podAffinity').includes(inventory.topologyKey)) {
    bounds = colocatedBounds(replicas, caps, inventory.topologyKey, add);
  }
  return { bounds, caps, zoneSpread, constraints };
}

/**
 * The spread constraints and pod anti-affinity terms the check relies on: none for pods that run to completion,
 * since the scheduler counts only running pods (a finished pod frees its place for the next, in any zone).
 */
function rulesWhileRunning(
  w: CheckWorkload, constraints: Constraints, antiZone: string[], add: AddFinding,
): { constraints: Constraints; antiZone: string[] } {
  if (!w.runToCompletion || !(constraints.zone || constraints.host || antiZone.length > 0)) {
    return { constraints, antiZone };
  }
  add('job-constraints-while-running', FindingSeverity.INFO,
    'its spread and anti-affinity count only its running pods: once some finish, the others may go anywhere, ' +
    'so the check does not rely on them',
    'Nothing to fix; give it parallelism and a budget if its pods must be spread while they run.');
  return { constraints: {}, antiZone: [] };
}

/** Per zone, the room its nodes have for the pods (at most 1 with required anti-affinity to its own pods on zones). */
function zoneCaps(inventory: ZoneInventory, rooms: NodeRoom, onePerZone: boolean): number[] {
  const nodes = inventory._nodes;
  const roomIn = (z: string) => nodes.filter((n) => n.zone === z).reduce((sum, n) => sum + rooms.get(n.name)!, 0);
  const caps = inventory.zones.map(roomIn);
  return onePerZone ? caps.map((c) => Math.min(c, 1)) : caps;
}

/**
 * A hard host spread and a hard zone spread together can stop placement earlier than either alone (a zone
 * that may not grow keeps its nodes' counts down, which holds the other nodes back): every placement order
 * is tried, or, when there are too many, the pods placed are those sure to fit with maxSkew per node.
 */
function hostAndZoneBounds(
  replicas: number, inventory: ZoneInventory, room: NodeRoom,
  spreads: { zoneSpread: HardSpread; hostSpread: HardSpread; onePerZone: boolean },
  per: { least: PlacementBounds; most: PlacementBounds },
): Bounds {
  const { zones, _nodes: nodes } = inventory;
  const searched = spreads.onePerZone ? undefined : searchLayouts({
    replicas,
    zones: zones.length,
    nodes: nodes.map((n) => ({ zone: zones.indexOf(n.zone), room: Math.min(room.get(n.name)!, replicas) })),
    zoneSpread: spreads.zoneSpread,
    hostSpread: spreads.hostSpread,
  });
  const { least, most } = per;
  return searched ?? {
    placed: least.placed,
    lo: least.lo.map((v, i) => Math.min(v, most.lo[i])),
    hi: most.hi.map((v, i) => Math.max(v, least.hi[i])),
  };
}

/** Required pod affinity to its own pods on the zone key: the first pod picks a zone and every other one follows it. */
function colocatedBounds(replicas: number, caps: readonly number[], zoneKey: string, add: AddFinding): Bounds {
  // any zone may hold them all
  const usable = caps.filter((c) => c > 0);
  const placed = Math.min(replicas, usable.length > 0 ? Math.min(...usable) : 0);
  add('self-affinity-one-zone', FindingSeverity.ERROR,
    `required pod affinity to its own pods on ${zoneKey} puts every replica in the zone of the first one`,
    'Remove the required pod affinity, or make it preferred.');
  return { placed, lo: caps.map(() => 0), hi: caps.map((c) => Math.min(c, replicas)) };
}

/**
 * Whether a spread constraint `c` counts node `n` as a domain, by its nodeAffinityPolicy (default Honor) and
 * nodeTaintsPolicy (default Ignore).
 */
function countedBy(c: HardConstraint, pod: PodSpec, n: CheckNode): boolean {
  return (c.nodeAffinityPolicy === 'Ignore' || affinityAdmits(pod, n))
    && (c.nodeTaintsPolicy !== 'Honor' || toleratesTaints(pod, n));
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
  c: HardConstraint | undefined, nodes: readonly CheckNode[], room: NodeRoom, pod: PodSpec, replicas: number,
): { most: NodeRoom; least: NodeRoom; spread?: HardSpread } {
  if (!c) return { most: room, least: room };
  const counted = nodes.filter((n) => countedBy(c, pod, n));
  if (counted.length === 0) return { most: room, least: room };
  const minIsZero = fewerThanMinDomains(c, counted.length);
  // the emptiest counted node holds at most its room, and at most the average
  const capMin = minIsZero ? 0
    : Math.min(...counted.map((n) => room.get(n.name)!), Math.floor(replicas / counted.length));
  const most = new Map(nodes.map((n) => [n.name, Math.min(room.get(n.name)!, capMin + c.maxSkew, replicas)]));
  const least = new Map(nodes.map((n) => [n.name, Math.min(most.get(n.name)!, c.maxSkew)]));
  return { most, least, spread: { maxSkew: c.maxSkew, minIsZero, domains: nodes.map((n) => counted.includes(n)) } };
}

/**
 * A StatefulSet whose every pod has a claim bound in advance to a PersistentVolume in one zone (node
 * affinity): pod i runs in its volume's zone, so the layout is known exactly (undefined otherwise).
 */
export function ordinalLayout(
  w: CheckWorkload, replicas: number, input: CheckInput, inventory: ZoneInventory, room: NodeRoom,
): Bounds | undefined {
  if (w.kind !== 'StatefulSet' || w.claimTemplates.length === 0 || replicas === 0) return undefined;
  const counts = inventory.zones.map(() => 0);
  for (let i = 0; i < replicas; i++) {
    const zones = new Set<number>();
    for (const t of w.claimTemplates) {
      const volume = volumeOf(input, w.namespace, `${t}-${w.name}-${i}`);
      if (!volume) continue;
      const onVolume = volumeNodes(volume.nodeTerms);
      const usable = inventory._nodes.filter((n) => room.get(n.name)! > 0 && affinityAdmits(onVolume, n));
      usable.forEach((n) => zones.add(inventory.zones.indexOf(n.zone)));
    }
    if (zones.size !== 1) return undefined;
    counts[[...zones][0]]++;
  }
  return { placed: replicas, lo: counts, hi: [...counts] };
}

/** The layout a StatefulSet's bound volumes fix (`byVolume`), and what of it its hard zone spread lets run. */
export interface VolumeLayout {
  readonly byVolume: Bounds;
  readonly bounds: Bounds;
}

/**
 * A StatefulSet whose every pod's claim is bound to a volume in one zone: the layout its volumes fix, and, under a
 * hard zone spread, what of it the spread lets run (the spread counts the zones its volumes are not in, and holds
 * back a pod its volume would put past maxSkew).
 */
export function volumeLayout(
  w: CheckWorkload, replicas: number, input: CheckInput, inventory: ZoneInventory, room: NodeRoom,
  spread: HardSpread | undefined,
): VolumeLayout | undefined {
  const byVolume = ordinalLayout(w, replicas, input, inventory, room);
  if (byVolume === undefined) return undefined;
  return { byVolume, bounds: spread === undefined ? byVolume : placementBounds(replicas, byVolume.hi, spread) };
}
