/**
 * The cluster the zone check places workloads on: its zones, and either N equal nodes per zone or the nodes
 * themselves (labels, taints, allocatable CPU and memory), as `kubectl get nodes -o json` shows them.
 */
import { WELL_KNOWN_HOSTNAME_KEY, WELL_KNOWN_REGION_KEY, WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { quantityValue } from '../kubernetes/quantity';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';

/** A node taint. */
export interface InventoryTaint {
  /** The taint's key. */
  readonly key: string;
  /**
   * The taint's value.
   *
   * @default - none
   */
  readonly value?: string;
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  readonly effect: string;
}

/** One node of the inventory. */
export interface InventoryNode {
  /** The node's name (its hostname label too, unless `labels` sets one). */
  readonly name: string;
  /** Its zone (one of the inventory's zones). */
  readonly zone: string;
  /**
   * Its labels. The labels every node has are added when missing: zone, hostname, region, and the kubelet's
   * `kubernetes.io/os: linux` and `kubernetes.io/arch: amd64` (and their `beta.` forms).
   *
   * @default - the labels every node has
   */
  readonly labels?: { [key: string]: string };
  /**
   * Its taints.
   *
   * @default - none
   */
  readonly taints?: InventoryTaint[];
  /**
   * Allocatable CPU (a Kubernetes quantity, e.g. "4" or "3500m").
   *
   * @default - unlimited: CPU never keeps a pod off the node
   */
  readonly allocatableCpu?: string;
  /**
   * Allocatable memory (a Kubernetes quantity, e.g. "16Gi").
   *
   * @default - unlimited
   */
  readonly allocatableMemory?: string;
  /**
   * Allocatable pods.
   *
   * @default 110
   */
  readonly allocatablePods?: number;
}

/** Props of `ZoneInventory`. */
export interface ZoneInventoryProps {
  /** The zones, by their zone label value. */
  readonly zones: string[];
  /**
   * This many equal nodes per zone, unlimited in CPU and memory, with no taints. Set this or `nodes`.
   *
   * @default - `nodes`
   */
  readonly nodesPerZone?: number;
  /**
   * The nodes. Set this or `nodesPerZone`.
   *
   * @default - `nodesPerZone`
   */
  readonly nodes?: InventoryNode[];
  /**
   * Labels of every one of the `nodesPerZone` nodes, over the labels every node has (e.g. `kubernetes.io/arch:
   * arm64`, or a node pool's label that manifests select).
   *
   * @default - the labels every node has: zone, hostname, region, `kubernetes.io/os: linux`,
   * `kubernetes.io/arch: amd64`
   */
  readonly nodeLabels?: { [key: string]: string };
  /**
   * Taints of every one of the `nodesPerZone` nodes.
   *
   * @default - none
   */
  readonly nodeTaints?: InventoryTaint[];
  /**
   * The node label that holds the zone.
   *
   * @default "topology.kubernetes.io/zone"
   */
  readonly topologyKey?: string;
  /**
   * The node label that holds the node's name.
   *
   * @default "kubernetes.io/hostname"
   */
  readonly hostnameKey?: string;
}

const TAINT_PROPS: PropSpec<InventoryTaint> = {
  key: Props.nonEmptyString(),
  value: Props.optional(Props.string()),
  effect: Props.string((v) => (['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(v) ? undefined : 'must be NoSchedule, PreferNoSchedule or NoExecute')),
};

const NODE_PROPS: PropSpec<InventoryNode> = {
  name: Props.nonEmptyString(),
  zone: Props.nonEmptyString(),
  labels: Props.optional(Props.mapOf(Props.string())),
  taints: Props.optional(Props.arrayOf(Props.struct(TAINT_PROPS, 'InventoryTaint'))),
  allocatableCpu: Props.optional(Props.string()),
  allocatableMemory: Props.optional(Props.string()),
  allocatablePods: Props.optional(Props.integer(0)),
};

const PROPS: PropSpec<ZoneInventoryProps> = {
  zones: Props.arrayOf(Props.nonEmptyString(), 1),
  nodesPerZone: Props.optional(Props.integer(1, 10_000)),
  nodes: Props.optional(Props.arrayOf(Props.struct(NODE_PROPS, 'InventoryNode'))),
  topologyKey: Props.optional(Props.nonEmptyString()),
  hostnameKey: Props.optional(Props.nonEmptyString()),
  nodeLabels: Props.optional(Props.mapOf(Props.string())),
  nodeTaints: Props.optional(Props.arrayOf(Props.struct(TAINT_PROPS, 'InventoryTaint'))),
};

/**
 * The labels the kubelet sets on every node (kubernetes.io/os and arch, and their deprecated beta. forms it still
 * sets).
 */
export const KUBELET_LABELS: { readonly [key: string]: string } = {
  'kubernetes.io/os': 'linux',
  'kubernetes.io/arch': 'amd64',
  'beta.kubernetes.io/os': 'linux',
  'beta.kubernetes.io/arch': 'amd64',
};

/**
 * The region of a zone named as the large clouds name them (AWS eu-west-1a, GCP us-central1-a, Azure
 * westeurope-1: the name without its last part), or "region".
 */
export function regionOf(zone: string): string {
  const m = /^(.+[0-9])[a-z]$/.exec(zone) ?? /^(.+)-[a-z0-9]$/.exec(zone);
  return m ? m[1] : 'region';
}

/** A node as the check uses it: labels complete, resources as numbers (Infinity: unlimited). */
export interface CheckNode {
  readonly name: string;
  readonly zone: string;
  readonly labels: { readonly [key: string]: string };
  readonly taints: readonly InventoryTaint[];
  /** CPU cores. */
  readonly cpu: number;
  /** Bytes. */
  readonly memory: number;
  readonly pods: number;
}

/** The cluster the check places workloads on. */
export class ZoneInventory {
  /** N equal nodes in each zone, unlimited in CPU and memory. */
  public static equalNodes(zones: string[], nodesPerZone: number): ZoneInventory {
    return new ZoneInventory({ zones, nodesPerZone });
  }

  /** The zones. */
  public readonly zones: string[];
  /** The node label that holds the zone. */
  public readonly topologyKey: string;
  /** The node label that holds the node's name. */
  public readonly hostnameKey: string;
  /** @internal */
  public readonly _nodes: CheckNode[];

  constructor(props: ZoneInventoryProps) {
    const where = 'ZoneInventory';
    checkProps(where, props, PROPS, 'ZoneInventoryProps');
    if ((props.nodes === undefined) === (props.nodesPerZone === undefined)) {
      throw invalidProp(where, 'nodesPerZone', props.nodesPerZone, 'set exactly one of nodesPerZone and nodes');
    }
    if (new Set(props.zones).size !== props.zones.length) throw invalidProp(where, 'zones', props.zones, 'lists a zone twice');
    for (const prop of ['nodeLabels', 'nodeTaints'] as const) {
      if (props[prop] !== undefined && props.nodes !== undefined) throw invalidProp(where, prop, props[prop], 'applies to the nodesPerZone nodes: with nodes, give each node its own');
    }
    this.zones = [...props.zones];
    this.topologyKey = props.topologyKey ?? WELL_KNOWN_ZONE_KEY;
    this.hostnameKey = props.hostnameKey ?? WELL_KNOWN_HOSTNAME_KEY;
    const generatedNodes = (zone: string): InventoryNode[] => Array.from({ length: props.nodesPerZone! }, (_, i) => ({
      name: `${zone}-node-${i}`, zone, labels: props.nodeLabels, taints: props.nodeTaints,
    }));
    const nodes: InventoryNode[] = props.nodes ?? props.zones.flatMap(generatedNodes);
    const names = new Set<string>();
    this._nodes = nodes.map((n, i) => {
      if (!props.zones.includes(n.zone)) throw invalidProp(where, `nodes[${i}].zone`, n.zone, `is not one of the zones [${props.zones.join(', ')}]`);
      if (names.has(n.name)) throw invalidProp(where, `nodes[${i}].name`, n.name, 'names another node too');
      names.add(n.name);
      const quantity = (prop: string, value: string | undefined, unit: 'cpu' | 'memory') => {
        if (value === undefined) return Infinity;
        const parsed = quantityValue(value);
        if (parsed === undefined || parsed < 0) throw invalidProp(where, `nodes[${i}].${prop}`, value, `is not a Kubernetes ${unit} quantity`);
        return parsed;
      };
      return {
        name: n.name,
        zone: n.zone,
        labels: {
          ...KUBELET_LABELS,
          [WELL_KNOWN_REGION_KEY]: regionOf(n.zone),
          ...n.labels,
          [this.topologyKey]: n.zone,
          [this.hostnameKey]: n.labels?.[this.hostnameKey] ?? n.name,
        },
        taints: [...(n.taints ?? [])],
        cpu: quantity('allocatableCpu', n.allocatableCpu, 'cpu'),
        memory: quantity('allocatableMemory', n.allocatableMemory, 'memory'),
        pods: n.allocatablePods ?? 110,
      };
    });
  }
}
