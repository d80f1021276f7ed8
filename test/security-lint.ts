/**
 * What a security review would refuse in synthesized manifests, checked independently of the code that
 * made them: RBAC with wildcards, Secrets readable cluster-wide, admission webhook configurations writable
 * without names, privilege-escalating verbs; containers without a memory limit or with a Secret on their
 * command line; Redis passwords in a ConfigMap; StatefulSets without a headless governing Service; the
 * library's pods without a NetworkPolicy that selects them.
 */

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);
const WEBHOOK_CONFIGURATIONS = ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'];
const READ_VERBS = ['get', 'list', 'watch'];
/** Verbs that let a subject grant itself, or act as, more than it has. */
const ESCALATING_VERBS = ['bind', 'escalate', 'impersonate'];
/** The label on every object the library makes. */
const MANAGED_BY = { key: 'app.kubernetes.io/managed-by', value: 'cdk8s-zones' };

/** Every security problem in `objects`, as readable lines. */
export function securityProblems(objects: readonly any[]): string[] {
  return [
    ...rbacProblems(objects), ...containerProblems(objects), ...configMapProblems(objects),
    ...serviceProblems(objects), ...isolationProblems(objects),
  ];
}

function idOf(o: any): string {
  return `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`;
}

function rbacProblems(objects: readonly any[]): string[] {
  const problems: string[] = [];
  for (const o of objects.filter((x) => x.kind === 'Role' || x.kind === 'ClusterRole')) {
    for (const rule of o.rules ?? []) {
      const text = `${idOf(o)}: rule ${JSON.stringify(rule)}`;
      if ([...rule.apiGroups ?? [], ...rule.resources ?? [], ...rule.verbs ?? []].includes('*')) problems.push(`${text} has a wildcard`);
      if (o.kind === 'ClusterRole' && (rule.resources ?? []).includes('secrets')) problems.push(`${text} reaches Secrets in every namespace`);
      const writes = (rule.verbs ?? []).filter((v: string) => !READ_VERBS.includes(v));
      const writesWebhooks = (rule.resources ?? []).some((r: string) => WEBHOOK_CONFIGURATIONS.includes(r))
        && writes.length > 0;
      if (writesWebhooks && !(rule.resourceNames?.length > 0)) {
        problems.push(`${text} writes admission webhook configurations without resourceNames`);
      }
      const escalating = (rule.verbs ?? []).filter((v: string) => ESCALATING_VERBS.includes(v));
      if (escalating.length > 0) problems.push(`${text} can escalate (${escalating.join(', ')})`);
    }
  }
  return problems;
}

function podSpecOf(o: any): any | undefined {
  if (o.kind === 'Pod') return o.spec;
  if (WORKLOAD_KINDS.has(o.kind)) return o.spec?.template?.spec;
  if (o.kind === 'CronJob') return o.spec?.jobTemplate?.spec?.template?.spec;
  return undefined;
}

function containerProblems(objects: readonly any[]): string[] {
  const problems: string[] = [];
  for (const o of objects) {
    const spec = podSpecOf(o);
    if (!spec) continue;
    for (const c of [...spec.initContainers ?? [], ...spec.containers ?? []]) {
      const id = `${idOf(o)} container ${c.name}`;
      if (c.resources?.limits?.memory === undefined) problems.push(`${id} has no memory limit`);
      const secretVars = (c.env ?? []).filter((e: any) => e.valueFrom?.secretKeyRef).map((e: any) => e.name);
      const argv = [...c.command ?? [], ...c.args ?? []].join(' ');
      for (const name of secretVars) {
        if (argv.includes(`$(${name})`)) problems.push(`${id} puts the Secret in $(${name}) on its command line`);
      }
    }
  }
  return problems;
}

function configMapProblems(objects: readonly any[]): string[] {
  return objects.filter((o) => o.kind === 'ConfigMap').flatMap((o) => Object.entries(o.data ?? {})
    .filter(([, text]) => /^\s*(requirepass|masterauth)\s+\S/m.test(String(text)))
    .map(([key]) => `${idOf(o)}: ${key} holds a Redis password`));
}

/** A StatefulSet's pods get their DNS names from its governing Service, which must be headless. */
function serviceProblems(objects: readonly any[]): string[] {
  const problems: string[] = [];
  for (const sts of objects.filter((o) => o.kind === 'StatefulSet')) {
    const service = objects.find((o) => o.kind === 'Service'
      && o.metadata.name === sts.spec.serviceName
      && o.metadata.namespace === sts.metadata.namespace);
    if (!service) problems.push(`${idOf(sts)}: its governing Service ${sts.spec.serviceName} is not in the manifests`);
    else if (service.spec.clusterIP !== 'None') problems.push(`${idOf(sts)}: its governing Service ${sts.spec.serviceName} is not headless`);
  }
  return problems;
}

function selects(matchLabels: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(matchLabels).every(([k, v]) => labels[k] === v);
}

/** Every pod the library makes is isolated by a NetworkPolicy of its namespace that selects it. */
function isolationProblems(objects: readonly any[]): string[] {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const managed = objects.filter((o) => podSpecOf(o) && o.metadata?.labels?.[MANAGED_BY.key] === MANAGED_BY.value);
  return managed.filter((o) => {
    const labels = (o.kind === 'Pod' ? o.metadata.labels : o.spec.template.metadata.labels) ?? {};
    return !policies.some((p) => p.metadata.namespace === o.metadata.namespace
      && (p.spec.policyTypes ?? ['Ingress']).includes('Ingress') && selects(p.spec.podSelector?.matchLabels ?? {}, labels));
  }).map((o) => `${idOf(o)}: no NetworkPolicy selects its pods`);
}
