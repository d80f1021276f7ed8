import { Reconciler } from '../reconciler';
import { redisReconciler } from './redis';
import { zoneAnnotator } from './zone-annotator';

/** Every reconciler `run --reconcilers` can pick, by name. */
export const RECONCILERS: readonly Reconciler[] = [zoneAnnotator(), redisReconciler()];
