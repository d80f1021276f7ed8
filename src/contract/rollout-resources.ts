/**
 * The typed contract of the rollout custom resources: what the constructs write (spec), what the runtime
 * controller reads and writes (spec, status), and what the CRDs (rollout-crds.ts) accept. The CRD schemas are
 * keyed by these types (`SchemaProperties`), so a field added to one and not the other does not compile.
 * Pure (no cdk8s): the controller image imports it.
 */
import { Selector } from '../kubernetes/label-selector';

/** An OpenAPI v3 schema fragment, as a CRD holds it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The `properties` of an object's schema: one entry for each field of `T`, none other. */
export type SchemaProperties<T> = { readonly [K in keyof Required<T>]: JsonSchema };

/** A whole number of pods, or a percentage of them ('25%'). */
export type PodCount = number | string;

/** An HTTP GET every pod must answer with 2xx before the next batch. */
export interface ReadyCheckSpec {
  readonly path: string;
  readonly port: number;
}

/** The rollout pauses while any of these holds. */
export interface PauseConditionSpec {
  /** A label on the workload, 'key' (present) or 'key=value'. */
  readonly label?: string;
  /** An annotation on the workload, 'key' (present) or 'key=value'. */
  readonly annotation?: string;
  /** A Prometheus instant-query URL; pauses while the result is non-empty or the query fails. */
  readonly prometheusQueryUrl?: string;
}

/** A rollout that starts only once another has finished, and a delay after that. */
export interface StartAfterSpec {
  /** The ZoneAwareUpdate of the same namespace that must be Done first (its workload on its update revision). */
  readonly zoneAwareUpdate: string;
  /** Seconds to wait after it was Done. */
  readonly delaySeconds?: number;
}

/** The spec of a ZoneAwareUpdate: exactly one of `statefulset`, `statefulsets` and `deployment`. */
export interface ZoneAwareUpdateSpec {
  readonly statefulset?: string;
  readonly statefulsets?: readonly string[];
  readonly deployment?: string;
  readonly readyCheck?: ReadyCheckSpec;
  readonly maxUnavailable: PodCount;
  readonly exponentialFactor?: number;
  readonly dryRun?: boolean;
  readonly pauseCondition?: PauseConditionSpec;
  readonly startAfter?: StartAfterSpec;
}

/** The old pods of one zone. */
export interface ZoneOldReplicas {
  readonly zone: string;
  readonly oldReplicas: number;
}

/** The phases of a ZoneAwareUpdate. */
export type ZoneAwareUpdatePhase = 'Rolling' | 'Waiting' | 'Paused' | 'Done' | 'Error';

/** The status the controller writes on a ZoneAwareUpdate. */
export interface ZoneAwareUpdateStatus {
  readonly observedGeneration?: number;
  readonly currentRevision?: string;
  readonly updateRevision?: string;
  readonly step: number;
  readonly oldReplicas: number;
  readonly zones: readonly ZoneOldReplicas[];
  readonly paused: boolean;
  readonly phase: ZoneAwareUpdatePhase;
  readonly message: string;
  readonly lastDeleted?: readonly string[];
  /** When the rollout of updateRevision was found Done (RFC 3339); kept while it stays Done. */
  readonly doneAt?: string;
  /** When a rollout held by `spec.startAfter` may start (RFC 3339), once the ZoneAwareUpdate it waits for is Done. */
  readonly startsAt?: string;
}

/** The spec of a ZoneDisruptionBudget. */
export interface ZoneDisruptionBudgetSpec {
  readonly selector: Selector;
  readonly maxUnavailable: PodCount;
  readonly dryRun?: boolean;
}

/** A ZoneDisruptionBudget's view of one zone. */
export interface ZoneBudgetStatus {
  readonly zone: string;
  readonly expected: number;
  readonly healthy: number;
  readonly disruptionsAllowed: number;
  /** Under a zonal shift: its unavailable pods hold no other zone back. */
  readonly shifted?: boolean;
  /** Under a zonal shift: the pods it took out of service (not counted as unavailable). */
  readonly outByShift?: number;
}

/** The status the controller writes on a ZoneDisruptionBudget. */
export interface ZoneDisruptionBudgetStatus {
  readonly observedGeneration?: number;
  readonly expectedPods: number;
  readonly healthyPods: number;
  readonly maxUnavailable: number;
  readonly zones: readonly ZoneBudgetStatus[];
}
