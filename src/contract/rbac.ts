/**
 * RBAC rules as data: the controller's reconcilers declare what they call with these (`reconcilers.ts`),
 * and `ZoneController` grants exactly the rules of the parts it enables, each where it applies, so the
 * two cannot drift apart.
 */

/**
 * Where a rule is granted:
 * - `cluster`: a ClusterRole, for cluster-scoped resources and for watches over every namespace;
 * - `controller`: a Role in the controller's own namespace (its Lease, its webhook Secret);
 * - `workloads`: a Role in each namespace whose workloads the part serves (and nowhere else);
 * - `namespace`: a Role in the one namespace the rule names (`kube-node-lease`, where kubelets renew their nodes'
 *   Leases; `default`, where the Events of cluster-scoped objects go).
 */
export type RuleScope = 'cluster' | 'controller' | 'workloads' | 'namespace';

/** The namespace of the nodes' Leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Where the API server takes the Events of a cluster-scoped object (it refuses them in any other namespace). */
export const CLUSTER_SCOPED_EVENTS_NAMESPACE = 'default';

/** One RBAC rule and where it is granted. */
export interface ControllerRule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
  readonly scope: RuleScope;
  /** With the `namespace` scope: that namespace. */
  readonly namespace?: string;
  /**
   * The only objects the rule reaches. Kubernetes checks names for get, update, patch and delete, and for
   * list and watch only when the request selects one object (`fieldSelector=metadata.name=<name>`); never for
   * create or deletecollection, so a named rule holds only NAMEABLE_VERBS.
   */
  readonly resourceNames?: string[];
}

export const READ_VERBS = ['get', 'list', 'watch'];

/** The rule as a Role or ClusterRole holds it (where it is granted is the Role's). */
export function policyRuleOf(r: ControllerRule): Omit<ControllerRule, 'scope' | 'namespace'> {
  const { apiGroups, resources, verbs, resourceNames } = r;
  return { apiGroups, resources, verbs, ...(resourceNames ? { resourceNames } : {}) };
}

/**
 * The verbs Kubernetes can limit to named objects (a named list or watch is authorized only with the field
 * selector `metadata.name=<name>`: a watch of one object).
 */
export const NAMEABLE_VERBS = ['get', 'update', 'patch', 'delete', 'list', 'watch'];

/**
 * Every replica: the Lease of leader election, in the controller's namespace (it creates it, then updates it by name).
 */
export function leaderElectionRules(leaseName: string): ControllerRule[] {
  return [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'], scope: 'controller' },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], scope: 'controller', resourceNames: [leaseName] },
  ];
}

/** Events about the objects a reconciler acts on, in the namespaces given by `scope`. */
export function eventRules(scope: RuleScope): ControllerRule[] {
  return [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'], scope }];
}

/**
 * Throws when a rule names objects but holds a verb Kubernetes does not check names for (it would reach every object).
 */
export function checkNamedRule(rule: ControllerRule): void {
  const unnameable = rule.verbs.filter((v) => !NAMEABLE_VERBS.includes(v));
  if (rule.resourceNames !== undefined && (rule.resourceNames.length === 0 || unnameable.length > 0)) {
    throw new Error(`RBAC rule on ${rule.resources.join(',')}: resourceNames ${JSON.stringify(rule.resourceNames)} with verbs ` +
      `${unnameable.join(',')} would reach every object; named rules hold only ${NAMEABLE_VERBS.join(', ')}`);
  }
}

/**
 * The rules of several parts merged: each resource once per (scope, apiGroups, resourceNames) with the
 * union of its verbs, then the resources with the same verbs in one rule, in first-seen order.
 */
export function mergeRules(rules: readonly ControllerRule[]): ControllerRule[] {
  const byResource = new Map<string, { rule: ControllerRule; resource: string; verbs: Set<string> }>();
  for (const r of rules) {
    checkNamedRule(r);
    const names = r.resourceNames ? [...new Set(r.resourceNames)].sort() : undefined;
    for (const resource of r.resources) {
      const key = [r.scope, r.namespace ?? '', r.apiGroups.join(','), resource, names?.join(',') ?? '*'].join('|');
      const entry = byResource.get(key) ?? { rule: { ...r, resourceNames: names }, resource, verbs: new Set<string>() };
      r.verbs.forEach((v) => entry.verbs.add(v));
      byResource.set(key, entry);
    }
  }
  const grouped = new Map<string, ControllerRule>();
  for (const { rule, resource, verbs } of byResource.values()) {
    const where = [rule.scope, rule.namespace ?? ''];
    const key = [...where, rule.apiGroups.join(','), rule.resourceNames?.join(',') ?? '*', [...verbs].join(',')].join('|');
    const prev = grouped.get(key);
    grouped.set(key, {
      apiGroups: rule.apiGroups,
      resources: [...(prev?.resources ?? []), resource],
      verbs: [...verbs],
      scope: rule.scope,
      ...(rule.namespace ? { namespace: rule.namespace } : {}),
      ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
    });
  }
  return [...grouped.values()];
}
