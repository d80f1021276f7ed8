/**
 * The pod spec an operator gives a pod set (pure), built as its model (model.ts's `PodModel`) says: the base template,
 * the resource's fields over it, the node requirements, anti-affinity and spreads the operator adds, then an override
 * merged as a strategic merge patch does. Values of the wrong type are left out, as the API server would refuse them.
 */
import { DefaultTerm, NodeRequirement, PodModel } from './model';
import { fill, holds, read, Scope } from './resource-values';
import {
  Affinity, asObject, Container, LabelSelector, NodeSelectorTerm, PodSpec, Requirement, StringMap,
  TopologySpreadConstraint,
} from '../../kubernetes/objects';

/** The pod spec of a pod set whose pods carry `labels`. */
export function podSpecOf(model: PodModel, scope: Scope, labels: StringMap): PodSpec {
  const base = (model.template ?? []).map((p) => asObject(read(scope, p))).find((t) => t !== undefined) ?? {};
  let pod: PodSpec = { ...base as PodSpec, ...fieldsOf(model, scope) };
  // the operator's own anti-affinity stands in for an affinity the user did not write
  const userAffinity = pod.affinity !== undefined;
  for (const path of model.affinityAdded ?? []) {
    const added = asObject(read(scope, path));
    if (added) pod = { ...pod, affinity: affinityWith(pod.affinity, added as Affinity) };
  }
  pod = withNodeRules(pod, model, scope);
  const anti = model.antiAffinity;
  if (anti && holdsOrAlways(scope, anti) && (anti.always || !userAffinity)) {
    const term = { ...anti, topologyKey: fill(scope, anti.topologyKey) };
    pod = { ...pod, affinity: withAntiAffinity(pod.affinity, term, labels) };
  }
  for (const term of (model.spread ?? []).filter((t) => holdsOrAlways(scope, t))) {
    const spreads = listOf(pod.topologySpreadConstraints);
    const spread = spreadOf({ ...term, topologyKey: fill(scope, term.topologyKey) }, labels);
    if (!spreads.some((c) => c?.topologyKey === spread.topologyKey)) {
      pod = { ...pod, topologySpreadConstraints: [...spreads, spread] };
    }
  }
  const override = model.override === undefined ? undefined : asObject(read(scope, model.override));
  pod = override === undefined ? pod : strategicMerge(pod, override as PodSpec);
  return model.spreadSelectorKeys === undefined ? pod : withSpreadSelectors(pod, model.spreadSelectorKeys, labels);
}

/** Spreads without a labelSelector given one on `keys` of the pod set's labels. */
function withSpreadSelectors(pod: PodSpec, keys: readonly string[], labels: StringMap): PodSpec {
  const selector = selectorOf({ selectorKeys: keys }, labels);
  const spreads = listOf(pod.topologySpreadConstraints)
    .map((c) => (asObject(c) && c.labelSelector === undefined ? { ...c, labelSelector: selector } : c));
  return { ...pod, topologySpreadConstraints: spreads };
}

function holdsOrAlways(scope: Scope, term: { readonly when?: Parameters<typeof holds>[1] }): boolean {
  return term.when === undefined || holds(scope, term.when);
}

/** The resource's own fields for the pod spec (those set). */
function fieldsOf(model: PodModel, scope: Scope): Partial<PodSpec> {
  const f = model.fields ?? {};
  const value = (path: string | undefined) => (path === undefined ? undefined : read(scope, path));
  const out: { -readonly [K in keyof PodSpec]?: PodSpec[K] } = {};
  const affinity = asObject(value(f.affinity));
  if (affinity) out.affinity = affinity as Affinity;
  const tolerations = value(f.tolerations);
  if (Array.isArray(tolerations)) out.tolerations = tolerations;
  const nodeSelector = asObject(value(f.nodeSelector));
  if (nodeSelector) out.nodeSelector = nodeSelector;
  const spreads = value(f.topologySpreadConstraints);
  if (Array.isArray(spreads)) out.topologySpreadConstraints = spreads;
  const nodeAffinity = asObject(value(f.nodeAffinity));
  if (nodeAffinity) out.affinity = { ...out.affinity, nodeAffinity };
  const resources = asObject(value(f.resources));
  if (resources) out.containers = [{ name: 'main', resources: resources as Container['resources'] }];
  return out;
}

/**
 * The operator's node rules: `nodeLabels` as a required term of their own (the template's terms stay, OR-ed, as
 * cass-operator does), `nodeRequirements` added to every required term (or a new one).
 */
function withNodeRules(pod: PodSpec, model: PodModel, scope: Scope): PodSpec {
  const own = nodeLabelRequirements(model, scope);
  const added = (model.nodeRequirements ?? []).flatMap((r) => nodeRequirement(r, scope));
  if (own.length === 0 && added.length === 0) return pod;
  const required = requiredTerms(pod.affinity);
  const terms: NodeSelectorTerm[] = [...(own.length > 0 ? [{ matchExpressions: own }] : []), ...listOf(required)];
  const withAdded = (terms.length > 0 ? terms : [{}]).map((t) => ({
    ...t, matchExpressions: [...listOf(t?.matchExpressions), ...added],
  }));
  const nodeAffinity = {
    ...pod.affinity?.nodeAffinity,
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: withAdded },
  };
  return { ...pod, affinity: { ...pod.affinity, nodeAffinity } };
}

/** The node labels the model requires, as In requirements (maps merged in order; text values only). */
function nodeLabelRequirements(model: PodModel, scope: Scope): Requirement[] {
  const maps = (model.nodeLabels ?? []).map((p) => (typeof p === 'string' ? asObject(read(scope, p)) ?? {}
    : { [p.key]: read(scope, p.value) }));
  const labels = Object.assign({}, ...maps) as Record<string, unknown>;
  return Object.entries(labels).filter(([, v]) => typeof v === 'string')
    .map(([key, v]) => ({ key, operator: 'In', values: [v] }));
}

/** One of the model's node requirements, where it applies (an In without values does not). */
function nodeRequirement(r: NodeRequirement, scope: Scope): Requirement[] {
  if (r.when !== undefined && !holds(scope, r.when)) return [];
  const values = r.values === undefined ? undefined : read(scope, r.values);
  if (r.operator === 'Exists') return [{ key: fill(scope, r.key), operator: 'Exists' }];
  return Array.isArray(values) && values.length > 0 ? [{ key: fill(scope, r.key), operator: 'In', values }] : [];
}

function requiredTerms(a: Affinity | undefined): readonly NodeSelectorTerm[] | undefined {
  return a?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
}

const listOf = <T>(v: readonly T[] | undefined): readonly T[] => (Array.isArray(v) ? v : []);

/** `added`'s terms after `affinity`'s: required node terms OR-ed, every other list appended. */
function affinityWith(affinity: Affinity | undefined, added: Affinity): Affinity {
  const terms = [...listOf(requiredTerms(affinity)), ...listOf(requiredTerms(added))];
  const pods = (k: 'podAffinity' | 'podAntiAffinity') => ({
    requiredDuringSchedulingIgnoredDuringExecution: [
      ...listOf(affinity?.[k]?.requiredDuringSchedulingIgnoredDuringExecution),
      ...listOf(added[k]?.requiredDuringSchedulingIgnoredDuringExecution),
    ],
    preferredDuringSchedulingIgnoredDuringExecution: [
      ...listOf(affinity?.[k]?.preferredDuringSchedulingIgnoredDuringExecution),
      ...listOf(added[k]?.preferredDuringSchedulingIgnoredDuringExecution),
    ],
  });
  return {
    nodeAffinity: {
      ...(terms.length > 0 ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } : {}),
      preferredDuringSchedulingIgnoredDuringExecution: [
        ...listOf(affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
        ...listOf(added.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
      ],
    },
    podAffinity: pods('podAffinity'),
    podAntiAffinity: pods('podAntiAffinity'),
  };
}

/** The selector of an operator's term: the pod set's labels, or those of `selectorKeys`. */
function selectorOf(term: Pick<DefaultTerm, 'selectorKeys' | 'anyValue'>, labels: StringMap): LabelSelector {
  const keys = (term.selectorKeys ?? Object.keys(labels)).filter((k) => labels[k] !== undefined);
  return term.anyValue ? { matchExpressions: keys.map((key) => ({ key, operator: 'Exists' })) }
    : { matchLabels: Object.fromEntries(keys.map((k) => [k, labels[k]])) };
}

function withAntiAffinity(affinity: Affinity | undefined, term: DefaultTerm, labels: StringMap): Affinity {
  const podTerm = { labelSelector: selectorOf(term, labels), topologyKey: term.topologyKey };
  const podAntiAffinity = term.hard ? { requiredDuringSchedulingIgnoredDuringExecution: [podTerm] }
    : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: podTerm }] };
  return affinityWith(affinity, { podAntiAffinity });
}

function spreadOf(term: DefaultTerm, labels: StringMap): TopologySpreadConstraint {
  return {
    maxSkew: 1,
    topologyKey: term.topologyKey,
    whenUnsatisfiable: term.hard ? 'DoNotSchedule' : 'ScheduleAnyway',
    labelSelector: selectorOf(term, labels),
  };
}

/**
 * `patch` over `pod` as Kubernetes' strategic merge patch does for the fields placement reads: nodeSelector merged,
 * each part of affinity replaced, spreads merged by topologyKey, anything else replaced.
 */
export function strategicMerge(pod: PodSpec, patch: PodSpec): PodSpec {
  const merged: PodSpec = { ...pod, ...patch };
  const nodeSelector = asObject(patch.nodeSelector) ? { ...pod.nodeSelector, ...patch.nodeSelector } : pod.nodeSelector;
  const affinity = asObject(patch.affinity) ? { ...pod.affinity, ...patch.affinity } : pod.affinity;
  const ours = Array.isArray(pod.topologySpreadConstraints) ? pod.topologySpreadConstraints : [];
  const theirs = Array.isArray(patch.topologySpreadConstraints) ? patch.topologySpreadConstraints : undefined;
  const spreads = theirs === undefined ? ours : [
    ...ours.map((c) => ({ ...c, ...theirs.find((t) => t?.topologyKey === c?.topologyKey) })),
    ...theirs.filter((t) => !ours.some((c) => c?.topologyKey === t?.topologyKey)),
  ];
  return { ...merged, nodeSelector, affinity, topologySpreadConstraints: spreads };
}
