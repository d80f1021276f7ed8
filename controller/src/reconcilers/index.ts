import { Reconciler } from '../reconciler';
import { lostZoneRecoverer } from './lost-zone-recovery';
import { redisReconciler } from './redis';
import { zoneAnnotator } from './zone-annotator';
import { zoneAutoshifter } from './zone-autoshift';
import { zoneAwareUpdater } from './zone-aware-update';
import { zoneDisruptionBudgets } from './zone-disruption-budget';
import { zoneShifter } from './zone-shift';

/** Every reconciler `run --reconcilers` can pick, by name. */
export const RECONCILERS: readonly Reconciler[] = [
  zoneAnnotator(),
  zoneAwareUpdater(),
  zoneDisruptionBudgets(),
  redisReconciler(),
  zoneShifter(),
  zoneAutoshifter(),
  lostZoneRecoverer(),
];
