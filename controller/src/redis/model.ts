/**
 * What the Redis cluster manager sees: the inventory (which Redis node runs where), and for each node
 * whether it answers and how it sees the cluster (`CLUSTER NODES`). Plain data, so the decisions are pure
 * and unit-tested with a fake cluster.
 */

/** One Redis node the manager is responsible for: a pod (Kubernetes) or a process (static inventory). */
export interface InventoryNode {
  /** The planned node's name (`RedisNodePlan.name`, e.g. `zone-a-0`). */
  readonly name: string;
  /** The zone it runs in (observed: the pod's node label, or the static inventory). */
  readonly zone: string;
  /** host:port of its client port. */
  readonly address: string;
}

/** One line of `CLUSTER NODES`. */
export interface ClusterNodeEntry {
  readonly id: string;
  /** host:port (without the bus port). */
  readonly address: string;
  /** myself, master, slave, fail, fail?, handshake, noaddr, nofailover. */
  readonly flags: string[];
  /** The id of its master, for a replica. */
  readonly masterId?: string;
  readonly connected: boolean;
  /** The slot ranges it serves, [first, last] inclusive. */
  readonly slots: [number, number][];
  /**
   * Open slots of a resharding, on the node's own line only: `[slot, id]` it is migrating to node `id`
   * (`[slot->-id]`), or importing from node `id` (`[slot-<-id]`).
   */
  readonly migrating?: [number, string][];
  readonly importing?: [number, string][];
  /**
   * When the viewing node sent the ping this node has not answered yet (the viewer's clock, ms); undefined
   * when none is pending. Redis flags a node PFAIL once this is older than cluster-node-timeout.
   */
  readonly pingPendingSinceMs?: number;
}

/** A node of the inventory as observed. */
export interface ObservedNode extends InventoryNode {
  /** False when the node did not answer. */
  readonly reachable: boolean;
  /** Its cluster id (`CLUSTER MYID`). */
  readonly id?: string;
  /** Its `CLUSTER NODES`, itself included (flag `myself`). */
  readonly view?: ClusterNodeEntry[];
  /** For a replica: whether its replication link to its master is up (`master_link_status:up`). */
  readonly linkUp?: boolean;
  /** How much of the replication stream it has (`INFO replication`): the most is the best heir of a lost master. */
  readonly replOffset?: number;
  /** Its clock when it answered (`TIME`, ms), against which its `pingPendingSinceMs` are measured. */
  readonly clockMs?: number;
  /**
   * Whether it serves queries (`CLUSTER INFO` cluster_state:ok). A node refuses every query with CLUSTERDOWN while
   * it sees a slot unserved, sits in a minority, or has just started or rejoined (Redis holds a rejoined master
   * back for a while), whatever its CLUSTER NODES says. Undefined: not asked.
   */
  readonly stateOk?: boolean;
}

/** The entry a node has about itself. */
export function self(node: ObservedNode): ClusterNodeEntry | undefined {
  return node.view?.find((e) => e.flags.includes('myself'));
}

export function isMaster(entry: ClusterNodeEntry | undefined): boolean {
  return entry !== undefined && entry.flags.includes('master');
}

export function isFailed(entry: ClusterNodeEntry): boolean {
  return entry.flags.includes('fail') || entry.flags.includes('noaddr');
}

export function slotCount(ranges: [number, number][]): number {
  return ranges.reduce((sum, [a, b]) => sum + b - a + 1, 0);
}

/** Contiguous [first, last] ranges of a sorted list of slots. */
export function toRanges(slots: number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const s of slots) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === s - 1) last[1] = s;
    else ranges.push([s, s]);
  }
  return ranges;
}

/** `host:port` as the inventory writes it: an IPv6 host in brackets (Redis's own CLUSTER NODES leaves it bare). */
export function joinAddress(host: string, port: number | string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}
