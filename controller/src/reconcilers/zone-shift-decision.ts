/**
 * What the zone-shift reconciler does (pure): which nodes carry the shift's NoSchedule taint, what a ZoneShift's
 * status says (every object the shifts change), and when a deleted one is undone (its finalizer may go).
 * The taints follow the shifts in force, whatever the history: a controller restarted mid-shift decides the same.
 */
import { hasZoneGate, zoneGateCondition } from './zone-gate-decision';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import {
  outOfServiceZones,
  shiftCovers,
  shiftInForce,
  ShiftChange,
  shiftProblem,
  validShift,
  ZONE_IN_SERVICE_CONDITION,
  ZONE_SHIFT_TAINT_KEY,
  ZoneShiftObject,
  ZoneShiftStatus,
} from '../../../src/contract/zone-shift';
import { FAIL_SAFE_REASON } from '../../../src/contract/zone-shift-fail-safe';
import { shiftRequirementOf } from '../../../src/contract/zone-shift-node-pools';
import { KubeObject } from '../kube/api';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

/** What a shift's status and undoing read of the cluster. */
export interface ShiftWorld {
  readonly nodes: readonly KubeObject[];
  /** The gated pods (the zone annotator's opted-in ones). */
  readonly pods: readonly KubeObject[];
  /** Karpenter's NodePools, where the shift leaves its zone out of them (`--shift-karpenter-node-pools`). */
  readonly nodePools?: readonly KubeObject[];
  readonly zoneOfPod: (pod: KubeObject) => string | undefined;
  readonly topologyKeys: readonly string[];
}

/** The NodePools whose requirements a shift left `zone` out of. */
function poolsWithout(pools: readonly KubeObject[] | undefined, zone: string): KubeObject[] {
  return (pools ?? []).filter((p) => shiftRequirementOf(p)?.values?.includes(zone) ?? false);
}

/** The node's zone as the shifts name it: its topology keys' values joined (the zone annotation's value). */
export function nodeZone(node: KubeObject, topologyKeys: readonly string[]): string | undefined {
  return ZoneAnnotation.valueFor(node.metadata.labels ?? {}, [...topologyKeys]);
}

/**
 * The taints `node` should have, when they differ from its own: ours added in a zone shifted cluster-wide, removed
 * elsewhere.
 */
export function nodeTaints(
  node: KubeObject,
  shifts: readonly ZoneShiftObject[],
  topologyKeys: readonly string[],
  nowMs: number,
): Taint[] | undefined {
  const taints: Taint[] = node.spec?.taints ?? [];
  const zone = nodeZone(node, topologyKeys);
  const shifted = zone !== undefined && outOfServiceZones(shifts, undefined, nowMs).has(zone);
  const ours = taints.filter((t) => t.key === ZONE_SHIFT_TAINT_KEY);
  if (shifted && ours.length === 1 && ours[0].value === zone && ours[0].effect === 'NoSchedule') return undefined;
  if (!shifted && ours.length === 0) return undefined;
  const others = taints.filter((t) => t.key !== ZONE_SHIFT_TAINT_KEY);
  return shifted ? [...others, { key: ZONE_SHIFT_TAINT_KEY, value: zone, effect: 'NoSchedule' }] : others;
}

/** Whether `node` carries the shift taint of `zone`. */
function tainted(node: KubeObject, zone: string): boolean {
  const taints = node.spec?.taints as Taint[] | undefined;
  return taints?.some((t) => t.key === ZONE_SHIFT_TAINT_KEY && t.value === zone) ?? false;
}

/** The pods held out of service in `zone` for shifts covering their namespace (their gate False). */
/** The gated pods of the shift's namespaces in its zone: held out, or kept in service by the fail-safe. */
function podsInZone(
  pods: readonly KubeObject[],
  zoneOfPod: (pod: KubeObject) => string | undefined,
  zone: string,
  covers: (ns: string) => boolean,
): KubeObject[] {
  return pods.filter((p) => hasZoneGate(p) && zoneOfPod(p) === zone && covers(p.metadata.namespace ?? ''));
}

/** What the shift does to a gated pod of its zone, as its status says it; undefined: nothing (yet). */
function podChange(pod: KubeObject): string | undefined {
  const gate = zoneGateCondition(pod);
  if (gate?.status === 'False') return `condition ${ZONE_IN_SERVICE_CONDITION} False`;
  if (gate?.reason === FAIL_SAFE_REASON) return `kept in service by the fail-safe: ${gate.message ?? 'the last pods that can serve'}`;
  return undefined;
}

/**
 * What a valid shift changes now, as its status lists it: its zone's tainted nodes, the pods of its namespaces
 * held out there, and those the fail-safe keeps in service, saying why (after its end: what is not undone yet).
 */
export function shiftChanges(shift: ZoneShiftObject, world: ShiftWorld): ShiftChange[] {
  const spec = validShift(shift);
  if (!spec) return [];
  const covers = (ns: string) => shiftCovers(spec, ns);
  const nodeChanges: ShiftChange[] = world.nodes.filter((n) => tainted(n, spec.zone))
    .map((n) => ({ kind: 'Node', name: n.metadata.name, change: `taint ${ZONE_SHIFT_TAINT_KEY}=${spec.zone}:NoSchedule` }));
  const poolChanges: ShiftChange[] = poolsWithout(world.nodePools, spec.zone).map((p) => {
    const r = shiftRequirementOf(p)!;
    return { kind: 'NodePool', name: p.metadata.name, change: `requirement ${r.key} ${r.operator} [${(r.values ?? []).join(', ')}]` };
  });
  const podChanges: ShiftChange[] = podsInZone(world.pods, world.zoneOfPod, spec.zone, covers)
    .flatMap((p) => {
      const change = podChange(p);
      const { name, namespace } = p.metadata;
      return change === undefined ? [] : [{ kind: 'Pod' as const, namespace, name, change }];
    });
  return [...nodeChanges, ...poolChanges, ...podChanges].sort((a, b) => keyOfChange(a).localeCompare(keyOfChange(b)));
}

const keyOfChange = (c: ShiftChange) => `${c.kind}/${c.namespace ?? ''}/${c.name}`;

/** The status of `shift` at `nowMs`, given what it changes (`changed`) and its previous status. */
export function shiftStatus(
  shift: ZoneShiftObject & { metadata: { generation?: number } }, changed: ShiftChange[],
  previous: Partial<ZoneShiftStatus> | undefined, nowMs: number,
): ZoneShiftStatus {
  const problem = shiftProblem(shift, nowMs);
  const observedGeneration = shift.metadata.generation;
  if (problem) return { observedGeneration, phase: 'Invalid', message: `${problem}; nothing is done`, changed: [] };
  const spec = shiftInForce(shift, nowMs);
  if (spec) {
    const where = spec.namespaces?.length ? `the namespaces ${spec.namespaces.join(', ')}` : 'the whole cluster';
    return { observedGeneration, phase: 'Active', message: `zone ${spec.zone} out of service for ${where} until ${spec.expiresAt}`, changed };
  }
  const endedAt = previous?.phase === 'Ended' && previous.endedAt ? previous.endedAt : new Date(nowMs).toISOString();
  const undone = changed.length === 0;
  return {
    observedGeneration,
    phase: 'Ended',
    message: undone ? `expired at ${shift.spec!.expiresAt}; everything it changed is undone` : `expired at ${shift.spec!.expiresAt}; undoing`,
    changed,
    endedAt,
  };
}

/**
 * Whether nothing a deleted or expired `shift` did remains, given the shifts still in force: its zone's nodes
 * untainted and its pods' gates True, unless another shift in force holds them.
 */
export function shiftUndone(
  shift: ZoneShiftObject, inForce: readonly ZoneShiftObject[], world: ShiftWorld, nowMs: number,
): boolean {
  const zone = shift.spec?.zone;
  if (typeof zone !== 'string') return true;
  const { nodes, pods, zoneOfPod, topologyKeys } = world;
  const others = inForce.filter((s) => s.metadata.name !== shift.metadata.name);
  const nodesHeld = outOfServiceZones(others, undefined, nowMs).has(zone);
  if (!nodesHeld && nodes.some((n) => tainted(n, zone) && nodeZone(n, topologyKeys) === zone)) return false;
  if (!nodesHeld && poolsWithout(world.nodePools, zone).length > 0) return false;
  const heldByOthers = (p: KubeObject) => outOfServiceZones(others, p.metadata.namespace, nowMs).has(zone);
  // a pod the fail-safe kept is in service already: only a gate still False is left to undo
  const heldOut = (p: KubeObject) => zoneGateCondition(p)?.status === 'False';
  return !podsInZone(pods, zoneOfPod, zone, () => true).some((p) => heldOut(p) && !heldByOthers(p));
}

