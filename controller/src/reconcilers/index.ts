import { Reconciler } from '../reconciler';
import { zoneAnnotator } from './zone-annotator';
import { zoneAwareUpdater } from './zone-aware-update';
import { zoneDisruptionBudgets } from './zone-disruption-budget';

/** Every reconciler `run --reconcilers` can pick, by name. */
export const RECONCILERS: readonly Reconciler[] = [zoneAnnotator(), zoneAwareUpdater(), zoneDisruptionBudgets()];
