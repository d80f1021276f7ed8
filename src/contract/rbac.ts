/**
 * RBAC rules as data: the controller's reconcilers declare what they call with these (`reconcilers.ts`),
 * and `ZoneController` grants exactly the rules of the parts it enables, so the two cannot drift apart.
 */

/** One RBAC rule; `namespaced` rules go into a Role in the controller's namespace, the others into its ClusterRole. */
export interface ControllerRule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
  readonly namespaced?: boolean;
}

export const READ_VERBS = ['get', 'list', 'watch'];

/** Every replica: the Lease of leader election, in the controller's namespace. */
export const LEADER_ELECTION_RULES: readonly ControllerRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'], namespaced: true },
];

/** Events on the objects reconcilers act on (any namespace). */
export const EVENT_RULES: readonly ControllerRule[] = [
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];

/**
 * The rules of several parts merged: one rule per (scope, apiGroups, resources) with the union of their
 * verbs, in a stable order, so a Role lists each resource once.
 */
export function mergeRules(rules: readonly ControllerRule[]): ControllerRule[] {
  const merged = new Map<string, ControllerRule>();
  for (const r of rules) {
    const key = `${r.namespaced ? 'ns' : 'cluster'}|${r.apiGroups.join(',')}|${r.resources.join(',')}`;
    const prev = merged.get(key);
    const verbs = [...new Set([...(prev?.verbs ?? []), ...r.verbs])];
    merged.set(key, { apiGroups: r.apiGroups, resources: r.resources, verbs, ...(r.namespaced ? { namespaced: true } : {}) });
  }
  return [...merged.values()];
}
