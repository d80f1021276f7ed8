/**
 * Systems judged as a whole (pure): an operator's resource over the pod sets it makes, or a zone group over its
 * members. Each member is placed alone (analyze.ts); the system survives losing a zone when every one of its needs
 * (check-input.ts's `SystemNeed`) holds in that zone's worst case, and a member never survives a zone its system
 * does not.
 */
import { CheckSystem, CheckWorkload, CopiesNeed, SystemNeed, VotersNeed, ZonesNeed } from './check-input';
import { FindingSeverity, WorkloadReport, ZoneFinding, ZoneLoss } from './model';
import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { majorityOf } from '../topology/survival';

/** A member as its report places it. */
interface Member {
  readonly name: string;
  /** Per zone: the pods it is sure to hold, and the most it may hold. */
  readonly lo: readonly number[];
  readonly hi: readonly number[];
  /** Pods placed with every zone up (the rest may stay Pending). */
  readonly placed: number;
  /** Per zone lost: its pods left in the worst case. */
  readonly survivors: readonly number[];
  readonly report: WorkloadReport;
}

/** Members' pods added up (`Member`'s fields, over several members). */
type Totals = Omit<Member, 'name' | 'report'>;

function totals(members: readonly Member[], zones: readonly string[]): Totals {
  const sum = (f: (m: Member) => number) => members.reduce((total, m) => total + f(m), 0);
  return {
    lo: zones.map((_, z) => sum((m) => m.lo[z])),
    hi: zones.map((_, z) => sum((m) => m.hi[z])),
    placed: sum((m) => m.placed),
    survivors: zones.map((_, z) => sum((m) => m.survivors[z])),
  };
}

/** What one need says of each zone lost, and why it fails where it does. */
interface NeedVerdict {
  readonly survives: readonly boolean[];
  /** Why it fails with every zone up (it never forms, too few copies can be placed). */
  readonly never?: string;
  /** What losing a zone leaves (`leaves 1 of its 3 voters`), where it fails. */
  readonly failure: (zone: number) => string;
  /** What it needs (`a majority, 2 (why)`), after the failures. */
  readonly needs: string;
  /** What to change, when the need knows better than its system. */
  readonly fix?: string;
}

/** One report per system, and the member reports with their system's verdict. */
export function judgeSystems(
  systems: readonly CheckSystem[], workloads: readonly CheckWorkload[], reports: readonly WorkloadReport[],
  zones: readonly string[],
): { systems: WorkloadReport[]; members: WorkloadReport[] } {
  const memberReports = [...reports];
  // each system's members (their indices, in order) by namespace and system name, from one pass over the workloads
  const members = new Map<string | undefined, Map<string, number[]>>();
  workloads.forEach((w, i) => {
    if (w.partOf === undefined) return;
    if (!members.has(w.namespace)) members.set(w.namespace, new Map());
    const bySystem = members.get(w.namespace)!;
    if (bySystem.has(w.partOf)) bySystem.get(w.partOf)!.push(i);
    else bySystem.set(w.partOf, [i]);
  });
  const systemReports = systems.map((s) => {
    const indices = members.get(s.namespace)?.get(s.name) ?? [];
    const report = systemReport(s, indices.map((i) => memberOf(workloads[i], reports[i], zones)), zones);
    for (const i of indices) memberReports[i] = withSystemVerdict(reports[i], report);
    return report;
  });
  return { systems: systemReports, members: memberReports };
}

function memberOf(w: CheckWorkload, r: WorkloadReport, zones: readonly string[]): Member {
  return {
    name: w.name,
    lo: zones.map((z) => r.perZone[z].guaranteed),
    hi: zones.map((z) => r.perZone[z].worstCase),
    placed: r.replicas - r.pendingWorstCase,
    survivors: r.zoneLoss.map((l) => l.survivors),
    report: r,
  };
}

/** A member does not survive a zone its system does not. */
function withSystemVerdict(r: WorkloadReport, system: WorkloadReport): WorkloadReport {
  const zoneLoss = r.zoneLoss.map((l) => ({ ...l, survives: l.survives && system.survives[l.zone] }));
  return { ...r, zoneLoss, survives: Object.fromEntries(zoneLoss.map((l) => [l.zone, l.survives])) };
}

function systemReport(s: CheckSystem, members: readonly Member[], zones: readonly string[]): WorkloadReport {
  const all = totals(members, zones);
  const verdicts = s.needs.map((need) => judgeNeed(need, members, zones));
  const zonesNeed = s.needs.some((n) => n.rule === 'zones');
  const zoneLoss: ZoneLoss[] = zones.map((zone, z) => ({
    zone,
    survivors: all.survivors[z],
    ...(zonesNeed ? { zonesLeft: zones.filter((_, i) => i !== z && all.lo[i] > 0).length } : {}),
    survives: verdicts.every((v) => v.survives[z])
      && (!s.membersJudgedAlone || members.every((m) => m.report.zoneLoss[z].survives)),
    replacementsPending: members.reduce((sum, m) => sum + m.report.zoneLoss[z].replacementsPending, 0),
    drainBlocked: members.some((m) => m.report.zoneLoss[z].drainBlocked),
  }));
  const counts = s.needs.flatMap((n) => (n.rule === 'pods' ? [n.count] : n.rule === 'voters' ? [majorityOf(n.voters)] : []));
  const replicas = members.reduce((sum, m) => sum + m.report.replicas, 0);
  return {
    kind: s.kind,
    ...(s.namespace !== undefined && s.namespace !== '' ? { namespace: s.namespace } : {}),
    name: s.name,
    replicas,
    perZone: Object.fromEntries(zones.map((zone, z) => [zone, { guaranteed: all.lo[z], worstCase: all.hi[z] }])),
    pendingWorstCase: replicas - all.placed,
    needed: counts.length > 0 ? Math.max(...counts) : 0,
    ...(zonesNeed ? { neededZones: majorityOf(all.hi.filter((h) => h > 0).length) } : {}),
    neededBecause: `${s.needs.map((n) => n.because).join('; ')}; ${s.evidence}: ${members.map((m) => m.name).join(', ')}`,
    members: members.map((m) => `${m.report.kind}/${m.report.namespace ?? '-'}/${m.name}`),
    zoneLoss,
    survives: Object.fromEntries(zoneLoss.map((l) => [l.zone, l.survives])),
    findings: [
      ...s.findings,
      ...verdicts.flatMap((v) => systemFindings(s, members, v, zones)),
      ...failingMembers(s, members, zones),
    ],
  };
}

/** For a system whose members are judged alone: which of them break it, and in which zones. */
function failingMembers(s: CheckSystem, members: readonly Member[], zones: readonly string[]): ZoneFinding[] {
  if (!s.membersJudgedAlone) return [];
  const failing = members.map((m) => [m, zones.filter((_, z) => !m.report.zoneLoss[z].survives)] as const)
    .filter(([, lost]) => lost.length > 0);
  if (failing.length === 0) return [];
  const lostZones = zones.filter((z) => failing.some(([, lost]) => lost.includes(z)));
  return [{
    rule: 'zone-loss',
    severity: FindingSeverity.ERROR,
    message: `${s.kind} ${s.name} does not survive losing ${lostZones.join(', ')}: `
      + failing.map(([m, lost]) => `its ${m.report.kind} ${m.name} does not survive losing ${lost.join(', ')}`).join('; '),
    fix: 'Fix its workloads as their own findings say, in the fields its operator passes to their pods.',
  }];
}

/** The findings of one need: why it never holds, or which zones break it. */
function systemFindings(
  s: CheckSystem, members: readonly Member[], v: NeedVerdict, zones: readonly string[],
): ZoneFinding[] {
  const failing = zones.flatMap((_, i) => (v.survives[i] ? [] : [i]));
  if (failing.length === 0) return [];
  const what = s.kind === 'ZoneGroup' ? `zone group ${s.name} (${members.map((m) => m.name).join(', ')})` : `${s.kind} ${s.name}`;
  const spreadFix = `Spread its pods over the zones: a topologySpreadConstraint on ${WELL_KNOWN_ZONE_KEY} with `
    + 'whenUnsatisfiable: DoNotSchedule, or one pod set pinned to each zone, in the fields its operator passes to the pods; '
    + 'and enough of them for what it needs.';
  const groupFix = 'Run the group in more zones (a member pinned to each), or give it more replicas in each.';
  if (v.never !== undefined) {
    return [{
      rule: 'zone-loss',
      severity: FindingSeverity.ERROR,
      message: `${what} is not available even with every zone up: ${v.never}`,
      fix: 'Give its pods room to be placed (nodes in the zones its affinity names), or lower what it expects.',
    }];
  }
  // zones whose loss leaves the same are named together
  const byFailure = new Map<string, string[]>();
  for (const z of failing) byFailure.set(v.failure(z), [...byFailure.get(v.failure(z)) ?? [], zones[z]]);
  const losses = [...byFailure].filter(([failure]) => failure !== '')
    .map(([failure, lost]) => `losing ${lost.join(', ')} ${failure}; `);
  return [{
    rule: 'zone-loss',
    severity: FindingSeverity.ERROR,
    message: `${what} does not survive losing ${failing.map((z) => zones[z]).join(', ')}: ${losses.join('')}it needs ${v.needs}`,
    fix: v.fix ?? (s.kind === 'ZoneGroup' ? groupFix : spreadFix),
  }];
}

function unique<T>(value: T, index: number, all: readonly T[]): boolean {
  return all.indexOf(value) === index;
}

function judgeNeed(need: SystemNeed, all: readonly Member[], zones: readonly string[]): NeedVerdict {
  const counted = need.rule === 'zones' || need.members === undefined ? all
    : all.filter((m) => need.members!.includes(m.name));
  const t = totals(counted, zones);
  switch (need.rule) {
    case 'pods': {
      const never = t.placed >= need.count ? undefined
        : `only ${t.placed} of its pods can be placed; it needs ${need.count} (${need.because})`;
      return {
        survives: t.survivors.map((left) => never === undefined && left >= need.count),
        never,
        failure: (z) => `leaves ${t.survivors[z]} of its pods in the worst case`,
        needs: `${need.count} (${need.because})`,
      };
    }
    case 'voters':
      return votersVerdict(need, t);
    case 'zones':
      return zonesVerdict(need, counted, t, zones);
    case 'copies':
      return copiesVerdict(need, counted, t, zones);
  }
}

/** A majority of the voters left; none when it cannot form (too few of them can be placed). */
function votersVerdict(need: VotersNeed, t: Totals): NeedVerdict {
  const quorum = majorityOf(need.voters);
  const forms = need.formsWith === 'all' ? need.voters : quorum;
  const formsWith = need.formsWith === 'all' ? 'all of them' : `a majority (${quorum})`;
  const never = t.placed >= forms ? undefined
    : `only ${t.placed} of its ${need.voters} voters can be placed, and it forms only with ${formsWith} (${need.because})`;
  return {
    survives: t.survivors.map((left) => never === undefined && left >= quorum),
    never,
    failure: (z) => `leaves ${t.survivors[z]} of its ${need.voters} voters in the worst case`,
    needs: `a majority, ${quorum} (${need.because})`,
  };
}

/** Pods in a majority of the zones it runs in; none placed: it runs nowhere. */
function zonesVerdict(need: ZonesNeed, members: readonly Member[], t: Totals, zones: readonly string[]): NeedVerdict {
  const used = t.hi.filter((h) => h > 0).length;
  const needed = majorityOf(used);
  const left = (z: number) => zones.filter((_, i) => i !== z && t.lo[i] > 0).length;
  const unpinned = pinning(members, zones);
  return {
    survives: zones.map((_, z) => used > 0 && (t.hi[z] === 0 || left(z) >= needed)),
    never: used > 0 ? undefined
      : `none of its members can be placed in any of the zones ${zones.join(', ')} (${need.because})`,
    failure: () => '',
    needs: `pods in ${needed} of its ${used} zones${unpinned}`,
    fix: unpinned === '' ? undefined : `Pin each member to its own zone: a required node affinity on ${WELL_KNOWN_ZONE_KEY} `
      + '(operator In, that one zone) in its pod template.',
  };
}

/** Members that may share a zone (each must be pinned to one of its own), as the end of a failure. */
function pinning(members: readonly Member[], zones: readonly string[]): string {
  const zonesOf = (m: Member) => zones.filter((_, z) => m.hi[z] > 0);
  const pinnedOnlyTo = (z: string) => members.filter((m) => zonesOf(m).length === 1 && zonesOf(m)[0] === z);
  const pinnedTo = members.filter((m) => zonesOf(m).length === 1).map((m) => zonesOf(m)[0]);
  const shared = pinnedTo.filter((z, i) => pinnedTo.indexOf(z) !== i).filter(unique);
  const where = [
    ...members.filter((m) => zonesOf(m).length !== 1).map((m) => `${m.name} may run in ${zonesOf(m).join(', ') || 'no zone'}`),
    ...shared.map((z) => `${pinnedOnlyTo(z).map((m) => m.name).join(' and ')} share ${z}`),
  ];
  return where.length === 0 ? ''
    : `, and its members are not each pinned to a zone of their own (${where.join('; ')}), so one zone may hold more than `
      + 'one of them';
}

/**
 * `need` of every item's `factor` copies left. The most copies of one item a zone may hold: with copies spread over
 * zones, ceil(factor / zones sure to hold pods); over members, ceil(factor / members) for each member that may run
 * there; else every copy its pods can hold.
 */
function copiesVerdict(need: CopiesNeed, members: readonly Member[], t: Totals, zones: readonly string[]): NeedVerdict {
  const { factor } = need;
  const perGroup = (groups: number) => Math.ceil(factor / Math.max(1, groups));
  const racks = members.filter((m) => m.placed > 0);
  const mostInOneZone = (z: number) => (need.spread === 'zones' ? perGroup(t.lo.filter((l) => l > 0).length)
    : need.spread === 'members' ? racks.filter((m) => m.hi[z] > 0).length * perGroup(racks.length)
      : factor);
  const lost = zones.map((_, z) => Math.min(factor, t.hi[z], mostInOneZone(z)));
  const never = t.placed >= factor ? undefined
    : `only ${t.placed} of its pods can be placed, fewer than the ${factor} copies of each item (${need.because})`;
  const anywhere = need.spread === 'none' ? ' (nothing places the copies in different zones)' : '';
  return {
    survives: lost.map((l) => never === undefined && factor - l >= need.need),
    never,
    failure: (z) => `may take ${lost[z]} of an item's ${factor} copies${anywhere}`,
    needs: `${need.need} (${need.because})`,
  };
}
