/**
 * What the autoshift watches: its policy (the primary), the ZoneShifts, the nodes (their zone, Ready condition and
 * drill), the nodes' Leases (their last renewal), the opted-in pods (their workload, zone and readiness) and the
 * Services (the fail-safe's selectors). A change that can change a decision queues the policy; the Leases queue
 * nothing (they renew every 10 s, and staleness is a matter of time: the reconciler looks again every few seconds
 * anyway).
 */
import { DRILL_OUTAGE_TAINT_KEY, DRILL_RECORD_ANNOTATION, drillOnNode } from '../../../src/contract/drill';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { ZONE_IN_SERVICE_CONDITION } from '../../../src/contract/zone-shift';
import { KubeObject } from '../kube/api';
import { byNamespace } from '../kube/informer';
import { readyStatus, slimMeta, slimPod, slimReadyNode } from '../kube/transforms';
import { NODES, PODS, SERVICES, ZONE_AUTOSHIFTS } from '../resources';
import { Change, inputsChanged, nodeLeasesWatch, shiftsWatch, Watches } from '../watches';

export type AutoshiftWatch = 'policies' | 'shifts' | 'nodes' | 'leases' | 'pods' | 'services';

/** What the signals read of a pod: its labels and owner (its workload), node, phase, readiness and restarts. */
export function slimSignalPod(pod: KubeObject): KubeObject {
  const slim = slimPod(pod, { labels: 'all', conditions: ['ContainersReady', 'Ready', ZONE_IN_SERVICE_CONDITION], phase: true });
  const restarts = (pod.status?.containerStatuses as Array<{ restartCount?: number }> | undefined)
    ?.map((c) => ({ restartCount: c.restartCount ?? 0 }));
  return { ...slim, status: { ...slim.status, ...(restarts ? { containerStatuses: restarts } : {}) } };
}

/** What the signals read of a node: its labels (its zone), its Ready condition, and a drill's record and taint. */
export function slimSignalNode(node: KubeObject): KubeObject {
  const taints = (node.spec?.taints as Array<{ key: string }> | undefined)
    ?.filter((t) => t.key === DRILL_OUTAGE_TAINT_KEY);
  return {
    ...slimReadyNode(node),
    metadata: slimMeta(node.metadata, { labels: 'all', annotations: [DRILL_RECORD_ANNOTATION] }),
    ...(taints !== undefined && taints.length > 0 ? { spec: { taints } } : {}),
  };
}

const nodeInputs = (node: KubeObject) => JSON.stringify([readyStatus(node), drillOnNode(node)]);

const podInputs = (pod: KubeObject) => JSON.stringify([pod.spec?.nodeName, pod.status, pod.metadata.deletionTimestamp]);

export function autoshiftWatches(policy: string): Watches<AutoshiftWatch> {
  const decide = () => [policy];
  return {
    policies: {
      resource: ZONE_AUTOSHIFTS,
      primary: true,
      keys: ({ obj }: Change) => (obj.metadata.name === policy ? [policy] : []),
    },
    shifts: shiftsWatch<AutoshiftWatch>(decide),
    nodes: {
      resource: NODES,
      transform: slimSignalNode,
      keys: (change) => (inputsChanged(change, nodeInputs) ? [policy] : []),
    },
    leases: nodeLeasesWatch(),
    pods: {
      resource: PODS,
      labelSelector: `${ZoneAnnotation.OPT_IN_LABEL}=${ZoneAnnotation.OPT_IN_VALUE}`,
      transform: slimSignalPod,
      indexes: { namespace: byNamespace },
      keys: (change) => (inputsChanged(change, podInputs) ? [policy] : []),
    },
    services: {
      resource: SERVICES,
      transform: (svc) => ({ metadata: slimMeta(svc.metadata), spec: { selector: svc.spec?.selector } }),
    },
  };
}
