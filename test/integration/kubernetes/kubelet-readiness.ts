/**
 * What kwok leaves out of a kubelet: kwok sets a pod's Ready condition and its readiness gates True once, at start,
 * and never again, where a kubelet recomputes Ready from the gates whenever one changes (its status manager).
 * `playKubeletReadiness` applies that rule, and only it, to the pods of one namespace, so a readiness gate the
 * controller turns False takes the pod out of its Services' endpoints as it would on a real node.
 */
import { ClusterInfo } from './control-plane';
import { KubeClient } from './kube-client';
import { PodWatch, watchPods } from './pod-watch';
import { isTerminating } from '../../../src/kubernetes/pod-life';

/** The kubelet's rule for readiness gates: Ready is True only while every gate's condition is True. */
export function playKubeletReadiness(client: KubeClient, info: ClusterInfo, namespace: string): Promise<PodWatch> {
  return watchPods(info, namespace, ({ type, pod }) => {
    const conditionTypes: string[] = (pod.spec.readinessGates ?? []).map((g: any) => g.conditionType);
    if (type === 'DELETED' || conditionTypes.length === 0 || isTerminating(pod)) return;
    const status = (t: string) => pod.status?.conditions?.find((c: any) => c.type === t)?.status;
    const ready = conditionTypes.every((g) => status(g) === 'True') ? 'True' : 'False';
    if (status('Ready') === undefined || status('Ready') === ready) return;
    const condition = { type: 'Ready', status: ready, lastTransitionTime: new Date().toISOString() };
    const patch = { status: { conditions: [condition] } };
    void client.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`, patch, 'application/strategic-merge-patch+json')
      .catch(() => undefined);
  });
}
