/**
 * The autoshift's decisions (pure): given the policy, what the signals say of each zone now, the shifts in force and
 * the status written last time, what to start, what to end, what to report. Every decision reads the cluster and
 * the status as they are, so a controller restarted mid-shift decides the same. The rules:
 * - a zone is shifted once its signals have held `impairedForSeconds` without a break; the shift ends once the zone
 *   has been healthy `recoveredForSeconds`, never before `minDurationSeconds`, by itself after `maxDurationSeconds`;
 * - never more than one zone out of service at once: no autoshift while any other shift holds, none while two
 *   zones look impaired (the cause is then rarely a zone);
 * - never a zone that holds the last serving pods of a workload or Service (the fail-safe's rule);
 * - a zone whose autoshift ran out (`MaxDuration`) or that a person ended is not shifted again until it recovers;
 * - nothing starts in a blocked window; a dry run reports each decision and starts nothing;
 * - practice runs shift each zone in turn every `everySeconds` for `durationSeconds` when all zones are healthy,
 *   nothing else is shifted and no drill is under way, and end early, reporting the workloads that suffered, when
 *   the outcome check fails.
 */
import { ZoneSignals } from './zone-signals';
import { blockedBy } from '../contract/blocked-windows';
import {
  AutoshiftRun, HISTORY_LENGTH, ShiftCause, ZoneAutoshiftSpec, ZoneAutoshiftStatus, ZoneWatch,
} from '../contract/zone-autoshift';
import { zoneSlug } from '../kubernetes/zone-slug';

/** A ZoneShift in force, as the plan reads it; `cause` only on the shifts this policy started. */
export interface ShiftInForce {
  readonly name: string;
  readonly zone: string;
  readonly cause?: ShiftCause;
  readonly createdAt: string;
  readonly reason?: string;
}

export interface AutoshiftInput {
  /** The policy's name (the shifts it starts are named after it). */
  readonly policy: string;
  readonly spec: ZoneAutoshiftSpec;
  /** When the policy was created (ms): the first practice run is due one interval later. */
  readonly createdMs: number;
  readonly nowMs: number;
  /** The cluster's zones (those with nodes). */
  readonly zones: readonly string[];
  /** The zones that look impaired now, each with why. */
  readonly signals: ZoneSignals;
  readonly previous?: Partial<ZoneAutoshiftStatus>;
  readonly shiftsInForce: readonly ShiftInForce[];
  /** The workloads and Services whose last serving pods are in `zone` (the fail-safe would keep them). */
  readonly lastServingIn: (zone: string) => readonly string[];
  /** A practice run's outcome check while `zone` is shifted: what suffered (empty: nothing). */
  readonly practiceOutcome: (zone: string) => readonly string[];
  /** The zones none of whose nodes answers (`nodeAnswers`): only such a zone is ever declared lost. */
  readonly silentZones: ReadonlySet<string>;
  /** The drills under way, in words (`drillsUnderWay`): no practice run starts during one. */
  readonly drills: readonly string[];
}

/** A ZoneShift to create. */
export interface ShiftToStart {
  readonly name: string;
  readonly zone: string;
  readonly cause: ShiftCause;
  readonly expiresAt: string;
  readonly reason: string;
}

export interface AutoshiftEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface AutoshiftPlan {
  readonly status: ZoneAutoshiftStatus;
  readonly start?: ShiftToStart;
  /** The ZoneShifts to delete (their finalizer undoes them). */
  readonly end: readonly string[];
  /** The ZoneShift whose zone to declare lost (`spec.lost`), handed to people: the policy no longer ends it. */
  readonly declareLost?: string;
  readonly events: readonly AutoshiftEvent[];
}

/** The plan's working state, built up step by step. */
interface Draft {
  readonly input: AutoshiftInput;
  readonly zones: ZoneWatch[];
  active?: AutoshiftRun;
  history: AutoshiftRun[];
  start?: ShiftToStart;
  end: string[];
  declareLost?: string;
  events: AutoshiftEvent[];
  /** Why nothing starts although a zone is impaired, or a practice run is due. */
  held?: string;
  /** The run in progress started in this plan. */
  startedNow?: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (time: string | undefined) => (time === undefined ? NaN : Date.parse(time));
const seconds = (s: number) => s * 1000;

/** What the policy does now. */
export function planAutoshift(input: AutoshiftInput): AutoshiftPlan {
  const draft: Draft = {
    input,
    zones: watchZones(input),
    active: currentRun(input),
    history: [...input.previous?.history ?? []],
    end: [],
    events: [],
  };
  zoneEvents(draft);
  endVanishedRun(draft);
  if (draft.active) decideOnActive(draft);
  if (!draft.active) decideStart(draft);
  const { start, declareLost: lost, events } = draft;
  return { status: statusOf(draft), start, end: draft.end, declareLost: lost, events };
}

/** Each zone's state now, and since when (kept from the last status while unchanged). */
function watchZones({ zones, signals, previous, nowMs }: AutoshiftInput): ZoneWatch[] {
  return [...zones].sort().map((zone) => {
    const impaired = signals.has(zone);
    const before = previous?.zones?.find((z) => z.zone === zone);
    const since = before && before.impaired === impaired && !Number.isNaN(ms(before.since)) ? before.since : iso(nowMs);
    return { zone, impaired, since, signals: [...signals.get(zone) ?? []] };
  });
}

function zoneEvents(draft: Draft): void {
  for (const zone of draft.zones) {
    const before = draft.input.previous?.zones?.find((z) => z.zone === zone.zone);
    if (zone.impaired && !before?.impaired) {
      draft.events.push({ type: 'Warning', reason: 'ZoneImpaired', message: `zone ${zone.zone} looks impaired: ${zone.signals.join('; ')}` });
    } else if (!zone.impaired && before?.impaired) {
      draft.events.push({ type: 'Normal', reason: 'ZoneHealthy', message: `zone ${zone.zone} looks healthy again` });
    }
  }
}

/** The run in progress: this policy's shift in force (or, in a dry run, the one the status pretends). */
function currentRun({ spec, previous, shiftsInForce }: AutoshiftInput): AutoshiftRun | undefined {
  if (spec.dryRun) return previous?.active?.dryRun ? previous.active : undefined;
  const own = shiftsInForce.find((s) => s.cause !== undefined);
  if (!own) return undefined;
  if (previous?.active?.shift === own.name) return previous.active;
  // the status missed it (written before a restart): the shift itself says what it is
  return { cause: own.cause!, zone: own.zone, shift: own.name, startedAt: own.createdAt, reason: own.reason ?? '' };
}

/** A run the status shows whose shift no longer holds: it ran its course, or a person ended it. */
function endVanishedRun(draft: Draft): void {
  const { previous, nowMs, spec } = draft.input;
  const before = previous?.active;
  if (!before || draft.active === before) return;
  const lasted = nowMs - ms(before.startedAt);
  const practised = before.cause === 'practice' && lasted >= seconds(spec.practiceRuns?.durationSeconds ?? Infinity) - 1000;
  if (practised) {
    finish(draft, before, 'Succeeded', keptServing(before.zone));
  } else if (lasted >= seconds(spec.maxDurationSeconds) - 1000) {
    finish(draft, before, 'MaxDuration', `still out of service after maxDurationSeconds ${spec.maxDurationSeconds}: ended; a person decides now`);
  } else if (before.dryRun) {
    finish(draft, before, 'Cancelled', 'the policy left its dry run: from now on it starts shifts');
  } else {
    finish(draft, before, 'Cancelled', `its ZoneShift ${before.shift} was deleted before the policy ended it`);
  }
}

/** Ends the run in progress if its time has come (recovered, practice over or failed, interrupted). */
function decideOnActive(draft: Draft): void {
  const run = draft.active!;
  const { nowMs, spec } = draft.input;
  const lasted = nowMs - ms(run.startedAt);
  const zone = draft.zones.find((z) => z.zone === run.zone);
  if (run.cause === 'autoshift') {
    if (run.dryRun && lasted >= seconds(spec.maxDurationSeconds)) {
      return end(draft, 'MaxDuration', `still out of service after maxDurationSeconds ${spec.maxDurationSeconds}`);
    }
    if (zone?.impaired && lostFor(draft, zone)) return declareLost(draft, zone);
    // a zone still impaired (or no longer seen) has not recovered, whatever recoveredForSeconds is (0 included)
    if (!zone || zone.impaired) return;
    const healthyFor = nowMs - ms(zone.since);
    if (healthyFor >= seconds(spec.recoveredForSeconds) && lasted >= seconds(spec.minDurationSeconds)) {
      end(draft, 'Recovered', `zone ${run.zone} healthy for ${Math.round(healthyFor / 1000)} s`);
    }
    return;
  }
  const suffered = draft.input.practiceOutcome(run.zone);
  const impaired = draft.zones.filter((z) => z.impaired);
  if (suffered.length > 0) return end(draft, 'Failed', `suffered while ${run.zone} was out of service: ${suffered.join('; ')}`);
  if (impaired.length > 0) {
    return end(draft, 'Interrupted', `zone ${impaired.map((z) => z.zone).join(', ')} looks impaired: ${impaired.flatMap((z) => z.signals).join('; ')}`);
  }
  if (run.dryRun && lasted >= seconds(spec.practiceRuns?.durationSeconds ?? 0)) {
    end(draft, 'Succeeded', keptServing(run.zone));
  }
}

/** Whether `zone` counts as lost: impaired for lostAfterSeconds, and none of its nodes answering now. */
function lostFor(draft: Draft, zone: ZoneWatch): boolean {
  const { spec, nowMs, silentZones } = draft.input;
  const lostAfter = spec.lostAfterSeconds;
  return lostAfter !== undefined && silentZones.has(zone.zone) && nowMs - ms(zone.since) >= seconds(lostAfter);
}

/** Declares the run's zone lost: its shift gets `spec.lost` and is a person's from now on (the run ends). */
function declareLost(draft: Draft, zone: ZoneWatch): void {
  const run = draft.active!;
  const forSeconds = Math.round((draft.input.nowMs - ms(zone.since)) / 1000);
  const handed = run.shift ? `: its ZoneShift ${run.shift} is a person's now, and the lost-zone recovery acts on it` : '';
  finish(draft, run, 'DeclaredLost', `zone ${zone.zone} impaired for ${forSeconds} s with none of its nodes answering${handed}`);
  draft.declareLost = run.shift;
  draft.active = undefined;
}

function end(draft: Draft, outcome: NonNullable<AutoshiftRun['outcome']>, message: string): void {
  const run = draft.active!;
  if (run.shift) draft.end.push(run.shift);
  finish(draft, run, outcome, message);
  draft.active = undefined;
}

/** Records `run` as ended, with an Event. */
function finish(draft: Draft, run: AutoshiftRun, outcome: NonNullable<AutoshiftRun['outcome']>, message: string): void {
  const ended: AutoshiftRun = { ...run, endedAt: iso(draft.input.nowMs), outcome, message };
  draft.history = [ended, ...draft.history].slice(0, HISTORY_LENGTH);
  const what = run.cause === 'practice' ? 'PracticeRun' : 'Autoshift';
  const bad = outcome === 'Failed' || outcome === 'MaxDuration' || outcome === 'DeclaredLost';
  draft.events.push({
    type: bad ? 'Warning' : 'Normal',
    reason: `${what}${outcome}`,
    message: `${dry(run)}${run.cause} of zone ${run.zone} ended (${outcome}): ${message}`,
  });
}

const dry = (run: { dryRun?: boolean }) => (run.dryRun ? 'dry run: ' : '');
/** A practice run's success, in words. */
const keptServing = (zone: string) => `every workload kept serving while ${zone} was out of service`;

/** Starts an autoshift of the one impaired zone, or the practice run that is due, unless a rule holds it back. */
function decideStart(draft: Draft): void {
  const impaired = draft.zones.filter((z) => z.impaired);
  if (impaired.length > 0) return decideAutoshift(draft, impaired);
  decidePractice(draft);
}

/** Why nothing may start now (another shift in force, a blocked window), or undefined. */
function startHeldBy(draft: Draft, zone: string): string | undefined {
  const { input } = draft;
  const other = input.shiftsInForce.find((s) => !draft.end.includes(s.name));
  if (other) {
    return other.zone === zone ? `zone ${zone} is already out of service (ZoneShift ${other.name})`
      : `zone ${other.zone} is out of service (ZoneShift ${other.name}): one zone at a time`;
  }
  const blocked = blockedBy(input.spec.blockedWindows, input.spec.blockedDates, input.nowMs);
  if (blocked) return `${blocked}: nothing starts`;
  const last = input.lastServingIn(zone);
  if (last.length > 0) return `zone ${zone} holds the last serving pods of ${last.join(', ')}`;
  return undefined;
}

function decideAutoshift(draft: Draft, impaired: readonly ZoneWatch[]): void {
  const { nowMs, spec } = draft.input;
  if (impaired.length > 1) {
    return hold(draft, `zones ${impaired.map((z) => z.zone).join(', ')} all look impaired: shifting one would not help, so none is shifted`);
  }
  const zone = impaired[0];
  const heldFor = nowMs - ms(zone.since);
  if (heldFor < seconds(spec.impairedForSeconds)) return;
  const gaveUp = draft.history.find((r) => r.zone === zone.zone && (r.outcome === 'MaxDuration' || r.outcome === 'Cancelled')
    && ms(r.endedAt) >= ms(zone.since));
  if (gaveUp) return hold(draft, `zone ${zone.zone} is still impaired since its ${gaveUp.cause} ended (${gaveUp.outcome}): a person decides`);
  const held = startHeldBy(draft, zone.zone);
  if (held) return hold(draft, `zone ${zone.zone} looks impaired but is not shifted: ${held}`);
  const reason = `impaired for ${Math.round(heldFor / 1000)} s: ${zone.signals.join('; ')}`;
  begin(draft, 'autoshift', zone.zone, nowMs + seconds(spec.maxDurationSeconds), reason);
}

function decidePractice(draft: Draft): void {
  const { nowMs, spec } = draft.input;
  const practice = spec.practiceRuns;
  if (!practice) return;
  const next = nextPractice(draft);
  if (next === undefined || nowMs < ms(next.at)) return;
  const { drills } = draft.input;
  if (drills.length > 0) return hold(draft, `practice run of zone ${next.zone} waits: a drill is under way (${drills.join(', ')})`);
  const held = startHeldBy(draft, next.zone);
  if (held) return hold(draft, `practice run of zone ${next.zone} waits: ${held}`);
  begin(draft, 'practice', next.zone, nowMs + seconds(practice.durationSeconds), `practice run, scheduled every ${practice.everySeconds} s`);
}

/** The practice run due next: when, and the zone after the last one practised. */
function nextPractice(draft: Draft): { at: string; zone: string } | undefined {
  const { spec, previous, createdMs, zones } = draft.input;
  const practice = spec.practiceRuns;
  if (!practice || zones.length === 0) return undefined;
  const sorted = [...zones].sort();
  const latest = draft.active?.cause === 'practice' ? draft.active : draft.history.find((r) => r.cause === 'practice');
  // a zone gone from the cluster: indexOf is -1, and the turn starts again at the first zone
  const zone = latest ? sorted[(sorted.indexOf(latest.zone) + 1) % sorted.length] : sorted[0];
  const at = previous?.nextPractice?.at ?? iso(createdMs + seconds(practice.everySeconds));
  if (!draft.startedNow || draft.active?.cause !== 'practice') return { at, zone };
  // the run that starts now moves the schedule on by one interval (from now, if runs were held back past it)
  const following = ms(at) + seconds(practice.everySeconds);
  const { nowMs } = draft.input;
  return { at: iso(following > nowMs ? following : nowMs + seconds(practice.everySeconds)), zone };
}

function hold(draft: Draft, why: string): void {
  draft.held = why;
  const before = draft.input.previous?.message;
  if (before !== why) draft.events.push({ type: 'Warning', reason: 'AutoshiftHeld', message: why });
}

function begin(draft: Draft, cause: ShiftCause, zone: string, expiresMs: number, reason: string): void {
  const { spec, nowMs, policy } = draft.input;
  const name = spec.dryRun ? undefined : `${policy}-${cause}-${zoneSlug(zone)}-${Math.floor(nowMs / 1000).toString(36)}`;
  draft.startedNow = true;
  draft.active = { cause, zone, shift: name, startedAt: iso(nowMs), reason, ...(spec.dryRun ? { dryRun: true } : {}) };
  if (name) draft.start = { name, zone, cause, expiresAt: iso(expiresMs), reason };
  const what = cause === 'practice' ? 'PracticeRunStarted' : 'AutoshiftStarted';
  draft.events.push({ type: 'Warning', reason: what, message: `${dry(draft.active)}${cause} of zone ${zone} started: ${reason}` });
}

/** The status: the zones, the run in progress, the next practice run, the history; the phase and its message. */
function statusOf(draft: Draft): ZoneAutoshiftStatus {
  const { active } = draft;
  const next = nextPractice(draft);
  const phase = active === undefined ? 'Watching' : active.cause === 'practice' ? 'Practising' : 'Shifted';
  const message = active ? `${dry(active)}${active.cause} of zone ${active.zone} since ${active.startedAt}: ${active.reason}`
    : draft.held ?? waitingMessage(draft);
  const waiting = draft.held?.startsWith('practice run') ? draft.held : undefined;
  return {
    phase,
    message,
    zones: draft.zones,
    ...(active ? { active } : {}),
    ...(next ? { nextPractice: { ...next, ...(waiting && !active ? { waiting } : {}) } } : {}),
    history: draft.history,
  };
}

function waitingMessage(draft: Draft): string {
  const impaired = draft.zones.find((z) => z.impaired);
  if (!impaired) return `watching ${draft.zones.length} zones: all healthy`;
  return `zone ${impaired.zone} looks impaired since ${impaired.since}; shifted once that lasts ` +
    `impairedForSeconds ${draft.input.spec.impairedForSeconds}`;
}
