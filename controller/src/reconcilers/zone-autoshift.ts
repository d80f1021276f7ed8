/**
 * The autoshift reconciler: every few seconds it reads the signals of each zone (nodes NotReady or with stale
 * Leases, opted-in pods failing readiness while their workloads serve elsewhere, and the policy's Prometheus query),
 * lets the pure plan (src/autoshift/autoshift-plan.ts) decide, then creates or deletes the ZoneShifts the plan names
 * (the zone-shift reconciler does the rest), writes the policy's status and records every decision as an Event.
 * It acts on one policy, `--autoshift-policy` (the one its `ZoneController` wrote).
 * docs/controller.md#autoshift-and-practice-runs.
 */
import { patchStatus, statusHolds } from './status';
import { autoshiftSignals, practiceOutcome } from './zone-autoshift-signals';
import { AutoshiftWatch, autoshiftWatches } from './zone-autoshift-watches';
import { nodeZone } from './zone-shift-decision';
import { AutoshiftPlan, planAutoshift, ShiftInForce } from '../../../src/autoshift/autoshift-plan';
import { ZONE_AUTOSHIFT, ZONE_AUTOSHIFT_RULES } from '../../../src/contract/reconcilers';
import { ROLLOUT_API_VERSION } from '../../../src/contract/rollout';
import {
  AUTOSHIFT_POLICY_LABEL, problemText, SHIFT_CAUSE_LABEL, ShiftCause, ZONE_AUTOSHIFT_KIND, zoneAutoshiftProblem,
  ZoneAutoshiftSpec,
  ZoneAutoshiftStatus,
} from '../../../src/contract/zone-autoshift';
import { shiftInForce, validShift, ZONE_SHIFT_KIND } from '../../../src/contract/zone-shift';
import { defineReconciler } from '../define-reconciler';
import { isStatus, KubeObject, resourcePath } from '../kube/api';
import { ReconcileResult } from '../reconcile-loop';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { ZONE_AUTOSHIFTS, ZONE_SHIFTS } from '../resources';
import { Caches } from '../watches';

const NAME = ZONE_AUTOSHIFT;
/** How often the signals are read again: a stale Lease is a matter of time, not of a change. */
export const EVALUATE_EVERY_MS = 5_000;
/** The longest reason a ZoneShift's schema takes. */
const MAX_REASON = 1024;

export function zoneAutoshifter(): Reconciler {
  return defineReconciler({
    name: NAME,
    summary: 'start a ZoneShift when a zone looks impaired, end it once the zone recovers, and practise on a schedule',
    rbac: ZONE_AUTOSHIFT_RULES,
    settings: (run) => ({ topologyKeys: run.topologyKeys, policy: run.autoshiftPolicy ?? '' }),
    declare: (ctx, settings, caches: Caches<AutoshiftWatch>) => {
      const autoshift = new Autoshift(ctx, caches, settings.topologyKeys, settings.policy);
      return {
        watches: autoshiftWatches(settings.policy),
        reconcile: (key) => autoshift.reconcile(key),
        loop: { concurrency: 1 },
        startedFields: { policy: settings.policy },
      };
    },
  });
}

/** A shift in force as the plan reads it; `cause` only when this policy started it. */
function inForce(shift: KubeObject, policy: string, nowMs: number): ShiftInForce | undefined {
  const spec = shiftInForce(shift, nowMs);
  if (!spec) return undefined;
  const labels = shift.metadata.labels ?? {};
  const ours = labels[AUTOSHIFT_POLICY_LABEL] === policy;
  return {
    name: shift.metadata.name,
    zone: spec.zone,
    cause: ours ? labels[SHIFT_CAUSE_LABEL] as ShiftCause : undefined,
    createdAt: shift.metadata.creationTimestamp ?? new Date(nowMs).toISOString(),
    reason: spec.reason,
  };
}

/** Optional fields of the status: a merge patch removes a field only when it is written as null. */
const OPTIONAL_STATUS_FIELDS = ['active', 'nextPractice'] as const;

/**
 * What this run wrote that its caches may not show yet: the status (the next decision builds on it, not on an older
 * one the cache still holds), the shifts it started (in force before the cache sees them) and ended (gone before the
 * cache drops them). A new run (a leader change) starts from the caches alone, which hold the cluster as it is.
 */
export class OwnWrites {
  status: ZoneAutoshiftStatus | undefined;
  private readonly started = new Map<string, ShiftInForce & { expiresMs: number }>();
  private readonly ended = new Set<string>();
  /** Shifts whose zone it declared lost: a person's from then on, whatever the cache still shows of their labels. */
  private readonly handedOver = new Set<string>();

  /** The shifts in force: the cache's, less those this run ended, plus those it started that the cache lacks yet. */
  inForce(cached: readonly ShiftInForce[], nowMs: number): ShiftInForce[] {
    const names = new Set(cached.map((s) => s.name));
    for (const name of this.ended) if (!names.has(name)) this.ended.delete(name);
    for (const [name, s] of this.started) if (names.has(name) || s.expiresMs <= nowMs) this.started.delete(name);
    // once the cache shows a handed-over shift without the policy's labels, it says so itself
    const stillOurs = (name: string) => cached.some((s) => s.name === name && s.cause !== undefined);
    for (const name of this.handedOver) if (!stillOurs(name)) this.handedOver.delete(name);
    const asNow = (s: ShiftInForce): ShiftInForce => (this.handedOver.has(s.name) ? { ...s, cause: undefined } : s);
    return [...cached.filter((s) => !this.ended.has(s.name)), ...this.started.values()].map(asNow);
  }

  handOver(name: string): void {
    this.handedOver.add(name);
  }

  start(shift: ShiftInForce, expiresMs: number): void {
    this.started.set(shift.name, { ...shift, expiresMs });
  }

  end(name: string): void {
    this.started.delete(name);
    this.ended.add(name);
  }
}

class Autoshift {
  private readonly log: ReconcilerContext['log'];
  private readonly own = new OwnWrites();

  constructor(
    private readonly ctx: ReconcilerContext,
    private readonly caches: Caches<AutoshiftWatch>,
    private readonly topologyKeys: readonly string[],
    private readonly policy: string,
  ) {
    this.log = ctx.log.with({ reconciler: NAME, policy });
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const policy = this.caches.get('policies', name);
    if (name !== this.policy || !policy || policy.metadata.deletionTimestamp) return {};
    const problem = zoneAutoshiftProblem(policy.spec);
    if (problem) {
      const message = `${problemText(problem)}; nothing is started`;
      const history = (this.own.status ?? policy.status)?.history ?? [];
      await this.writeStatus(policy, { phase: 'Invalid', message, zones: [], history });
      return {};
    }
    const spec = policy.spec as ZoneAutoshiftSpec;
    const now = Date.now();
    const zoneOf = (node: KubeObject) => nodeZone(node, this.topologyKeys);
    const failed = (what: string, err: unknown) => this.queryFailed(policy, what, err);
    const signals = await autoshiftSignals(this.caches, spec, zoneOf, now, failed);
    const plan = planAutoshift({
      policy: name,
      spec,
      createdMs: Date.parse(policy.metadata.creationTimestamp ?? '') || now,
      nowMs: now,
      zones: signals.zones,
      signals: signals.impaired,
      previous: this.own.status ?? policy.status,
      shiftsInForce: this.own.inForce(this.caches.list('shifts')
        .map((s) => inForce(s, name, now))
        .filter((s): s is ShiftInForce => s !== undefined), now),
      lastServingIn: signals.lastServingIn,
      practiceOutcome: (zone) => practiceOutcome(signals, spec, zone),
      silentZones: signals.silentZones,
      drills: signals.drills,
    });
    await this.act(policy, plan);
    await this.deleteEnded(name, now);
    return { requeueAfter: EVALUATE_EVERY_MS };
  }

  /**
   * Deletes this policy's shifts that expired (a practice run's, one that reached maxDuration): the status's history
   * keeps the record, so none piles up.
   */
  private async deleteEnded(policy: string, nowMs: number): Promise<void> {
    const ended = this.caches.list('shifts').filter((s) => s.metadata.labels?.[AUTOSHIFT_POLICY_LABEL] === policy
      && !s.metadata.deletionTimestamp && validShift(s) !== undefined && shiftInForce(s, nowMs) === undefined);
    for (const shift of ended) {
      try {
        await this.ctx.kube.delete(resourcePath(ZONE_SHIFTS, undefined, shift.metadata.name));
      } catch (err) {
        if (!isStatus(err, 404)) throw err;
      }
      this.own.end(shift.metadata.name);
      this.log.info('ended zone shift deleted', { shift: shift.metadata.name });
    }
  }

  /** Ends and starts the plan's shifts, then writes the status and the Events. */
  private async act(policy: KubeObject, plan: AutoshiftPlan): Promise<void> {
    for (const shift of plan.end) {
      try {
        await this.ctx.kube.delete(resourcePath(ZONE_SHIFTS, undefined, shift));
      } catch (err) {
        if (!isStatus(err, 404)) throw err;
      }
      this.own.end(shift);
      this.log.info('zone shift ended', { shift });
    }
    if (plan.declareLost) await this.declareLost(plan.declareLost);
    if (plan.start) {
      const { name, zone, cause, expiresAt, reason } = plan.start;
      const shift = {
        apiVersion: ROLLOUT_API_VERSION,
        kind: ZONE_SHIFT_KIND,
        metadata: { name, labels: { [AUTOSHIFT_POLICY_LABEL]: this.policy, [SHIFT_CAUSE_LABEL]: cause } },
        spec: { zone, expiresAt, reason: `${cause}: ${reason}`.slice(0, MAX_REASON) },
      };
      try {
        await this.ctx.kube.create(resourcePath(ZONE_SHIFTS), shift);
      } catch (err) {
        if (!isStatus(err, 409)) throw err;
      }
      this.own.start({ name, zone, cause, createdAt: new Date().toISOString(), reason }, Date.parse(expiresAt));
      this.log.info('zone shift started', { shift: name, zone, cause, expiresAt, reason });
    }
    await this.writeStatus(policy, plan.status);
    const subject = { ...policy, apiVersion: ROLLOUT_API_VERSION, kind: ZONE_AUTOSHIFT_KIND };
    for (const event of plan.events) {
      this.log.info('autoshift decision', { reason: event.reason, message: event.message });
      await this.ctx.events.record(subject, event.type, event.reason, event.message);
    }
  }

  /** Marks the shift's zone lost and hands the shift to people: it leaves the policy (its labels go). */
  private async declareLost(shift: string): Promise<void> {
    const labels = { [AUTOSHIFT_POLICY_LABEL]: null, [SHIFT_CAUSE_LABEL]: null };
    const handOver = { metadata: { labels }, spec: { lost: true } };
    try {
      await this.ctx.kube.patch(resourcePath(ZONE_SHIFTS, undefined, shift), handOver);
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
    this.own.handOver(shift);
    this.log.info('zone declared lost', { shift });
  }

  /** Writes the status unless it holds already; a field the status lacks is removed (written as null). */
  private async writeStatus(policy: KubeObject, status: ZoneAutoshiftStatus): Promise<void> {
    const observed = { ...status, observedGeneration: policy.metadata.generation };
    const current = this.own.status ?? policy.status;
    const removed = OPTIONAL_STATUS_FIELDS.filter((f) => observed[f] === undefined && current?.[f] !== undefined);
    if (statusHolds(current, observed) && removed.length === 0) return;
    const patch = { ...observed, ...Object.fromEntries(removed.map((f) => [f, null])) };
    if (await patchStatus(this.ctx.kube, ZONE_AUTOSHIFTS, policy, patch)) this.own.status = observed;
  }

  private queryFailed(policy: KubeObject, what: string, err: unknown): void {
    const message = `${what} failed, so it counts as no signal: ${err instanceof Error ? err.message : String(err)}`;
    this.log.warn('prometheus query failed', { what, error: err });
    const subject = { ...policy, apiVersion: ROLLOUT_API_VERSION, kind: ZONE_AUTOSHIFT_KIND };
    void this.ctx.events.record(subject, 'Warning', 'QueryFailed', message);
  }
}
