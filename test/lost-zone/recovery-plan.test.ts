/**
 * The lost-zone recovery's decisions (src/lost-zone/recovery-plan.ts): scenarios of a zone lost with opted-in
 * StatefulSets, then properties over random clusters stepped through time with a StatefulSet controller and a
 * scheduler played beside the plan (a deleted pod comes back with a new uid in a surviving zone, Ready later).
 */
import fc from 'fast-check';
import { LostZoneRecoveryStatus } from '../../src/contract/lost-zone';
import {
  planRecovery, RecoveryClaim, RecoveryInput, RecoveryNode, RecoveryPod, RecoveryPlan, RecoveryWorkload,
} from '../../src/lost-zone/recovery-plan';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const T0 = Date.parse('2026-11-30T12:00:00Z');
const silentA: RecoveryNode[] = ZONES.flatMap((zone) => [1, 2].map((i) => ({
  name: `${zone}-${i}`, zone, answers: zone !== 'zone-a',
})));

/** A StatefulSet `name` of `replicas` pods, pod i in ZONES[i % 3], each with a claim `data-<pod>` in its zone. */
function statefulSet(name: string, replicas: number, atOnce: string | undefined, namespace = 'db') {
  const workload: RecoveryWorkload = { namespace, name, replicas, atOnce, claimTemplates: ['data'] };
  const pods: RecoveryPod[] = [];
  const claims: RecoveryClaim[] = [];
  for (let i = 0; i < replicas; i++) {
    const zone = ZONES[i % ZONES.length];
    const pod = `${name}-${i}`;
    pods.push({ namespace, name: pod, uid: `${pod}-uid0`, statefulSet: name, zone, scheduled: true, ready: zone !== 'zone-a' });
    claims.push({ namespace, name: `data-${name}-${i}`, zone, deleting: false });
  }
  return { workload, pods, claims };
}

function input(parts: ReturnType<typeof statefulSet>[], over: Partial<RecoveryInput> = {}): RecoveryInput {
  return {
    zone: 'zone-a',
    nodes: silentA,
    workloads: parts.map((p) => p.workload),
    pods: parts.flatMap((p) => p.pods),
    claims: parts.flatMap((p) => p.claims),
    volumesInZone: 3,
    nowMs: T0,
    ...over,
  };
}

describe('lost-zone recovery plan', () => {
  test('nothing is deleted while a node of the zone answers, and the status names it', () => {
    const nodes = silentA.map((n) => (n.name === 'zone-a-2' ? { ...n, answers: true } : n));
    const plan = planRecovery(input([statefulSet('redis', 6, '1')], { nodes }));
    expect(plan.delete).toEqual([]);
    expect(plan.status).toEqual({
      phase: 'Waiting',
      message: 'nodes of zone zone-a still answer (zone-a-2): nothing is deleted while one does',
      recovered: [],
      held: [],
    });
  });

  test('a zone with no node and no volume is Invalid: nothing is deleted', () => {
    const plan = planRecovery(input([statefulSet('redis', 6, '1')], { zone: 'zone-x', volumesInZone: 0 }));
    expect(plan.status.phase).toBe('Invalid');
    // but a zone whose last volumes went with the pods brought back stays Recovered (found in the Kubernetes tier)
    const sts = statefulSet('redis', 3, '1');
    const back = sts.pods.map((p) => (p.zone === 'zone-a' ? { ...p, uid: 'again', zone: 'zone-b', ready: true } : p));
    const previous: LostZoneRecoveryStatus = {
      phase: 'Recovering',
      message: '',
      held: [],
      recovered: [{ namespace: 'db', statefulSet: 'redis', pod: 'redis-0', uid: 'redis-0-uid0', claims: ['data-redis-0'], at: 't' }],
    };
    const nodes = silentA.filter((n) => n.zone !== 'zone-a');
    const after = planRecovery(input([sts], { pods: back, claims: [], nodes, volumesInZone: 0, previous }));
    expect(after.status.phase).toBe('Recovered');
    expect(plan.status.message).toBe('zone zone-x has no node and no volume: nothing to recover (is the zone right?); nothing is deleted');
    expect(plan.delete).toEqual([]);
  });

  test('a zone whose nodes are gone is still known by its volumes, and its pods by their claims', () => {
    const sts = statefulSet('redis', 6, '2');
    const pods = sts.pods.map((p) => (p.zone === 'zone-a' ? { ...p, zone: undefined } : p));
    const plan = planRecovery(input([sts], { nodes: silentA.filter((n) => n.zone !== 'zone-a'), pods }));
    expect(plan.status.phase).toBe('Recovering');
    expect(plan.delete.map((d) => [d.pod, d.claims])).toEqual([['redis-0', ['data-redis-0']], ['redis-3', ['data-redis-3']]]);
  });

  test('the lost pods go with their claims in the zone, lowest ordinal first, at most atOnce, recorded', () => {
    const plan = planRecovery(input([statefulSet('redis', 9, '2'), statefulSet('loki', 3, '1', 'logs')]));
    expect(plan.delete).toEqual([
      { namespace: 'db', statefulSet: 'redis', pod: 'redis-0', uid: 'redis-0-uid0', claims: ['data-redis-0'] },
      { namespace: 'db', statefulSet: 'redis', pod: 'redis-3', uid: 'redis-3-uid0', claims: ['data-redis-3'] },
      { namespace: 'logs', statefulSet: 'loki', pod: 'loki-0', uid: 'loki-0-uid0', claims: ['data-loki-0'] },
    ]);
    expect(plan.status.recovered.map((r) => [r.pod, r.at])).toEqual([
      ['redis-0', '2026-11-30T12:00:00.000Z'], ['redis-3', '2026-11-30T12:00:00.000Z'], ['loki-0', '2026-11-30T12:00:00.000Z'],
    ]);
    expect(plan.status.held).toEqual(['StatefulSet db/redis: 1 pod(s) wait: at most 2 at once']);
    expect(plan.status.phase).toBe('Recovering');
  });

  test('a pod coming back counts against atOnce until Ready; then the next goes; then Recovered', () => {
    const sts = statefulSet('redis', 6, '1');
    const first = planRecovery(input([sts]));
    expect(first.delete.map((d) => d.pod)).toEqual(['redis-0']);
    // made again in zone-b with a new uid and a new claim, not Ready yet
    const back = (ready: boolean): RecoveryPod => ({ ...sts.pods[0], uid: 'redis-0-uid1', zone: 'zone-b', ready });
    const claims = sts.claims.map((c) => (c.name === 'data-redis-0' ? { ...c, zone: 'zone-b' } : c));
    const pods = (ready: boolean) => [back(ready), ...sts.pods.slice(1)];
    const waiting = planRecovery(input([sts], { pods: pods(false), claims, previous: first.status }));
    expect(waiting.delete).toEqual([]);
    expect(waiting.status.message).toBe('zone zone-a lost: 0 pod(s) deleted now, 1 coming back elsewhere');
    const next = planRecovery(input([sts], { pods: pods(true), claims, previous: waiting.status }));
    expect(next.delete.map((d) => d.pod)).toEqual(['redis-3']);
    const pods3 = pods(true).map((p) => (p.name === 'redis-3' ? { ...p, uid: 'redis-3-uid1', zone: 'zone-c', ready: true } : p));
    const claims3 = claims.map((c) => (c.name === 'data-redis-3' ? { ...c, zone: 'zone-c' } : c));
    const done = planRecovery(input([sts], { pods: pods3, claims: claims3, previous: next.status }));
    expect(done.delete).toEqual([]);
    expect(done.status.phase).toBe('Recovered');
    expect(done.status.recovered.map((r) => r.pod)).toEqual(['redis-0', 'redis-3']);
  });

  test('a pod deleted and not made again yet counts against atOnce (the StatefulSet controller may lag)', () => {
    const sts = statefulSet('redis', 6, '1');
    const first = planRecovery(input([sts]));
    const pods = sts.pods.filter((p) => p.name !== 'redis-0');
    const claims = sts.claims.filter((c) => c.name !== 'data-redis-0');
    const next = planRecovery(input([sts], { pods, claims, previous: first.status }));
    expect(next.delete).toEqual([]);
    expect(next.status.message).toBe('zone zone-a lost: 0 pod(s) deleted now, 1 coming back elsewhere');
  });

  test('other pods not Ready outside the zone use up atOnce: the quorum is not pushed', () => {
    const sts = statefulSet('redis', 6, '1');
    const pods = sts.pods.map((p) => (p.name === 'redis-1' ? { ...p, ready: false } : p));
    const plan = planRecovery(input([sts], { pods }));
    expect(plan.delete).toEqual([]);
    expect(plan.status.held).toEqual(['StatefulSet db/redis: 2 pod(s) wait: at most 1 at once']);
  });

  test('no Ready pod outside the zone: the data does not live on elsewhere, nothing is deleted', () => {
    const sts = statefulSet('single', 3, '1');
    const pods = sts.pods.map((p) => ({ ...p, ready: false }));
    const plan = planRecovery(input([sts], { pods }));
    expect(plan.delete).toEqual([]);
    expect(plan.status.held).toEqual(['StatefulSet db/single: no Ready pod outside zone zone-a: its data does not live on elsewhere, nothing is deleted']);
  });

  test('a StatefulSet pinned to the lost zone is left alone: its pods would only wait there again', () => {
    const pinned = statefulSet('ingester-zone-a', 3, '1');
    const parts = { ...pinned, workload: { ...pinned.workload, pinnedTo: 'zone-a' } };
    const plan = planRecovery(input([parts]));
    expect(plan.delete).toEqual([]);
    expect(plan.status.held).toEqual(['StatefulSet db/ingester-zone-a: its pods are pinned to zone zone-a: they cannot come back ' +
      'in another zone, so nothing is deleted (replace the zone in the topology: docs/runbooks/zone-lost.md)']);
  });

  /** Loki's ingesters: a StatefulSet per zone, `replicas` pods pinned there with the stand-in term, a zone group. */
  function perZoneGroup(replicas: number, atOnce: string, group: string | null = 'ingester') {
    return ZONES.map((zone) => {
      const name = `ingester-${zone}`;
      const pods: RecoveryPod[] = [];
      const claims: RecoveryClaim[] = [];
      for (let i = 0; i < replicas; i++) {
        const ready = zone !== 'zone-a';
        const pod = `${name}-${i}`;
        pods.push({ namespace: 'db', name: pod, uid: `${pod}-u`, statefulSet: name, zone, scheduled: true, ready });
        claims.push({ namespace: 'db', name: `data-${name}-${i}`, zone, deleting: false });
      }
      const workload: RecoveryWorkload = {
        namespace: 'db',
        name,
        replicas,
        atOnce,
        claimTemplates: ['data'],
        pinnedTo: zone,
        standIn: true,
        zoneGroup: group ?? undefined,
      };
      return { workload, pods, claims };
    });
  }

  test('a zone group\'s StatefulSet pinned to the lost zone with a stand-in term comes back, all at once if it says so', () => {
    const plan = planRecovery(input(perZoneGroup(2, '2')));
    expect(plan.delete.map((d) => [d.pod, d.claims])).toEqual([
      ['ingester-zone-a-0', ['data-ingester-zone-a-0']],
      ['ingester-zone-a-1', ['data-ingester-zone-a-1']],
    ]);
    expect(plan.status.held).toEqual([]);
    // one at a time when it says 1
    expect(planRecovery(input(perZoneGroup(2, '1'))).delete.map((d) => d.pod)).toEqual(['ingester-zone-a-0']);
  });

  test('a zone group with no Ready pod outside the lost zone, or a stand-in with no zone group: held, nothing deleted', () => {
    const group = perZoneGroup(2, '2');
    const allDown = group.flatMap((g) => g.pods).map((p) => ({ ...p, ready: false }));
    const down = planRecovery(input(group, { pods: allDown }));
    expect(down.delete).toEqual([]);
    expect(down.status.held).toContain('StatefulSet db/ingester-zone-a: no Ready pod of its zone group ingester outside zone zone-a: ' +
      'its data does not live on elsewhere, nothing is deleted');
    const loose = planRecovery(input(perZoneGroup(2, '1', null)));
    expect(loose.delete).toEqual([]);
    expect(loose.status.held).toEqual(['StatefulSet db/ingester-zone-a: its pods are pinned to zone zone-a with a stand-in term, but it is ' +
      'in no zone group (cdk8s-zones.dev/zone-group): where its data lives on is unknown, so nothing is deleted']);
    // a zone group's StatefulSet may not bring back more than it has
    const tooMany = planRecovery(input(perZoneGroup(2, '3')));
    expect(tooMany.delete).toEqual([]);
    expect(tooMany.status.held).toContain('StatefulSet db/ingester-zone-a: cdk8s-zones.dev/lost-zone-recovery 3 must be at most its replicas (2)');
  });

  test('a bad opt-in is held with the rule it breaks', () => {
    const plan = planRecovery(input([statefulSet('a', 3, '3'), statefulSet('b', 3, 'two')]));
    expect(plan.delete).toEqual([]);
    expect(plan.status.held).toEqual([
      'StatefulSet db/a: cdk8s-zones.dev/lost-zone-recovery 3 must be below its replicas (3): at least one replica must hold the data while the others come back empty',
      'StatefulSet db/b: cdk8s-zones.dev/lost-zone-recovery "two" must be a whole number of pods, at least 1: the most of its pods brought back at once',
    ]);
  });

  test('a pod made again on its old claim still going is deleted once more, so it gets a new claim', () => {
    const sts = statefulSet('redis', 3, '1');
    const first = planRecovery(input([sts]));
    const pods = [{ ...sts.pods[0], uid: 'redis-0-uid1', zone: undefined, scheduled: false, ready: false }, ...sts.pods.slice(1)];
    const claims = sts.claims.map((c) => (c.name === 'data-redis-0' ? { ...c, deleting: true } : c));
    const plan = planRecovery(input([sts], { pods, claims, previous: first.status }));
    expect(plan.delete).toEqual([{ namespace: 'db', statefulSet: 'redis', pod: 'redis-0', uid: 'redis-0-uid1', claims: [] }]);
    expect(plan.status.recovered.map((r) => r.uid)).toEqual(['redis-0-uid0', 'redis-0-uid1']);
  });

  test('a pod recorded but not gone yet (a restart between the record and the deletion) is deleted again, recorded once', () => {
    const sts = statefulSet('redis', 3, '1');
    const first = planRecovery(input([sts]));
    const again = planRecovery(input([sts], { previous: first.status }));
    expect(again.delete).toEqual(first.delete);
    expect(again.status.recovered).toEqual(first.status.recovered);
  });
});

describe('properties over random clusters, stepped through time', () => {
  /** A pod the StatefulSet controller made again after a deletion (the first uid of each ends in uid0). */
  const madeAgain = (p: RecoveryPod) => !p.uid.endsWith('uid0');
  const claimName = (pod: string) => `data-${pod}`;
  const claimOf = (namespace: string, pod: string, zone: string | undefined): RecoveryClaim =>
    ({ namespace, name: claimName(pod), zone, deleting: false });

  /** The cluster: the plan's deletions carried out, the StatefulSet controller and the scheduler played. */
  class World {
    claims: RecoveryClaim[];
    status: LostZoneRecoveryStatus | undefined;
    now = T0;
    private made = 0;
    /** Pods deleted that the StatefulSet controller makes again at the next settle but one (it lags a step). */
    private unmade: RecoveryPod[] = [];
    private unmadeLastStep: RecoveryPod[] = [];

    constructor(readonly workloads: RecoveryWorkload[], public pods: RecoveryPod[], readonly answeringSteps: number) {
      this.claims = pods.map((p) => claimOf(p.namespace, p.name, p.zone));
    }

    input(step: number): RecoveryInput {
      const nodes = silentA.map((n) => (n.zone === 'zone-a' ? { ...n, answers: step < this.answeringSteps } : n));
      const { workloads, pods, claims, status: previous, now: nowMs } = this;
      return { zone: 'zone-a', nodes, workloads, pods, claims, volumesInZone: 1, previous, nowMs };
    }

    /**
     * Carries the plan out; `race`: the pod is made again before its old claim is gone; `zone`: where it lands; `lag`:
     * the pod is made again only after the next step's plan.
     */
    apply(plan: RecoveryPlan, race: boolean, zone: string, lag = false): void {
      this.status = plan.status;
      for (const d of plan.delete) {
        const name = claimName(d.pod);
        this.claims = this.claims.map((c) => (d.claims.includes(c.name) ? { ...c, deleting: true } : c));
        const onOldClaim = race && this.claims.some((c) => c.name === name && c.deleting);
        if (!onOldClaim) {
          this.claims = this.claims.filter((c) => c.name !== name || !c.deleting);
          if (!this.claims.some((c) => c.name === name)) this.claims.push(claimOf(d.namespace, d.pod, zone));
        }
        const landed = onOldClaim ? undefined : this.claims.find((c) => c.name === name)!.zone;
        const again = { uid: `${d.pod}-uid${++this.made}`, ready: false, scheduled: !onOldClaim, zone: landed };
        const old = this.pods.find((p) => p.name === d.pod)!;
        this.pods = this.pods.filter((p) => p.name !== d.pod);
        if (lag) this.unmade.push({ ...old, ...again }); else this.pods.push({ ...old, ...again });
      }
      this.now += 5000;
    }

    /** Pods made again and scheduled outside the lost zone become Ready, each when `starts()`. */
    settle(starts: () => boolean): void {
      this.pods.push(...this.unmadeLastStep);
      this.unmadeLastStep = this.unmade;
      this.unmade = [];
      const startsNow = (p: RecoveryPod) => p.scheduled && p.zone !== 'zone-a' && !p.ready && madeAgain(p) && starts();
      this.pods = this.pods.map((p) => (startsNow(p) ? { ...p, ready: true } : p));
    }
  }

  const clusters = fc.array(fc.record({
    replicas: fc.integer({ min: 2, max: 7 }),
    atOnce: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 6 }).map(String), weight: 9 },
      { arbitrary: fc.constant('x'), weight: 1 },
    ),
    zones: fc.array(fc.constantFrom(...ZONES), { minLength: 7, maxLength: 7 }),
    readyOutside: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
  }), { minLength: 1, maxLength: 3 });
  // each step: whether a pod made again races its old claim, where it lands, whether those made again start
  const moment = fc.tuple(fc.boolean(), fc.constantFrom('zone-b', 'zone-c'), fc.boolean(), fc.boolean());
  const timelines = fc.array(moment, { minLength: 30, maxLength: 30 });

  // a zone group (Loki's per-zone ingesters): one StatefulSet per zone, pinned there with a stand-in term
  const groups = fc.option(fc.record({
    replicas: fc.integer({ min: 1, max: 3 }),
    atOnce: fc.integer({ min: 1, max: 4 }).map(String),
    readyOutside: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  }), { nil: undefined });

  type ClusterSpec = { replicas: number; atOnce: string; zones: string[]; readyOutside: boolean[] };
  type GroupSpec = { replicas: number; atOnce: string; readyOutside: boolean[] };
  function worldOf(specs: readonly ClusterSpec[], answeringSteps: number, group?: GroupSpec): World {
    const workloads = specs.map(({ replicas, atOnce }, i): RecoveryWorkload => ({
      namespace: 'db', name: `s${i}`, replicas, atOnce, claimTemplates: ['data'],
    }));
    const pod = (sts: string, j: number, zone: string, ready: boolean): RecoveryPod => ({
      namespace: 'db', name: `${sts}-${j}`, uid: `${sts}-${j}-uid0`, statefulSet: sts, zone, scheduled: true, ready,
    });
    const pods = specs.flatMap((s, i) => Array.from({ length: s.replicas },
      (_, j) => pod(`s${i}`, j, s.zones[j], s.zones[j] !== 'zone-a' && s.readyOutside[j])));
    for (const [z, zone] of (group ? ZONES : []).entries()) {
      const { replicas, atOnce, readyOutside } = group!;
      workloads.push({
        namespace: 'db',
        name: `g-${zone}`,
        replicas,
        atOnce,
        claimTemplates: ['data'],
        pinnedTo: zone,
        standIn: true,
        zoneGroup: 'g',
      });
      pods.push(...Array.from({ length: replicas }, (_, j) => pod(`g-${zone}`, j, zone, zone !== 'zone-a' && readyOutside[z])));
    }
    return new World(workloads, pods, answeringSteps);
  }

  /** Whether `x`'s data lives on outside zone-a: its own Ready pods, or its zone group's others'. */
  const hasCopy = (w: World, x: RecoveryWorkload) => w.pods.some((p) => p.ready && (x.zoneGroup === undefined
    ? p.statefulSet === x.name
    : p.statefulSet !== x.name && w.workloads.some((o) => o.name === p.statefulSet && o.zoneGroup === x.zoneGroup)));

  test('never while the zone answers, only the lost zone\'s pods, never past atOnce, never without a copy elsewhere; all come back', () => {
    const answering = fc.integer({ min: 0, max: 3 });
    fc.assert(fc.property(clusters, answering, timelines, groups, (specs, answeringSteps, timeline, group) => {
      const w = worldOf(specs, answeringSteps, group);
      const hadCopy = new Map(w.workloads.map((x) => [x.name, hasCopy(w, x)]));
      timeline.forEach(([race, zone, starts, lag], step) => {
        const plan = planRecovery(w.input(step));
        if (step < answeringSteps) expect(plan.delete).toEqual([]);
        for (const d of plan.delete) {
          const pod = w.pods.find((p) => p.name === d.pod)!;
          const claimZone = w.claims.find((c) => c.name === claimName(d.pod))?.zone;
          const inLostZone = pod.zone === 'zone-a' || (pod.zone === undefined && claimZone === 'zone-a');
          expect(inLostZone || !pod.scheduled).toBe(true);
          expect(hadCopy.get(d.statefulSet)).toBe(true);
        }
        w.apply(plan, race, zone, lag);
        for (const x of w.workloads) {
          // deleted and not serving again (not made again yet, or not Ready), and its other pods not Ready
          const deleted = new Set(w.status!.recovered.filter((r) => r.statefulSet === x.name).map((r) => r.pod));
          const serving = (name: string) => w.pods.some((p) => p.name === name && p.ready);
          const recovering = [...deleted].filter((name) => !serving(name)).length;
          const notReadyElsewhere = w.pods.filter((p) => p.statefulSet === x.name && !p.ready && !deleted.has(p.name)
            && p.zone !== 'zone-a').length;
          if (recovering > 0) expect(recovering + notReadyElsewhere).toBeLessThanOrEqual(Number(x.atOnce));
        }
        w.settle(() => starts);
      });
      // given time, every lost pod of a StatefulSet with a valid opt-in and a copy elsewhere is back
      for (let i = 0; i < 60; i++) {
        w.apply(planRecovery(w.input(timeline.length + i)), false, 'zone-b');
        w.settle(() => true);
      }
      for (const x of w.workloads) {
        const most = x.zoneGroup === undefined ? x.replicas - 1 : x.replicas;
        const valid = /^[0-9]+$/.test(x.atOnce!) && Number(x.atOnce) <= most;
        const own = w.pods.filter((p) => p.statefulSet === x.name);
        const stuckElsewhere = own.some((p) => !p.ready && p.zone !== 'zone-a' && !madeAgain(p));
        if (valid && hadCopy.get(x.name) && !stuckElsewhere) expect(own.filter((p) => p.zone === 'zone-a')).toEqual([]);
        const brought = w.status!.recovered.filter((r) => r.statefulSet === x.name);
        if (!valid || !hadCopy.get(x.name)) expect(brought).toEqual([]);
      }
    }), { numRuns: 300 });
  });
});
