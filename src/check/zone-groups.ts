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
import { CheckWorkload } from './check-input';
import { FindingSeverity, WorkloadReport, ZoneFinding, ZoneLoss } from './model';
import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { QUORUM_ANNOTATION, QUORUM_REASON_ANNOTATION, ZONE_GROUP_ANNOTATION, ZONE_MAJORITY } from '../contract/zone-check';
import { majorityOf } from '../topology/survival';

/** grafana/rollout-operator groups the StatefulSets it rolls zone by zone with this label. */
export const ROLLOUT_GROUP_LABEL = 'rollout-group';

/** A workload's group, and what put it there. */
export interface GroupMembership {
  readonly name: string;
  readonly evidence: string;
}

/** Workloads that can be members: those of a fixed number of pods. */
const MEMBER_KINDS = ['StatefulSet', 'Deployment', 'ReplicaSet', 'Rollout'];

/** The group of each workload that belongs to one (by index into `workloads`). */
export function groupMemberships(
  workloads: readonly CheckWorkload[],
  zones: readonly string[],
): Map<number, GroupMembership> {
  const found = new Map<number, GroupMembership>();
  workloads.forEach((w, i) => {
    const annotated = w.annotations[ZONE_GROUP_ANNOTATION];
    if (annotated !== undefined) found.set(i, { name: annotated, evidence: `the ${ZONE_GROUP_ANNOTATION} annotation` });
  });
  // by label or name: only groups of two or more, among workloads no stronger evidence placed
  const candidates = (keyOf: (w: CheckWorkload) => string | undefined, evidence: (key: string) => string) => {
    const byKey = new Map<string, number[]>();
    workloads.forEach((w, i) => {
      const key = found.has(i) || !MEMBER_KINDS.includes(w.kind) ? undefined : keyOf(w);
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
 * One report per zone group, kind `ZoneGroup`: its pods summed over the members, judged by the group's quorum
 * (pods in a majority of its zones unless the members' quorum annotation says otherwise).
 */
export function zoneGroupReports(
  workloads: readonly CheckWorkload[],
  reports: readonly WorkloadReport[],
  zones: readonly string[],
  memberships: Map<number, GroupMembership>,
): WorkloadReport[] {
  const groups = new Map<string, number[]>();
  for (const [i, m] of memberships) {
    const key = JSON.stringify([workloads[i].namespace ?? '', m.name]);
    groups.set(key, [...groups.get(key) ?? [], i]);
  }
  return [...groups.entries()].map(([key, members]) => {
    members.sort((a, b) => a - b);
    const [namespace, name] = JSON.parse(key) as [string, string];
    const evidence = memberships.get(members[0])!.evidence;
    return groupReport(name, namespace, members.map((i) => ({ w: workloads[i], r: reports[i] })), evidence, zones);
  });
}

interface Member {
  readonly w: CheckWorkload;
  readonly r: WorkloadReport;
}

function groupReport(
  name: string,
  namespace: string,
  members: readonly Member[],
  evidence: string,
  zones: readonly string[],
): WorkloadReport {
  const findings: ZoneFinding[] = [];
  const replicas = members.reduce((sum, m) => sum + m.r.replicas, 0);
  const lo = zones.map((z) => members.reduce((sum, m) => sum + m.r.perZone[z].guaranteed, 0));
  const hi = zones.map((z) => members.reduce((sum, m) => sum + m.r.perZone[z].worstCase, 0));
  const need = groupNeed(name, members, replicas, findings);
  const used = hi.filter((h) => h > 0).length;
  const neededZones = majorityOf(used);
  const zoneLoss: ZoneLoss[] = zones.map((zone, z) => {
    const survivors = members.reduce((sum, m) => sum + m.r.zoneLoss[z].survivors, 0);
    const left = lo.filter((l, i) => i !== z && l > 0).length;
    return {
      zone,
      survivors,
      ...(need.zoneMajority ? { zonesLeft: left } : {}),
      survives: need.zoneMajority ? hi[z] === 0 || left >= neededZones : survivors >= need.count,
      replacementsPending: members.reduce((sum, m) => sum + m.r.zoneLoss[z].replacementsPending, 0),
      drainBlocked: members.some((m) => m.r.zoneLoss[z].drainBlocked),
    };
  });
  const failing = zoneLoss.filter((l) => !l.survives).map((l) => l.zone);
  if (failing.length > 0) {
    const needs = need.zoneMajority ? `pods in ${neededZones} of its ${used} zones` : need.because;
    findings.push(lossFinding(name, members, failing, needs, zones));
  }
  return {
    kind: 'ZoneGroup',
    ...(namespace !== '' ? { namespace } : {}),
    name,
    replicas,
    perZone: Object.fromEntries(zones.map((z, i) => [z, { guaranteed: lo[i], worstCase: hi[i] }])),
    pendingWorstCase: members.reduce((sum, m) => sum + m.r.pendingWorstCase, 0),
    needed: need.zoneMajority ? 0 : need.count,
    ...(need.zoneMajority ? { neededZones } : {}),
    neededBecause: `${need.because}; grouped by ${evidence}: ${members.map((m) => m.w.name).join(', ')}`,
    zoneLoss,
    survives: Object.fromEntries(zoneLoss.map((l) => [l.zone, l.survives])),
    findings,
  };
}

/** The group's quorum: its members' annotation (one value for all), else pods in a majority of its zones. */
interface GroupNeed {
  readonly count: number;
  readonly because: string;
  readonly zoneMajority?: boolean;
}

function groupNeed(name: string, members: readonly Member[], replicas: number, findings: ZoneFinding[]): GroupNeed {
  const quorums = new Set(members.map((m) => m.w.annotations[QUORUM_ANNOTATION] ?? ZONE_MAJORITY));
  const value = [...quorums][0];
  const reason = members.map((m) => m.w.annotations[QUORUM_REASON_ANNOTATION]).find((r) => r !== undefined);
  const why = (what: string) => `${what}${reason ? ` (${reason})` : ''}`;
  if (quorums.size === 1 && value === ZONE_MAJORITY) return { count: 0, because: why('pods in a majority of its zones'), zoneMajority: true };
  if (quorums.size === 1 && value === 'majority') return { count: majorityOf(replicas), because: why(`majority of ${replicas}`) };
  if (quorums.size === 1 && /^\d+$/.test(value)) return { count: Number(value), because: why(value) };
  findings.push({
    rule: 'quorum-annotation-invalid',
    severity: FindingSeverity.ERROR,
    message: `the members of zone group ${name} declare ${[...quorums].map((q) => JSON.stringify(q)).join(', ')} as their quorum: one valid value is needed`,
    fix: `Give every member the same ${QUORUM_ANNOTATION}.`,
  });
  return { count: majorityOf(replicas), because: `majority of ${replicas} (the members disagree)` };
}

/**
 * Why the group does not survive: members that may share a zone (each must be pinned to one of its own), or,
 * pinned apart, too few zones or replicas for the quorum.
 */
function lossFinding(
  name: string,
  members: readonly Member[],
  failing: readonly string[],
  needs: string,
  zones: readonly string[],
): ZoneFinding {
  const zonesOf = (m: Member) => zones.filter((z) => m.r.perZone[z].worstCase > 0);
  const unpinned = members.filter((m) => zonesOf(m).length !== 1);
  const pinnedOnlyTo = (z: string) => members.filter((m) => zonesOf(m).length === 1 && zonesOf(m)[0] === z);
  const pinnedTo = members.filter((m) => zonesOf(m).length === 1).map((m) => zonesOf(m)[0]);
  const shared = [...new Set(pinnedTo.filter((z, i) => pinnedTo.indexOf(z) !== i))];
  const head = `zone group ${name} (${members.map((m) => m.w.name).join(', ')}) does not survive losing ${failing.join(', ')}: it needs ${needs}`;
  if (unpinned.length > 0 || shared.length > 0) {
    const where = [
      ...unpinned.map((m) => `${m.w.name} may run in ${zonesOf(m).join(', ') || 'no zone'}`),
      ...shared.map((z) => `${pinnedOnlyTo(z).map((m) => m.w.name).join(' and ')} share ${z}`),
    ];
    return {
      rule: 'zone-loss',
      severity: FindingSeverity.ERROR,
      message: `${head}, and its members are not each pinned to a zone of their own (${where.join('; ')}), so one zone may hold more than one of them`,
      fix: `Pin each member to its own zone: a required node affinity on ${WELL_KNOWN_ZONE_KEY} (operator In, that one zone) in its pod template.`,
    };
  }
  return { rule: 'zone-loss', severity: FindingSeverity.ERROR, message: head, fix: 'Run the group in more zones (a member pinned to each), or give it more replicas in each.' };
}
