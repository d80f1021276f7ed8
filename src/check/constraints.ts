/**
 * The pod's scheduling rules on the zone and hostname keys: the hard spread constraints the check relies on, and
 * the soft rules (preferred, ScheduleAnyway) it notes and sets aside, since the scheduler guarantees nothing for them.
 */
import { inNamespace } from './by-namespace';
import { CheckWorkload } from './check-input';
import { selects } from './eligibility';
import { ZoneInventory } from './inventory';
import { AddFinding, FindingSeverity } from './model';
import { arrayOf, PodSpec, TopologySpreadConstraint } from '../kubernetes/objects';
import { RevisionLabel } from '../topology/spread';

/** The hard spread constraints the check relies on, and whether one it cannot model (a shared selector) binds too. */
export interface Constraints {
  readonly zone?: HardConstraint;
  readonly host?: HardConstraint;
  readonly unmodelled?: boolean;
}

/** A hard (DoNotSchedule) spread constraint the check relies on, its maxSkew a whole number of at least 1. */
export interface HardConstraint extends TopologySpreadConstraint {
  readonly maxSkew: number;
}

/** Whether `count` domains are fewer than the constraint's minDomains (a whole number; else it sets none). */
export function fewerThanMinDomains(c: TopologySpreadConstraint, count: number): boolean {
  return Number.isInteger(c.minDomains) && count < (c.minDomains ?? 0);
}

/** The label each built-in controller sets on its pods, whose value no other workload's pods carry. */
const REVISION_KEY: { [kind: string]: string } = {
  Deployment: RevisionLabel.POD_TEMPLATE_HASH,
  StatefulSet: RevisionLabel.CONTROLLER_REVISION_HASH,
  DaemonSet: RevisionLabel.CONTROLLER_REVISION_HASH,
};

/**
 * Whether a constraint's matchLabelKeys still select `other`'s pods beside `w`'s: Kubernetes adds each key's value
 * from the incoming pod to the selector (a key the pod lacks adds nothing), so a key whose values differ, or the
 * revision label w's controller sets (unique to w), keeps the other's pods out.
 */
function sameMatchLabelKeys(keys: unknown, w: CheckWorkload, other: CheckWorkload): boolean {
  if (!Array.isArray(keys)) return true;
  return keys.every((k) => typeof k !== 'string'
    || (k !== REVISION_KEY[w.kind] && (!(k in w.podLabels) || w.podLabels[k] === other.podLabels[k])));
}

/**
 * The pod's hard spread constraints on the zone and hostname keys that select its own pods and only those: a
 * selector that also selects another workload's pods spreads both together, which guarantees nothing about
 * this one's pods (the other's may fill a zone), so it is reported and not relied on.
 */
export function hardConstraints(
  pod: PodSpec, w: CheckWorkload, others: readonly CheckWorkload[], inventory: ZoneInventory, add: AddFinding,
): Constraints {
  const out: { zone?: HardConstraint; host?: HardConstraint; unmodelled?: boolean } = {};
  for (const c of arrayOf(pod.topologySpreadConstraints)) {
    const key = c?.topologyKey === inventory.topologyKey ? 'zone'
      : c?.topologyKey === inventory.hostnameKey ? 'host' : undefined;
    if (!key || !selectsOwnPods(c, w, add) || !isHard(c, key, add)) continue;
    if (sharedWithOthers(c, w, others, add)) {
      out.unmodelled = true;
      continue;
    }
    const maxSkew = Number.isInteger(c.maxSkew) && (c.maxSkew ?? 0) >= 1 ? c.maxSkew ?? 1 : 1;
    if (!out[key] || maxSkew < out[key].maxSkew) out[key] = { ...c, maxSkew };
  }
  return out;
}

/** Whether the constraint's selector matches the workload's pod labels (a warning when not: it does nothing). */
function selectsOwnPods(c: TopologySpreadConstraint, w: CheckWorkload, add: AddFinding): boolean {
  if (selects(c.labelSelector, w.podLabels)) return true;
  add('spread-selector-mismatch', FindingSeverity.WARNING,
    `its ${c.topologyKey} spread constraint selects ${JSON.stringify(c.labelSelector ?? {})}, ` +
    `which does not match the pod labels ${JSON.stringify(w.podLabels)}: the constraint does nothing for these pods`,
    'Make the labelSelector select the pod template\'s labels.');
  return false;
}

/**
 * Whether the constraint is hard (DoNotSchedule): a soft one guarantees nothing and blocks nothing, whoever else
 * it selects.
 */
function isHard(c: TopologySpreadConstraint, key: 'zone' | 'host', add: AddFinding): boolean {
  if (c.whenUnsatisfiable === 'DoNotSchedule') return true;
  if (key === 'zone') {
    add('soft-zone-spread', FindingSeverity.INFO,
      `its zone spread is ${c.whenUnsatisfiable ?? 'ScheduleAnyway'}: ` +
      'the scheduler may pack its pods into fewer zones under pressure',
      'Use whenUnsatisfiable: DoNotSchedule for a guarantee.');
  }
  return false;
}

/** Whether the constraint also selects another workload's pods (a warning: it then guarantees nothing about these). */
function sharedWithOthers(
  c: TopologySpreadConstraint, w: CheckWorkload, others: readonly CheckWorkload[], add: AddFinding,
): boolean {
  // a workload scaled to 0 (a Deployment an Argo Rollout took over with workloadRef) has no pods to share
  const shared = inNamespace(others, w.namespace).filter((o) => o !== w && o.replicas !== 0
    && selects(c.labelSelector, o.podLabels) && sameMatchLabelKeys(c.matchLabelKeys, w, o));
  if (shared.length === 0) return false;
  add('spread-selector-shared', FindingSeverity.WARNING,
    `its ${c.topologyKey} spread constraint also selects the pods of ` +
    `${shared.map((o) => `${o.kind} ${o.name}`).join(', ')}: ` +
    'it spreads them together, so it guarantees nothing about this workload\'s own pods ' +
    '(and replacements after a zone loss may all stay Pending)',
    'Select only this workload\'s pods ' +
    '(add a label only it has, or matchLabelKeys: [pod-template-hash] / [controller-revision-hash]).');
  return true;
}

/**
 * Preferred (soft) rules on the zone key, which the scheduler may set aside under pressure: pod anti-affinity to
 * its own pods and node affinity. They guarantee nothing, so the check does not count them; an info note says so.
 */
export function softZoneRules(
  pod: PodSpec, podLabels: { readonly [key: string]: string }, zoneKey: string, add: AddFinding,
): void {
  const antiAffinity = arrayOf(pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
    .map((r) => r?.podAffinityTerm)
    .some((t) => t?.topologyKey === zoneKey && selects(t.labelSelector, podLabels));
  const nodeAffinity = arrayOf(pod.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
    .map((r) => r?.preference)
    .some((t) => arrayOf(t?.matchExpressions).some((e) => e?.key === zoneKey));
  const rules = [[antiAffinity, 'pod anti-affinity to its own pods'], [nodeAffinity, 'node affinity']] as const;
  for (const [present, what] of rules) {
    if (!present) continue;
    add('soft-zone-affinity', FindingSeverity.INFO,
      `its preferred (soft) ${what} on ${zoneKey} guarantees nothing: ` +
      'the scheduler may set it aside and put its pods in fewer zones',
      'Use a topologySpreadConstraint with whenUnsatisfiable: DoNotSchedule (or a required rule) ' +
      'if the zones must hold.');
  }
}
