/**
 * A zonal shift and Karpenter (optional, `ZoneControllerProps.zoneShiftKarpenterNodePools`): while a zone is shifted
 * cluster-wide, each NodePool gets one more requirement, `<zone key> NotIn [the shifted zones]`, so Karpenter
 * launches no node there; the requirement it added is recorded on the NodePool (an annotation), and once no shift
 * is in force exactly that requirement is removed. The decision is from state, not history: a controller
 * restarted mid-shift decides the same. Pure (Node.js built-ins only): the controller image imports it.
 */
import { PROJECT_DOMAIN } from './labels';

/** Karpenter's NodePool API (karpenter.sh/v1, cluster-scoped). */
export const KARPENTER_GROUP = 'karpenter.sh';
export const NODE_POOL_PLURAL = 'nodepools';
/** The requirement a shift added to a NodePool, as JSON: what its end removes, and only that. */
export const NODE_POOL_SHIFT_ANNOTATION = `${PROJECT_DOMAIN}/zone-shift-requirement`;

/** A requirement of a NodePool's node template (Karpenter's NodeSelectorRequirementWithMinValues). */
export interface NodePoolRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
  readonly minValues?: number;
}

/** What the rule reads of a NodePool. */
export interface NodePoolFields {
  readonly metadata: { readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly template?: { readonly spec?: { readonly requirements?: readonly NodePoolRequirement[] } };
  };
}

/** The merge patch that brings a NodePool to what the shifts ask, with its resourceVersion for a conditional write. */
export interface NodePoolPatch {
  readonly metadata: { readonly annotations: Record<string, string | null> };
  readonly spec: { readonly template: { readonly spec: { readonly requirements: NodePoolRequirement[] } } };
}

/** The requirement a shift added to `pool`, if one did (its annotation, when it is a requirement). */
export function shiftRequirementOf(pool: NodePoolFields): NodePoolRequirement | undefined {
  const recorded = pool.metadata.annotations?.[NODE_POOL_SHIFT_ANNOTATION];
  if (recorded === undefined) return undefined;
  try {
    const r = JSON.parse(recorded);
    return typeof r?.key === 'string' && typeof r?.operator === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

const sameRequirement = (a: NodePoolRequirement, b: NodePoolRequirement) =>
  a.key === b.key && a.operator === b.operator && JSON.stringify(a.values ?? []) === JSON.stringify(b.values ?? []);

/**
 * The patch that makes `pool` keep its nodes out of `shiftedZones` (those shifted cluster-wide, by `zoneKey`), or
 * gives it back exactly what it had once there are none; undefined when it is as it should be. The user's own
 * requirements are kept as they are, in their order; the shift's is last.
 */
export function nodePoolShiftPatch(
  pool: NodePoolFields, shiftedZones: readonly string[], zoneKey: string,
): NodePoolPatch | undefined {
  const requirements = pool.spec?.template?.spec?.requirements ?? [];
  const recorded = shiftRequirementOf(pool);
  const wanted: NodePoolRequirement | undefined = shiftedZones.length === 0 ? undefined
    : { key: zoneKey, operator: 'NotIn', values: [...shiftedZones].sort() };
  const hasRecorded = recorded !== undefined && requirements.some((r) => sameRequirement(r, recorded));
  const asWanted = wanted === undefined ? recorded === undefined
    : recorded !== undefined && hasRecorded && sameRequirement(recorded, wanted);
  if (asWanted) return undefined;
  // the recorded one leaves (the last such: ours went last, and a user's identical one stays), the wanted one comes
  const at = recorded === undefined ? -1 : requirements.map((r) => sameRequirement(r, recorded)).lastIndexOf(true);
  const theirs = requirements.filter((_, i) => i !== at);
  return {
    metadata: { annotations: { [NODE_POOL_SHIFT_ANNOTATION]: wanted === undefined ? null : JSON.stringify(wanted) } },
    spec: { template: { spec: { requirements: wanted === undefined ? theirs : [...theirs, wanted] } } },
  };
}
