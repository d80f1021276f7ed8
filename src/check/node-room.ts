/**
 * The room each node has for a workload's pods: what its affinity and tolerations admit, for its requests, within
 * the zones its volumes allow (a StorageClass limited to some zones, a PersistentVolume's node affinity).
 */
import { CheckInput, CheckStorageClass, CheckWorkload } from './check-input';
import { affinityAdmits, podRequests, roomOn, toleratesTaints } from './eligibility';
import { CheckNode } from './inventory';
import { AddFinding, FindingSeverity } from './model';
import { volumeOf } from './workloads';
import { NodeSelectorTerm, PodSpec } from '../kubernetes/objects';

/** Per node (by name): how many of the workload's pods fit on it. */
export type NodeRoom = Map<string, number>;

/**
 * The room each node has for the workload's pods: what its affinity and tolerations admit, for its requests. A
 * volume's StorageClass limited to some zones keeps the pods out of the others; one binding Immediate picks each
 * volume's zone before the pod is scheduled, so the hard spread no longer decides where the pods go (a warning).
 */
export function roomFor(
  w: CheckWorkload, input: CheckInput, nodes: readonly CheckNode[], requests: ReturnType<typeof podRequests>,
  add: AddFinding,
): { room: NodeRoom; immediate: CheckStorageClass | undefined } {
  const admits = (n: CheckNode) => affinityAdmits(w.pod, n) && toleratesTaints(w.pod, n);
  const room = new Map(nodes.map((n) => [n.name, admits(n) ? roomOn(n, requests) : 0]));
  const classes = w.claimClasses.map((name) => storageClassOf(name, input.storageClasses));
  for (const c of classes) {
    if (!c) continue;
    if (c.zones) for (const n of nodes) if (!c.zones.includes(n.zone)) room.set(n.name, 0);
  }
  const immediate = classes.find((c) => c?.immediate && (c.zones === undefined || c.zones.length > 1));
  if (immediate) {
    add('immediate-binding', FindingSeverity.WARNING,
      `its volumes use StorageClass ${immediate.name} with volumeBindingMode Immediate: ` +
      'each volume\'s zone is chosen before its pod is scheduled, ' +
      'so the zone spread cannot hold and every replica may end up in one zone',
      'Use a StorageClass with volumeBindingMode: WaitForFirstConsumer.');
  }
  return { room, immediate };
}

function storageClassOf(
  name: string | undefined, classes: readonly CheckStorageClass[],
): CheckStorageClass | undefined {
  return name === undefined ? classes.find((c) => c.isDefault) : classes.find((c) => c.name === name);
}

/** A pod spec that requires the nodes a PersistentVolume's node affinity names. */
export function volumeNodes(terms: readonly NodeSelectorTerm[]): PodSpec {
  const required = { nodeSelectorTerms: terms };
  return { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } };
}

/**
 * The claims every pod mounts (the pod template's), bound to PersistentVolumes with node affinity, keep the
 * pods on those volumes' nodes.
 */
export function pinByVolumes(
  w: CheckWorkload, input: CheckInput, nodes: readonly CheckNode[], room: NodeRoom, add: AddFinding,
): void {
  for (const claim of w.podClaims) {
    const volume = volumeOf(input, w.namespace, claim);
    if (!volume) continue;
    for (const n of nodes) if (!affinityAdmits(volumeNodes(volume.nodeTerms), n)) room.set(n.name, 0);
    add('volume-pinned', FindingSeverity.INFO,
      `its claim ${claim} is bound to PersistentVolume ${volume.name}, whose node affinity keeps its pods on its nodes`,
      'Nothing to fix if that is intended; a zonal volume pins every pod that mounts it to its zone.');
  }
}
