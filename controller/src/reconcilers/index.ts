import { Reconciler } from '../reconciler';
import { zoneAnnotator } from './zone-annotator';

/** Every reconciler `run --reconcilers` can pick, by name. */
export const RECONCILERS: readonly Reconciler[] = [zoneAnnotator()];
