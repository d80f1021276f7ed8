/**
 * One operator's resource read through its model (model.ts), pure: the pod sets its operator makes (as the check's
 * workloads, each `partOf` the resource), the budgets it creates, and the system the check judges them as.
 */
import { BudgetModel, Count, ForEach, NeedModel, OperatorModel, PodSetModel } from './model';
import { podSpecOf } from './pod-spec';
import { count, CountValue, fill, holds, read, Scope, shownValue } from './resource-values';
import { asObject, asResource, elementsOf, JsonObject, KindedResource, StringMap } from '../../kubernetes/objects';
import { CheckBudget, CheckSystem, CheckWorkload, SystemNeed } from '../check-input';

/** What an operator's resource stands for. */
export interface OperatorSystem {
  readonly workloads: CheckWorkload[];
  readonly budgets: CheckBudget[];
  readonly system: CheckSystem;
}

/** A pod set as made, with the roles it plays. */
interface MadePodSet {
  readonly workload: CheckWorkload;
  readonly roles: readonly string[];
}

/** The system `o` stands for, or why it cannot be read. */
export function operatorSystem(
  model: OperatorModel, o: KindedResource, name: string, namespace: string | undefined, others: readonly unknown[],
): OperatorSystem | string {
  const version = typeof o.apiVersion === 'string' ? o.apiVersion.split('/')[1] : undefined;
  if (version === undefined || !model.versions.includes(version)) {
    return `is ${model.group}/${version ?? '(no version)'}, a version the ${model.operator} model does not know `
      + `(it knows ${model.versions.join(', ')}): not guessed`;
  }
  const resource = o as unknown as JsonObject;
  const refused = (model.refuses ?? []).find((r) => holds({ resource }, r.when));
  if (refused !== undefined) return `${refused.why}: the ${model.operator} model does not cover it`;
  const made: MadePodSet[] = [];
  for (const podSet of model.podSets) {
    const sets = podSetsOf(podSet, resource, name, namespace, others);
    if (typeof sets === 'string') return sets;
    made.push(...sets);
  }
  const podsOf = (roles: readonly string[] | undefined) => made
    .filter((m) => roles === undefined || m.roles.some((r) => roles.includes(r)))
    .reduce((sum, m) => sum + (m.workload.replicas ?? 0), 0);
  const scope: Scope = { resource, podsOf };
  const needs: SystemNeed[] = [];
  for (const n of model.needs.filter((x) => x.when === undefined || holds(scope, x.when))) {
    const need = needOf(n, scope, made, model.operator);
    if (typeof need === 'string') return need;
    needs.push(need);
  }
  const budgets = (model.budgets ?? []).flatMap((b) => budgetsOf(b, scope, made, namespace));
  const bad = budgets.find((b): b is string => typeof b === 'string');
  if (bad !== undefined) return bad;
  return {
    workloads: made.map((m) => m.workload),
    budgets: budgets as CheckBudget[],
    system: {
      kind: o.kind,
      namespace,
      name,
      members: made.map((m) => m.workload.name),
      needs,
      evidence: `pods as the ${model.operator} operator makes them`,
      findings: [],
    },
  };
}

/** The elements a pod set is made for (one, undefined, without `forEach`), or why they cannot be read. */
function itemsOf(
  forEach: ForEach | undefined, resource: JsonObject, namespace: string | undefined, others: readonly unknown[],
): readonly unknown[] | string {
  if (forEach === undefined) return [undefined];
  if ('list' in forEach) {
    const list = read({ resource }, forEach.list);
    if (list !== undefined && !Array.isArray(list)) return `has ${forEach.list} ${shownValue(list)}, not a list`;
    const items = elementsOf(list);
    return items.length > 0 ? items : forEach.ifEmpty ?? [];
  }
  const { group, kind, labels } = forEach.resources;
  const wanted = Object.entries(labels).map(([k, t]) => [k, fill({ resource }, t)]);
  const found = others.map(asResource).filter((r) => r !== undefined
    && r.kind === kind && typeof r.apiVersion === 'string' && r.apiVersion.split('/')[0] === group
    && r.metadata?.namespace === namespace
    && wanted.every(([k, v]) => r.metadata?.labels?.[k] === v));
  if (found.length === 0) {
    return `makes its pods from ${kind}s labelled ${wanted.map(([k, v]) => `${k}=${v}`).join(', ')}, none of which is in the input`;
  }
  return found;
}

function podSetsOf(
  model: PodSetModel, resource: JsonObject, name: string, namespace: string | undefined, others: readonly unknown[],
): MadePodSet[] | string {
  const items = itemsOf(model.forEach, resource, namespace, others);
  if (typeof items === 'string') return items;
  const made: MadePodSet[] = [];
  for (const [index, item] of items.entries()) {
    const scope: Scope = { resource, item, index, items: items.length, itemIs: itemIs(model.forEach, item, index) };
    if (model.when !== undefined && !holds(scope, model.when)) continue;
    const replicas = count(scope, model.replicas);
    if (typeof replicas === 'string') return replicas;
    const podSetName = fill(scope, model.name);
    const labels = podLabels(model, scope);
    const { volumes } = model;
    const hasVolumes = volumes !== undefined && (volumes.when === undefined || holds(scope, volumes.when));
    const storageClass = volumes?.storageClass === undefined ? undefined : read(scope, volumes.storageClass);
    made.push({
      roles: Object.entries(model.roles).filter(([, c]) => c === true || holds(scope, c)).map(([role]) => role),
      workload: {
        kind: model.madeAs,
        namespace,
        name: podSetName,
        replicas: replicas.value,
        ...(replicas.isDefault ? { replicasFrom: `the operator's default (${replicas.from})` } : {}),
        podLabels: labels,
        pod: podSpecOf(model.pod, scope, labels),
        claimClasses: hasVolumes ? [typeof storageClass === 'string' ? storageClass : undefined] : [],
        claimTemplates: [],
        podClaims: [],
        annotations: {},
        labels: {},
        partOf: name,
      },
    });
  }
  return made;
}

/** How messages name a pod set's element: its place in the resource's list, or the other resource. */
function itemIs(forEach: ForEach | undefined, item: unknown, index: number): string | undefined {
  if (forEach === undefined) return undefined;
  if ('list' in forEach) return `${forEach.list}[${index}]`;
  const name = asObject(asObject(item)?.metadata)?.name;
  return `${forEach.resources.kind} ${typeof name === 'string' ? name : `(${index})`}:`;
}

/** The operator's labels over those it copies from the resource (string values only). */
function podLabels(model: PodSetModel, scope: Scope): StringMap {
  const copied = (model.labelsFrom ?? []).map((p) => asObject(read(scope, p)) ?? {});
  const own = Object.fromEntries(Object.entries(model.labels).map(([k, t]) => [k, fill(scope, t)]));
  const all = Object.assign({}, ...copied, own) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(all).filter(([, v]) => typeof v === 'string')) as StringMap;
}

/** A need of the model as the system's, with the values it read. */
function needOf(n: NeedModel, scope: Scope, made: readonly MadePodSet[], operator: string): SystemNeed | string {
  const members = made.filter((m) => m.roles.some((r) => n.roles.includes(r))).map((m) => m.workload.name);
  const read1 = (c: Count) => count(scope, c);
  const said = (v: CountValue) => (v.isDefault ? `${v.from}, ${operator}'s default` : v.from);
  if (n.rule === 'voters') {
    const voters = read1(n.voters ?? { podsOf: n.roles });
    if (typeof voters === 'string') return voters;
    return { rule: 'voters', members, voters: voters.value, formsWith: n.formsWith, because: `${n.what}: ${voters.value} voters` };
  }
  if (n.rule === 'pods') {
    const c = read1(n.count);
    if (typeof c === 'string') return c;
    return { rule: 'pods', members, count: c.value, because: `${n.what}${sources(said(c))}` };
  }
  const factor = read1(n.factor);
  const need = read1(n.need);
  if (typeof factor === 'string') return factor;
  if (typeof need === 'string') return need;
  const spread = n.spreadOverZones !== undefined && holds(scope, n.spreadOverZones) ? 'zones'
    : n.spreadOverMembers ? 'members' : 'none';
  return {
    rule: 'copies',
    members,
    factor: factor.value,
    need: need.value,
    spread,
    because: `${n.what}: ${need.value} of ${factor.value} copies${sources(said(need), said(factor))}`,
  };
}

/** Where values came from, as a parenthesis ('' when all are the model's own). */
function sources(...from: string[]): string {
  const said = from.filter((f) => f !== '');
  return said.length === 0 ? '' : ` (${said.join('; ')})`;
}

/** The budgets of one model row: one for the whole system, or one per pod set. */
function budgetsOf(
  b: BudgetModel, scope: Scope, made: readonly MadePodSet[], namespace: string | undefined,
): (CheckBudget | string)[] {
  if (b.when !== undefined && !holds(scope, b.when)) return [];
  const sets = b.perPodSet ? made : [undefined];
  return sets.map((m) => {
    const own: Scope = m === undefined ? scope
      : { ...scope, item: { name: m.workload.name }, podsOf: () => m.workload.replicas ?? 0 };
    const min = count(own, b.minAvailable);
    if (typeof min === 'string') return min;
    const matchLabels = Object.fromEntries(Object.entries(b.selector)
      .map(([k, t]) => [k, m === undefined ? fill(own, t) : m.workload.podLabels[k]]));
    return {
      kind: 'PodDisruptionBudget' as const,
      namespace,
      name: fill(own, b.name),
      selector: { matchLabels },
      minAvailable: min.value,
    };
  });
}
