/**
 * Which pods of a lost zone to bring back now (pure). A zone declared lost keeps its opted-in StatefulSets' pods
 * Pending or unreachable there: their claims are bound to volumes in that zone. Deleting those claims and the pod
 * lets the StatefulSet controller make both again, and the scheduler place them in a surviving zone. The rules:
 * - never while a node of the zone answers (Ready, or its Lease fresh): an impaired zone may come back with its data;
 * - never for a StatefulSet with no Ready pod outside the zone: its data does not live on elsewhere;
 * - never for one whose pods are pinned to a zone: they would only wait there again, on empty claims; but one
 *   pinned to the lost zone with a stand-in term (`standInTerm`), one of a zone group (one StatefulSet per zone), is
 *   brought back on the other zones' nodes once they carry the stand-in label, if its group serves outside the zone;
 * - never more of a StatefulSet's pods at once than its opt-in allows, counting those deleted that serve nowhere
 *   yet (not made again, or not Ready) and its other pods not Ready;
 * - a pod made again while its old claim was still going (the claim protection holds it until the old pod is gone)
 *   is deleted once more, so it gets a new claim.
 */
import { LostZoneRecoveryStatus, RecoveredPod, recoveryAnnotationProblem } from '../contract/lost-zone';
import { ZONE_GROUP_ANNOTATION } from '../contract/zone-check';

/** A node as the recovery reads it. */
export interface RecoveryNode {
  readonly name: string;
  readonly zone?: string;
  /** Ready, or its Lease renewed within `NODE_SILENT_SECONDS`. */
  readonly answers: boolean;
}

/** An opted-in StatefulSet. */
export interface RecoveryWorkload {
  readonly namespace: string;
  readonly name: string;
  readonly replicas: number;
  /** Its `LOST_ZONE_RECOVERY_ANNOTATION` value. */
  readonly atOnce: string | undefined;
  /** Its volume claim templates' names (a pod's claim is `<template>-<pod>`). */
  readonly claimTemplates: readonly string[];
  /** The one zone its pod template confines its pods to, its stand-in term aside (`recoveryPin`), if any. */
  readonly pinnedTo?: string;
  /** Its pod template carries the stand-in term of `pinnedTo`: its pods may stand in on other zones' nodes. */
  readonly standIn?: boolean;
  /** Its zone group (`cdk8s-zones.dev/zone-group`): the StatefulSets of one system, one per zone. */
  readonly zoneGroup?: string;
}

/** A pod of a StatefulSet. */
export interface RecoveryPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly statefulSet: string;
  /** Its node's zone; undefined while unscheduled or when its node is gone. */
  readonly zone?: string;
  readonly scheduled: boolean;
  readonly ready: boolean;
}

/** A claim, with the zone of the volume it is bound to (undefined: none, or a volume bound to no zone). */
export interface RecoveryClaim {
  readonly namespace: string;
  readonly name: string;
  readonly zone?: string;
  /** Being deleted (the claim protection keeps it while a pod uses it). */
  readonly deleting: boolean;
}

export interface RecoveryInput {
  readonly zone: string;
  readonly nodes: readonly RecoveryNode[];
  readonly workloads: readonly RecoveryWorkload[];
  readonly pods: readonly RecoveryPod[];
  readonly claims: readonly RecoveryClaim[];
  /** How many PersistentVolumes are bound to the zone (a zone whose nodes are gone is known by its volumes). */
  readonly volumesInZone: number;
  readonly previous?: LostZoneRecoveryStatus;
  readonly nowMs: number;
}

/** A pod to delete, after its claims in the lost zone. */
export interface PodDeletion {
  readonly namespace: string;
  readonly statefulSet: string;
  readonly pod: string;
  readonly uid: string;
  readonly claims: readonly string[];
}

export interface RecoveryPlan {
  readonly status: LostZoneRecoveryStatus;
  /** Recorded in the status before they are carried out. */
  readonly delete: readonly PodDeletion[];
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** What to do now for the lost zone `input.zone`. */
export function planRecovery(input: RecoveryInput): RecoveryPlan {
  const recovered = [...input.previous?.recovered ?? []];
  const zoneNodes = input.nodes.filter((n) => n.zone === input.zone);
  // a zone with neither is a mistake, unless its last volumes went with the pods brought back
  if (zoneNodes.length === 0 && input.volumesInZone === 0 && recovered.length === 0) {
    const message = `zone ${input.zone} has no node and no volume: nothing to recover (is the zone right?); nothing is deleted`;
    return { status: { phase: 'Invalid', message, recovered, held: [] }, delete: [] };
  }
  const answering = zoneNodes.filter((n) => n.answers).map((n) => n.name).sort();
  if (answering.length > 0) {
    const message = `nodes of zone ${input.zone} still answer (${listed(answering)}): nothing is deleted while one does`;
    return { status: { phase: 'Waiting', message, recovered, held: [] }, delete: [] };
  }
  const held: string[] = [];
  const deletions: PodDeletion[] = [];
  let inFlight = 0;
  const nameOf = (w: RecoveryWorkload) => key(w.namespace, w.name);
  for (const workload of [...input.workloads].sort((a, b) => nameOf(a).localeCompare(nameOf(b)))) {
    const step = workloadStep(input, workload, recovered);
    if (step.held) held.push(`StatefulSet ${nameOf(workload)}: ${step.held}`);
    deletions.push(...step.delete);
    inFlight += step.inFlight;
  }
  const at = new Date(input.nowMs).toISOString();
  const fresh = deletions.filter((d) => !recovered.some((r) => r.uid === d.uid));
  recovered.push(...fresh.map((d): RecoveredPod => ({ ...d, at })));
  const busy = deletions.length + inFlight;
  const phase = busy > 0 ? 'Recovering' : 'Recovered';
  const message = busy > 0
    ? `zone ${input.zone} lost: ${deletions.length} pod(s) deleted now, ${inFlight} coming back elsewhere`
    : `zone ${input.zone} lost: every opted-in pod that can come back is back elsewhere (${broughtBack(recovered)} brought back` +
      `${held.length > 0 ? `; ${held.length} StatefulSet(s) held` : ''})`;
  return { status: { phase, message, recovered, held }, delete: deletions };
}

interface WorkloadStep {
  readonly delete: PodDeletion[];
  readonly inFlight: number;
  readonly held?: string;
}

/** One StatefulSet's deletions now, how many of its pods are still coming back, and why it is held. */
function workloadStep(input: RecoveryInput, w: RecoveryWorkload, recovered: readonly RecoveredPod[]): WorkloadStep {
  // one of a zone group, one StatefulSet per zone, whose pods may stand in for their zone elsewhere
  const groupMember = w.pinnedTo !== undefined && w.standIn === true && w.zoneGroup !== undefined;
  const standsIn = groupMember && w.pinnedTo === input.zone;
  const problem = recoveryAnnotationProblem(w.atOnce, w.replicas, groupMember);
  if (problem) return { delete: [], inFlight: 0, held: problem };
  const pods = input.pods.filter((p) => p.namespace === w.namespace && p.statefulSet === w.name);
  const claimsOf = (pod: string) => w.claimTemplates
    .map((t) => input.claims.find((c) => c.namespace === w.namespace && c.name === `${t}-${pod}`))
    .filter((c): c is RecoveryClaim => c !== undefined);
  const inZone = (p: RecoveryPod) => p.zone === input.zone
    || (p.zone === undefined && claimsOf(p.name).some((c) => c.zone === input.zone && !c.deleting));
  const claimsInZone = (pod: string) => claimsOf(pod)
    .filter((c) => c.zone === input.zone && !c.deleting)
    .map((c) => c.name);
  const records = recovered.filter((r) => r.namespace === w.namespace && r.statefulSet === w.name);
  const deletedUids = new Set(records.map((r) => r.uid));
  const deletedNames = new Set(records.map((r) => r.pod));
  // the pods it deleted that serve nowhere yet: not made again, still going, or made again and not Ready
  const inFlight = [...deletedNames].filter((name) => !pods.some((p) => p.name === name && p.ready));
  // that very pod not gone yet (a restart between the record and the deletion): deleted again
  const stillGoing = pods.filter((p) => deletedUids.has(p.uid));
  // made again while its old claim was going (the claim protection holds it): deleted once more, for a new claim
  const madeAgainUnplaced = (p: RecoveryPod) => deletedNames.has(p.name) && !deletedUids.has(p.uid) && !p.scheduled;
  const onGoingClaim = pods.filter((p) => madeAgainUnplaced(p) && claimsOf(p.name).some((c) => c.deleting));
  const lost = pods.filter((p) => inZone(p) && !deletedNames.has(p.name));
  if (lost.length === 0 && inFlight.length === 0) return { delete: [], inFlight: 0 };
  if (w.pinnedTo !== undefined && !standsIn) {
    const held = w.standIn === true
      ? `its pods are pinned to zone ${w.pinnedTo} with a stand-in term, but it is in no zone group (${ZONE_GROUP_ANNOTATION}): ` +
        'where its data lives on is unknown, so nothing is deleted'
      : `its pods are pinned to zone ${w.pinnedTo}: they cannot come back in another zone, so nothing is deleted ` +
        '(replace the zone in the topology: docs/runbooks/zone-lost.md)';
    return { delete: [], inFlight: 0, held };
  }
  const livesOn = standsIn ? groupServesOutside(input, w) : pods.some((p) => p.ready && !inZone(p));
  if (!livesOn) {
    const whose = standsIn ? `of its zone group ${w.zoneGroup} ` : '';
    const held = `no Ready pod ${whose}outside zone ${input.zone}: its data does not live on elsewhere, nothing is deleted`;
    return { delete: [], inFlight: inFlight.length, held };
  }
  const notReadyElsewhere = pods.filter((p) => !p.ready && !inZone(p) && !deletedNames.has(p.name)).length;
  const room = Math.max(0, Number(w.atOnce) - inFlight.length - notReadyElsewhere);
  const again = [...stillGoing, ...onGoingClaim].map((p) => deletionOf(w, p, claimsInZone(p.name)));
  const next = lost.sort((a, b) => ordinal(a.name) - ordinal(b.name)).slice(0, room)
    .map((p) => deletionOf(w, p, claimsInZone(p.name)));
  const waiting = lost.length - next.length;
  const held = waiting > 0 ? `${waiting} pod(s) wait: at most ${w.atOnce} at once` : undefined;
  return { delete: [...again, ...next], inFlight: inFlight.length - again.length, held };
}

/** Whether another StatefulSet of `w`'s zone group has a Ready pod outside the lost zone. */
function groupServesOutside(input: RecoveryInput, w: RecoveryWorkload): boolean {
  const members = new Set(input.workloads
    .filter((o) => o.namespace === w.namespace && o.zoneGroup === w.zoneGroup && o.name !== w.name)
    .map((o) => o.name));
  return input.pods.some((p) => p.namespace === w.namespace && members.has(p.statefulSet) && p.ready
    && p.zone !== undefined && p.zone !== input.zone);
}

function deletionOf(w: RecoveryWorkload, p: RecoveryPod, claims: readonly string[]): PodDeletion {
  return { namespace: w.namespace, statefulSet: w.name, pod: p.name, uid: p.uid, claims };
}

/** How many pods were brought back (a pod deleted twice, made again on its old claim the first time, counts once). */
const broughtBack = (recovered: readonly RecoveredPod[]) => new Set(recovered.map((r) => key(r.namespace, r.pod))).size;

/** A StatefulSet pod's ordinal (its name's last part). */
const ordinal = (pod: string) => Number(pod.slice(pod.lastIndexOf('-') + 1));

const listed = (names: readonly string[]) =>
  (names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`);
