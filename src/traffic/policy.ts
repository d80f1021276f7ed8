/**
 * Which routing rule applies to a Service's requests, as the EndpointSlice controller and kube-proxy of Kubernetes
 * 1.35 decide it: `internalTrafficPolicy: Local` keeps requests on their node, the topology-mode annotation
 * (topology-aware hints) wins over `spec.trafficDistribution`, and a headless Service is not routed by kube-proxy at
 * all (clients pick an address from DNS). Pure.
 */

/** How a client's requests are spread over a Service's endpoints. */
export enum TrafficPolicy {
  /** Every ready endpoint, evenly, whatever the client's zone. */
  NONE = 'None',
  /** `trafficDistribution: PreferSameZone`: the endpoints of the client's zone while there are any, else all. */
  PREFER_SAME_ZONE = 'PreferSameZone',
  /** `trafficDistribution: PreferClose`, the older name of PreferSameZone (the same hints). */
  PREFER_CLOSE = 'PreferClose',
  /** `trafficDistribution: PreferSameNode`: the client node's endpoints, else its zone's, else all. */
  PREFER_SAME_NODE = 'PreferSameNode',
  /**
   * `service.kubernetes.io/topology-mode: Auto`: endpoints allotted to zones in proportion to their nodes' CPU,
   * or all of them where the controller falls back.
   */
  TOPOLOGY_AUTO = 'TopologyAuto',
  /** `clusterIP: None`: no proxying; clients choose among the pods' addresses from DNS (assumed evenly). */
  HEADLESS = 'Headless',
  /**
   * `internalTrafficPolicy: Local`: only the endpoints on the client's own node; a node without one gets no answer
   * (no fall-back).
   */
  NODE_LOCAL = 'NodeLocal',
}

/** The annotation that turns topology-aware hints on (`Auto`). */
export const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
/** Its older name, which the EndpointSlice controller still reads first. */
export const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';

/** The trafficDistribution values Kubernetes 1.35 takes (the API server refuses any other). */
export const TRAFFIC_DISTRIBUTIONS: readonly string[] = [
  TrafficPolicy.PREFER_CLOSE, TrafficPolicy.PREFER_SAME_ZONE, TrafficPolicy.PREFER_SAME_NODE,
];

/** What of a Service decides its routing. */
export interface RoutingFields {
  readonly trafficDistribution?: string;
  readonly annotations: { readonly [key: string]: string };
  /** `spec.clusterIP: None`. */
  readonly headless: boolean;
  /** `spec.internalTrafficPolicy` (Cluster unless set). */
  readonly internalTrafficPolicy?: string;
}

/** The rule that routes the Service's requests. */
export function trafficPolicy(s: RoutingFields): TrafficPolicy {
  if (s.headless) return TrafficPolicy.HEADLESS;
  // kube-proxy then uses the node's endpoints alone, hints or not
  if (s.internalTrafficPolicy === 'Local') return TrafficPolicy.NODE_LOCAL;
  if (topologyModeAuto(s.annotations)) return TrafficPolicy.TOPOLOGY_AUTO;
  const written = s.trafficDistribution;
  if (written !== undefined && TRAFFIC_DISTRIBUTIONS.includes(written)) return written as TrafficPolicy;
  return TrafficPolicy.NONE;
}

/**
 * Whether the policy keeps a client's requests in its zone while its zone has endpoints
 * (the trafficDistribution ones).
 */
export function keepsTrafficInZone(policy: TrafficPolicy): boolean {
  return TRAFFIC_DISTRIBUTIONS.includes(policy);
}

/**
 * Whether the annotations turn topology-aware hints on: the older annotation, when present, decides alone (as
 * the EndpointSlice controller reads it); `Auto` or `auto`.
 */
function topologyModeAuto(annotations: { readonly [key: string]: string }): boolean {
  const value = annotations[TOPOLOGY_HINTS_ANNOTATION] ?? annotations[TOPOLOGY_MODE_ANNOTATION];
  return value === 'Auto' || value === 'auto';
}
