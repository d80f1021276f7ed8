import {
  AntiAffinity, LonghornInventory, LonghornNodeInventory, LonghornPlacement, LonghornPlacementPlan,
  LonghornPlacementRequest,
} from '../../src';

/** What the Longhorn placement planner tests share: an inventory, a plan, where its replicas went. */
export const { ENABLED: SOFT, DISABLED: HARD } = AntiAffinity;

export function inventory(nodes: LonghornNodeInventory[]): LonghornInventory {
  return new LonghornInventory({ nodes });
}

/** "node/disk" per replica, "-" for an unscheduled one. */
export function locations(placement: LonghornPlacementPlan): string[] {
  return placement.replicas.map((r) => (r.scheduled ? `${r.node}/${r.disk}` : '-'));
}

export function plan(inv: LonghornInventory, request: LonghornPlacementRequest): LonghornPlacementPlan {
  return LonghornPlacement.plan(inv, request);
}
