/**
 * `ZoneControllerProps.zoneShiftKarpenterNodePools`: the zonal shift leaves shifted zones out of Karpenter's NodePools
 * (src/contract/zone-shift-node-pools.ts); what the controller is granted for it.
 */
import { ZoneControllerProps } from './zone-controller-props';
import { ControllerRule } from '../contract/rbac';
import { ZONE_SHIFT, ZONE_SHIFT_NODE_POOL_RULES } from '../contract/reconcilers';
import { invalidProp } from '../shared/errors';

/** The rules of `zoneShiftKarpenterNodePools`, or none; refused without the zonal shift. */
export function karpenterNodePoolRules(
  where: string, props: ZoneControllerProps, reconcilers: readonly string[],
): readonly ControllerRule[] {
  if (!props.zoneShiftKarpenterNodePools) return [];
  if (!reconcilers.includes(ZONE_SHIFT)) {
    throw invalidProp(where, 'zoneShiftKarpenterNodePools', true, 'needs zoneShift: true (the zonal shift is what changes the NodePools)');
  }
  return ZONE_SHIFT_NODE_POOL_RULES;
}
