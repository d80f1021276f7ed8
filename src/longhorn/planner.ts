import { Size } from 'cdk8s';
import { InventoryDisk, InventoryNode, LonghornDiskType, LonghornInventory } from './inventory';
import {
  AntiAffinityLevel, LonghornDataEngine, LonghornDataLocality, LonghornReplicaAutoBalance, resolvedLevel,
  ResolvedScheduling, resolveScheduling,
} from './options';
import {
  LonghornPlacementPlan, LonghornPlacementRequest, LonghornReplicaLocation, LonghornReplicaPlacement,
  PLACEMENT_REQUEST_PROPS,
} from './placement-plan';
import { explainFailure } from './planner-failure';
import { capacityProblem, domainOf, Level, State, tagsMatch } from './planner-rules';
import { domainName, list, plural, zoneName } from './planner-wording';
import { LONGHORN_SIZE_ALIGNMENT, sizeBytes } from '../kubernetes/quantity';
import { invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props } from '../shared/props';
import { compare } from '../topology/survival';

/**
 * Longhorn's replica placement, computed at synth time (pure and deterministic). It follows
 * longhorn-manager's replica scheduler: an unused node in an unused zone first; then, only for soft levels
 * and from the coarsest to the finest, a used zone, then a used node; on the chosen nodes, disks holding no
 * replica of the volume first (all disks only when disk anti-affinity is soft); disks must pass the
 * capacity checks (free space above `storage-minimal-available-percentage`, scheduled sizes within
 * `storage-over-provisioning-percentage` of capacity minus reserved); then the most balanced node and
 * disk. Where Longhorn picks at random among equals, the planner picks by name.
 */
export class LonghornPlacement {
  /**
   * Places every replica of a volume on an inventory.
   *
   * @param inventory the nodes and disks
   * @param request the volume's scheduling options and size
   */
  public static plan(inventory: LonghornInventory, request: LonghornPlacementRequest): LonghornPlacementPlan {
    const where = 'LonghornPlacement.plan';
    checkArg(where, 'inventory', inventory, Props.instanceOf(LonghornInventory));
    checkProps(where, request, PLACEMENT_REQUEST_PROPS, 'LonghornPlacementRequest', 'request');
    const resolved = resolveScheduling(where, request);
    return planPlacement(where, inventory, resolved, replicaSizeOf(request.size), request.existingReplicas ?? []);
  }

  private constructor() {}
}

/** A volume size in bytes rounded up to Longhorn's 2 MiB alignment. */
export function replicaSizeOf(size: Size | undefined): number {
  const bytes = size === undefined ? 0 : sizeBytes(size);
  return Math.ceil(bytes / LONGHORN_SIZE_ALIGNMENT) * LONGHORN_SIZE_ALIGNMENT;
}

const MIB = 1024 * 1024;

const LEVEL_ORDER = [AntiAffinityLevel.ZONE, AntiAffinityLevel.NODE, AntiAffinityLevel.DISK];

/**
 * Longhorn's balance score: the spread of usable bytes, (max - min) / mean, or Infinity when every
 * value is 0 (everything full).
 */
function spread(values: number[]): number {
  if (values.length === 0) return Infinity;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (mean === 0) return Infinity;
  return (Math.max(...values) - Math.min(...values)) / mean;
}

/**
 * Longhorn's choice among candidate disks: the node whose use leaves usable bytes across the candidate
 * nodes most even, then the disk on it that leaves usable bytes across all candidate disks most even;
 * when no node can hold the replica's size in usable bytes, the disk with the most unreserved free space.
 * Candidates arrive sorted by node and disk name, and ties keep the first.
 */
function choose(candidates: InventoryDisk[], state: State, size: number): InventoryDisk {
  if (candidates.length === 1) return candidates[0];
  const usable = new Map(candidates.map((d) => [d, Math.max(0, d.available - d.reserved - state.scheduled(d))]));
  const nodeUsable = new Map<string, number>();
  for (const d of candidates) nodeUsable.set(d.node, (nodeUsable.get(d.node) ?? 0) + usable.get(d)!);

  let bestNode: string | undefined;
  let bestScore = Infinity;
  for (const [node, free] of nodeUsable) {
    if (free < size) continue;
    const score = spread([...nodeUsable].map(([n, u]) => (n === node ? u - size : u)));
    if (score < bestScore) {
      bestScore = score;
      bestNode = node;
    }
  }
  let best: InventoryDisk | undefined;
  if (bestNode !== undefined) {
    bestScore = Infinity;
    for (const disk of candidates.filter((d) => d.node === bestNode)) {
      const score = spread(candidates.map((d) => (d === disk ? usable.get(d)! - size : usable.get(d)!)));
      if (score < bestScore) {
        bestScore = score;
        best = disk;
      }
    }
  }
  if (best) return best;
  return candidates.reduce((a, b) => (b.available - b.reserved > a.available - a.reserved ? b : a));
}

/**
 * The planner itself: validates the request against the inventory (selector tags nobody has, unknown
 * existing replicas), then places replicas one by one as Longhorn does.
 */
export function planPlacement(
  where: string, inventory: LonghornInventory, r: ResolvedScheduling, size: number, existing: LonghornReplicaLocation[],
): LonghornPlacementPlan {
  const nodes = inventory._nodes;
  checkSelector(where, 'nodeSelector', r.nodeSelector, nodes.flatMap((n) => n.tags), 'node');
  checkSelector(where, 'diskSelector', r.diskSelector, nodes.flatMap((n) => n.disks.flatMap((d) => d.tags)), 'disk');
  if (existing.length > r.replicas) {
    throw invalidProp(where, 'existingReplicas', existing, `lists ${existing.length} replicas but numberOfReplicas is ${r.replicas}`);
  }

  const state = new State(size);
  const replicas = placeExisting(where, nodes, existing, state);

  const wantedType = r.dataEngine === LonghornDataEngine.V2 ? LonghornDiskType.BLOCK : LonghornDiskType.FILESYSTEM;
  const { allowEmptyNodeSelectorVolume, allowEmptyDiskSelectorVolume } = r.settings;
  const nodeTagsMatch = (n: InventoryNode) => tagsMatch(n.tags, r.nodeSelector, allowEmptyNodeSelectorVolume);
  const diskTagsMatch = (d: InventoryDisk) => tagsMatch(d.tags, r.diskSelector, allowEmptyDiskSelectorVolume);
  const eligibleNodes = nodes.filter((n) => n.allowScheduling && nodeTagsMatch(n));
  const eligibleDisks = eligibleNodes.flatMap((n) => n.disks.filter((d) =>
    d.allowScheduling && d.type === wantedType && diskTagsMatch(d)));
  const [zone, node, disk] = LEVEL_ORDER.map((l) => resolvedLevel(r, l));

  const warnings: string[] = [];
  const notes: string[] = [];
  let failure: string | undefined;
  for (let i = existing.length; i < r.replicas; i++) {
    if (failure !== undefined) {
      replicas.push({ replica: i + 1, scheduled: false, existing: false, relaxed: [], reason: `unschedulable: ${failure}` });
      continue;
    }
    const chosen = nextDisk(state, eligibleDisks, r, size);
    if (!chosen) {
      failure = `replica ${i + 1} of ${r.replicas} cannot be scheduled: ` +
        explainFailure(r, eligibleDisks, nodes, state, size, [zone, node, disk], wantedType);
      replicas.push({ replica: i + 1, scheduled: false, existing: false, relaxed: [], reason: `unschedulable: ${failure}` });
      continue;
    }
    replicas.push(placeReplica(i + 1, chosen, state, r, size, warnings));
  }

  describeZones(eligibleNodes, warnings, notes);
  describeDegraded(replicas, r, eligibleDisks, warnings, notes);
  describePolicies(r, size, warnings, notes);
  return {
    replicas,
    complete: failure === undefined,
    failure,
    warnings,
    notes,
    replicaSize: Size.mebibytes(size / MIB),
  };
}

/** Places replica `replica` on the chosen disk, saying why there and which soft levels it shares. */
function placeReplica(
  replica: number,
  chosen: { disk: InventoryDisk; of: number },
  state: State,
  r: ResolvedScheduling,
  size: number,
  warnings: string[],
): LonghornReplicaPlacement {
  const d = chosen.disk;
  const relaxed = relaxedLevels(state, d);
  const doubleCounted = doubleCountProblem(d, state, size, r);
  if (doubleCounted) warnings.push(`replica ${replica}: ${doubleCounted}`);
  state.place(d, false);
  const why = chosen.of === 1 ? 'the only candidate disk' : `the most balanced of ${chosen.of} candidate disks`;
  const shares = relaxed.map((l) => `shares ${l} ${domainName(l, domainOf(l, d))} with an earlier replica (${l} anti-affinity is soft: ${resolvedLevel(r, l).origin})`);
  const reason = [`${zoneName(d.zone)} / ${d.node} / ${d.name}: ${why}`, ...shares].join('; ');
  return { replica, scheduled: true, existing: false, node: d.node, zone: d.zone, disk: d.name, relaxed, reason };
}

/** The replicas already there, placed first (each must be a disk of the inventory). */
function placeExisting(
  where: string,
  nodes: InventoryNode[],
  existing: LonghornReplicaLocation[],
  state: State,
): LonghornReplicaPlacement[] {
  return existing.map((loc, i) => {
    const disk = nodes.find((n) => n.name === loc.node)?.disks.find((d) => d.name === loc.disk);
    if (!disk) throw invalidProp(where, `existingReplicas[${i}]`, loc, 'is not a disk of the inventory');
    const relaxed = relaxedLevels(state, disk);
    state.place(disk, true);
    return {
      replica: i + 1,
      scheduled: true,
      existing: true,
      node: disk.node,
      zone: disk.zone,
      disk: disk.name,
      relaxed,
      reason: 'already there',
    };
  });
}

/**
 * The disk for the next replica, and among how many candidates; undefined when none fits. Longhorn's tiers of
 * nodes: each later tier relaxes one more soft level, from the coarsest; within a tier, disks holding no replica
 * of the volume first (any disk only when disk anti-affinity is soft).
 */
function nextDisk(
  state: State,
  eligible: InventoryDisk[],
  r: ResolvedScheduling,
  size: number,
): { disk: InventoryDisk; of: number } | undefined {
  const [zone, node, disk] = LEVEL_ORDER.map((l) => resolvedLevel(r, l));
  const usedZones = state.usedZones();
  const usedNodes = state.usedNodes();
  const tiers: ((d: InventoryDisk) => boolean)[] = [(d) => !usedNodes.has(d.node) && !usedZones.has(d.zone)];
  if (!zone.hard) tiers.push((d) => !usedNodes.has(d.node));
  if (!zone.hard && !node.hard) tiers.push((d) => usedNodes.has(d.node));
  for (const inTier of tiers) {
    const fitting = eligible.filter((d) => inTier(d) && capacityProblem(d, state.scheduled(d), size, r) === undefined);
    const fresh = fitting.filter((d) => state.replicasOn(d) === 0);
    const candidates = fresh.length > 0 || disk.hard ? fresh : fitting;
    if (candidates.length > 0) return { disk: choose(candidates, state, size), of: candidates.length };
  }
  return undefined;
}

/** What the volume's other policies mean for this plan: best-effort auto-balance, data locality, no size. */
function describePolicies(r: ResolvedScheduling, size: number, warnings: string[], notes: string[]): void {
  const [zone, node] = LEVEL_ORDER.map((l) => resolvedLevel(r, l));
  if (r.replicaAutoBalance === LonghornReplicaAutoBalance.BEST_EFFORT && node.hard && !zone.hard) {
    warnings.push('replicaAutoBalance is best-effort and node anti-affinity is hard: Longhorn ignores the hard node level when it ' +
      'rebalances in best-effort mode and may put two replicas of the volume on one node (longhorn/longhorn#11189); ' +
      'use least-effort, or keep node anti-affinity soft knowingly');
  }
  if (r.dataLocality === LonghornDataLocality.BEST_EFFORT) {
    notes.push('dataLocality best-effort: Longhorn also tries to keep one replica on the node the volume is attached to, ' +
      'which is unknown at synth time; this plan ignores locality');
  }
  if (size === 0) notes.push('no volume size given: capacity is checked only for disks already out of room');
}

function relaxedLevels(state: State, disk: InventoryDisk): Level[] {
  const relaxed: Level[] = [];
  if (state.usedZones().has(disk.zone)) relaxed.push(AntiAffinityLevel.ZONE);
  if (state.usedNodes().has(disk.node)) relaxed.push(AntiAffinityLevel.NODE);
  if (state.replicasOn(disk) > 0) relaxed.push(AntiAffinityLevel.DISK);
  return relaxed;
}

function checkSelector(where: string, prop: string, selector: string[], tags: string[], kind: string): void {
  const known = new Set(tags);
  selector.forEach((tag, i) => {
    if (!known.has(tag)) {
      throw invalidProp(where, `${prop}[${i}]`, tag,
        `is a tag no ${kind} of the inventory has (${kind} tags: ${known.size ? [...known].sort(compare).join(', ') : 'none'}): ` +
        'no replica could ever be scheduled');
    }
  });
}

/**
 * Longhorn counts replicas of the volume on the node's *other* disks against a disk's over-provisioning
 * limit (longhorn/longhorn#12653). Says so when that would refuse a disk the correct accounting accepts.
 */
function doubleCountProblem(
  disk: InventoryDisk,
  state: State,
  size: number,
  r: ResolvedScheduling,
): string | undefined {
  const others = state.placed.filter((p) => p.disk.node === disk.node && p.disk !== disk).length;
  if (others === 0) return undefined;
  const problem = capacityProblem(disk, state.scheduled(disk) + others * size, size, r);
  if (problem === undefined) return undefined;
  return `Longhorn also counts the ${others === 1 ? 'replica' : `${others} replicas`} of this volume on ${disk.node}'s other ` +
    `disks against ${disk.node}/${disk.name} (longhorn/longhorn#12653) and may refuse it: in its view ${problem}; give the disk ` +
    `room for ${others + 1} replicas or run a Longhorn release with the fix`;
}

/** Nodes without a zone label form one zone in Longhorn: a note when all lack it, a warning when only some do. */
function describeZones(eligibleNodes: InventoryNode[], warnings: string[], notes: string[]): void {
  const unzoned = eligibleNodes.filter((n) => n.zone === '').map((n) => n.name);
  if (unzoned.length === 0) return;
  if (unzoned.length === eligibleNodes.length) {
    notes.push('no node has a zone label: Longhorn counts all nodes as one zone');
    return;
  }
  const zones = [...new Set(eligibleNodes.map((n) => n.zone).filter((z) => z !== ''))].sort(compare);
  warnings.push(`node(s) ${list(unzoned)} have no zone label: Longhorn counts them as one more zone next to ${list(zones)}, ` +
    'so zone anti-affinity treats them as a single failure domain; label them with their zone');
}

/**
 * One warning per relaxed level, saying which replicas share which domain and what losing it costs. When the
 * inventory has a single domain at that level, sharing it is inherent and only noted.
 */
function describeDegraded(
  replicas: LonghornReplicaPlacement[],
  r: ResolvedScheduling,
  eligible: InventoryDisk[],
  warnings: string[],
  notes: string[],
): void {
  const scheduled = replicas.filter((p) => p.scheduled);
  for (const level of LEVEL_ORDER) {
    if (!scheduled.some((p) => p.relaxed.includes(level))) continue;
    const key = (p: LonghornReplicaPlacement) => {
      if (level === AntiAffinityLevel.ZONE) return p.zone!;
      return level === AntiAffinityLevel.NODE ? p.node! : `${p.node}/${p.disk}`;
    };
    const groups = new Map<string, number[]>();
    for (const p of scheduled) groups.set(key(p), [...(groups.get(key(p)) ?? []), p.replica]);
    const shared = [...groups].filter(([, members]) => members.length > 1);
    const text = shared.map(([domain, members]) => `${level} ${domainName(level, domain)} holds replicas ${members.join(', ')}`).join('; ');
    const origin = resolvedLevel(r, level).origin;
    const worst = Math.max(...shared.map(([, m]) => m.length));
    const domains = new Set(eligible.map((d) => domainOf(level, d)));
    if (domains.size <= 1) {
      notes.push(`${text}: the inventory has ${plural(domains.size, level)} for this volume, so sharing it is unavoidable`);
    } else {
      warnings.push(`degraded placement: ${text} (${level} anti-affinity is soft: ${origin}); losing ` +
        `${shared.length === 1 ? `that ${level}` : `one such ${level}`} loses ${worst} of ${r.replicas} replicas`);
    }
  }
}
