/**
 * What the live commands call, as ClusterRole rules: the least a user (or a CI job's ServiceAccount) needs to run
 * them. docs/runbooks show them as YAML (test/cli/cli-rbac.test.ts holds the pages to these), and the Kubernetes
 * tier runs the commands with exactly these.
 */
import { LIVE_LISTS } from '../check/live/live-read';
import { ROLLOUT_GROUP } from '../contract/rollout';
import { ZONE_AUTOSHIFT_PLURAL } from '../contract/zone-autoshift';
import { ZONE_SHIFT_PLURAL } from '../contract/zone-shift';
import { DRILL_WATCHED_PATHS } from '../drill/cluster-watch';

export interface CliRule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
}

/** `shift start|status|cancel`: the ZoneShifts, and the nodes' zones (`start` refuses a zone no node is in). */
export const SHIFT_RULES: readonly CliRule[] = [
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_SHIFT_PLURAL], verbs: ['create', 'get', 'list', 'delete'] },
  // `status` shows the autoshift's decisions too
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_AUTOSHIFT_PLURAL], verbs: ['list'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
  // what the fail-safe will keep in service, said before the shift starts (shift-preview.ts)
  { apiGroups: [''], resources: ['pods', 'services'], verbs: ['list'] },
];

/** `check --live`: list on every list it reads (live-read.ts `LIVE_LISTS`) and on the nodes; nothing else. */
export const CHECK_LIVE_RULES: readonly CliRule[] = listRules();

function listRules(): CliRule[] {
  const byGroup = new Map<string, string[]>([['', ['nodes']]]);
  for (const list of LIVE_LISTS) {
    const { group } = groupAndResource(`${list.apis[0]}/${list.resource}`);
    byGroup.set(group, [...byGroup.get(group) ?? [], list.resource]);
  }
  return [...byGroup].map(([group, resources]) => ({ apiGroups: [group], resources, verbs: ['list'] }));
}

/** The group and resource of a list path (`/api/v1/pods`, `/apis/apps/v1/deployments`). */
function groupAndResource(path: string): { group: string; resource: string } {
  const parts = path.split('/');
  return { group: parts[1] === 'api' ? '' : parts[2], resource: parts[parts.length - 1] };
}

/** `watch` on every list the drill watches (cluster-watch.ts). */
function watchRules(): CliRule[] {
  const byGroup = new Map<string, string[]>();
  for (const path of DRILL_WATCHED_PATHS) {
    const { group, resource } = groupAndResource(path);
    byGroup.set(group, [...byGroup.get(group) ?? [], resource]);
  }
  return [...byGroup].map(([group, resources]) => ({ apiGroups: [group], resources, verbs: ['watch'] }));
}

/**
 * `drill` (and `drill --restore`): reads what `check --live` reads and the ZoneShifts, changes the zone's nodes (a
 * taint or a cordon, with the record), and, in a drain, evicts through the Eviction API.
 */
export const DRILL_RULES: readonly CliRule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] },
  // a drill refuses while a shift has another zone out, and says which shifts hold its zone at the end
  { apiGroups: [ROLLOUT_GROUP], resources: [ZONE_SHIFT_PLURAL], verbs: ['list'] },
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  ...CHECK_LIVE_RULES,
  // every change seen as it happens (the fewest Ready is the true minimum)
  ...watchRules(),
];
