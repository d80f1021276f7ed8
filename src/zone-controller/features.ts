/**
 * The runtime controller's features: the reconciler of each, the `ZoneController` prop that enables it, and what
 * a construct that needs it loses without it.
 */
import {
  LOST_ZONE_RECOVERY, REDIS_MANAGER, ZONE_ANNOTATOR, ZONE_AUTOSHIFT, ZONE_AWARE_UPDATE, ZONE_DISRUPTION_BUDGET,
  ZONE_SHIFT,
} from '../contract/reconcilers';

/**
 * A feature of the runtime controller: its reconciler, the `ZoneController` prop that enables it, and what is lost
 * without it.
 */
export interface ControllerFeature {
  readonly reconciler: string;
  readonly prop: 'zoneAnnotator' | 'zoneAwareUpdate' | 'zoneDisruptionBudget' | 'redisManager' | 'zoneShift' | 'autoshift'
    | 'lostZoneRecovery';
  /** Whether it runs when its prop is not set. */
  readonly byDefault: boolean;
  readonly without: string;
}

export const ZONE_ANNOTATOR_FEATURE: ControllerFeature = {
  reconciler: ZONE_ANNOTATOR, prop: 'zoneAnnotator', byDefault: true, without: 'no pod is ever annotated with its zone, so every pod waits forever in its init container',
};
export const ZONE_AWARE_UPDATE_FEATURE: ControllerFeature = {
  reconciler: ZONE_AWARE_UPDATE, prop: 'zoneAwareUpdate', byDefault: false, without: 'nothing rolls the workload, so a new revision never reaches its pods',
};
export const ZONE_DISRUPTION_BUDGET_FEATURE: ControllerFeature = {
  reconciler: ZONE_DISRUPTION_BUDGET, prop: 'zoneDisruptionBudget', byDefault: false, without: 'no eviction webhook enforces the budget, so drains ignore it',
};
export const REDIS_MANAGER_FEATURE: ControllerFeature = {
  reconciler: REDIS_MANAGER, prop: 'redisManager', byDefault: false, without: 'nothing bootstraps or heals the cluster: its pods run, but form no Redis Cluster',
};

export const ZONE_SHIFT_FEATURE: ControllerFeature = {
  reconciler: ZONE_SHIFT, prop: 'zoneShift', byDefault: false, without: 'no ZoneShift takes its zone out of service: its pods stay Ready there',
};

/** Enabled by the `autoshift` options (an object, not a switch). */
export const ZONE_AUTOSHIFT_FEATURE: ControllerFeature = {
  reconciler: ZONE_AUTOSHIFT, prop: 'autoshift', byDefault: false, without: 'no zone is shifted but by a person',
};

export const LOST_ZONE_RECOVERY_FEATURE: ControllerFeature = {
  reconciler: LOST_ZONE_RECOVERY, prop: 'lostZoneRecovery', byDefault: false, without: 'a zone declared lost keeps its pods Pending there until a person deletes their claims',
};

/** Every feature, in the order ZoneController's props list them (and `--reconcilers` names them). */
export const FEATURES: readonly ControllerFeature[] = [
  ZONE_ANNOTATOR_FEATURE,
  ZONE_AWARE_UPDATE_FEATURE,
  ZONE_DISRUPTION_BUDGET_FEATURE,
  REDIS_MANAGER_FEATURE,
  ZONE_SHIFT_FEATURE,
  ZONE_AUTOSHIFT_FEATURE,
  LOST_ZONE_RECOVERY_FEATURE,
];
