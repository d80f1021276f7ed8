/**
 * The parts of the runtime controller a `ZoneController` installs: each enabled reconciler and the rules it needs,
 * checked for the reconcilers it cannot work without.
 */
import { ControllerRule } from '../contract/rbac';
import {
  LOST_ZONE_RECOVERY, LOST_ZONE_RECOVERY_RULES, REDIS_MANAGER, REDIS_MANAGER_RULES, REDIS_UNNAMED_CLUSTER_RULES,
  ZONE_ANNOTATOR, ZONE_ANNOTATOR_RULES, ZONE_AUTOSHIFT, ZONE_AUTOSHIFT_RULES,
  ZONE_AWARE_UPDATE, ZONE_AWARE_UPDATE_RULES, ZONE_DISRUPTION_BUDGET, ZONE_DISRUPTION_BUDGET_RULES,
  ZONE_SHIFT, ZONE_SHIFT_RULES,
} from '../contract/reconcilers';
import { invalidProp } from '../shared/errors';

/** A part of the controller: a reconciler and the rules it needs. */
export interface Part {
  readonly name: string;
  readonly rules: readonly ControllerRule[];
  /** The rules it needs in a namespace whose workloads this app does not know (`workloadNamespaces`). */
  readonly unnamedRules?: readonly ControllerRule[];
}

/** What each reconciler needs: its rules (and, for the Redis manager, those in namespaces of unknown clusters). */
const PARTS: { readonly [reconciler: string]: Part } = {
  [ZONE_ANNOTATOR]: { name: ZONE_ANNOTATOR, rules: ZONE_ANNOTATOR_RULES },
  [ZONE_AWARE_UPDATE]: { name: ZONE_AWARE_UPDATE, rules: ZONE_AWARE_UPDATE_RULES },
  [ZONE_DISRUPTION_BUDGET]: { name: ZONE_DISRUPTION_BUDGET, rules: ZONE_DISRUPTION_BUDGET_RULES },
  [REDIS_MANAGER]: { name: REDIS_MANAGER, rules: REDIS_MANAGER_RULES, unnamedRules: REDIS_UNNAMED_CLUSTER_RULES },
  [ZONE_SHIFT]: { name: ZONE_SHIFT, rules: ZONE_SHIFT_RULES },
  [ZONE_AUTOSHIFT]: { name: ZONE_AUTOSHIFT, rules: ZONE_AUTOSHIFT_RULES },
  [LOST_ZONE_RECOVERY]: { name: LOST_ZONE_RECOVERY, rules: LOST_ZONE_RECOVERY_RULES },
};

/** The parts of `reconcilers`; throws when the lost-zone recovery lacks the zonal shift (it acts on ZoneShifts). */
export function partsOf(where: string, reconcilers: readonly string[]): Part[] {
  if (reconcilers.includes(LOST_ZONE_RECOVERY) && !reconcilers.includes(ZONE_SHIFT)) {
    throw invalidProp(where, 'lostZoneRecovery', true,
      'needs zoneShift: true (a zone is declared lost by a ZoneShift, whose CRD and undoing the zonal shift brings)');
  }
  return reconcilers.map((r) => PARTS[r]);
}
