import { ApiObject, JsonPatch } from 'cdk8s';
import { k8s, Node, NodeLabelQuery, Workload } from 'cdk8s-plus-28';
import { zoneRequirements } from './affinity';
import { selectorMatches } from './selector';
import { hostSpreadConstraint, RevisionLabel, SPREAD_OPTIONS_PROPS, SpreadOptions, SpreadTarget, zoneSpreadConstraint } from './spread';
import { requireZone, ZoneTopology } from './zone-topology';
import { describe, invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props, PropSpec } from '../shared/props';

/**
 * Options for `Zonal.spread`. The top-level spread options apply to the zone constraint.
 */
export interface ZonalSpreadOptions extends SpreadOptions {
  /** The zones to spread over. */
  readonly topology: ZoneTopology;

  /**
   * Also spread the pods across nodes within the zones.
   *
   * @default true
   */
  readonly spreadAcrossHosts?: boolean;

  /**
   * Options of the host spread constraint (only with `spreadAcrossHosts`).
   *
   * @default - maxSkew 1, SCHEDULE_ANYWAY, same matchLabelKeys as the zone constraint
   */
  readonly hostSpread?: SpreadOptions;

  /**
   * Add required node affinity `topologyKey In [zones]` (and the region, when set), so pods never land
   * in, and the spread never counts, zones outside the topology.
   *
   * @default true
   */
  readonly restrictToZones?: boolean;
}

const ZONAL_SPREAD_PROPS: PropSpec<ZonalSpreadOptions> = {
  ...SPREAD_OPTIONS_PROPS,
  topology: Props.instanceOf(ZoneTopology),
  spreadAcrossHosts: Props.optional(Props.boolean()),
  hostSpread: Props.optional(Props.struct(SPREAD_OPTIONS_PROPS, 'SpreadOptions')),
  restrictToZones: Props.optional(Props.boolean()),
};

/** The workload kinds `Zonal` supports, and the label that tells their pod revisions apart. */
const SUPPORTED_KINDS: { [kind: string]: RevisionLabel | undefined } = {
  Deployment: RevisionLabel.POD_TEMPLATE_HASH,
  StatefulSet: RevisionLabel.CONTROLLER_REVISION_HASH,
  Job: undefined,
};

/** What Zonal has done to one workload, so repeated or conflicting calls get a clear error. */
interface ZonalState {
  readonly constraints: k8s.TopologySpreadConstraint[];
  /** Node selector requirements every required node affinity term must carry. */
  readonly requiredTerms: { readonly by: string; readonly expressions: k8s.NodeSelectorRequirement[] }[];
  pinnedZone?: string;
  spreadAcrossZones: boolean;
}

const STATE = new WeakMap<Workload, ZonalState>();

/**
 * Zone placement for any cdk8s-plus-28 `Deployment`, `StatefulSet` or `Job` (cdk8s-plus emits no
 * topology spread constraints of its own).
 */
export class Zonal {
  /**
   * Spreads the workload's pods across the topology's zones (a hard constraint by default, with
   * minDomains = number of zones so a lost zone blocks scheduling instead of packing pods into the
   * others) and across nodes (soft), counting only the current revision's pods.
   */
  public static spread(workload: Workload, options: ZonalSpreadOptions): void {
    const { kind, where, state } = Zonal.prepare(workload, 'Zonal.spread');
    checkProps(where, options, ZONAL_SPREAD_PROPS, 'ZonalSpreadOptions', 'options');
    if (state.pinnedZone !== undefined) {
      throw new Error(`${where}: the workload is pinned to zone ${describe(state.pinnedZone)} by Zonal.pinToZone; ` +
        'it cannot also spread across zones (use Zonal.spreadAcrossHosts to spread it within its zone)');
    }
    if (state.spreadAcrossZones) {
      throw new Error(`${where}: the workload is already spread across zones; call Zonal.spread once per workload`);
    }
    const target = spreadTarget(workload, kind);
    const revision = SUPPORTED_KINDS[kind];
    const matchLabelKeys = options.matchLabelKeys ?? (revision ? [revision] : undefined);
    const added = [zoneSpreadConstraint(where, options.topology, target, { ...options, matchLabelKeys })];
    if (options.spreadAcrossHosts ?? true) {
      added.push(hostSpreadConstraint(where, options.topology, target, { matchLabelKeys, ...options.hostSpread }));
    } else if (options.hostSpread) {
      throw invalidProp(where, 'hostSpread', options.hostSpread, 'is set but spreadAcrossHosts is false');
    }
    state.spreadAcrossZones = true;
    Zonal.addConstraints(workload, state, where, added);
    if (options.restrictToZones ?? true) {
      Zonal.requireNodes(workload, state, where, zoneRequirements(options.topology, options.topology.zones));
    }
  }

  /**
   * Spreads the workload's pods across nodes only (for example a workload pinned to one zone).
   */
  public static spreadAcrossHosts(workload: Workload, topology: ZoneTopology, options?: SpreadOptions): void {
    const { kind, where, state } = Zonal.prepare(workload, 'Zonal.spreadAcrossHosts');
    checkArg(where, 'topology', topology, Props.instanceOf(ZoneTopology));
    checkArg(where, 'options', options, Props.optional(Props.struct(SPREAD_OPTIONS_PROPS, 'SpreadOptions')));
    const revision = SUPPORTED_KINDS[kind];
    const matchLabelKeys = options?.matchLabelKeys ?? (revision ? [revision] : undefined);
    const constraint = hostSpreadConstraint(where, topology, spreadTarget(workload, kind), { ...options, matchLabelKeys });
    Zonal.addConstraints(workload, state, where, [constraint]);
  }

  /**
   * Pins the workload's pods to one zone with required node affinity `topologyKey In [zone]` (and the
   * region, when the topology has one).
   */
  public static pinToZone(workload: Workload, topology: ZoneTopology, zone: string): void {
    const { where, state } = Zonal.prepare(workload, 'Zonal.pinToZone');
    checkArg(where, 'topology', topology, Props.instanceOf(ZoneTopology));
    requireZone(topology, where, 'zone', zone);
    if (state.spreadAcrossZones) {
      throw new Error(`${where}: the workload is spread across zones by Zonal.spread; it cannot also be pinned to ${describe(zone)}`);
    }
    if (state.pinnedZone !== undefined) {
      throw new Error(`${where}: the workload is already pinned to zone ${describe(state.pinnedZone)}`);
    }
    state.pinnedZone = zone;
    Zonal.requireNodes(workload, state, where, zoneRequirements(topology, [zone]));
  }

  private static prepare(workload: Workload, method: string): { kind: string; where: string; state: ZonalState } {
    checkArg(method, 'workload', workload, Props.instanceOf(Workload, 'cdk8s-plus Workload (Deployment, StatefulSet or Job)'));
    const kind = ApiObject.of(workload).kind;
    const where = `${method}(${kind} '${workload.node.path}')`;
    if (!(kind in SUPPORTED_KINDS)) {
      throw new Error(`${where}: kind ${kind} is not supported; Zonal places Deployment, StatefulSet and Job pods` +
        (kind === 'DaemonSet' ? ' (a DaemonSet already runs one pod on every node)' : ''));
    }
    let state = STATE.get(workload);
    if (!state) {
      state = { constraints: [], requiredTerms: [], spreadAcrossZones: false };
      STATE.set(workload, state);
      const created = state;
      workload.node.addValidation({ validate: () => validateState(workload, created) });
    }
    return { kind, where, state };
  }

  private static addConstraints(
    workload: Workload, state: ZonalState, where: string, added: k8s.TopologySpreadConstraint[],
  ): void {
    for (const c of added) {
      const clash = state.constraints.find((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable);
      if (clash) {
        throw new Error(`${where}: the workload already has a ${c.whenUnsatisfiable} spread constraint on ` +
          `${c.topologyKey}; Kubernetes rejects two with the same topologyKey and whenUnsatisfiable`);
      }
    }
    const path = '/spec/template/spec/topologySpreadConstraints';
    const json = added.map((c) => k8s.toJson_TopologySpreadConstraint(c)!);
    // The first call creates the list; later calls append to it (a second `add` would replace it).
    const patches = state.constraints.length === 0
      ? [JsonPatch.add(path, json)]
      : json.map((c) => JsonPatch.add(`${path}/-`, c));
    ApiObject.of(workload).addJsonPatch(...patches);
    state.constraints.push(...added);
  }

  private static requireNodes(
    workload: Workload, state: ZonalState, where: string, expressions: k8s.NodeSelectorRequirement[],
  ): void {
    workload.scheduling.attract(Node.labeled(...expressions.map((e) => NodeLabelQuery.in(e.key, e.values!))));
    state.requiredTerms.push({ by: where, expressions });
  }

  private constructor() {}
}

/**
 * The workload's pod selector and pod labels; the selector must select the pods. A Job has no selector
 * of its own (Kubernetes generates one), so its pods are selected by their template labels.
 */
function spreadTarget(workload: Workload, kind: string): SpreadTarget {
  const podLabels = podLabelsOf(workload);
  if (kind === 'Job') return { selector: { matchLabels: { ...podLabels } }, podLabels };
  const expressions = workload.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, values: e.values }));
  const selector = { matchLabels: workload.matchLabels, matchExpressions: expressions.length > 0 ? expressions : undefined };
  return { selector, podLabels };
}

/** The labels of the workload's pod template, as cdk8s-plus renders them. */
function podLabelsOf(workload: Workload): { [key: string]: string } {
  return workload.podMetadata.toJson().labels ?? {};
}

/**
 * Checks at synthesis what may have changed since Zonal placed the workload, from the workload's own
 * state (rendering the whole workload here would cost a render per validation, and cdk8s validates
 * twice per synth): the pods must still carry the labels the constraints count, and no other required
 * node affinity term may let pods escape the zones (Kubernetes ORs the terms).
 */
function validateState(workload: Workload, state: ZonalState): string[] {
  const podLabels = podLabelsOf(workload);
  const errors: string[] = [];
  for (const c of state.constraints) {
    if (!selectorMatches(c.labelSelector ?? {}, podLabels)) {
      errors.push(`the ${c.topologyKey} spread constraint selects ${describe(k8s.toJson_LabelSelector(c.labelSelector))} but the pods are ` +
        `labelled ${describe(podLabels)}: it would never count them (were the pod labels or selector changed after Zonal?)`);
    }
  }
  const terms = requiredNodeTerms(workload);
  for (const required of state.requiredTerms) {
    const escaping = terms.filter((term) => !required.expressions.every((e) =>
      (term.matchExpressions ?? []).some((t: any) => t.key === e.key && t.operator === e.operator &&
        JSON.stringify(t.values) === JSON.stringify(e.values))));
    if (escaping.length > 0) {
      errors.push(`${required.by} requires nodes with ${describe(required.expressions)}, but the pod also has required ` +
        `node affinity term(s) ${describe(escaping)}; Kubernetes ORs the terms, so pods could run outside the zones. ` +
        'Add the zone requirement to those terms, or pass restrictToZones: false');
    }
  }
  return errors;
}

/**
 * The required node affinity terms cdk8s-plus renders into the pod spec, as JSON. It keeps them private;
 * its scheduling's `_toKube` is what the pod spec's affinity is rendered from, without the rest of the pod.
 * A cdk8s-plus without it costs a render of the whole workload instead.
 */
function requiredNodeTerms(workload: Workload): any[] {
  const scheduling = workload.scheduling as unknown as { _toKube?(): { affinity?: k8s.Affinity } };
  if (typeof scheduling._toKube !== 'function') {
    const affinity = ApiObject.of(workload).toJson().spec?.template?.spec?.affinity;
    return affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  }
  const terms = scheduling._toKube().affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms.map((term) => k8s.toJson_NodeSelectorTerm(term));
}
