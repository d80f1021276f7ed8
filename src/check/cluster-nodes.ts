/**
 * The nodes of a live cluster as the zone check's inventory (`cdk8s-zones check --kubeconfig FILE`, and the
 * drill's plan), and their zones. The connection is one kubeconfig's current context, read as the controller reads
 * it (src/kubernetes/kube-connection.ts: relative paths from the file's folder, a bearer token or a client
 * certificate, the cluster's CA and `tls-server-name`, https only, anything else refused with the file and the
 * reason), and the listing `GET /api/v1/nodes` (paged), read-only.
 */
import { InventoryNode, InventoryTaint, ZoneInventoryProps } from './inventory';
import { parseSingleDocument } from './manifest-text';
import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { listPages, ObjectList, pageQuery } from '../kubernetes/kube-api';
import { apiServerAgent, ClusterConfig, kubeconfigConfig } from '../kubernetes/kube-connection';
import { kubeJson } from '../kubernetes/kube-request';
import { JsonObject, Node } from '../kubernetes/objects';

/** The connection of `file`'s current context, the file read as the check reads every input (js-yaml, bounded). */
export function clusterConnection(file: string): ClusterConfig {
  return kubeconfigConfig([file], parseSingleDocument);
}

/** How long listing the nodes may take, all pages together, before the check gives up. */
export const LIST_NODES_TIMEOUT_MS = 30_000;

/** Every Node of the cluster, as a NodeList (`kubectl get nodes -o json`), within `timeoutMs` in all. */
export async function listNodes(
  config: ClusterConfig, timeoutMs = LIST_NODES_TIMEOUT_MS,
): Promise<{ kind: 'NodeList'; items: Node[] }> {
  const deadline = Date.now() + timeoutMs;
  // one agent for the pages (one TLS handshake), closed after the last so no socket outlives the listing
  const agent = apiServerAgent(config, { keepAlive: true });
  try {
    const page = (cont?: string) =>
      kubeJson<ObjectList>(config, agent, 'GET', `/api/v1/nodes${pageQuery(cont)}`, { deadline, timeoutMs });
    const items = await listPages(page);
    return { kind: 'NodeList', items: items.map((n): Node => ({ ...n, kind: 'Node' })) };
  } finally {
    agent.destroy();
  }
}

/** The labels that name a node's zone, the well-known one first (the beta one on older clusters). */
export const ZONE_LABELS = [WELL_KNOWN_ZONE_KEY, 'failure-domain.beta.kubernetes.io/zone'];

/** The zone label the nodes use: the first of `ZONE_LABELS` any of them has. */
export function zoneKeyOf(nodes: readonly (Node | undefined)[]): string {
  return ZONE_LABELS.find((k) => nodes.some((n) => typeof n?.metadata?.labels?.[k] === 'string')) ?? ZONE_LABELS[0];
}

/** The zones of the nodes, sorted. */
export function zonesOf(nodes: readonly (Node | undefined)[]): string[] {
  const key = zoneKeyOf(nodes);
  return [...new Set(nodes.map((n) => n?.metadata?.labels?.[key]).filter((z): z is string => typeof z === 'string'))].sort();
}

/**
 * ZoneInventoryProps from an inventory file: the props themselves (zones may come from `--zones`), or a
 * `kubectl get nodes -o json` listing (a NodeList, or a List of Nodes).
 */
export function inventoryProps(input: unknown, zones: string[] | undefined): ZoneInventoryProps {
  const list = input as { readonly kind?: unknown; readonly items?: readonly (Node | undefined)[] } | null | undefined;
  const isNodeList = list?.kind === 'NodeList'
    || (list?.kind === 'List' && Array.isArray(list.items)
      && list.items.every((n: Node | undefined) => n?.kind === 'Node'));
  if (!isNodeList) {
    const value = input as JsonObject | null;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error('the inventory must be ZoneInventoryProps ({ zones, nodesPerZone | nodes }) or a NodeList (kubectl get nodes -o json)');
    }
    if (zones !== undefined && value.zones !== undefined && JSON.stringify(value.zones) !== JSON.stringify(zones)) {
      throw new Error(`--zones=${JSON.stringify(zones.join(','))} differs from the inventory's zones ${JSON.stringify(value.zones)}`);
    }
    return { ...value, zones: value.zones ?? zones } as ZoneInventoryProps;
  }
  const items = list.items as readonly (Node | undefined)[];
  const topologyKey = zoneKeyOf(items);
  const nodes: InventoryNode[] = items.map((n, i) => nodeOf(n, i, topologyKey));
  const zonesSeen = [...new Set(nodes.map((n) => n.zone))].sort();
  // With --zones, a node in another zone is an error (ZoneInventory says so): the user named the zones.
  return { zones: zones ?? zonesSeen, nodes, topologyKey };
}

/** One Node object of a NodeList as an InventoryNode. */
function nodeOf(node: Node | undefined, index: number, topologyKey: string): InventoryNode {
  const name = node?.metadata?.name;
  if (node === undefined || typeof name !== 'string') {
    throw new Error(`items[${index}] is a Node without metadata.name`);
  }
  const labels: { [key: string]: string } = node.metadata?.labels ?? {};
  const zone = labels[topologyKey];
  if (typeof zone !== 'string') throw new Error(`node ${name} has no ${topologyKey} label: the check cannot tell its zone`);
  // a cordoned node is, to the scheduler, one with the unschedulable taint
  const taints: InventoryTaint[] = [
    ...(node.spec?.taints ?? []).map((t) => ({ key: t.key, value: t.value, effect: t.effect })),
    ...(node.spec?.unschedulable === true ? [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] : []),
  ];
  const allocatable = node.status?.allocatable ?? {};
  const pods = allocatable.pods === undefined ? undefined : Number(allocatable.pods);
  return {
    name,
    zone,
    labels,
    taints,
    allocatableCpu: allocatable.cpu === undefined ? undefined : String(allocatable.cpu),
    allocatableMemory: allocatable.memory === undefined ? undefined : String(allocatable.memory),
    allocatablePods: pods,
  };
}
