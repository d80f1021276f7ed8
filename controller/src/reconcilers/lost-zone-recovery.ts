/**
 * The lost-zone recovery reconciler: on a ZoneShift with `spec.lost`, it reads what is in the lost zone, lets the
 * pure plan (src/lost-zone/recovery-plan.ts) decide which opted-in StatefulSet pods come back now, records them in
 * the shift's `status.recovery`, then deletes each one's claims in the zone and the pod itself, at once (its node
 * will never confirm), so that the StatefulSet controller makes both again in a surviving zone. Recorded before
 * deleted: a controller restarted between the two deletes again (same uid), never twice the count; one run deletes
 * a pod once. Pods pinned to the lost zone with a stand-in term come back on the other zones' nodes, which it labels
 * first, and whose labels it keeps while any stand-in is away from its zone (its own key, `STAND_INS_KEY`).
 * docs/runbooks/zone-lost.md.
 */
import { recoveryInput, standInInput } from './lost-zone-recovery-input';
import { RecoveryWatch, recoveryWatches, STAND_INS_KEY } from './lost-zone-recovery-watches';
import { patchStatus, statusHolds } from './status';
import { LostZoneRecoveryStatus } from '../../../src/contract/lost-zone';
import { LOST_ZONE_RECOVERY, LOST_ZONE_RECOVERY_RULES } from '../../../src/contract/reconcilers';
import { shiftInForce } from '../../../src/contract/zone-shift';
import { PodDeletion, planRecovery } from '../../../src/lost-zone/recovery-plan';
import { standInLabelChanges } from '../../../src/lost-zone/stand-ins';
import { defineReconciler } from '../define-reconciler';
import { isStatus, resourcePath } from '../kube/api';
import { ReconcileResult } from '../reconcile-loop';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { CLAIMS, NODES, PODS, ZONE_SHIFTS } from '../resources';
import { Caches } from '../watches';

const NAME = LOST_ZONE_RECOVERY;
/** How often a lost zone is looked at again: whether its nodes still answer is a matter of time (their Leases). */
export const RECOVERY_EVERY_MS = 5_000;

export function lostZoneRecoverer(): Reconciler {
  return defineReconciler({
    name: NAME,
    summary: "bring the opted-in StatefulSets' pods of a zone declared lost back in the surviving zones",
    rbac: LOST_ZONE_RECOVERY_RULES,
    settings: (run) => ({ topologyKeys: run.topologyKeys }),
    declare: (ctx, { topologyKeys }, caches: Caches<RecoveryWatch>) => {
      const recovery = new LostZoneRecovery(ctx, caches, topologyKeys);
      return {
        watches: recoveryWatches(),
        reconcile: (key) => recovery.reconcile(key),
        loop: { concurrency: 1 },
        startedFields: { topologyKeys },
      };
    },
  });
}

class LostZoneRecovery {
  private readonly log: ReconcilerContext['log'];
  /** The status this run wrote last, per shift: the next decision builds on it even before the cache shows it. */
  private readonly written = new Map<string, LostZoneRecoveryStatus>();
  /**
   * The pods (uids) this run has deleted: a cache that still lists one just after is late, not a restart's leftover,
   * and deleting it again would announce a second deletion that never happens.
   */
  private readonly deleted = new Set<string>();

  constructor(
    private readonly ctx: ReconcilerContext,
    private readonly caches: Caches<RecoveryWatch>,
    private readonly topologyKeys: readonly string[],
  ) {
    this.log = ctx.log.with({ reconciler: NAME });
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    if (name === STAND_INS_KEY) return this.labelStandIns();
    const shift = this.caches.get('shifts', name);
    const now = Date.now();
    const spec = shift && shiftInForce(shift, now);
    if (!shift || !spec?.lost) {
      this.written.delete(name);
      return {};
    }
    const previous = this.written.get(name) ?? shift.status?.recovery;
    const plan = planRecovery(recoveryInput(this.caches, spec, this.topologyKeys, previous, now));
    if (!statusHolds(shift.status, { recovery: plan.status })) {
      if (!await patchStatus(this.ctx.kube, ZONE_SHIFTS, shift, { recovery: plan.status })) return {};
      this.written.set(name, plan.status);
      this.log.info('lost zone recovery', { shift: name, zone: spec.zone, phase: plan.status.phase, message: plan.status.message });
    }
    // the stand-in nodes labelled before a pinned pod is deleted: it comes back on them at once
    if (plan.delete.length > 0) await this.labelStandIns();
    const notDeletedYet = plan.delete.filter((d) => !this.deleted.has(d.uid));
    for (const deletion of notDeletedYet) await this.bringBack(deletion, spec.zone);
    return { requeueAfter: RECOVERY_EVERY_MS };
  }

  /** Puts exactly the stand-in labels the rule wants on each node (`standInLabelChanges`). */
  private async labelStandIns(): Promise<ReconcileResult> {
    const changes = standInLabelChanges(standInInput(this.caches, this.topologyKeys, Date.now()));
    for (const { node, labels } of changes) {
      try {
        await this.ctx.kube.patch(resourcePath(NODES, undefined, node), { metadata: { labels } });
      } catch (err) {
        if (!isStatus(err, 404)) throw err; // a node gone meanwhile needs no label
      }
      this.log.info('stand-in labels', { node, labels });
    }
    return {};
  }

  /** Deletes the pod's claims in the lost zone, then the pod itself at once (only that very pod: its uid). */
  private async bringBack(d: PodDeletion, zone: string): Promise<void> {
    const gone = (err: unknown) => {
      if (!isStatus(err, 404) && !isStatus(err, 409)) throw err;
    };
    for (const claim of d.claims) await this.ctx.kube.delete(resourcePath(CLAIMS, d.namespace, claim)).catch(gone);
    const thisPodAtOnce = { gracePeriodSeconds: 0, preconditions: { uid: d.uid } };
    await this.ctx.kube.delete(resourcePath(PODS, d.namespace, d.pod), thisPodAtOnce).catch(gone);
    this.deleted.add(d.uid);
    const message = `zone ${zone} is lost: pod ${d.pod} deleted${d.claims.length > 0 ? ` with its claims ${d.claims.join(', ')}` : ''}, ` +
      'to come back in a surviving zone';
    this.log.info('lost zone pod deleted', { namespace: d.namespace, statefulSet: d.statefulSet, pod: d.pod, claims: d.claims });
    const statefulSet = this.caches.get('statefulSets', `${d.namespace}/${d.statefulSet}`);
    if (statefulSet) await this.ctx.events.record({ ...statefulSet, apiVersion: 'apps/v1', kind: 'StatefulSet' }, 'Normal', 'LostZoneRecovery', message);
  }
}
