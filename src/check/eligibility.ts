/**
 * Which nodes a workload's pods may run on and how many fit on each (pure), from the pod spec's hard
 * constraints only: nodeSelector, required node affinity, taints and tolerations, resource requests against
 * allocatable, required pod anti-affinity to its own pods. Soft constraints (preferences, ScheduleAnyway) never
 * keep a pod off a node, so they are ignored: the check reports what is guaranteed.
 */
import { CheckNode } from './inventory';
import { selectorMatches } from '../kubernetes/label-selector';
import { arrayOf, Container, isList, LabelSelector, PodSpec, Requirement } from '../kubernetes/objects';
import { quantityValue } from '../kubernetes/quantity';

/** True when the node selector requirement holds on `labels` (In, NotIn, Exists, DoesNotExist, Gt, Lt). */
export function requirementHolds(r: Requirement | undefined, labels: { readonly [key: string]: string }): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r?.key as PropertyKey);
  const values = arrayOf(r?.values);
  const label = has ? labels[r?.key as string] : '';
  switch (r?.operator) {
    case 'In': return has && values.includes(label);
    case 'NotIn': return !has || !values.includes(label);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt': return has && /^-?\d+$/.test(label) && Number(label) > Number(values[0]);
    case 'Lt': return has && /^-?\d+$/.test(label) && Number(label) < Number(values[0]);
    default: return false; // an operator Kubernetes does not know matches nothing (it would reject the object)
  }
}

/**
 * True when a label selector (matchLabels, matchExpressions) selects `labels`, by the one matching rule
 * (topology/selector.ts); a malformed one, which Kubernetes would reject, selects nothing.
 */
export function selects(selector: unknown, labels: { readonly [key: string]: string }): boolean {
  if (typeof selector !== 'object' || selector === null) return false;
  const s = selector as LabelSelector;
  const exprs = arrayOf(s.matchExpressions);
  const malformed = (e: Requirement | undefined) =>
    !LABEL_SELECTOR_OPERATORS.includes(e?.operator as string) || typeof e?.key !== 'string';
  if (exprs.some(malformed)) return false;
  return selectorMatches({
    matchLabels: s.matchLabels ?? undefined,
    matchExpressions: exprs.map((e) => ({
      key: e.key as string, operator: e.operator as string, values: arrayOf(e.values) as string[],
    })),
  }, labels);
}

const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** True when the pod's nodeSelector and required node affinity admit the node. */
export function affinityAdmits(pod: PodSpec, node: CheckNode): boolean {
  const selector = pod.nodeSelector ?? {};
  if (!Object.entries(selector).every(([k, v]) => node.labels[k] === v)) return false;
  const terms = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!isList(terms)) return true;
  const labels = { ...node.labels, '\u0000name': node.name };
  // Kubernetes ORs the terms; a term ANDs its expressions; an empty term matches nothing
  return terms.some((t) => {
    const fields = arrayOf(t?.matchFields)
      .map((f) => ({ ...f, key: f.key === 'metadata.name' ? '\u0000name' : f.key }));
    const exprs = [...arrayOf(t?.matchExpressions), ...fields];
    return exprs.length > 0 && exprs.every((e) => requirementHolds(e, labels));
  });
}

/** True when the pod tolerates every NoSchedule and NoExecute taint of the node. */
export function toleratesTaints(pod: PodSpec, node: CheckNode): boolean {
  const tolerations = arrayOf(pod.tolerations);
  return node.taints.filter((t) => t.effect !== 'PreferNoSchedule').every((t) => tolerations.some((tol) => {
    if (tol?.effect && tol.effect !== t.effect) return false;
    if (tol?.operator === 'Exists') return !tol.key || tol.key === t.key;
    return tol?.key === t.key && (tol.value ?? '') === (t.value ?? '');
  }));
}

/** The pod's requests (CPU cores, memory bytes): the containers' sum, or the largest init container's if larger. */
export function podRequests(pod: PodSpec): { cpu: number; memory: number } {
  const of = (c: Container | undefined, r: 'cpu' | 'memory') =>
    quantityValue(String(c?.resources?.requests?.[r] ?? '0')) ?? 0;
  const containers = arrayOf(pod.containers);
  const inits = arrayOf(pod.initContainers);
  const total = (r: 'cpu' | 'memory') => Math.max(containers.reduce((s, c) => s + of(c, r), 0), ...inits.map((c) => of(c, r)));
  return { cpu: total('cpu'), memory: total('memory') };
}

/** How many of the pods fit on `node` by its allocatable resources (Infinity: no limit). */
export function roomOn(node: CheckNode, requests: { cpu: number; memory: number }): number {
  const fit = (have: number, need: number) => (need <= 0 ? Infinity : Math.floor(have / need + 1e-9));
  return Math.min(fit(node.cpu, requests.cpu), fit(node.memory, requests.memory), node.pods);
}

/** The pod's required pod (anti-)affinity terms that select its own pods, by topology key. */
export function selfTerms(
  pod: PodSpec, podLabels: { readonly [key: string]: string }, kind: 'podAffinity' | 'podAntiAffinity',
): string[] {
  const terms = pod.affinity?.[kind]?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!isList(terms)) return [];
  return terms.filter((t) => selects(t?.labelSelector, podLabels)).map((t) => String(t.topologyKey));
}

/**
 * Why the node takes none of the pods, in the manifest's own terms (undefined: it takes some): the first of its
 * nodeSelector entries, required node affinity, untolerated taints and requests against allocatable that fails.
 */
export function exclusionOf(
  pod: PodSpec, node: CheckNode, requests: { cpu: number; memory: number },
): string | undefined {
  const selector = pod.nodeSelector ?? {};
  const unmatched = Object.entries(selector).find(([k, v]) => node.labels[k] !== v);
  if (unmatched) return `nodeSelector ${unmatched[0]}=${String(unmatched[1])}`;
  if (!affinityAdmits({ affinity: pod.affinity }, node)) return 'required node affinity';
  const taint = node.taints.find((t) => t.effect !== 'PreferNoSchedule' && !toleratesTaints(pod, { ...node, taints: [t] }));
  if (taint) return `taint ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}, not tolerated`;
  if (roomOn(node, requests) === 0) {
    const over = [
      requests.cpu > node.cpu ? `cpu ${requests.cpu} > ${node.cpu}` : '',
      requests.memory > node.memory ? `memory ${requests.memory} > ${node.memory} bytes` : '',
    ].filter(Boolean);
    return over.length > 0 ? `requests over allocatable (${over.join(', ')})` : `no room for one more pod (allocatable pods ${node.pods})`;
  }
  return undefined;
}

/**
 * True when the pod takes a port of its node: a container port with `hostPort` (with hostNetwork, every container port
 * is one).
 */
export function usesHostPorts(pod: PodSpec): boolean {
  const containers = [...arrayOf(pod.containers), ...arrayOf(pod.initContainers)];
  const takesPort = (p: { readonly hostPort?: number; readonly containerPort?: number } | undefined) =>
    (Number.isInteger(p?.hostPort) && (p?.hostPort ?? 0) > 0)
    || (pod.hostNetwork === true && Number.isInteger(p?.containerPort));
  return containers.some((c) => arrayOf(c?.ports).some(takesPort));
}
