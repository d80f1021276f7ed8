/**
 * What a workload needs to keep working through a zone loss: its quorum annotation (a number, a majority, or pods
 * in a majority of its zones), a Loki ring's quorum, else its PodDisruptionBudget's minAvailable, else one pod.
 */
import { inNamespace } from './by-namespace';
import { CheckBudget, CheckWorkload } from './check-input';
import { selects } from './eligibility';
import { AddFinding, FindingSeverity } from './model';
import { QUORUM_ANNOTATION, QUORUM_REASON_ANNOTATION, ZONE_MAJORITY } from '../contract/zone-check';
import { majorityOf, ringWriteSurvival } from '../topology/survival';

/** What a workload needs: a number of replicas, or (zone-majority) pods in more than half of its zones. */
export interface Need {
  readonly count: number;
  readonly because: string;
  readonly zoneMajority?: boolean;
  /** A Loki ring's replication factor: a quorum of each stream's replicas, one per zone, must remain. */
  readonly ring?: number;
  /** The pods that must be placed for it to work at all (consensus software forms only with these). */
  readonly forms?: number;
}

/**
 * How many replicas the workload needs, and why: its quorum annotation, else its PodDisruptionBudget's minAvailable,
 * else 1.
 */
export function needed(w: CheckWorkload, replicas: number, budgets: readonly CheckBudget[], add: AddFinding): Need {
  if (w.ringReplicationFactor !== undefined) {
    const rf = w.ringReplicationFactor;
    return { count: Math.floor(rf / 2) + 1, because: `a quorum (${Math.floor(rf / 2) + 1}) of each stream's ${rf} replicas, one per zone`, ring: rf };
  }
  const quorum = parseQuorum(w.annotations[QUORUM_ANNOTATION], replicas, w.annotations[QUORUM_REASON_ANNOTATION]);
  if (typeof quorum === 'string') {
    add('quorum-annotation-invalid', FindingSeverity.ERROR, quorum, `Set ${QUORUM_ANNOTATION} to "majority", "${ZONE_MAJORITY}" or a whole number.`);
  } else if (quorum) {
    return quorum;
  }
  if (w.quorum !== undefined) {
    const q = w.quorum;
    return { count: majorityOf(q.voters), because: `${q.system}: a majority of its ${q.voters} voters (${q.evidence})`, forms: q.forms };
  }
  // a budget's minAvailable says what the workload needs; a maxUnavailable only paces voluntary disruptions
  const budget = budgetOf(w, budgets);
  if (budget?.minAvailable !== undefined) {
    const count = budgetNeed(budget, replicas);
    if (count > 0) return { count, because: `PodDisruptionBudget ${budget.name}: minAvailable ${budget.minAvailable}` };
  }
  return { count: replicas === 0 ? 0 : 1, because: replicas === 0 ? 'no replicas' : 'at least one replica' };
}

/** A quorum annotation's need (undefined: none; a string: why it is invalid). */
function parseQuorum(
  value: string | undefined,
  replicas: number,
  reason: string | undefined,
): Need | string | undefined {
  if (value === undefined) return undefined;
  const why = (what: string) => `${QUORUM_ANNOTATION}: ${what}${reason ? ` (${reason})` : ''}`;
  if (value === 'majority') return { count: Math.floor(replicas / 2) + 1, because: why(`majority of ${replicas}`) };
  if (value === ZONE_MAJORITY) return { count: 0, because: why('pods in a majority of its zones'), zoneMajority: true };
  if (/^\d+$/.test(value)) return { count: Number(value), because: why(value) };
  return `${QUORUM_ANNOTATION}=${JSON.stringify(value)} is neither "majority", "${ZONE_MAJORITY}" nor a whole number`;
}

/** True when, without zone `lost`, pods are sure to remain in more than half of the zones that may hold some. */
export function zonesLeft(lo: readonly number[], hi: readonly number[], lost: number): boolean {
  const used = hi.filter((h) => h > 0).length;
  return lo.filter((l, z) => z !== lost && l > 0).length >= majorityOf(used);
}

/**
 * Whether a zone-aware ring keeps a quorum of every stream without zone `lost` (ringWriteSurvival): losing a zone
 * that may hold ingesters costs a stream one replica in the worst case; only zones sure to hold ingesters count.
 */
export function ringSurvives(factor: number, lo: readonly number[], hi: readonly number[], lost: number): boolean {
  if (hi[lost] === 0) return true;
  const sure = lo.flatMap((l, z) => (l > 0 ? [String(z)] : []));
  return ringWriteSurvival(factor, sure).survives;
}

export function budgetOf(w: CheckWorkload, budgets: readonly CheckBudget[]): CheckBudget | undefined {
  const selecting = budgetsOf(w, budgets);
  return selecting.find((b) => b.minAvailable !== undefined) ?? selecting[0];
}

/** Every budget that selects `w`'s pods (a PodDisruptionBudget and a ZoneDisruptionBudget may both). */
export function budgetsOf(w: CheckWorkload, budgets: readonly CheckBudget[]): CheckBudget[] {
  return inNamespace(budgets, w.namespace).filter((b) => selects(b.selector, w.podLabels));
}

/** The pods the strictest of `w`'s budgets keeps available during a drain, or undefined when none selects it. */
export function drainNeed(w: CheckWorkload, budgets: readonly CheckBudget[], replicas: number): number | undefined {
  const needs = budgetsOf(w, budgets).map((b) => budgetNeed(b, replicas));
  return needs.length > 0 ? Math.max(...needs) : undefined;
}

/** The pods a budget keeps available out of `replicas` (percentages rounded up, as Kubernetes does). */
export function budgetNeed(b: CheckBudget, replicas: number): number {
  const value = (v: number | string) => (typeof v === 'string' && v.endsWith('%')
    ? Math.ceil((Number(v.slice(0, -1)) * replicas) / 100)
    : Number(v));
  if (b.minAvailable !== undefined) return Math.min(replicas, Math.max(0, value(b.minAvailable) || 0));
  if (b.maxUnavailable !== undefined) return Math.max(0, replicas - (value(b.maxUnavailable) || 0));
  return 0;
}
