/**
 * Zone groups (pure): one system split by zone into several workloads (one StatefulSet per zone, as Loki's and
 * Mimir's charts and the library's own constructs lay them out), found in any manifests and judged together by
 * the group's quorum, not member by member.
 *
 * Members are found, within one namespace, by the first evidence that holds: the `cdk8s-zones.dev/zone-group`
 * annotation; grafana/rollout-operator's `rollout-group` label (on the workload or its pods); or names that are
 * one stem plus a zone (`ingester-zone-a`, `ingester-zone-b`, or the inventory's zone names). The group needs pods
 * in a majority of the zones it runs in, unless its members' quorum annotation says otherwise. Each member must be
 * pinned to a zone of its own: members that may share a zone are reported as such, with the fix that pins them.
 */
import { CheckSystem, CheckWorkload, SystemNeed } from './check-input';
import { FindingSeverity, ZoneFinding } from './model';
import { QUORUM_ANNOTATION, QUORUM_REASON_ANNOTATION, ZONE_GROUP_ANNOTATION, ZONE_MAJORITY } from '../contract/zone-check';

/** grafana/rollout-operator groups the StatefulSets it rolls zone by zone with this label. */
export const ROLLOUT_GROUP_LABEL = 'rollout-group';

/** A workload's group, and what put it there. */
export interface GroupMembership {
  readonly name: string;
  readonly evidence: string;
}

/** Workloads that can be members: those of a fixed number of pods. */
const MEMBER_KINDS = ['StatefulSet', 'Deployment', 'ReplicaSet', 'Rollout'];

/**
 * The group of each workload that belongs to one (by index into `workloads`); a workload already part of a system
 * (an operator's resource's pod set) belongs to that, whatever its name.
 */
export function groupMemberships(
  workloads: readonly CheckWorkload[],
  zones: readonly string[],
): Map<number, GroupMembership> {
  const found = new Map<number, GroupMembership>();
  workloads.forEach((w, i) => {
    const annotated = w.annotations[ZONE_GROUP_ANNOTATION];
    if (annotated === undefined || w.partOf !== undefined) return;
    found.set(i, { name: annotated, evidence: `the ${ZONE_GROUP_ANNOTATION} annotation` });
  });
  // by label or name: only groups of two or more, among workloads no stronger evidence placed
  const candidates = (keyOf: (w: CheckWorkload) => string | undefined, evidence: (key: string) => string) => {
    const byKey = new Map<string, number[]>();
    workloads.forEach((w, i) => {
      const key = found.has(i) || w.partOf !== undefined || !MEMBER_KINDS.includes(w.kind) ? undefined : keyOf(w);
      if (key === undefined) return;
      const namespacedKey = JSON.stringify([w.namespace ?? '', key]);
      byKey.set(namespacedKey, [...byKey.get(namespacedKey) ?? [], i]);
    });
    for (const [k, members] of byKey) {
      if (members.length < 2) continue;
      const key = JSON.parse(k)[1] as string;
      for (const i of members) found.set(i, { name: key, evidence: evidence(key) });
    }
  };
  candidates(
    (w) => w.labels[ROLLOUT_GROUP_LABEL] ?? w.podLabels[ROLLOUT_GROUP_LABEL],
    (key) => `grafana/rollout-operator's ${ROLLOUT_GROUP_LABEL} label ${key}`,
  );
  candidates((w) => nameStem(w.name, zones), (key) => `their names: ${key} and a zone`);
  return found;
}

/** `name` without a zone at its end (`-zone-a`, `-zone1`, or `-<one of the zones>`), or undefined when it has none. */
export function nameStem(name: string, zones: readonly string[]): string | undefined {
  for (const zone of zones) {
    if (name.endsWith(`-${zone}`) && name.length > zone.length + 1) return name.slice(0, -zone.length - 1);
  }
  const m = /^(.+)-zone-?[a-z0-9]+$/.exec(name);
  return m ? m[1] : undefined;
}

/**
 * The zone groups as systems (systems.ts judges them): their members, marked `partOf` the group, and the group's
 * quorum (its members' annotation, one value for all; else pods in a majority of its zones).
 */
export function zoneGroupSystems(
  workloads: readonly CheckWorkload[],
  memberships: Map<number, GroupMembership>,
): { workloads: CheckWorkload[]; systems: CheckSystem[] } {
  const groups = new Map<string, number[]>();
  for (const [i, m] of memberships) {
    const key = JSON.stringify([workloads[i].namespace ?? '', m.name]);
    groups.set(key, [...groups.get(key) ?? [], i]);
  }
  const systems = [...groups.entries()].map(([key, members]): CheckSystem => {
    members.sort((a, b) => a - b);
    const [namespace, name] = JSON.parse(key) as [string, string];
    const findings: ZoneFinding[] = [];
    const need = groupNeed(name, members.map((i) => workloads[i]), findings);
    return {
      kind: 'ZoneGroup',
      namespace: namespace === '' ? undefined : namespace,
      name,
      members: members.map((i) => workloads[i].name),
      needs: [need],
      evidence: `grouped by ${memberships.get(members[0])!.evidence}`,
      findings,
    };
  });
  const grouped = workloads.map((w, i) => {
    const m = memberships.get(i);
    return m === undefined ? w : { ...w, partOf: m.name };
  });
  return { workloads: grouped, systems };
}

/** The group's quorum: its members' annotation (one value for all), else pods in a majority of its zones. */
function groupNeed(name: string, members: readonly CheckWorkload[], findings: ZoneFinding[]): SystemNeed {
  const replicas = members.reduce((sum, w) => sum + (w.replicas ?? 1), 0);
  const quorums = new Set(members.map((w) => w.annotations[QUORUM_ANNOTATION] ?? ZONE_MAJORITY));
  const value = [...quorums][0];
  const reason = members.map((w) => w.annotations[QUORUM_REASON_ANNOTATION]).find((r) => r !== undefined);
  const why = (what: string) => `${what}${reason ? ` (${reason})` : ''}`;
  if (quorums.size === 1 && value === ZONE_MAJORITY) return { rule: 'zones', because: why('pods in a majority of its zones') };
  if (quorums.size === 1 && value === 'majority') {
    return { rule: 'voters', voters: replicas, formsWith: 'majority', because: why(`majority of ${replicas}`) };
  }
  if (quorums.size === 1 && /^\d+$/.test(value)) return { rule: 'pods', count: Number(value), because: why(value) };
  findings.push({
    rule: 'quorum-annotation-invalid',
    severity: FindingSeverity.ERROR,
    message: `the members of zone group ${name} declare ${[...quorums].map((q) => JSON.stringify(q)).join(', ')} as their quorum: one valid value is needed`,
    fix: `Give every member the same ${QUORUM_ANNOTATION}.`,
  });
  return { rule: 'voters', voters: replicas, formsWith: 'majority', because: `majority of ${replicas} (the members disagree)` };
}
