/** The kwok node pools check-agreement places its workloads on, and the inventory the check is given for them. */
import { ClusterInfo } from './control-plane';
import { KubeObject } from './kube-client';
import { HOSTNAME_KEY, KWOK_ANNOTATION, nodeObject, REGION_KEY, ZONE_KEY, ZONES } from './nodes';
import { InventoryNode, KUBELET_LABELS, regionOf, ZoneInventory } from '../../../src/check/inventory';

export const POOL_KEY = 'cdk8s-zones.test/pool';

export interface PoolNode {
  readonly name: string;
  readonly zone: string;
  readonly cpu: string;
  readonly memory: string;
  readonly labels: Record<string, string>;
  readonly taints: { key: string; value: string; effect: string }[];
}

const DEDICATED = { key: 'cdk8s-zones.test/dedicated', value: 'infra', effect: 'NoSchedule' };

/** `counts[z]` nodes of `size` in zone z; `extra` adds labels or a taint to one node. */
function pool(name: string, counts: number[], size: (zone: number) => { cpu: string; memory: string },
  extra: (zone: number, i: number) => { labels?: Record<string, string>; tainted?: boolean } = () => ({})): PoolNode[] {
  return ZONES.flatMap((zone, z) => Array.from({ length: counts[z] }, (_, i) => {
    const x = extra(z, i);
    return {
      name: `agree-${name}-${zone}-${i + 1}`,
      zone,
      ...size(z),
      labels: { [POOL_KEY]: name, ...x.labels },
      taints: x.tainted ? [DEDICATED] : [],
    };
  }));
}

const STANDARD = () => ({ cpu: '4', memory: '16Gi' });
const SMALL = (z: number) => (z === 2 ? { cpu: '1', memory: '2Gi' } : { cpu: '2', memory: '4Gi' });
export const NODES: PoolNode[] = [
  // gen 1..3 by index (for Gt and a DaemonSet nodeSelector); a disk label on the first node of zone-a and zone-b
  ...pool('equal', [3, 3, 3], STANDARD, (z, i) => ({
    labels: {
      'cdk8s-zones.test/gen': String(i + 1),
      ...(i === 0 && z < 2 ? { 'cdk8s-zones.test/disk': 'ssd' } : {}),
    },
  })),
  // zone-a: one of two nodes tainted; zone-c: its only node tainted
  ...pool('taint', [2, 1, 1], STANDARD, (z, i) => ({ tainted: (z === 0 && i === 1) || z === 2 })),
  // zone-c fewer and smaller nodes; one such pool per file that fills nodes
  ...pool('small', [2, 2, 1], SMALL),
  ...pool('small2', [2, 2, 1], SMALL),
  ...pool('small3', [2, 2, 1], SMALL),
  ...pool('uneven', [3, 2, 1], STANDARD),
  ...pool('examples', [3, 3, 3], () => ({ cpu: '8', memory: '32Gi' })),
  // the real charts of test/check/real-corpus: 3 roomy nodes per zone, as the CLI's default inventory
  ...pool('real', [3, 3, 3], () => ({ cpu: '256', memory: '1Ti' })),
];

export function poolNodeObject(n: PoolNode): KubeObject {
  const resources = { 'cpu': n.cpu, 'memory': n.memory, 'pods': '110', 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    // the labels a kubelet and the cloud set (those the check's inventory gives every node), and the pool's
    metadata: {
      name: n.name,
      labels: {
        ...KUBELET_LABELS,
        [REGION_KEY]: regionOf(n.zone),
        ...n.labels,
        [ZONE_KEY]: n.zone,
        [HOSTNAME_KEY]: n.name,
      },
      annotations: { [KWOK_ANNOTATION]: 'fake' },
    },
    spec: n.taints.length ? { taints: n.taints } : {},
    status: { allocatable: resources, capacity: resources },
  };
}

function inventoryNode(
  name: string,
  zone: string,
  labels: Record<string, string>,
  taints: InventoryNode['taints'],
  cpu: string,
  memory: string,
  pods: number,
): InventoryNode {
  return { name, zone, labels, taints, allocatableCpu: cpu, allocatableMemory: memory, allocatablePods: pods };
}

/**
 * The cluster as the check sees it: the pools and the tier's own nodes (no corpus pod selects those, but a spread
 * with nodeAffinityPolicy Ignore counts them).
 */
export function agreementInventory(info: ClusterInfo): ZoneInventory {
  return new ZoneInventory({
    zones: [...ZONES],
    nodes: [
      ...NODES.map((n) => {
        const labels = poolNodeObject(n).metadata.labels;
        return inventoryNode(n.name, n.zone, labels, n.taints, n.cpu, n.memory, 110);
      }),
      ...info.nodes.map((n) => {
        const labels = nodeObject(n).metadata.labels;
        return inventoryNode(n.name, n.zone, labels, [], n.size.cpu, n.size.memory, n.size.pods);
      }),
    ],
  });
}
