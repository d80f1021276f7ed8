/**
 * What the lost-zone recovery watches: the ZoneShifts (the primary: those that declare a zone lost), the nodes (their
 * zone and Ready condition) and their Leases (does the zone still answer?), the StatefulSets (their opt-in, replicas
 * and claim templates), their pods (zone, readiness, uid), the claims (their volume, their deletion) and the volumes
 * (their zone). A change that can change a decision queues every lost zone's shift; the Leases queue nothing (a
 * stale Lease is a matter of time: the reconciler looks again every few seconds while a zone is lost).
 */
import { LOST_ZONE_RECOVERY_ANNOTATION } from '../../../src/contract/lost-zone';
import { ZONE_GROUP_ANNOTATION } from '../../../src/contract/zone-check';
import { shiftInForce } from '../../../src/contract/zone-shift';
import { KubeObject } from '../kube/api';
import { readyStatus, slimMeta, slimPod, slimReadyNode } from '../kube/transforms';
import { CLAIMS, NODES, PODS, STATEFULSETS, VOLUMES } from '../resources';
import { Caches, Change, inputsChanged, nodeLeasesWatch, shiftsWatch, Watches } from '../watches';

export type RecoveryWatch = 'shifts' | 'nodes' | 'leases' | 'statefulSets' | 'pods' | 'claims' | 'volumes';

/**
 * The key of the stand-in labels (src/lost-zone/stand-ins.ts), queued by every change: they outlive the shifts.
 * No ZoneShift has this name ('#' is not allowed in one).
 */
export const STAND_INS_KEY = '#stand-ins';

/** The shifts that declare a zone lost and hold now: each is a key. */
export function lostShiftKeys(caches: Caches<RecoveryWatch>, nowMs = Date.now()): string[] {
  return caches.list('shifts').filter((s) => shiftInForce(s, nowMs)?.lost === true).map((s) => s.metadata.name);
}

/**
 * What the plan reads of a StatefulSet: its opt-in, replicas, claim templates' names and what pins its pods to a zone
 * (none when not opted in).
 */
export function slimStatefulSet(sts: KubeObject): KubeObject {
  const optedIn = sts.metadata.annotations?.[LOST_ZONE_RECOVERY_ANNOTATION] !== undefined;
  return {
    metadata: slimMeta(sts.metadata, { annotations: [LOST_ZONE_RECOVERY_ANNOTATION, ZONE_GROUP_ANNOTATION] }),
    spec: optedIn ? {
      replicas: sts.spec?.replicas ?? 1,
      volumeClaimTemplates: (sts.spec?.volumeClaimTemplates as KubeObject[] | undefined ?? [])
        .map((t) => ({ metadata: { name: t.metadata?.name } })),
      // what pins its pods to a zone
      template: {
        spec: {
          nodeSelector: sts.spec?.template?.spec?.nodeSelector,
          affinity: { nodeAffinity: sts.spec?.template?.spec?.affinity?.nodeAffinity },
        },
      },
    } : {},
  };
}

const inputsOf = (watch: RecoveryWatch, obj: KubeObject): string => {
  switch (watch) {
    case 'nodes': return JSON.stringify([obj.metadata.labels, readyStatus(obj)]);
    case 'pods': {
      return JSON.stringify([obj.metadata.uid, obj.spec?.nodeName, readyStatus(obj), obj.metadata.deletionTimestamp]);
    }
    case 'claims': return JSON.stringify([obj.metadata.uid, obj.spec?.volumeName, obj.metadata.deletionTimestamp]);
    default: return JSON.stringify([obj.metadata.annotations, obj.spec]);
  }
};

export function recoveryWatches(): Watches<RecoveryWatch> {
  const onChange = (watch: RecoveryWatch) => (change: Change, c: Caches<RecoveryWatch>) =>
    (inputsChanged(change, (obj) => inputsOf(watch, obj)) ? [...lostShiftKeys(c), STAND_INS_KEY] : []);
  return {
    shifts: { ...shiftsWatch<RecoveryWatch>(({ obj }) => [obj.metadata.name, STAND_INS_KEY]), primary: true },
    nodes: {
      resource: NODES,
      transform: slimReadyNode,
      keys: onChange('nodes'),
    },
    leases: nodeLeasesWatch(),
    statefulSets: { resource: STATEFULSETS, transform: slimStatefulSet, keys: onChange('statefulSets') },
    pods: { resource: PODS, transform: (pod) => slimPod(pod, { conditions: ['Ready'] }), keys: onChange('pods') },
    claims: {
      resource: CLAIMS,
      transform: (claim) => ({ metadata: slimMeta(claim.metadata), spec: { volumeName: claim.spec?.volumeName } }),
      keys: onChange('claims'),
    },
    volumes: {
      resource: VOLUMES,
      transform: (pv) => ({
        metadata: slimMeta(pv.metadata, { labels: 'all' }),
        spec: { nodeAffinity: pv.spec?.nodeAffinity },
      }),
    },
  };
}
