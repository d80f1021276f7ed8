/**
 * The lost-zone recovery reconciler: on a ZoneShift with `spec.lost`, it reads what is in the lost zone, lets the
 * pure plan (src/lost-zone/recovery-plan.ts) decide which opted-in StatefulSet pods come back now, records them in
 * the shift's `status.recovery`, then deletes each one's claims in the zone and the pod itself, at once (its node
 * will never confirm), so that the StatefulSet controller makes both again in a surviving zone. Recorded before
 * deleted: a controller restarted between the two deletes again (same uid), never twice the count.
 * docs/runbooks/zone-lost.md.
 */
import { RecoveryWatch, recoveryWatches } from './lost-zone-recovery-watches';
import { patchStatus, statusHolds } from './status';
import { nodeZone } from './zone-shift-decision';
import { LostZoneRecoveryStatus, LOST_ZONE_RECOVERY_ANNOTATION, nodeAnswers } from '../../../src/contract/lost-zone';
import { NODE_LEASE_NAMESPACE } from '../../../src/contract/rbac';
import { LOST_ZONE_RECOVERY, LOST_ZONE_RECOVERY_RULES } from '../../../src/contract/reconcilers';
import { shiftCovers, shiftInForce, ZoneShiftSpec } from '../../../src/contract/zone-shift';
import { pinnedZone, WELL_KNOWN_ZONE_KEYS } from '../../../src/kubernetes/pinned-zone';
import { conditionHolds } from '../../../src/kubernetes/pod-life';
import { PodDeletion, planRecovery, RecoveryInput } from '../../../src/lost-zone/recovery-plan';
import { volumeZone } from '../../../src/lost-zone/volume-zone';
import { defineReconciler } from '../define-reconciler';
import { isStatus, KubeObject, resourcePath } from '../kube/api';
import { ReconcileResult } from '../reconcile-loop';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { CLAIMS, PODS, ZONE_SHIFTS } from '../resources';
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

/** The plan's input, read from the caches: what is in `spec.zone`, of the namespaces the shift covers. */
export function recoveryInput(
  caches: Caches<RecoveryWatch>, spec: ZoneShiftSpec, topologyKeys: readonly string[],
  previous: LostZoneRecoveryStatus | undefined, nowMs: number,
): RecoveryInput {
  const nodes = caches.list('nodes');
  const zoneByNode = new Map(nodes.map((n) => [n.metadata.name, nodeZone(n, topologyKeys)]));
  const covered = (obj: KubeObject) => shiftCovers(spec, obj.metadata.namespace);
  const workloads = caches.list('statefulSets')
    .filter((s) => covered(s) && s.metadata.annotations?.[LOST_ZONE_RECOVERY_ANNOTATION] !== undefined);
  const names = new Set(workloads.map((s) => `${s.metadata.namespace}/${s.metadata.name}`));
  const ownerOf = (pod: KubeObject) => pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'StatefulSet')?.name;
  const pods = caches.list('pods').filter((p) => names.has(`${p.metadata.namespace}/${ownerOf(p)}`));
  const zoneOfVolume = new Map(caches.list('volumes').map((v) => [v.metadata.name, volumeZone(v, topologyKeys)]));
  return {
    zone: spec.zone,
    nodes: nodes.map((n) => ({
      name: n.metadata.name,
      zone: zoneByNode.get(n.metadata.name),
      answers: answers(caches, n, nowMs),
    })),
    workloads: workloads.map((s) => ({
      namespace: s.metadata.namespace!,
      name: s.metadata.name,
      replicas: s.spec?.replicas ?? 1,
      atOnce: s.metadata.annotations![LOST_ZONE_RECOVERY_ANNOTATION],
      claimTemplates: (s.spec?.volumeClaimTemplates ?? []).map((t: KubeObject) => t.metadata.name),
      pinnedTo: pinnedZone(s.spec?.template?.spec, [...WELL_KNOWN_ZONE_KEYS, topologyKeys[0]]),
    })),
    pods: pods.map((p) => ({
      namespace: p.metadata.namespace!,
      name: p.metadata.name,
      uid: p.metadata.uid ?? '',
      statefulSet: ownerOf(p)!,
      zone: zoneByNode.get(p.spec?.nodeName ?? ''),
      scheduled: Boolean(p.spec?.nodeName),
      ready: conditionHolds(p, 'Ready') && !p.metadata.deletionTimestamp,
    })),
    claims: caches.list('claims').filter(covered).map((c) => ({
      namespace: c.metadata.namespace!,
      name: c.metadata.name,
      zone: c.spec?.volumeName ? zoneOfVolume.get(c.spec.volumeName) : undefined,
      deleting: Boolean(c.metadata.deletionTimestamp),
    })),
    volumesInZone: [...zoneOfVolume.values()].filter((z) => z === spec.zone).length,
    previous,
    nowMs,
  };
}

/** Whether `node` answers (`nodeAnswers`: Ready, or its Lease fresh). */
function answers(caches: Caches<RecoveryWatch>, node: KubeObject, nowMs: number): boolean {
  const renewed = Date.parse(caches.get('leases', `${NODE_LEASE_NAMESPACE}/${node.metadata.name}`)?.spec?.renewTime ?? '');
  return nodeAnswers(conditionHolds(node, 'Ready'), Number.isNaN(renewed) ? undefined : renewed, nowMs);
}

class LostZoneRecovery {
  private readonly log: ReconcilerContext['log'];
  /** The status this run wrote last, per shift: the next decision builds on it even before the cache shows it. */
  private readonly written = new Map<string, LostZoneRecoveryStatus>();

  constructor(
    private readonly ctx: ReconcilerContext,
    private readonly caches: Caches<RecoveryWatch>,
    private readonly topologyKeys: readonly string[],
  ) {
    this.log = ctx.log.with({ reconciler: NAME });
  }

  async reconcile(name: string): Promise<ReconcileResult> {
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
    for (const deletion of plan.delete) await this.bringBack(deletion, spec.zone);
    return { requeueAfter: RECOVERY_EVERY_MS };
  }

  /** Deletes the pod's claims in the lost zone, then the pod itself at once (only that very pod: its uid). */
  private async bringBack(d: PodDeletion, zone: string): Promise<void> {
    const gone = (err: unknown) => {
      if (!isStatus(err, 404) && !isStatus(err, 409)) throw err;
    };
    for (const claim of d.claims) await this.ctx.kube.delete(resourcePath(CLAIMS, d.namespace, claim)).catch(gone);
    const thisPodAtOnce = { gracePeriodSeconds: 0, preconditions: { uid: d.uid } };
    await this.ctx.kube.delete(resourcePath(PODS, d.namespace, d.pod), thisPodAtOnce).catch(gone);
    const message = `zone ${zone} is lost: pod ${d.pod} deleted${d.claims.length > 0 ? ` with its claims ${d.claims.join(', ')}` : ''}, ` +
      'to come back in a surviving zone';
    this.log.info('lost zone pod deleted', { namespace: d.namespace, statefulSet: d.statefulSet, pod: d.pod, claims: d.claims });
    const statefulSet = this.caches.get('statefulSets', `${d.namespace}/${d.statefulSet}`);
    if (statefulSet) await this.ctx.events.record({ ...statefulSet, apiVersion: 'apps/v1', kind: 'StatefulSet' }, 'Normal', 'LostZoneRecovery', message);
  }
}
