/**
 * What the live commands call, as ClusterRole rules: the least a user (or a CI job's ServiceAccount) needs to run
 * them. docs/runbooks show them as YAML (test/cli/cli-rbac.test.ts holds the pages to these), and the Kubernetes
 * tier runs the commands with exactly these.
 */
import { ROLLOUT_GROUP, ZONE_DISRUPTION_BUDGET_PLURAL } from '../contract/rollout';
import { ZONE_SHIFT_PLURAL } from '../contract/zone-shift';

export interface CliRule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
}

/** `shift start|status|cancel`: the ZoneShifts, and the nodes' zones (`start` refuses a zone no node is in). */
export const SHIFT_RULES: readonly CliRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_SHIFT_PLURAL], verbs: ['create', 'get', 'list', 'delete'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
];

/**
 * `drill` (and `drill --restore`): reads every object the check reads (drill-plan.ts `CHECKED_LISTS`) and the pods,
 * changes the zone's nodes (a taint or a cordon, with the record), and, in a drain, evicts through the Eviction API.
 */
export const DRILL_RULES: readonly CliRule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] },
  { apiGroups: [''], resources: ['pods', 'services', 'persistentvolumeclaims'], verbs: ['list'] },
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'replicasets', 'daemonsets'], verbs: ['list'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list'] },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['list'] },
  { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['list'] },
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_DISRUPTION_BUDGET_PLURAL], verbs: ['list'] },
];
