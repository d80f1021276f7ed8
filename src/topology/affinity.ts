import { k8s } from 'cdk8s-plus-28';
import { checkSelector, SpreadTarget } from './spread';
import { ZoneTopology } from './zone-topology';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props, PropSpec } from '../shared/props';

/** A level of the failure-domain hierarchy that pods can be kept apart at. */
export enum FailureDomain {
  /** A zone (the topology's zone key). */
  ZONE = 'zone',
  /** A single node (the topology's hostname key). */
  HOST = 'host',
}

/**
 * Input of `ZoneAffinity.podAntiAffinity`.
 */
export interface PodAntiAffinityProps {
  /** The failure domains. */
  readonly topology: ZoneTopology;

  /** The level at which matching pods are kept apart. */
  readonly domain: FailureDomain;

  /** The labels of the pods being placed; the selector must match them. */
  readonly podLabels: { [key: string]: string };

  /**
   * Which pods to keep away from.
   *
   * @default - all of `podLabels`
   */
  readonly selector?: k8s.LabelSelector;

  /**
   * A hard rule (the pod stays Pending rather than share a domain) or a preference.
   *
   * @default true
   */
  readonly required?: boolean;

  /**
   * Weight of a preferred rule, 1 to 100. Only for `required: false`.
   *
   * @default 100
   */
  readonly weight?: number;
}

const POD_ANTI_AFFINITY_PROPS: PropSpec<PodAntiAffinityProps> = {
  topology: Props.instanceOf(ZoneTopology),
  domain: Props.enumOf(FailureDomain, 'FailureDomain'),
  podLabels: KubeProps.labels(),
  selector: Props.optional(KubeProps.labelSelector()),
  required: Props.optional(Props.boolean()),
  weight: Props.optional(Props.integer(1, 100)),
};

/**
 * Builds node and pod affinity for zones (pure: props in, a Kubernetes object out).
 */
export class ZoneAffinity {
  /**
   * Required node affinity that keeps pods inside the topology's zones (and region, when set), so
   * nodes in other zones are neither used nor counted by zone spreading.
   */
  public static restrictToZones(topology: ZoneTopology): k8s.NodeAffinity {
    checkArg('ZoneAffinity.restrictToZones', 'topology', topology, Props.instanceOf(ZoneTopology));
    return requiredZoneAffinity(topology, topology.zones);
  }

  /**
   * Pod anti-affinity that keeps pods matching the selector apart by zone or by host.
   */
  public static podAntiAffinity(props: PodAntiAffinityProps): k8s.PodAntiAffinity {
    checkProps('ZoneAffinity.podAntiAffinity', props, POD_ANTI_AFFINITY_PROPS, 'PodAntiAffinityProps');
    const selector = props.selector ?? { matchLabels: { ...props.podLabels } };
    return podAntiAffinity('ZoneAffinity.podAntiAffinity', props.topology, props.domain,
      { selector, podLabels: props.podLabels }, props.required ?? true, props.weight);
  }

  private constructor() {}
}

/** The node selector requirements that keep a pod inside `zones` (and the region, when set). */
export function zoneRequirements(topology: ZoneTopology, zones: string[]): k8s.NodeSelectorRequirement[] {
  const requirements: k8s.NodeSelectorRequirement[] = [{ key: topology.topologyKey, operator: 'In', values: [...zones] }];
  if (topology.region !== undefined) {
    requirements.push({ key: topology.regionKey, operator: 'In', values: [topology.region] });
  }
  return requirements;
}

/** Required node affinity that keeps pods inside `zones` (and the region, when set). */
export function requiredZoneAffinity(topology: ZoneTopology, zones: string[]): k8s.NodeAffinity {
  const matchExpressions = zoneRequirements(topology, zones);
  return { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions }] } };
}

/** Pod anti-affinity by zone or host; `where` names the caller in error messages. */
export function podAntiAffinity(
  where: string,
  topology: ZoneTopology,
  domain: FailureDomain,
  target: SpreadTarget,
  required: boolean,
  weight?: number,
): k8s.PodAntiAffinity {
  checkSelector(where, target);
  const term: k8s.PodAffinityTerm = {
    topologyKey: domain === FailureDomain.ZONE ? topology.topologyKey : topology.hostnameKey,
    labelSelector: target.selector,
  };
  if (required) {
    if (weight !== undefined) {
      throw invalidProp(where, 'weight', weight, 'only applies to a preferred rule (required: false)');
    }
    return { requiredDuringSchedulingIgnoredDuringExecution: [term] };
  }
  const w = weight ?? 100;
  if (!Number.isInteger(w) || w < 1 || w > 100) {
    throw invalidProp(where, 'weight', w, 'must be an integer from 1 to 100');
  }
  return { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: w, podAffinityTerm: term }] };
}
