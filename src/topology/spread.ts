import { k8s } from 'cdk8s-plus-28';
import { ZoneTopology } from './zone-topology';
import { labelKeyProblem } from '../kubernetes/kubernetes-names';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { Selector, selectorIsEmpty, selectorMatches } from '../kubernetes/label-selector';
import { describe, invalidProp } from '../shared/errors';
import { checkProps, INT32_MAX, Props, PropSpec } from '../shared/props';

/** What the scheduler does with a pod that would break a spread constraint. */
export enum WhenUnsatisfiable {
  /** Keep the pod Pending (a hard constraint). */
  DO_NOT_SCHEDULE = 'DoNotSchedule',
  /** Schedule it anyway, preferring nodes that reduce the skew (a soft constraint). */
  SCHEDULE_ANYWAY = 'ScheduleAnyway',
}

/** Whether node affinity or taints decide which nodes count when computing the skew. */
export enum NodeInclusionPolicy {
  /** Only nodes the pod could be scheduled on count. */
  HONOR = 'Honor',
  /** All nodes count. */
  IGNORE = 'Ignore',
}

/** The labels that distinguish one revision of a workload's pods from another. */
export enum RevisionLabel {
  /** Set by Deployments (through ReplicaSets). */
  POD_TEMPLATE_HASH = 'pod-template-hash',
  /** Set by StatefulSets and DaemonSets. */
  CONTROLLER_REVISION_HASH = 'controller-revision-hash',
}

/**
 * How pods are spread over a topology domain (zones or hosts).
 */
export interface SpreadOptions {
  /**
   * The largest allowed difference between the number of matching pods in any two domains.
   *
   * @default 1
   */
  readonly maxSkew?: number;

  /**
   * What to do with a pod that would break the constraint.
   *
   * @default - DO_NOT_SCHEDULE across zones, SCHEDULE_ANYWAY across hosts
   */
  readonly whenUnsatisfiable?: WhenUnsatisfiable;

  /**
   * The number of domains the scheduler assumes exist even when fewer have eligible nodes. With fewer
   * eligible domains the global minimum counts as 0, so a missing zone blocks scheduling instead of
   * letting pods pack into the remaining zones. Only valid with DO_NOT_SCHEDULE; across zones at most
   * the number of zones.
   *
   * @default - across zones with DO_NOT_SCHEDULE, the number of zones, or one fewer where node taints are honored
   * (so one zone out of service leaves the others taking every pod: `zonesThatMustCount`); unset otherwise
   */
  readonly minDomains?: number;

  /**
   * Pod label keys whose values are added to the selector, so that pods of an old revision are not
   * counted during a rolling update (use `RevisionLabel`). Must not repeat a key of the selector.
   *
   * @default - none
   */
  readonly matchLabelKeys?: string[];

  /**
   * Whether the pod's node affinity and node selector decide which nodes count.
   *
   * @default - unset (Kubernetes treats it as HONOR)
   */
  readonly nodeAffinityPolicy?: NodeInclusionPolicy;

  /**
   * Whether node taints decide which nodes count.
   *
   * @default - a zone spread on a topology of Kubernetes 1.33 or newer: HONOR (a zone whose nodes a zonal shift
   * taints leaves the skew; `ZoneTopology.spreadsHonorNodeTaints`); otherwise unset (Kubernetes treats it as IGNORE)
   */
  readonly nodeTaintsPolicy?: NodeInclusionPolicy;
}

/**
 * Input of `TopologySpread`: the pod labels the constraint must count, plus the spread options.
 */
export interface SpreadConstraintProps extends SpreadOptions {
  /** The failure domains. */
  readonly topology: ZoneTopology;

  /**
   * The labels of the pods being spread (the pod template's labels). The selector must match them,
   * otherwise the constraint counts other pods and does nothing for these.
   */
  readonly podLabels: { [key: string]: string };

  /**
   * Which pods the constraint counts.
   *
   * @default - all of `podLabels`
   */
  readonly selector?: k8s.LabelSelector;
}

/** The run-time checks of `SpreadOptions` (shared by every API that takes them). */
export const SPREAD_OPTIONS_PROPS: PropSpec<SpreadOptions> = {
  maxSkew: Props.optional(Props.integer(1)),
  whenUnsatisfiable: Props.optional(Props.enumOf(WhenUnsatisfiable, 'WhenUnsatisfiable')),
  minDomains: Props.optional(Props.integer(1)),
  matchLabelKeys: Props.optional(Props.arrayOf(KubeProps.labelKey())),
  nodeAffinityPolicy: Props.optional(Props.enumOf(NodeInclusionPolicy, 'NodeInclusionPolicy')),
  nodeTaintsPolicy: Props.optional(Props.enumOf(NodeInclusionPolicy, 'NodeInclusionPolicy')),
};

const SPREAD_CONSTRAINT_PROPS: PropSpec<SpreadConstraintProps> = {
  ...SPREAD_OPTIONS_PROPS,
  topology: Props.instanceOf(ZoneTopology),
  podLabels: KubeProps.labels(),
  selector: Props.optional(KubeProps.labelSelector()),
};

/**
 * Builds topology spread constraints (pure: props in, a Kubernetes object out). Used by every construct
 * of the library and usable on any pod spec.
 */
export class TopologySpread {
  /** A constraint that spreads pods across the topology's zones. */
  public static acrossZones(props: SpreadConstraintProps): k8s.TopologySpreadConstraint {
    const where = 'TopologySpread.acrossZones';
    checkProps(where, props, SPREAD_CONSTRAINT_PROPS, 'SpreadConstraintProps');
    return zoneSpreadConstraint(where, props.topology, labelsToSelector(props), props);
  }

  /** A constraint that spreads pods across nodes (the topology's hostname key). */
  public static acrossHosts(props: SpreadConstraintProps): k8s.TopologySpreadConstraint {
    const where = 'TopologySpread.acrossHosts';
    checkProps(where, props, SPREAD_CONSTRAINT_PROPS, 'SpreadConstraintProps');
    return hostSpreadConstraint(where, props.topology, labelsToSelector(props), props);
  }

  private constructor() {}
}

/** The pods a constraint counts, and the labels those pods carry (the selector must match them). */
export interface SpreadTarget {
  readonly selector: Selector;
  readonly podLabels: { [key: string]: string };
}

function labelsToSelector(props: SpreadConstraintProps): SpreadTarget {
  return { selector: props.selector ?? { matchLabels: { ...props.podLabels } }, podLabels: props.podLabels };
}

/** A spread constraint whose options are checked, before it is told which pods it counts. */
export type SpreadFields = Omit<k8s.TopologySpreadConstraint, 'labelSelector'>;

/** A zone spread constraint; `where` names the caller in error messages. */
export function zoneSpreadConstraint(
  where: string, topology: ZoneTopology, target: SpreadTarget, options: SpreadOptions = {},
): k8s.TopologySpreadConstraint {
  return withTarget(where, zoneSpreadFields(where, topology, options), target);
}

/** A host spread constraint; `where` names the caller in error messages. */
export function hostSpreadConstraint(
  where: string, topology: ZoneTopology, target: SpreadTarget, options: SpreadOptions = {},
): k8s.TopologySpreadConstraint {
  return withTarget(where, hostSpreadFields(where, topology, options), target);
}

/** A zone spread constraint's fields but its selector (the options checked now). */
export function zoneSpreadFields(where: string, topology: ZoneTopology, options: SpreadOptions = {}): SpreadFields {
  const when = options.whenUnsatisfiable ?? WhenUnsatisfiable.DO_NOT_SCHEDULE;
  // a zone a shift taints leaves the skew where the cluster can say so (the user's policy, if given, wins)
  const nodeTaintsPolicy = options.nodeTaintsPolicy
    ?? (topology.spreadsHonorNodeTaints ? NodeInclusionPolicy.HONOR : undefined);
  const minDomains = options.minDomains ?? (when === WhenUnsatisfiable.DO_NOT_SCHEDULE
    ? zonesThatMustCount(topology.zoneCount, nodeTaintsPolicy) : undefined);
  if (minDomains !== undefined && minDomains > topology.zoneCount) {
    throw invalidProp(where, 'minDomains', minDomains,
      `exceeds the ${topology.zoneCount} zone(s) of the topology: with fewer domains than minDomains the ` +
      'scheduler counts the global minimum as 0, so no zone could ever hold more than maxSkew pods');
  }
  return fields(where, topology.topologyKey, { ...options, whenUnsatisfiable: when, minDomains, nodeTaintsPolicy });
}

/**
 * A hard zone spread's default minDomains: the zones that must count before the scheduler places pods by the real
 * minimum. Where node taints are honored, a zone out of service (a zonal shift's taint, cordoned or unreachable
 * nodes) leaves the skew, so one zone may be missing and the others take every pod, spread by maxSkew among them;
 * a second zone out keeps pods Pending instead of packing them into the rest. Where every node counts (Ignore), a
 * tainted zone still counts as a domain anyway, and minDomains = every zone keeps pods Pending when a zone's nodes
 * are deleted too. Where one zone of two may be missing, it is left unset (1, Kubernetes' default).
 */
export function zonesThatMustCount(
  zoneCount: number, nodeTaintsPolicy: NodeInclusionPolicy | undefined,
): number | undefined {
  if (nodeTaintsPolicy !== NodeInclusionPolicy.HONOR) return zoneCount;
  return zoneCount > 2 ? zoneCount - 1 : undefined;
}

/** A host spread constraint's fields but its selector (the options checked now). */
export function hostSpreadFields(where: string, topology: ZoneTopology, options: SpreadOptions = {}): SpreadFields {
  const when = options.whenUnsatisfiable ?? WhenUnsatisfiable.SCHEDULE_ANYWAY;
  return fields(where, topology.hostnameKey, { ...options, whenUnsatisfiable: when });
}

function fields(where: string, topologyKey: string, options: SpreadOptions): SpreadFields {
  const maxSkew = options.maxSkew ?? 1;
  if (!Number.isInteger(maxSkew) || maxSkew < 1 || maxSkew > INT32_MAX) {
    throw invalidProp(where, 'maxSkew', maxSkew, `must be an integer from 1 to ${INT32_MAX}`);
  }
  if (options.minDomains !== undefined) {
    if (options.whenUnsatisfiable !== WhenUnsatisfiable.DO_NOT_SCHEDULE) {
      throw invalidProp(where, 'minDomains', options.minDomains,
        `is only allowed with whenUnsatisfiable=DoNotSchedule (got ${options.whenUnsatisfiable}): Kubernetes rejects it otherwise`);
    }
    if (!Number.isInteger(options.minDomains) || options.minDomains < 1 || options.minDomains > INT32_MAX) {
      throw invalidProp(where, 'minDomains', options.minDomains, `must be an integer from 1 to ${INT32_MAX}`);
    }
  }
  const matchLabelKeys = options.matchLabelKeys ?? [];
  const seen = new Set<string>();
  for (const key of matchLabelKeys) {
    const problem = labelKeyProblem(key);
    if (problem) throw invalidProp(where, 'matchLabelKeys', key, problem);
    if (seen.has(key)) throw invalidProp(where, 'matchLabelKeys', key, 'is listed twice');
    seen.add(key);
  }
  return {
    topologyKey,
    maxSkew,
    whenUnsatisfiable: options.whenUnsatisfiable!,
    minDomains: options.minDomains,
    matchLabelKeys: matchLabelKeys.length > 0 ? [...matchLabelKeys] : undefined,
    nodeAffinityPolicy: options.nodeAffinityPolicy,
    nodeTaintsPolicy: options.nodeTaintsPolicy,
  };
}

/**
 * The constraint `fields` counting the pods of `target` (which its selector must select; no matchLabelKey may be a
 * selector key).
 */
export function withTarget(where: string, spread: SpreadFields, target: SpreadTarget): k8s.TopologySpreadConstraint {
  checkSelector(where, target);
  const selectorKeys = new Set([
    ...Object.keys(target.selector.matchLabels ?? {}),
    ...(target.selector.matchExpressions ?? []).map((e) => e.key),
  ]);
  const overlap = (spread.matchLabelKeys ?? []).find((key) => selectorKeys.has(key));
  if (overlap !== undefined) {
    throw invalidProp(where, 'matchLabelKeys', overlap, 'is also a key of the label selector, which Kubernetes rejects');
  }
  const {
    topologyKey,
    maxSkew,
    whenUnsatisfiable,
    minDomains,
    matchLabelKeys,
    nodeAffinityPolicy,
    nodeTaintsPolicy,
  } = spread;
  return {
    topologyKey,
    maxSkew,
    whenUnsatisfiable,
    minDomains,
    labelSelector: {
      matchLabels: target.selector.matchLabels && { ...target.selector.matchLabels },
      matchExpressions: target.selector.matchExpressions?.map((e) => ({ ...e, values: e.values && [...e.values] })),
    },
    matchLabelKeys: matchLabelKeys && [...matchLabelKeys],
    nodeAffinityPolicy,
    nodeTaintsPolicy,
  };
}

/** The selector must select the pods being spread, and must not be empty. */
export function checkSelector(where: string, target: SpreadTarget): void {
  if (selectorIsEmpty(target.selector)) {
    throw invalidProp(where, 'selector', target.selector,
      'is empty: the constraint would count every pod in the namespace; give the pods labels to select them by');
  }
  if (!selectorMatches(target.selector, target.podLabels)) {
    throw invalidProp(where, 'selector', target.selector,
      `does not match the pod labels ${describe(target.podLabels)}: the constraint would count other pods and never these`);
  }
}


/**
 * The fewest zones that hold a pod when `pods` pods are spread over `zones` zones by a hard zone spread of `maxSkew`
 * (DoNotSchedule, minDomains the zone count, as `zoneSpreadConstraint` writes it). A zone may stay empty while every
 * other zone holds at most maxSkew (the skew to an empty zone); once there are more pods than that allows, every
 * zone holds one.
 */
export function fewestZonesWithPods(pods: number, zones: number, maxSkew: number): number {
  if (pods > (zones - 1) * maxSkew) return zones;
  return Math.ceil(pods / maxSkew);
}
