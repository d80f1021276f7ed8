/**
 * `ZoneControllerProps.autoshift`: the controller shifts an impaired zone by itself, and practises on a schedule
 * (src/contract/zone-autoshift.ts). These options become the spec of the ZoneAutoshift the controller acts on; the
 * spec's rules are checked here, at synth time, by the same function the controller applies at run time.
 */
import { ApiObject, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { LOST_ZONE_RECOVERY, ZONE_SHIFT } from '../contract/reconcilers';
import { ROLLOUT_API_VERSION } from '../contract/rollout';
import {
  AUTOSHIFT_DEFAULTS, PracticeRunsSpec, PrometheusSignalSpec, SpecProblem, ZONE_AUTOSHIFT_KIND, zoneAutoshiftProblem,
  ZoneAutoshiftSpec,
} from '../contract/zone-autoshift';
import { zoneAutoshiftCrd } from '../contract/zone-autoshift-crd';
import { clusterScoped } from '../kubernetes/object-names';
import { invalidProp } from '../shared/errors';
import { Props, PropSpec } from '../shared/props';

/** When the controller shifts a zone by itself, and how it practises. */
export interface ZoneAutoshiftOptions {
  /**
   * Only report what it would do, in the ZoneAutoshift's status and as Events; start no shift.
   *
   * @default false
   */
  readonly dryRun?: boolean;
  /**
   * A zone is impaired when at least this share of its nodes is NotReady or has a stale Lease (above 0, at most 1).
   *
   * @default 0.5
   */
  readonly unhealthyNodeShare?: number;
  /**
   * A node's Lease is stale when it was last renewed longer ago than this (kubelets renew every 10 s; at least 20 s).
   *
   * @default Duration.seconds(40)
   */
  readonly nodeLeaseStaleAfter?: Duration;
  /**
   * Whether pods are a signal: a zone is impaired when `failingPodShare` of its opted-in pods (and at least
   * `minFailingPods`) fail readiness while the same workloads serve in other zones.
   *
   * @default true
   */
  readonly podSignal?: boolean;
  /**
   * See `podSignal`.
   *
   * @default 0.5
   */
  readonly failingPodShare?: number;
  /**
   * See `podSignal`.
   *
   * @default 2
   */
  readonly minFailingPods?: number;
  /**
   * A pod that never restarted is starting, not failing, for this long after its creation (a rollout's new pods).
   *
   * @default Duration.minutes(5)
   */
  readonly podStartup?: Duration;
  /**
   * The Prometheus HTTP API's base URL (e.g. `http://prometheus.monitoring:9090`): with `prometheusQuery`, a
   * per-zone signal; with `practiceOutcomeQuery`, the practice runs' outcome check.
   *
   * @default - no query
   */
  readonly prometheusUrl?: string;
  /**
   * An instant query on `prometheusUrl` with one sample per zone, e.g. an error rate
   * `sum by (zone) (...) / sum by (zone) (...)`: a zone whose sample is above `prometheusThreshold` is impaired.
   *
   * @default - none
   */
  readonly prometheusQuery?: string;
  /**
   * See `prometheusQuery`.
   *
   * @default - none (required with prometheusQuery)
   */
  readonly prometheusThreshold?: number;
  /**
   * The label of each sample of `prometheusQuery` that names its zone.
   *
   * @default "zone"
   */
  readonly prometheusZoneLabel?: string;
  /**
   * A zone is shifted once its signals have held this long without a break.
   *
   * @default Duration.seconds(20)
   */
  readonly impairedFor?: Duration;
  /**
   * A shift ends once its zone has been healthy this long without a break ...
   *
   * @default Duration.minutes(5)
   */
  readonly recoveredFor?: Duration;
  /**
   * ... and not before it has lasted this long.
   *
   * @default Duration.minutes(10)
   */
  readonly minDuration?: Duration;
  /**
   * A shift ends by itself after this long, impaired or not; the zone is not shifted again until it has recovered
   * (a person decides). At most 72 hours.
   *
   * @default Duration.hours(3)
   */
  readonly maxDuration?: Duration;
  /**
   * With the controller's `lostZoneRecovery`: an autoshift whose zone has had none of its nodes answering (NotReady
   * and its Lease stale) for this long declares the zone lost (its ZoneShift's `spec.lost`), so the opted-in
   * StatefulSets' pods there come back in the surviving zones, and hands the shift to people. At least 5 minutes,
   * less than `maxDuration`.
   *
   * @default - a zone is declared lost only by a person (`cdk8s-zones shift start --lost`)
   */
  readonly lostAfter?: Duration;
  /**
   * Weekly UTC windows in which no autoshift or practice run starts, as `Mon:09:00-Mon:17:00` (may wrap past Sunday).
   *
   * @default - none
   */
  readonly blockedWindows?: string[];
  /**
   * UTC dates on which no autoshift or practice run starts, as `2026-12-24`.
   *
   * @default - none
   */
  readonly blockedDates?: string[];
  /**
   * Practice runs: from the start of one to the start of the next (each shifts the next zone in turn), e.g. a week.
   *
   * @default - no practice run
   */
  readonly practiceEvery?: Duration;
  /**
   * How long each practice run holds its zone out of service, e.g. 30 minutes.
   *
   * @default - none (required with practiceEvery)
   */
  readonly practiceDuration?: Duration;
  /**
   * A query on `prometheusUrl` checked during each practice run: any sample above `practiceOutcomeThreshold` ends the
   * run early as Failed.
   *
   * @default - only the workloads' readiness is checked
   */
  readonly practiceOutcomeQuery?: string;
  /**
   * See `practiceOutcomeQuery`.
   *
   * @default - none (required with practiceOutcomeQuery)
   */
  readonly practiceOutcomeThreshold?: number;
}

export const AUTOSHIFT_PROPS: PropSpec<ZoneAutoshiftOptions> = {
  dryRun: Props.optional(Props.boolean()),
  unhealthyNodeShare: Props.optional(Props.finiteNumber()),
  nodeLeaseStaleAfter: Props.optional(Props.instanceOf(Duration)),
  podSignal: Props.optional(Props.boolean()),
  failingPodShare: Props.optional(Props.finiteNumber()),
  minFailingPods: Props.optional(Props.integer(1)),
  podStartup: Props.optional(Props.instanceOf(Duration)),
  prometheusUrl: Props.optional(Props.nonEmptyString()),
  prometheusQuery: Props.optional(Props.nonEmptyString()),
  prometheusThreshold: Props.optional(Props.finiteNumber()),
  prometheusZoneLabel: Props.optional(Props.nonEmptyString()),
  impairedFor: Props.optional(Props.instanceOf(Duration)),
  recoveredFor: Props.optional(Props.instanceOf(Duration)),
  minDuration: Props.optional(Props.instanceOf(Duration)),
  maxDuration: Props.optional(Props.instanceOf(Duration)),
  lostAfter: Props.optional(Props.instanceOf(Duration)),
  blockedWindows: Props.optional(Props.arrayOf(Props.string())),
  blockedDates: Props.optional(Props.arrayOf(Props.string())),
  practiceEvery: Props.optional(Props.instanceOf(Duration)),
  practiceDuration: Props.optional(Props.instanceOf(Duration)),
  practiceOutcomeQuery: Props.optional(Props.nonEmptyString()),
  practiceOutcomeThreshold: Props.optional(Props.finiteNumber()),
};

/** Where each spec field comes from in the options, for messages. */
const PROP_OF_FIELD: Readonly<Record<string, string>> = {
  'nodes.unhealthyShare': 'unhealthyNodeShare',
  'nodes.leaseStaleSeconds': 'nodeLeaseStaleAfter',
  'pods.failingShare': 'failingPodShare',
  'pods.minPods': 'minFailingPods',
  'pods.startupSeconds': 'podStartup',
  'impairedForSeconds': 'impairedFor',
  'recoveredForSeconds': 'recoveredFor',
  'minDurationSeconds': 'minDuration',
  'maxDurationSeconds': 'maxDuration',
  'lostAfterSeconds': 'lostAfter',
  'prometheus.url': 'prometheusUrl',
  'prometheus.query': 'prometheusQuery',
  'prometheus.threshold': 'prometheusThreshold',
  'prometheus.zoneLabel': 'prometheusZoneLabel',
  'practiceRuns.everySeconds': 'practiceEvery',
  'practiceRuns.durationSeconds': 'practiceDuration',
  'practiceRuns.outcomeQuery': 'practiceOutcomeQuery',
  'practiceRuns.outcomeThreshold': 'practiceOutcomeThreshold',
};

/** The options' Duration in whole seconds; refuses fractions of a second rather than round them. */
function wholeSeconds(
  where: string, prop: string, duration: Duration | undefined, byDefault?: number,
): number | undefined {
  if (duration === undefined) return byDefault;
  const ms = duration.toMilliseconds({ integral: false });
  if (!Number.isInteger(ms / 1000)) throw invalidProp(where, `autoshift.${prop}`, `${ms}ms`, 'must be a whole number of seconds');
  return ms / 1000;
}

/** The ZoneAutoshift spec of `options`; throws, naming the option, its value and the rule it breaks. */
export function autoshiftSpec(where: string, options: ZoneAutoshiftOptions): ZoneAutoshiftSpec {
  const d = AUTOSHIFT_DEFAULTS;
  const secs = (prop: keyof ZoneAutoshiftOptions, byDefault?: number) =>
    wholeSeconds(where, prop, options[prop] as Duration | undefined, byDefault);
  const spec: ZoneAutoshiftSpec = {
    dryRun: options.dryRun ?? false,
    nodes: {
      unhealthyShare: options.unhealthyNodeShare ?? d.nodes.unhealthyShare,
      leaseStaleSeconds: secs('nodeLeaseStaleAfter', d.nodes.leaseStaleSeconds)!,
    },
    ...(options.podSignal === false ? {} : {
      pods: {
        failingShare: options.failingPodShare ?? d.pods.failingShare,
        minPods: options.minFailingPods ?? d.pods.minPods,
        startupSeconds: secs('podStartup', d.pods.startupSeconds)!,
      },
    }),
    ...defined({ prometheus: prometheusSpec(options) }),
    impairedForSeconds: secs('impairedFor', d.impairedForSeconds)!,
    recoveredForSeconds: secs('recoveredFor', d.recoveredForSeconds)!,
    minDurationSeconds: secs('minDuration', d.minDurationSeconds)!,
    maxDurationSeconds: secs('maxDuration', d.maxDurationSeconds)!,
    ...defined({ lostAfterSeconds: secs('lostAfter') }),
    ...defined({ blockedWindows: options.blockedWindows, blockedDates: options.blockedDates }),
    ...defined({ practiceRuns: practiceSpec(options, secs('practiceEvery'), secs('practiceDuration')) }),
  };
  const problem = zoneAutoshiftProblem(spec);
  if (problem) throw optionProblem(where, problem);
  return spec;
}

/** The fields of `fields` that are set (a spec holds no undefined). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The Prometheus part of the spec: with a URL (for the signal's query, the practice runs' outcome query, or both). */
function prometheusSpec(o: ZoneAutoshiftOptions): ZoneAutoshiftSpec['prometheus'] {
  const given = [o.prometheusUrl, o.prometheusQuery, o.prometheusThreshold, o.prometheusZoneLabel];
  if (given.every((v) => v === undefined)) return undefined;
  return defined({
    url: o.prometheusUrl!,
    query: o.prometheusQuery,
    threshold: o.prometheusThreshold,
    zoneLabel: o.prometheusZoneLabel ?? AUTOSHIFT_DEFAULTS.prometheusZoneLabel,
  }) as PrometheusSignalSpec;
}

/** The practice runs of the spec, when any practice option is set (the spec's rules then require both times). */
function practiceSpec(o: ZoneAutoshiftOptions, every?: number, duration?: number): PracticeRunsSpec | undefined {
  const given = [every, duration, o.practiceOutcomeQuery, o.practiceOutcomeThreshold];
  if (given.every((v) => v === undefined)) return undefined;
  return defined({
    everySeconds: every!,
    durationSeconds: duration!,
    outcomeQuery: o.practiceOutcomeQuery,
    outcomeThreshold: o.practiceOutcomeThreshold,
  }) as PracticeRunsSpec;
}

/** The spec's problem in the options' terms: the option's name, and its value as given (seconds as a Duration). */
function optionProblem(where: string, problem: SpecProblem): Error {
  const prop = PROP_OF_FIELD[problem.field] ?? problem.field;
  const inSeconds = prop !== problem.field && /Seconds$/.test(problem.field);
  const value = inSeconds && typeof problem.value === 'number' ? `${problem.value}s` : problem.value;
  const rule = problem.rule.replace(/(prometheus\.\w+|practiceRuns\.\w+|maxDurationSeconds)/g, (f) => PROP_OF_FIELD[f] ?? f);
  return invalidProp(where, `autoshift.${prop}`, value, rule);
}

/**
 * The ZoneAutoshift `options` make (and its CRD, with `installCrds`), named `name` as the controller that acts on it;
 * refused without the zonal shift (the ZoneShifts it starts are what the zone-shift reconciler acts on).
 */
export function emitAutoshift(
  scope: Construct,
  where: string,
  reconcilers: readonly string[],
  policy: { name: string; labels: Record<string, string> },
  options: ZoneAutoshiftOptions, installCrds: boolean,
): void {
  if (!reconcilers.includes(ZONE_SHIFT)) {
    throw invalidProp(where, 'autoshift', options, 'needs zoneShift: true (the autoshift starts ZoneShifts, and the zonal shift acts on them)');
  }
  const spec = autoshiftSpec(where, options);
  if (spec.lostAfterSeconds !== undefined && !reconcilers.includes(LOST_ZONE_RECOVERY)) {
    throw invalidProp(where, 'autoshift.lostAfter', `${spec.lostAfterSeconds}s`,
      'needs lostZoneRecovery: true (a zone declared lost is what the lost-zone recovery acts on)');
  }
  if (installCrds) clusterScoped(new ApiObject(scope, 'zoneautoshift-crd', zoneAutoshiftCrd()));
  clusterScoped(new ApiObject(scope, 'autoshift', {
    apiVersion: ROLLOUT_API_VERSION,
    kind: ZONE_AUTOSHIFT_KIND,
    metadata: { name: policy.name, labels: policy.labels },
    spec,
  }));
}
