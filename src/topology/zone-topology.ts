import { WELL_KNOWN_HOSTNAME_KEY, WELL_KNOWN_REGION_KEY, WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { labelValueProblem } from '../kubernetes/kubernetes-names';
import { KubeProps } from '../kubernetes/kubernetes-props';
import {
  hasPodTopologyLabels, KubernetesRelease, parseKubernetesVersion, spreadsHonorNodeTaints, zoneLocalTrafficDistribution,
} from '../kubernetes/kubernetes-version';
import { zoneSlug } from '../kubernetes/zone-slug';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';

/**
 * Props for `ZoneTopology`.
 */
export interface ZoneTopologyProps {
  /**
   * The zones the workloads span: the values of `topologyKey` on the nodes, e.g.
   * `['eu-west-1a', 'eu-west-1b', 'eu-west-1c']`. At least one, no duplicates. Order matters where a
   * construct assigns things to zones round-robin (zone `i % zones.length`).
   */
  readonly zones: string[];

  /**
   * The node label whose value names a node's zone.
   *
   * @default 'topology.kubernetes.io/zone'
   */
  readonly topologyKey?: string;

  /**
   * The region the zones belong to. When set, placement builders also require nodes labelled
   * `regionKey=region`.
   *
   * @default - no region constraint
   */
  readonly region?: string;

  /**
   * The node label whose value names a node's region. Only used when `region` is set.
   *
   * @default 'topology.kubernetes.io/region'
   */
  readonly regionKey?: string;

  /**
   * The node label that identifies a single node, used for host-level spreading and anti-affinity.
   *
   * @default 'kubernetes.io/hostname'
   */
  readonly hostnameKey?: string;

  /**
   * The cluster's Kubernetes version, e.g. '1.35'. From 1.35 on, Kubernetes copies a node's
   * topology.kubernetes.io/zone label onto every pod bound to it (KEP-4742, beta and on by default): what tells
   * the constructs whether a pod can read its zone from its own labels (see `podsCarryZoneLabel`). From 1.31 on,
   * Services can keep clients' traffic in their zone (see `zoneLocalTrafficDistribution`). From 1.33 on, the zone
   * spreads skip tainted nodes (see `spreadsHonorNodeTaints`).
   *
   * @default - unknown: constructs do not rely on pods carrying their zone label, and set no trafficDistribution
   */
  readonly kubernetesVersion?: string;
}

const PROPS: PropSpec<ZoneTopologyProps> = {
  zones: Props.arrayOf(Props.string(undefined, 'a zone name'), 1, 'a list of at least one zone name'),
  topologyKey: Props.optional(KubeProps.labelKey()),
  region: Props.optional(Props.string()),
  regionKey: Props.optional(KubeProps.labelKey()),
  hostnameKey: Props.optional(KubeProps.labelKey()),
  kubernetesVersion: Props.optional(Props.string()),
};

/**
 * The failure domains a workload spans: zone names (label values) and the node labels that carry them.
 *
 * One `ZoneTopology` is shared by every construct of a chart. It validates its input eagerly and throws
 * an error naming the bad value and the Kubernetes rule it breaks.
 */
export class ZoneTopology {
  /** The zones, in the order given. */
  public readonly zones: string[];
  /** The node label key whose value is the zone. */
  public readonly topologyKey: string;
  /** The region, if the topology is bound to one. */
  public readonly region?: string;
  /** The node label key whose value is the region. */
  public readonly regionKey: string;
  /** The node label key that identifies a single node. */
  public readonly hostnameKey: string;
  /** The cluster's Kubernetes version, when given. */
  public readonly kubernetesVersion?: string;
  /**
   * True when every pod carries its zone in its own labels, set by Kubernetes: the version is 1.35 or newer
   * (KEP-4742) and the zone key is topology.kubernetes.io/zone (the only one Kubernetes copies). The one place
   * the constructs ask how a pod can learn its zone without a controller or a per-zone workload.
   */
  public readonly podsCarryZoneLabel: boolean;
  /**
   * The Service `trafficDistribution` that keeps a client's traffic in its zone on this cluster: `PreferSameZone`
   * from Kubernetes 1.34, `PreferClose` (its older name) on 1.31 to 1.33; undefined when the version is older or
   * not given. The library's Services set it where every zone is sure to hold one of their pods.
   */
  public readonly zoneLocalTrafficDistribution?: string;
  /**
   * True when the library's zone spreads set `nodeTaintsPolicy: Honor` (unless told otherwise): Kubernetes 1.33 or
   * newer, where it is GA. Nodes with a taint the pods do not tolerate then leave the skew, so a zone a zonal shift
   * taints does not hold back a scale-up in the other zones, nor does a lost zone's unreachable nodes. False when the
   * version is older or not given (Kubernetes' default, Ignore: every node counts).
   */
  public readonly spreadsHonorNodeTaints: boolean;
  /** @internal the parsed version, for messages */
  public readonly _release?: KubernetesRelease;

  constructor(props: ZoneTopologyProps) {
    const where = 'ZoneTopology';
    checkProps(where, props, PROPS, 'ZoneTopologyProps');
    const seen = new Set<string>();
    const slugs = new Map<string, number>();
    props.zones.forEach((zone, i) => {
      if (zone === '') {
        throw invalidProp(where, `zones[${i}]`, zone, 'must not be empty: nodes without a zone label are not a zone');
      }
      const problem = labelValueProblem(zone);
      if (problem) throw invalidProp(where, `zones[${i}]`, zone, problem);
      if (seen.has(zone)) {
        throw invalidProp(where, `zones[${i}]`, zone, `duplicates zones[${props.zones.indexOf(zone)}]: every zone must be listed once`);
      }
      seen.add(zone);
      // Object names carry the zone's slug: two zones must never share one.
      const slug = zoneSlug(zone);
      if (slugs.has(slug)) {
        throw invalidProp(where, `zones[${i}]`, zone, `has the object-name slug ${JSON.stringify(slug)} of zones[${slugs.get(slug)}]: rename one of them`);
      }
      slugs.set(slug, i);
    });

    this.topologyKey = props.topologyKey ?? WELL_KNOWN_ZONE_KEY;
    this.regionKey = props.regionKey ?? WELL_KNOWN_REGION_KEY;
    this.hostnameKey = props.hostnameKey ?? WELL_KNOWN_HOSTNAME_KEY;
    if (this.hostnameKey === this.topologyKey) {
      throw invalidProp(where, 'hostnameKey', this.hostnameKey, 'must differ from topologyKey: a zone is not a single node');
    }
    if (props.region !== undefined) {
      const problem = props.region === '' ? 'must not be empty (omit it for no region constraint)' : labelValueProblem(props.region);
      if (problem) throw invalidProp(where, 'region', props.region, problem);
    }
    this.region = props.region;
    this.zones = [...props.zones];
    this.kubernetesVersion = props.kubernetesVersion;
    this._release = props.kubernetesVersion === undefined
      ? undefined
      : parseKubernetesVersion(where, 'kubernetesVersion', props.kubernetesVersion);
    this.podsCarryZoneLabel = this.topologyKey === WELL_KNOWN_ZONE_KEY
      && this._release !== undefined
      && hasPodTopologyLabels(this._release);
    this.spreadsHonorNodeTaints = this._release !== undefined && spreadsHonorNodeTaints(this._release);
    // The EndpointSlice controller reads an endpoint's zone from topology.kubernetes.io/zone only.
    this.zoneLocalTrafficDistribution = this.topologyKey === WELL_KNOWN_ZONE_KEY && this._release !== undefined
      ? zoneLocalTrafficDistribution(this._release) : undefined;
  }

  /** The number of zones. */
  public get zoneCount(): number {
    return this.zones.length;
  }

  /** True when `zone` is one of this topology's zones. */
  public hasZone(zone: string): boolean {
    return this.zones.includes(zone);
  }

  /**
   * The node labels that pin a pod to `zone` (the zone key, and the region key when a region is set).
   * Throws when `zone` is not one of the topology's zones.
   */
  public nodeLabelsForZone(zone: string): { [key: string]: string } {
    requireZone(this, 'ZoneTopology.nodeLabelsForZone', 'zone', zone);
    const labels: { [key: string]: string } = { [this.topologyKey]: zone };
    if (this.region !== undefined) labels[this.regionKey] = this.region;
    return labels;
  }
}

/** Throws an error in the library's style when `zone` is not one of the topology's zones. */
export function requireZone(topology: ZoneTopology, where: string, prop: string, zone: string): void {
  if (!topology.hasZone(zone)) {
    throw invalidProp(where, prop, zone, `is not one of the topology's zones [${topology.zones.join(', ')}]`);
  }
}
