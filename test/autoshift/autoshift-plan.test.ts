/**
 * The autoshift's decisions (src/autoshift/autoshift-plan.ts): scenarios of one zone going and coming back, practice
 * runs, and the rules that hold a shift back; then properties over random timelines of signals, shifts and
 * fail-safe verdicts, run through the plan step by step as the controller runs it (each status fed to the next).
 */
import fc from 'fast-check';
import { AutoshiftInput, AutoshiftPlan, planAutoshift, ShiftInForce } from '../../src/autoshift/autoshift-plan';
import { ZoneAutoshiftSpec, ZoneAutoshiftStatus } from '../../src/contract/zone-autoshift';

const T0 = Date.parse('2026-11-30T12:00:00Z'); // a Monday
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const SPEC: ZoneAutoshiftSpec = {
  dryRun: false,
  nodes: { unhealthyShare: 0.5, leaseStaleSeconds: 40 },
  impairedForSeconds: 20,
  recoveredForSeconds: 60,
  minDurationSeconds: 120,
  maxDurationSeconds: 3600,
};

/** The cluster as the controller sees it, stepped through time; the plan's shifts are created and deleted in it. */
class World {
  now = T0;
  status: ZoneAutoshiftStatus | undefined;
  shifts: ShiftInForce[] = [];
  impaired = new Map<string, string[]>();
  lastServing = new Map<string, string[]>();
  suffering: string[] = [];
  silent = new Set<string>();
  drills: string[] = [];
  plans: AutoshiftPlan[] = [];

  constructor(readonly spec: ZoneAutoshiftSpec = SPEC, readonly createdMs = T0) {}

  input(): AutoshiftInput {
    return {
      policy: 'zones',
      spec: this.spec,
      createdMs: this.createdMs,
      nowMs: this.now,
      zones: ZONES,
      signals: this.impaired,
      previous: this.status,
      shiftsInForce: this.shifts,
      lastServingIn: (zone) => this.lastServing.get(zone) ?? [],
      practiceOutcome: () => this.suffering,
      silentZones: this.silent,
      drills: this.drills,
    };
  }

  /** One evaluation: the plan, applied as the controller applies it. */
  step(seconds = 5): AutoshiftPlan {
    this.now += seconds * 1000;
    // an expired shift is no longer in force (the zone-shift reconciler ends it)
    this.shifts = this.shifts.filter((s) => Date.parse((s as any).expiresAt ?? '9999-01-01') > this.now);
    const plan = planAutoshift(this.input());
    this.shifts = this.shifts.filter((s) => !plan.end.includes(s.name))
      // a shift whose zone is declared lost leaves the policy (its labels go): a person's from then on
      .map((s) => (s.name === plan.declareLost ? { ...s, cause: undefined } : s));
    if (plan.start) {
      const { name, zone, cause, expiresAt, reason } = plan.start;
      const createdAt = new Date(this.now).toISOString();
      this.shifts.push({ name, zone, cause, createdAt, reason, expiresAt } as ShiftInForce);
    }
    this.status = plan.status;
    this.plans.push(plan);
    return plan;
  }

  run(seconds: number, every = 5): void {
    for (let t = 0; t < seconds; t += every) this.step(every);
  }

  events(): string[] {
    return this.plans.flatMap((p) => p.events.map((e) => e.reason));
  }
}

describe('autoshift', () => {
  test('a zone impaired for impairedForSeconds is shifted; it comes back once healthy for recoveredForSeconds and past minDuration', () => {
    const w = new World();
    w.step();
    expect(w.status).toMatchObject({ phase: 'Watching', message: 'watching 3 zones: all healthy' });
    w.impaired.set('zone-b', ['2 of 3 nodes not answering (NotReady: b1, b2)']);
    // first seen at the next evaluation: 15 s after it, not shifted yet; 20 s after it, shifted
    w.run(20);
    expect(w.shifts).toEqual([]);
    expect(w.status!.message).toMatch(/^zone zone-b looks impaired since .*; shifted once that lasts impairedForSeconds 20$/);
    w.run(5);
    expect(w.shifts).toMatchObject([{ zone: 'zone-b', cause: 'autoshift' }]);
    const start = w.plans[w.plans.length - 1].start!;
    expect(start.name).toMatch(/^zones-autoshift-zone-b-[0-9a-z]+$/);
    expect(Date.parse(start.expiresAt) - w.now).toBe(3600 * 1000);
    expect(start.reason).toBe('impaired for 20 s: 2 of 3 nodes not answering (NotReady: b1, b2)');
    expect(w.status).toMatchObject({ phase: 'Shifted', active: { cause: 'autoshift', zone: 'zone-b', shift: start.name } });
    // healthy again 10 s later: the shift holds until minDuration (120 s) and 60 s of health
    w.run(10);
    w.impaired.clear();
    w.run(55);
    expect(w.shifts).toHaveLength(1);
    w.run(60);
    expect(w.shifts).toEqual([]);
    expect(w.status).toMatchObject({ phase: 'Watching', history: [{ zone: 'zone-b', outcome: 'Recovered', shift: start.name }] });
    expect(w.events()).toEqual(['ZoneImpaired', 'AutoshiftStarted', 'ZoneHealthy', 'AutoshiftRecovered']);
  });

  test('recoveredForSeconds 0 ends a shift only once the zone is healthy, never while it is still impaired', () => {
    const w = new World({ ...SPEC, impairedForSeconds: 0, recoveredForSeconds: 0, minDurationSeconds: 0 });
    w.impaired.set('zone-c', ['x']);
    w.run(30);
    expect(w.plans.filter((p) => p.start)).toHaveLength(1);
    expect(w.plans.flatMap((p) => p.end)).toEqual([]);
    w.impaired.clear();
    w.step();
    expect(w.shifts).toEqual([]);
    expect(w.status!.history).toMatchObject([{ zone: 'zone-c', outcome: 'Recovered' }]);
  });

  test('lostAfterSeconds: a zone impaired that long with none of its nodes answering is declared lost, and its shift handed over', () => {
    const w = new World({ ...SPEC, lostAfterSeconds: 600 });
    w.impaired.set('zone-b', ['3 of 3 nodes not answering']);
    w.silent.add('zone-b');
    // first seen impaired at the first evaluation (5 s in): declared lost 600 s after that, not before
    w.run(600);
    expect(w.shifts).toMatchObject([{ zone: 'zone-b', cause: 'autoshift' }]);
    expect(w.plans.some((p) => p.declareLost)).toBe(false);
    w.step();
    const plan = w.plans[w.plans.length - 1];
    expect(plan.declareLost).toBe(w.shifts[0].name);
    expect(plan.end).toEqual([]);
    expect(w.status!.history[0]).toMatchObject({ zone: 'zone-b', outcome: 'DeclaredLost' });
    expect(w.status!.history[0].message).toMatch(/^zone zone-b impaired for 600 s with none of its nodes answering: its ZoneShift .* is a person's now/);
    // and, the zone still impaired, nothing else starts: it is out of service already
    expect(plan.events.map((e) => [e.type, e.reason])).toEqual([['Warning', 'AutoshiftDeclaredLost'], ['Warning', 'AutoshiftHeld']]);
    expect(w.status!.message).toMatch(/^zone zone-b looks impaired but is not shifted: zone zone-b is already out of service \(ZoneShift /);
    // from then on the shift is a person's: the policy neither ends it nor starts another, the zone impaired or not
    w.run(600);
    w.impaired.clear();
    w.silent.clear();
    w.run(600);
    expect(w.shifts).toHaveLength(1);
    expect(w.plans.slice(-240).every((p) => !p.start && p.end.length === 0 && !p.declareLost)).toBe(true);
  });

  test('lostAfterSeconds: a zone impaired while its nodes answer (pods, Prometheus) is never declared lost', () => {
    const w = new World({ ...SPEC, lostAfterSeconds: 600 });
    w.impaired.set('zone-b', ['4 of 4 pods failing readiness']);
    w.run(1800);
    expect(w.shifts).toMatchObject([{ zone: 'zone-b', cause: 'autoshift' }]);
    expect(w.plans.some((p) => p.declareLost)).toBe(false);
  });

  test('a zone that flaps within impairedForSeconds is never shifted', () => {
    const w = new World();
    for (let i = 0; i < 20; i++) {
      if (i % 4 === 0) w.impaired.set('zone-a', ['flapping']); else if (i % 4 === 3) w.impaired.clear();
      w.step();
    }
    expect(w.plans.some((p) => p.start)).toBe(false);
  });

  test('two zones impaired at once: none is shifted, and the status says why', () => {
    const w = new World();
    w.impaired.set('zone-a', ['x']).set('zone-b', ['y']);
    w.run(60);
    expect(w.shifts).toEqual([]);
    expect(w.status!.message).toBe('zones zone-a, zone-b all look impaired: shifting one would not help, so none is shifted');
    expect(w.events().filter((e) => e === 'AutoshiftHeld')).toHaveLength(1);
  });

  test('one zone at a time: another shift in force (a person\'s) holds the autoshift back', () => {
    const w = new World();
    w.shifts.push({ name: 'by-hand', zone: 'zone-c', createdAt: new Date(T0).toISOString() });
    w.impaired.set('zone-a', ['x']);
    w.run(60);
    expect(w.shifts.map((s) => s.name)).toEqual(['by-hand']);
    expect(w.status!.message).toBe('zone zone-a looks impaired but is not shifted: zone zone-c is out of service (ZoneShift by-hand): one zone at a time');
  });

  test('a zone holding the last serving pods of a workload is not shifted', () => {
    const w = new World();
    w.lastServing.set('zone-a', ['Deployment/api in shop']);
    w.impaired.set('zone-a', ['x']);
    w.run(60);
    expect(w.shifts).toEqual([]);
    expect(w.status!.message).toContain('zone zone-a holds the last serving pods of Deployment/api in shop');
  });

  test('nothing starts in a blocked window or on a blocked date', () => {
    const windowed = new World({ ...SPEC, blockedWindows: ['Mon:11:00-Mon:13:00'] });
    windowed.impaired.set('zone-a', ['x']);
    windowed.run(60);
    expect(windowed.shifts).toEqual([]);
    expect(windowed.status!.message).toContain('blocked window Mon:11:00-Mon:13:00 (UTC): nothing starts');
    const dated = new World({ ...SPEC, blockedDates: ['2026-11-30'] });
    dated.impaired.set('zone-a', ['x']);
    dated.run(60);
    expect(dated.status!.message).toContain('blocked date 2026-11-30');
  });

  test('maxDuration ends the shift; the zone is not shifted again until it recovers; a person\'s cancel is kept too', () => {
    const w = new World({ ...SPEC, maxDurationSeconds: 300 });
    w.impaired.set('zone-a', ['x']);
    w.run(30);
    expect(w.shifts).toHaveLength(1);
    w.run(300);
    expect(w.status!.history[0]).toMatchObject({ zone: 'zone-a', outcome: 'MaxDuration' });
    w.run(120);
    expect(w.shifts).toEqual([]);
    expect(w.status!.message).toBe('zone zone-a is still impaired since its autoshift ended (MaxDuration): a person decides');
    // recovered, then impaired anew: shifted again
    w.impaired.clear();
    w.step();
    w.impaired.set('zone-a', ['y']);
    w.run(30);
    expect(w.shifts).toHaveLength(1);
    // a person deletes it: Cancelled, and not started again while the impairment lasts
    w.shifts = [];
    w.run(60);
    expect(w.status!.history[0]).toMatchObject({ outcome: 'Cancelled' });
    expect(w.shifts).toEqual([]);
  });

  test('dry run: the same decisions in the status and Events, no shift created or deleted', () => {
    const w = new World({ ...SPEC, dryRun: true });
    w.impaired.set('zone-b', ['x']);
    w.run(30);
    expect(w.plans.every((p) => p.start === undefined && p.end.length === 0)).toBe(true);
    expect(w.status).toMatchObject({ phase: 'Shifted', active: { zone: 'zone-b', dryRun: true } });
    expect(w.status!.active!.shift).toBeUndefined();
    w.impaired.clear();
    w.run(200);
    expect(w.status).toMatchObject({ phase: 'Watching', history: [{ zone: 'zone-b', outcome: 'Recovered', dryRun: true }] });
    expect(w.plans.flatMap((p) => p.events).find((e) => e.reason === 'AutoshiftStarted')!.message).toMatch(/^dry run: autoshift of zone zone-b started/);
  });

  test('a restarted controller (status lost) adopts its own shift in force and ends it as the plan says', () => {
    const w = new World();
    w.impaired.set('zone-a', ['x']);
    w.run(25);
    w.status = undefined;
    w.impaired.clear();
    w.step();
    expect(w.status!.active).toMatchObject({ zone: 'zone-a', cause: 'autoshift', shift: w.shifts[0].name });
    w.run(200);
    expect(w.shifts).toEqual([]);
  });
});

describe('practice runs', () => {
  const PRACTICE = { ...SPEC, practiceRuns: { everySeconds: 600, durationSeconds: 120 } };

  test('each zone in turn, every everySeconds, for durationSeconds; Succeeded when nothing suffered', () => {
    const w = new World(PRACTICE);
    w.step();
    expect(w.status!.nextPractice).toEqual({ at: new Date(T0 + 600_000).toISOString(), zone: 'zone-a' });
    const practised: string[] = [];
    for (let i = 0; i < 1850 / 5; i++) {
      const plan = w.step();
      if (plan.start) practised.push(`${plan.start.zone}@${(w.now - T0) / 1000}`);
    }
    expect(practised).toEqual(['zone-a@600', 'zone-b@1200', 'zone-c@1800']);
    expect(w.status!.history.map((r) => [r.zone, r.outcome])).toEqual([['zone-b', 'Succeeded'], ['zone-a', 'Succeeded']]);
    expect(w.status!.active).toMatchObject({ cause: 'practice', zone: 'zone-c' });
    expect(w.status!.nextPractice).toEqual({ at: new Date(T0 + 2400_000).toISOString(), zone: 'zone-a' });
  });

  test('a workload that suffers ends the run early as Failed, naming it', () => {
    const w = new World(PRACTICE);
    w.run(600);
    expect(w.shifts).toMatchObject([{ cause: 'practice', zone: 'zone-a' }]);
    w.suffering = ['Deployment/api in shop: 2 of 2 pods outside zone-a failing readiness'];
    w.step();
    expect(w.shifts).toEqual([]);
    expect(w.status!.history[0]).toMatchObject({
      cause: 'practice',
      zone: 'zone-a',
      outcome: 'Failed',
      message: 'suffered while zone-a was out of service: Deployment/api in shop: 2 of 2 pods outside zone-a failing readiness',
    });
    expect(w.plans[w.plans.length - 1].events.map((e) => [e.type, e.reason])).toEqual([['Warning', 'PracticeRunFailed']]);
  });

  test('a run waits while a zone is impaired, a shift holds or a window blocks it, and says so', () => {
    const w = new World({ ...PRACTICE, blockedWindows: ['Mon:12:05-Mon:12:20'] });
    w.run(600);
    expect(w.shifts).toEqual([]);
    expect(w.status!.nextPractice!.waiting).toBe('practice run of zone zone-a waits: blocked window Mon:12:05-Mon:12:20 (UTC): nothing starts');
    w.run(600);
    expect(w.shifts).toMatchObject([{ cause: 'practice', zone: 'zone-a' }]);
  });

  test('a run waits while a drill is under way (an outage or a drain: a second zone would go), and says so', () => {
    const w = new World(PRACTICE);
    w.drills = ['drain drill of zone-c'];
    w.run(700);
    expect(w.shifts).toEqual([]);
    expect(w.status!.nextPractice!.waiting).toBe('practice run of zone zone-a waits: a drill is under way (drain drill of zone-c)');
    w.drills = [];
    w.step();
    expect(w.shifts).toMatchObject([{ cause: 'practice', zone: 'zone-a' }]);
  });

  test('an impairment during a run interrupts it, and the autoshift takes over', () => {
    const w = new World(PRACTICE);
    w.run(605);
    w.impaired.set('zone-b', ['x']);
    w.step();
    expect(w.status!.history[0]).toMatchObject({ cause: 'practice', outcome: 'Interrupted' });
    w.run(25);
    expect(w.shifts).toMatchObject([{ cause: 'autoshift', zone: 'zone-b' }]);
  });
});

describe('properties over random timelines', () => {
  /** A zone `weight` times in `weight + nothing`, else undefined. */
  const sometimes = (weight: number, nothing: number) => fc.oneof(
    { arbitrary: fc.constant(undefined), weight: nothing },
    { arbitrary: fc.constantFrom(...ZONES), weight },
  );
  const steps = fc.array(fc.record({
    impaired: fc.subarray(ZONES),
    personShift: sometimes(1, 15),
    personEnds: fc.boolean(),
    cancel: fc.boolean(),
    lastServing: sometimes(1, 3),
    suffering: fc.boolean(),
    silent: fc.boolean(),
    drilling: fc.boolean(),
    seconds: fc.integer({ min: 1, max: 90 }),
  }), { maxLength: 120 });
  const specs = fc.record({
    dryRun: fc.boolean(),
    impairedForSeconds: fc.integer({ min: 0, max: 120 }),
    recoveredForSeconds: fc.integer({ min: 0, max: 300 }),
    minDurationSeconds: fc.integer({ min: 0, max: 300 }),
    maxDurationSeconds: fc.integer({ min: 301, max: 3600 }),
    practice: fc.boolean(),
    lostAfterSeconds: fc.option(fc.constant(300), { nil: undefined }),
  });

  test('one zone at a time, never a last-serving zone, hysteresis and durations kept, a dry run changes nothing', () => {
    fc.assert(fc.property(specs, steps, (s, timeline) => {
      const spec: ZoneAutoshiftSpec = {
        ...SPEC, ...s, ...(s.practice ? { practiceRuns: { everySeconds: 400, durationSeconds: 100 } } : {}),
      };
      const w = new World(spec);
      // when the plan first saw each zone impaired (the evaluation's time)
      const impairedSince = new Map<string, number>();
      for (const step of timeline) {
        w.impaired = new Map(step.impaired.map((z) => [z, ['x']]));
        w.lastServing = new Map(step.lastServing ? [[step.lastServing, ['W']]] : []);
        w.suffering = step.suffering ? ['W'] : [];
        w.silent = new Set(step.silent ? step.impaired : []);
        w.drills = step.drilling ? ['drain drill of zone-a'] : [];
        if (step.cancel) w.shifts = w.shifts.filter((x) => x.cause === undefined);
        if (step.personEnds) w.shifts = w.shifts.filter((x) => x.name !== 'person');
        if (step.personShift && !w.shifts.some((x) => x.name === 'person')) {
          w.shifts.push({ name: 'person', zone: step.personShift, createdAt: new Date(w.now).toISOString() });
        }
        const before = [...w.shifts];
        const plan = w.step(step.seconds);
        for (const z of ZONES) if (!step.impaired.includes(z)) impairedSince.delete(z);
        for (const z of step.impaired) if (!impairedSince.has(z)) impairedSince.set(z, w.now);
        if (spec.dryRun) expect([plan.start, plan.end, plan.declareLost]).toEqual([undefined, [], undefined]);
        if (plan.declareLost) {
          // only this policy's autoshift, of a zone silent now and impaired for lostAfterSeconds
          const declared = before.find((x) => x.name === plan.declareLost)!;
          expect(declared.cause).toBe('autoshift');
          expect(w.silent.has(declared.zone)).toBe(true);
          expect(w.now - impairedSince.get(declared.zone)!).toBeGreaterThanOrEqual(spec.lostAfterSeconds! * 1000);
        }
        if (plan.start) {
          // nothing else in force, the zone not holding a last serving pod, not blocked
          expect(before.filter((x) => !plan.end.includes(x.name))).toEqual([]);
          expect(plan.start.zone).not.toBe(step.lastServing);
          if (plan.start.cause === 'autoshift') {
            expect(step.impaired).toEqual([plan.start.zone]);
            expect(w.now - impairedSince.get(plan.start.zone)!).toBeGreaterThanOrEqual(spec.impairedForSeconds * 1000);
          } else {
            expect(step.impaired).toEqual([]);
            expect(step.drilling).toBe(false);
          }
        }
        for (const ended of plan.end) {
          const run = plan.status.history[0];
          expect(run.shift).toBe(ended);
          if (run.outcome === 'Recovered') {
            expect(w.now - Date.parse(run.startedAt)).toBeGreaterThanOrEqual(spec.minDurationSeconds * 1000);
            expect(step.impaired).not.toContain(run.zone);
          }
        }
        expect(w.shifts.filter((x) => x.cause !== undefined).length).toBeLessThanOrEqual(1);
        expect(plan.status.history.length).toBeLessThanOrEqual(20);
      }
    }), { numRuns: 300 });
  });
});
