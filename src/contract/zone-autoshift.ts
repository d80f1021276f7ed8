/**
 * The contract of the autoshift: a ZoneAutoshift (cluster-scoped, one per controller, written by `ZoneController`'s
 * `autoshift` prop) lets the controller start a ZoneShift by itself when a zone is impaired, end it once the zone
 * has recovered, and shift each zone in turn on a schedule to practise (AWS ARC's zonal autoshift and practice
 * runs). The shifts it starts are ordinary ZoneShifts, labelled with the policy and the cause. One home for the
 * spec's rules: the construct checks them at synth time, the controller reports a spec that breaks one as Invalid
 * and starts nothing. Pure (Node.js built-ins only): the controller image imports it.
 */
import { blockedWindowsProblem } from './blocked-windows';
import { PROJECT_DOMAIN } from './labels';
import { MAX_SHIFT_SECONDS } from './zone-shift';

export const ZONE_AUTOSHIFT_KIND = 'ZoneAutoshift';
export const ZONE_AUTOSHIFT_PLURAL = 'zoneautoshifts';
/** On every ZoneShift the autoshift starts: the policy's name. */
export const AUTOSHIFT_POLICY_LABEL = `${PROJECT_DOMAIN}/autoshift-policy`;
/** On every ZoneShift the autoshift starts: why (`ShiftCause`). */
export const SHIFT_CAUSE_LABEL = `${PROJECT_DOMAIN}/shift-cause`;

/** Why the autoshift started a shift: the zone looked impaired, or a scheduled practice run. */
export type ShiftCause = 'autoshift' | 'practice';

/** The node signal: the share of a zone's nodes that do not answer. */
export interface NodeSignalSpec {
  /** A zone is impaired when at least this share of its nodes is NotReady or has a stale Lease (0 < share <= 1). */
  readonly unhealthyShare: number;
  /** A node's Lease is stale when it was last renewed longer ago than this (kubelets renew every 10 s). */
  readonly leaseStaleSeconds: number;
}

/** The pod signal: pods of a zone failing readiness while the same workloads serve in other zones. */
export interface PodSignalSpec {
  /** A zone is impaired when at least this share of such pods there fails readiness (0 < share <= 1). */
  readonly failingShare: number;
  /** ... and at least this many of them. */
  readonly minPods: number;
  /** A pod that never restarted is still starting, not failing, for this long after its creation. */
  readonly startupSeconds: number;
}

/** Prometheus: a per-zone query as a signal (a zone whose sample exceeds the threshold is impaired), and its server. */
export interface PrometheusSignalSpec {
  /** The Prometheus HTTP API's base URL (the controller queries `<url>/api/v1/query`). */
  readonly url: string;
  /** An instant query returning one sample per zone (e.g. an error rate `by (zone)`). Unset: no signal. */
  readonly query?: string;
  /** The label of each sample that names its zone. */
  readonly zoneLabel: string;
  /** A zone whose sample is above this is impaired (with `query`). */
  readonly threshold?: number;
}

/** Practice runs: each zone shifted in turn on a schedule, ended early when a workload suffers. */
export interface PracticeRunsSpec {
  /** From the start of one practice run to the start of the next (each run shifts the next zone). */
  readonly everySeconds: number;
  /** How long each run holds its zone out of service. */
  readonly durationSeconds: number;
  /**
   * An outcome query (Prometheus, on the signal's `url`): a run ends early when any of its samples exceeds
   * `outcomeThreshold`.
   */
  readonly outcomeQuery?: string;
  readonly outcomeThreshold?: number;
}

/** What a ZoneAutoshift asks for. */
export interface ZoneAutoshiftSpec {
  /** Only report what it would do (in the status and as Events); start no shift. */
  readonly dryRun: boolean;
  readonly nodes: NodeSignalSpec;
  /** Unset: pods are not a signal. */
  readonly pods?: PodSignalSpec;
  /** Unset: no query. */
  readonly prometheus?: PrometheusSignalSpec;
  /** A zone is shifted once its signals have held this long without a break. */
  readonly impairedForSeconds: number;
  /** A shift ends once its zone has been healthy this long without a break ... */
  readonly recoveredForSeconds: number;
  /** ... and not before it has lasted this long. */
  readonly minDurationSeconds: number;
  /** A shift ends by itself after this long, impaired or not (a person decides then). */
  readonly maxDurationSeconds: number;
  /**
   * An autoshift whose zone has had none of its nodes answering for this long declares the zone lost (its ZoneShift's
   * `spec.lost`: the lost-zone recovery brings opted-in StatefulSets back elsewhere) and hands the shift to people.
   * Unset: a zone is declared lost only by a person.
   */
  readonly lostAfterSeconds?: number;
  /** No autoshift or practice run starts in these weekly UTC windows (`Mon:09:00-Mon:17:00`). */
  readonly blockedWindows?: readonly string[];
  /** ... nor on these UTC dates (`2026-12-24`). */
  readonly blockedDates?: readonly string[];
  /** Unset: no practice run. */
  readonly practiceRuns?: PracticeRunsSpec;
}

/** One autoshift or practice run, from its start to its end. */
export interface AutoshiftRun {
  readonly cause: ShiftCause;
  readonly zone: string;
  /** The ZoneShift it started (none in a dry run). */
  readonly shift?: string;
  readonly startedAt: string;
  /** Why it started. */
  readonly reason: string;
  readonly dryRun?: boolean;
  readonly endedAt?: string;
  /**
   * How it ended: `Recovered` (autoshift), `Succeeded` or `Failed` (practice: a workload suffered), `MaxDuration`,
   * `Interrupted` (another zone impaired), `Cancelled` (a person deleted its shift), `DeclaredLost` (its zone declared
   * lost after `lostAfterSeconds`: the shift is a person's now).
   */
  readonly outcome?: 'Recovered' | 'Succeeded' | 'Failed' | 'MaxDuration' | 'Interrupted' | 'Cancelled' | 'DeclaredLost';
  /** What the outcome was, in words (for a failed practice run: which workload suffered). */
  readonly message?: string;
}

/** What the controller last saw of a zone, and since when. */
export interface ZoneWatch {
  readonly zone: string;
  readonly impaired: boolean;
  /** Since when it has been so (RFC 3339): the hysteresis counts from here. */
  readonly since: string;
  /** Why it is impaired (each signal that holds), or empty. */
  readonly signals: readonly string[];
}

/** `Watching`: nothing shifted by the policy; `Shifted`, `Practising`: a run holds; `Invalid`: its spec breaks one. */
export type ZoneAutoshiftPhase = 'Watching' | 'Shifted' | 'Practising' | 'Invalid';

/** What the controller writes on a ZoneAutoshift. */
export interface ZoneAutoshiftStatus {
  readonly observedGeneration?: number;
  readonly phase: ZoneAutoshiftPhase;
  readonly message: string;
  readonly zones: readonly ZoneWatch[];
  /** The run in progress. */
  readonly active?: AutoshiftRun;
  /** When the next practice run is due, and which zone it shifts. */
  readonly nextPractice?: { readonly at: string; readonly zone: string; readonly waiting?: string };
  /** The last runs, newest first (at most `HISTORY_LENGTH`). */
  readonly history: readonly AutoshiftRun[];
}

/** How many finished runs the status keeps. */
export const HISTORY_LENGTH = 20;

/** The defaults the construct writes and the controller assumes for a field left out. */
export const AUTOSHIFT_DEFAULTS = {
  nodes: { unhealthyShare: 0.5, leaseStaleSeconds: 40 },
  pods: { failingShare: 0.5, minPods: 2, startupSeconds: 300 },
  prometheusZoneLabel: 'zone',
  impairedForSeconds: 20,
  recoveredForSeconds: 300,
  minDurationSeconds: 600,
  maxDurationSeconds: 3 * 3600,
} as const;

/** The shortest time after which an autoshift may declare its zone lost: an outage of minutes is not a loss. */
const MIN_LOST_AFTER_SECONDS = 300;

/** A kubelet renews its Lease every 10 s: a shorter staleness would call every node stale between renewals. */
const MIN_LEASE_STALE_SECONDS = 20;

/** A rule the spec breaks: the field (its path in the spec), its value, and the rule. */
export interface SpecProblem {
  readonly field: string;
  readonly value: unknown;
  readonly rule: string;
}

/** The problem as the status and the log say it. */
export function problemText(p: SpecProblem): string {
  return `${p.field} ${JSON.stringify(p.value) ?? 'unset'} ${p.rule}`;
}

const problem = (field: string, value: unknown, rule: string): SpecProblem => ({ field, value, rule });

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isWhole = (v: unknown, min: number): v is number => isNumber(v) && Number.isInteger(v) && v >= min;
const isShare = (v: unknown) => isNumber(v) && v > 0 && v <= 1;
const SHARE = 'must be a share above 0 and at most 1';
const WHOLE_SECONDS = 'must be a whole number of seconds';

function signalsProblem(spec: Partial<ZoneAutoshiftSpec>): SpecProblem | undefined {
  const { nodes, pods, prometheus } = spec;
  if (!isShare(nodes?.unhealthyShare)) return problem('nodes.unhealthyShare', nodes?.unhealthyShare, SHARE);
  if (!isWhole(nodes?.leaseStaleSeconds, MIN_LEASE_STALE_SECONDS)) {
    return problem('nodes.leaseStaleSeconds', nodes?.leaseStaleSeconds, `must be a whole number of seconds, at least ${MIN_LEASE_STALE_SECONDS}: ` +
      'kubelets renew their Lease every 10 s, so a shorter staleness calls healthy nodes stale');
  }
  if (pods !== undefined) {
    if (!isShare(pods.failingShare)) return problem('pods.failingShare', pods.failingShare, SHARE);
    if (!isWhole(pods.minPods, 1)) return problem('pods.minPods', pods.minPods, 'must be a whole number of at least 1');
    if (!isWhole(pods.startupSeconds, 0)) return problem('pods.startupSeconds', pods.startupSeconds, WHOLE_SECONDS);
  }
  if (prometheus !== undefined) {
    if (typeof prometheus.url !== 'string' || !/^https?:\/\/[^\s/]+/.test(prometheus.url)) {
      return problem('prometheus.url', prometheus.url, 'must be an http:// or https:// URL');
    }
    const { query, threshold, zoneLabel } = prometheus;
    if (query !== undefined && (typeof query !== 'string' || query.trim() === '')) return problem('prometheus.query', query, 'must be a PromQL query');
    if ((query === undefined) !== (threshold === undefined)) {
      return problem('prometheus.threshold', threshold, 'goes with prometheus.query: set both or neither');
    }
    if (threshold !== undefined && !isNumber(threshold)) return problem('prometheus.threshold', threshold, 'must be a number');
    if (typeof zoneLabel !== 'string' || zoneLabel === '') return problem('prometheus.zoneLabel', zoneLabel, 'must name a label');
  }
  return undefined;
}

function durationsProblem(spec: Partial<ZoneAutoshiftSpec>): SpecProblem | undefined {
  const { impairedForSeconds: impaired, recoveredForSeconds: recovered } = spec;
  const { minDurationSeconds: min, maxDurationSeconds: max } = spec;
  if (!isWhole(impaired, 0)) return problem('impairedForSeconds', impaired, WHOLE_SECONDS);
  if (!isWhole(recovered, 0)) return problem('recoveredForSeconds', recovered, WHOLE_SECONDS);
  if (!isWhole(min, 0)) return problem('minDurationSeconds', min, WHOLE_SECONDS);
  if (!isWhole(max, 1) || max > MAX_SHIFT_SECONDS) {
    return problem('maxDurationSeconds', max, `must be a whole number of seconds from 1 to ${MAX_SHIFT_SECONDS} (the longest a ZoneShift lasts)`);
  }
  if (min >= max) return problem('minDurationSeconds', min, `must be less than maxDurationSeconds (${max}): a shift could never end as both say`);
  const lostAfter = spec.lostAfterSeconds;
  if (lostAfter !== undefined && (!isWhole(lostAfter, MIN_LOST_AFTER_SECONDS) || lostAfter >= max)) {
    return problem('lostAfterSeconds', lostAfter, `must be a whole number of seconds from ${MIN_LOST_AFTER_SECONDS} to less than ` +
      `maxDurationSeconds (${max}): the shift must still hold when the zone is declared lost, and a zone is not lost in minutes`);
  }
  return undefined;
}

function practiceProblem(
  practice: Partial<PracticeRunsSpec> | undefined, prometheusUrl: string | undefined,
): SpecProblem | undefined {
  if (practice === undefined) return undefined;
  const { everySeconds: every, durationSeconds: duration, outcomeQuery, outcomeThreshold } = practice;
  if (!isWhole(duration, 1) || duration > MAX_SHIFT_SECONDS) {
    return problem('practiceRuns.durationSeconds', duration, `must be a whole number of seconds from 1 to ${MAX_SHIFT_SECONDS}`);
  }
  if (!isWhole(every, 1) || every <= duration) {
    return problem('practiceRuns.everySeconds', every, `must be a whole number of seconds greater than practiceRuns.durationSeconds (${duration}): ` +
      'a schedule shorter than its runs would start a run while the last one still holds');
  }
  if ((outcomeQuery === undefined) !== (outcomeThreshold === undefined)) {
    return problem('practiceRuns.outcomeThreshold', outcomeThreshold, 'goes with practiceRuns.outcomeQuery: set both or neither');
  }
  if (outcomeQuery !== undefined && prometheusUrl === undefined) return problem('practiceRuns.outcomeQuery', outcomeQuery, 'needs prometheus.url (the server it is asked)');
  if (outcomeThreshold !== undefined && !isNumber(outcomeThreshold)) return problem('practiceRuns.outcomeThreshold', outcomeThreshold, 'must be a number');
  return undefined;
}

/** The first rule a ZoneAutoshift's spec breaks; undefined when it keeps them all. */
export function zoneAutoshiftProblem(spec: Partial<ZoneAutoshiftSpec> | undefined): SpecProblem | undefined {
  if (spec === undefined || typeof spec !== 'object') return problem('spec', spec, 'must be an object');
  if (typeof spec.dryRun !== 'boolean') return problem('dryRun', spec.dryRun, 'must be true or false');
  return signalsProblem(spec)
    ?? durationsProblem(spec)
    ?? blockedWindowsProblem(spec.blockedWindows ?? [], spec.blockedDates ?? [])
    ?? practiceProblem(spec.practiceRuns, spec.prometheus?.url);
}
