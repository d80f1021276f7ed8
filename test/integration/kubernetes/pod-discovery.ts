/**
 * Pods as Prometheus's Kubernetes discovery finds them (role pod, the node's metadata attached): one target per
 * container port, with the `__meta_kubernetes_*` labels the scrape jobs relabel. The tier's Prometheus is Debian's,
 * built without kubernetes_sd: a test writes these targets to a file_sd file instead, from the real pods.
 */
import { sanitizeLabelName } from '../../../src/prometheus/relabel';

/** A container and its ports. */
export interface DiscoveredContainer {
  readonly name: string;
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
}

/** The pod's metadata, spec and status, as the API server has them (or a pod template with a name and an IP). */
export interface DiscoveredPod {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels?: { [key: string]: string } };
  readonly spec: { readonly containers: readonly DiscoveredContainer[] };
  readonly status: { readonly phase: string; readonly podIP: string };
}

/**
 * The targets of `pod`, on a node labelled `nodeLabels`; `address` maps a container port to where this machine serves
 * it (a pod's own IP and port, or the free port a test process listens on).
 */
export function podTargets(
  pod: DiscoveredPod,
  nodeLabels: { readonly [key: string]: string },
  address: (container: string, port: { name?: string; containerPort: number }) => string = (_, port) =>
    `${pod.status.podIP}:${port.containerPort}`,
): { [name: string]: string }[] {
  const labels = (object: 'pod' | 'node', of: { readonly [key: string]: string }) => Object.fromEntries(
    Object.entries(of).flatMap(([key, value]) => [
      [`__meta_kubernetes_${object}_label_${sanitizeLabelName(key)}`, value],
      [`__meta_kubernetes_${object}_labelpresent_${sanitizeLabelName(key)}`, 'true'],
    ]));
  const common = {
    __meta_kubernetes_namespace: pod.metadata.namespace,
    __meta_kubernetes_pod_name: pod.metadata.name,
    __meta_kubernetes_pod_phase: pod.status.phase,
    __meta_kubernetes_pod_ip: pod.status.podIP,
    ...labels('pod', pod.metadata.labels ?? {}),
    ...labels('node', nodeLabels),
  };
  return pod.spec.containers.flatMap((container) => (container.ports ?? []).map((port) => ({
    ...common,
    __address__: address(container.name, port),
    __meta_kubernetes_pod_container_name: container.name,
    __meta_kubernetes_pod_container_port_name: port.name ?? '',
    __meta_kubernetes_pod_container_port_number: String(port.containerPort),
  })));
}
