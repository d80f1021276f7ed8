/**
 * The names of the rollout custom resources (ZoneAwareUpdate, ZoneDisruptionBudget), shared by the CRDs,
 * the constructs and the runtime controller. Pure (no cdk8s), so the controller image does not need the
 * construct libraries.
 */
import { PROJECT_DOMAIN } from './labels';

/** The API group of the library's custom resources. */
export const ROLLOUT_GROUP = PROJECT_DOMAIN;
/** The served and stored version. */
export const ROLLOUT_VERSION = 'v1alpha1';
export const ROLLOUT_API_VERSION = `${ROLLOUT_GROUP}/${ROLLOUT_VERSION}`;

export const ZONE_AWARE_UPDATE_KIND = 'ZoneAwareUpdate';
export const ZONE_AWARE_UPDATE_PLURAL = 'zoneawareupdates';
/** The most StatefulSets one ZoneAwareUpdate group may hold (a group is one component's StatefulSets, one per zone). */
export const MAX_GROUP_SIZE = 64;
export const ZONE_DISRUPTION_BUDGET_KIND = 'ZoneDisruptionBudget';
export const ZONE_DISRUPTION_BUDGET_PLURAL = 'zonedisruptionbudgets';

/** The HTTPS path of the controller's validating webhook for `pods/eviction` (ZoneDisruptionBudget). */
export const EVICTION_WEBHOOK_PATH = '/validate/pods-eviction';
