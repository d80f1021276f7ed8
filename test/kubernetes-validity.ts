/**
 * What the Kubernetes API server (and the controllers that make pods) would refuse in synthesized
 * manifests: object names, namespaces, labels, annotations, selectors and the names a workload's pods
 * get. Written from the apimachinery validation rules, independently of the library's own checks, so a
 * test using it can catch the library. The Kubernetes tier proves the same against a real API server.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$/;

const label = (s: string) => s.length <= 63 && DNS_LABEL.test(s);
const service = (s: string) => s.length <= 63 && DNS_1035.test(s);
const subdomain = (s: string) => s.length <= 253 && DNS_SUBDOMAIN.test(s);
const labelValue = (s: unknown) => typeof s === 'string' && (s === '' || (s.length <= 63 && QUALIFIED_NAME.test(s)));
function qualifiedKey(k: string): boolean {
  const parts = k.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  return (parts.length === 1 || subdomain(parts[0])) && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** Kinds whose names must be DNS labels (or DNS-1035 labels for Services). */
const LABEL_NAMED = new Set(['Namespace']);
/** RBAC names are path segments: anything but '/', '%', '.' and '..'. */
const PATH_SEGMENT_NAMED = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** Every problem the API server (or a workload controller) would have with `objects`, as readable lines. */
export function kubernetesProblems(objects: readonly any[]): string[] {
  const problems: string[] = [];
  for (const o of objects) {
    const id = `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`;
    const bad = (what: string, value: unknown) => problems.push(`${id}: ${what} ${JSON.stringify(value)}`);
    const name: unknown = o.metadata?.name;
    if (typeof name !== 'string') {
      bad('has no name', name);
      continue;
    }
    const isBadPathSegment = /[/%]/.test(name) || name === '.' || name === '..' || name === '';
    const isInvalid = o.kind === 'Service' ? !service(name)
      : LABEL_NAMED.has(o.kind) ? !label(name)
        : PATH_SEGMENT_NAMED.has(o.kind) ? isBadPathSegment
          : !subdomain(name);
    if (isInvalid) bad('invalid name', name);
    if (o.metadata.namespace !== undefined && !label(o.metadata.namespace)) bad('invalid namespace', o.metadata.namespace);
    labelsOf(o.metadata.labels, 'label', bad);
    for (const key of Object.keys(o.metadata.annotations ?? {})) if (!qualifiedKey(key)) bad('invalid annotation key', key);
    if (o.kind === 'ConfigMap' || o.kind === 'Secret') {
      const data = { ...o.data, ...o.stringData, ...o.binaryData };
      for (const key of Object.keys(data)) if (!DATA_KEY.test(key) || key.length > 253) bad('invalid data key', key);
      const bytes = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(String(v)), 0);
      if (bytes > 1024 * 1024) bad('data larger than 1 MiB', bytes);
    }
    if (o.spec?.selector?.matchLabels) labelsOf(o.spec.selector.matchLabels, 'selector', bad);
    if (o.kind === 'Service' && o.spec?.selector) labelsOf(o.spec.selector, 'selector', bad);
    if (o.kind === 'StatefulSet') {
      // Its pods carry `controller-revision-hash: <name>-<10 characters>` and are named <name>-<ordinal>.
      if (name.length > 52) bad('StatefulSet name longer than 52 characters (its controller-revision-hash label would be too long)', name);
      if (!label(`${name}-${(o.spec.replicas ?? 1) - 1}`)) bad('pod name would be invalid', `${name}-${(o.spec.replicas ?? 1) - 1}`);
      if (o.spec.serviceName !== undefined && !service(o.spec.serviceName)) bad('invalid serviceName', o.spec.serviceName);
      for (const t of o.spec.volumeClaimTemplates ?? []) if (!label(t.metadata?.name ?? '')) bad('invalid volume claim template name', t.metadata?.name);
    }
    const template = o.spec?.template ?? o.spec?.jobTemplate?.spec?.template;
    if (template) podProblems(template, bad);
    if (o.apiVersion === 'monitoring.coreos.com/v1' && o.kind === 'Prometheus') {
      // prometheus-operator runs prometheus-<name>-shard-<n> StatefulSets
      const shards = o.spec.shards ?? 1;
      const longest = `prometheus-${name}${shards > 1 ? `-shard-${shards - 1}` : ''}`;
      if (longest.length > 52) bad('operator-made StatefulSet name longer than 52 characters', longest);
      labelsOf(o.spec.podMetadata?.labels, 'pod label', bad);
    }
    if (o.kind === 'LokiStack' && `${name}-index-gateway`.length > 52) bad('operator-made StatefulSet name longer than 52 characters', `${name}-index-gateway`);
  }
  return problems;
}

function labelsOf(
  labels: Record<string, unknown> | undefined,
  what: string,
  bad: (what: string, value: unknown) => void,
): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!qualifiedKey(key)) bad(`invalid ${what} key`, key);
    if (!labelValue(value)) bad(`invalid ${what} value`, `${key}=${value}`);
  }
}

function podProblems(template: any, bad: (what: string, value: unknown) => void): void {
  labelsOf(template.metadata?.labels, 'pod label', bad);
  for (const key of Object.keys(template.metadata?.annotations ?? {})) if (!qualifiedKey(key)) bad('invalid pod annotation key', key);
  const spec = template.spec ?? {};
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (!label(c.name ?? '')) bad('invalid container name', c.name);
    for (const p of c.ports ?? []) {
      if (p.name === undefined) continue;
      const isServiceName = IANA_SVC_NAME.test(p.name) && /[a-z]/.test(p.name);
      if (!isServiceName) bad('invalid port name', p.name);
    }
  }
  for (const v of spec.volumes ?? []) if (!label(v.name ?? '')) bad('invalid volume name', v.name);
  for (const t of spec.topologySpreadConstraints ?? []) {
    labelsOf(t.labelSelector?.matchLabels, 'spread selector', bad);
    const isValidSkew = Number.isInteger(t.maxSkew) && t.maxSkew >= 1 && t.maxSkew <= 2147483647;
    if (t.maxSkew !== undefined && !isValidSkew) bad('invalid maxSkew', t.maxSkew);
  }
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  for (const term of required?.nodeSelectorTerms ?? []) {
    for (const e of term.matchExpressions ?? []) for (const v of e.values ?? []) if (!labelValue(v)) bad('invalid node affinity value', v);
  }
  labelsOf(spec.nodeSelector, 'node selector', bad);
}
