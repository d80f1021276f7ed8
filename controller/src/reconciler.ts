/**
 * What a reconciler is: a named loop over cluster state that only the leader runs, and optionally
 * admission webhooks that every replica serves. `run --reconcilers a,b` picks them from RECONCILERS
 * (reconcilers/index.ts).
 */
import { AdmissionWebhook } from './admission';
import { KubeApi } from './kube/api';
import { EventRecorder } from './kube/events';
import { Logger } from './log';
import { Metrics } from './metrics';
import type { Readiness } from './readiness';
import type { ControllerRule } from '../../src/contract/rbac';

/** Requests a reconciler may keep in flight to the API server, unless `--api-concurrency` says otherwise. */
export const DEFAULT_API_CONCURRENCY = 32;

/** The settings of the `run` command that reconcilers read. */
export interface ControllerSettings {
  /** Node label keys a pod's zone annotation is made of, unless the pod names its own. */
  readonly topologyKeys: readonly string[];
  /** The namespace the controller runs in (its Lease, its Secrets). */
  readonly namespace: string;
  /** This replica's name (pod name), in logs, Events and the Lease. */
  readonly identity: string;
  /** The namespaces the redis reconciler lists pods in (`--redis-namespaces`); empty or unset: every namespace. */
  readonly redisNamespaces?: readonly string[];
  /**
   * How often the redis reconciler lists the pods and runs a full pass over each cluster (`--redis-interval`).
   * @default DEFAULT_REDIS_INTERVAL_MS (reconcilers/redis.ts, `redisSettings`)
   */
  readonly redisIntervalMs?: number;
  /**
   * Out-of-date Redis pods replaced per pass (`--redis-replaced-per-pass`).
   * @default DEFAULT_REPLACED_PER_PASS (redis/upgrade.ts, read by `redisSettings`)
   */
  readonly redisReplacedPerPass?: number;
  /** Requests in flight to the API server per reconciler (`--api-concurrency`). @default DEFAULT_API_CONCURRENCY */
  readonly apiConcurrency?: number;
  /**
   * Whether the zone-shift reconciler runs: the others then honour ZoneShifts (the annotator's readiness gate, no
   * rollout batch and no Redis master in a zone out of service); else they never read them (the CRD may be absent).
   * @default false
   */
  readonly zoneShifts?: boolean;
  /**
   * Whether the zone-shift reconciler leaves shifted zones out of Karpenter's NodePools while shifts last
   * (`--shift-karpenter-node-pools`).
   * @default false
   */
  readonly shiftKarpenterNodePools?: boolean;
  /** The ZoneAutoshift the zone-autoshift reconciler acts on (`--autoshift-policy`). */
  readonly autoshiftPolicy?: string;
}

export interface ReconcilerContext {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly kube: KubeApi;
  readonly events: EventRecorder;
  readonly settings: ControllerSettings;
  /**
   * What /readyz answers: a reconciler's caches are waited for until they hold their first list.
   * @default none: nothing waits
   */
  readonly readiness?: Readiness;
}

export interface Reconciler {
  /** The name on the command line (`--reconcilers`) and in metrics and logs. */
  readonly name: string;
  /** One line for the usage text. */
  readonly summary: string;
  /**
   * The API access it needs: documentation, and what `ZoneController` grants when the reconciler is
   * enabled (both read the same list from src/contract/reconcilers.ts).
   */
  readonly rbac: readonly ControllerRule[];
  /** Reconciles until `signal` aborts (leadership lost or shutdown); only the leader runs it. */
  run(ctx: ReconcilerContext, signal: AbortSignal): Promise<void>;
  /** Admission webhooks every replica serves (leader or not); may start informers tied to `signal`. */
  webhooks?(ctx: ReconcilerContext, signal: AbortSignal): readonly AdmissionWebhook[];
}
