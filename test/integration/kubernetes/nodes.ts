/**
 * The fake nodes of a test cluster: kwok plays their kubelets (Ready, leases, pod status), the real
 * scheduler places pods on them. Each node carries the well-known topology labels of a cloud node, so
 * zone spreading, node affinity and zonal volumes behave as they do in a real multi-zone cluster.
 */
import { KubeClient, KubeObject } from './kube-client';
import { waitFor, WaitOptions } from './wait';
import { KUBELET_LABELS } from '../../../src/check/inventory';
import { conditionHolds } from '../../../src/kubernetes/pod-life';

export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const REGION_KEY = 'topology.kubernetes.io/region';
export const HOSTNAME_KEY = 'kubernetes.io/hostname';
/** kwok manages the nodes that carry this annotation (and only those). */
export const KWOK_ANNOTATION = 'kwok.x-k8s.io/node';

/** The zones of the examples (examples/web-3-zones). */
export const ZONES: readonly string[] = ['zone-a', 'zone-b', 'zone-c'];

export interface NodeLayout {
  /** @default ZONES */
  readonly zones?: readonly string[];
  /** @default 3 */
  readonly nodesPerZone?: number;
  /** @default 'region-1' */
  readonly region?: string;
  /** Node names are `<namePrefix>-<zone, lower-cased, cleaned and cut to 24 characters>-<i>`. @default 'kwok' */
  readonly namePrefix?: string;
  /**
   * The second octet of the pod CIDRs, `127.<octet>.<node>.0/24`, so two layouts in one cluster never share pod IPs.
   * @default 244
   */
  readonly podCidrOctet?: number;
  /**
   * Pod IPs in 10.0.0.0/8 (`10.<octet>.<node>.0/24`) instead of loopback: the EndpointSlice controller then lists the
   * pods as endpoints (the API refuses loopback endpoints), but no test can listen on their IPs. @default false
   */
  readonly routablePodIps?: boolean;
}

/** Allocatable resources of a node size (what the scheduler fits pods into). */
export interface NodeSize {
  readonly name: string;
  readonly cpu: string;
  readonly memory: string;
  readonly pods: number;
}

/** Two sizes, alternating within each zone, so "fits" is not the same question on every node. */
export const NODE_SIZES: readonly NodeSize[] = [
  { name: 'standard-4', cpu: '4', memory: '16Gi', pods: 110 },
  { name: 'standard-8', cpu: '8', memory: '32Gi', pods: 110 },
];

export interface FakeNode {
  readonly name: string;
  readonly zone: string;
  readonly region: string;
  readonly size: NodeSize;
  /**
   * Pod IPs come from here (kwok allocates them from the node's podCIDR); one /24 per node, inside
   * 127.0.0.0/8 (loopback on Linux), so a test can run a real server on a pod's IP (redis-manager.test.ts), unless
   * the layout asks for routable IPs.
   */
  readonly podCidr: string;
}

/** The nodes of a layout, in zone order then index order: `kwok-<zone>-<i>`. */
export function planNodes(layout: NodeLayout = {}): FakeNode[] {
  const zones = layout.zones ?? ZONES;
  const perZone = layout.nodesPerZone ?? 3;
  const region = layout.region ?? 'region-1';
  if (perZone < 1 || zones.length * perZone > 250) throw new Error(`NodeLayout: nodesPerZone=${perZone} must be 1..${Math.floor(250 / zones.length)}`);
  return zones.flatMap((zone, z) => Array.from({ length: perZone }, (_, i) => ({
    name: `${layout.namePrefix ?? 'kwok'}-${zone.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 24)}-${i + 1}`,
    zone,
    region,
    size: NODE_SIZES[i % NODE_SIZES.length],
    podCidr: `${layout.routablePodIps ? 10 : 127}.${layout.podCidrOctet ?? 244}.${z * perZone + i}.0/24`,
  })));
}

/** The Node object of a fake node, as a cloud provider would register it. */
export function nodeObject(node: FakeNode): KubeObject {
  const resources = { 'cpu': node.size.cpu, 'memory': node.size.memory, 'pods': String(node.size.pods), 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: {
        [ZONE_KEY]: node.zone,
        [REGION_KEY]: node.region,
        [HOSTNAME_KEY]: node.name,
        ...KUBELET_LABELS, // as a kubelet labels its node (and the zone check's inventory does)
        'node.kubernetes.io/instance-type': node.size.name,
        'type': 'kwok',
      },
      annotations: { [KWOK_ANNOTATION]: 'fake' },
    },
    spec: { podCIDR: node.podCidr, podCIDRs: [node.podCidr] },
    // kwok keeps the allocatable and capacity it finds and fills in the rest of the status.
    status: { allocatable: resources, capacity: resources },
  };
}

export function isReady(node: any): boolean {
  return conditionHolds(node, 'Ready');
}

/** The nodes (by name) that are missing or that kwok has not reported Ready yet. */
export async function notReady(client: KubeClient, nodes: readonly FakeNode[]): Promise<string[]> {
  const ready = new Set((await client.list('v1', 'Node')).filter(isReady).map((n) => n.metadata.name));
  return nodes.map((n) => n.name).filter((name) => !ready.has(name));
}

/** Registers the nodes and waits until kwok reports every one of them Ready. */
export async function addNodes(client: KubeClient, nodes: readonly FakeNode[], opts: WaitOptions = {}): Promise<void> {
  await Promise.all(nodes.map((n) => client.create(nodeObject(n))));
  await waitFor(`kwok to report ${nodes.length} nodes Ready`, async () => {
    const waiting = await notReady(client, nodes);
    return { done: waiting.length === 0, state: `not Ready: ${waiting.join(', ')}` };
  }, opts);
}
