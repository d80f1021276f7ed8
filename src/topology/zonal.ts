import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { IConstruct } from 'constructs';
import { zoneRequirements } from './affinity';
import {
  hostSpreadFields,
  RevisionLabel,
  SPREAD_OPTIONS_PROPS,
  SpreadFields,
  SpreadOptions,
  withTarget,
  zoneSpreadFields,
} from './spread';
import { requireZone, ZoneTopology } from './zone-topology';
import { NodeAffinity, PodSpec, TopologySpreadConstraint } from '../kubernetes/objects';
import {
  renderedPodLabels, renderedSelector, RenderedWorkload, transformRendered, workloadApiObject,
} from '../kubernetes/workload';
import { describe, invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';

/**
 * Options for `Zonal.spread`: the top-level spread options apply to the zone constraint. `Zonal.spreadAcrossHosts`
 * takes the topology and the spread options only (they apply to the host constraint).
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

/** Options for `Zonal.pinToZone`. */
export interface ZonalPinOptions {
  /** The topology the zone belongs to. */
  readonly topology: ZoneTopology;

  /** The zone the pods run in (one of the topology's zones). */
  readonly zone: string;
}

const ZONAL_SPREAD_PROPS: PropSpec<ZonalSpreadOptions> = {
  ...SPREAD_OPTIONS_PROPS,
  topology: Props.instanceOf(ZoneTopology),
  spreadAcrossHosts: Props.optional(Props.boolean()),
  hostSpread: Props.optional(Props.struct(SPREAD_OPTIONS_PROPS, 'SpreadOptions')),
  restrictToZones: Props.optional(Props.boolean()),
};

/** The options of `Zonal.spread` that a spread across hosts alone has no use for. */
const ZONE_ONLY_OPTIONS = ['spreadAcrossHosts', 'hostSpread', 'restrictToZones'] as const;

const ZONAL_PIN_PROPS: PropSpec<ZonalPinOptions> = { topology: Props.instanceOf(ZoneTopology), zone: Props.string() };

/** The workload kinds `Zonal` supports, and the label that tells their pod revisions apart. */
const SUPPORTED_KINDS: { [kind: string]: RevisionLabel | undefined } = {
  Deployment: RevisionLabel.POD_TEMPLATE_HASH,
  StatefulSet: RevisionLabel.CONTROLLER_REVISION_HASH,
  Job: undefined,
};

/** What Zonal asked of one workload: applied to its rendered JSON at every synthesis (placeRendered). */
interface ZonalState {
  /** The spread constraints, each with the call that asked for it; their selector is the workload's, as rendered. */
  readonly spreads: { readonly where: string; readonly fields: SpreadFields }[];
  /** Node selector requirements every required node affinity term must carry. */
  readonly required: k8s.NodeSelectorRequirement[];
  pinnedZone?: string;
  spreadAcrossZones: boolean;
}

const STATE = new WeakMap<ApiObject, ZonalState>();

/**
 * Zone placement for any Deployment, StatefulSet or Job: a cdk8s-plus workload of any version (28 to 33) or a
 * raw `k8s.KubeDeployment`, `KubeStatefulSet` or `KubeJob`. It applies to the workload as rendered at
 * synthesis, so it composes with what is added to the workload afterwards (labels, other node affinity).
 */
export class Zonal {
  /**
   * Spreads the workload's pods across the topology's zones (a hard constraint by default; its minDomains keeps
   * pods Pending instead of packing them into too few zones, see `SpreadOptions.minDomains`) and across nodes
   * (soft), counting only the current revision's pods.
   */
  public static spread(workload: IConstruct, options: ZonalSpreadOptions): void {
    const { kind, where, state } = Zonal.prepare(workload, 'Zonal.spread');
    checkProps(where, options, ZONAL_SPREAD_PROPS, 'ZonalSpreadOptions', 'options');
    if (state.pinnedZone !== undefined) {
      throw new Error(`${where}: the workload is pinned to zone ${describe(state.pinnedZone)} by Zonal.pinToZone; ` +
        'it cannot also spread across zones (use Zonal.spreadAcrossHosts to spread it within its zone)');
    }
    if (state.spreadAcrossZones) {
      throw new Error(`${where}: the workload is already spread across zones; call Zonal.spread once per workload`);
    }
    const revision = SUPPORTED_KINDS[kind];
    const matchLabelKeys = options.matchLabelKeys ?? (revision ? [revision] : undefined);
    const added = [zoneSpreadFields(where, options.topology, { ...options, matchLabelKeys })];
    if (options.spreadAcrossHosts ?? true) {
      added.push(hostSpreadFields(where, options.topology, { matchLabelKeys, ...options.hostSpread }));
    } else if (options.hostSpread) {
      throw invalidProp(where, 'hostSpread', options.hostSpread, 'is set but spreadAcrossHosts is false');
    }
    Zonal.addSpreads(state, where, added);
    state.spreadAcrossZones = true;
    if (options.restrictToZones ?? true) {
      state.required.push(...zoneRequirements(options.topology, options.topology.zones));
    }
  }

  /**
   * Spreads the workload's pods across nodes only (for example a workload pinned to one zone).
   */
  public static spreadAcrossHosts(workload: IConstruct, options: ZonalSpreadOptions): void {
    const { kind, where, state } = Zonal.prepare(workload, 'Zonal.spreadAcrossHosts');
    checkProps(where, options, ZONAL_SPREAD_PROPS, 'ZonalSpreadOptions', 'options');
    const zoneOnly = ZONE_ONLY_OPTIONS.find((o) => options[o] !== undefined);
    if (zoneOnly) {
      const rule = 'is an option of Zonal.spread: Zonal.spreadAcrossHosts spreads over hosts only';
      throw invalidProp(where, `options.${zoneOnly}`, options[zoneOnly], rule);
    }
    const revision = SUPPORTED_KINDS[kind];
    const matchLabelKeys = options.matchLabelKeys ?? (revision ? [revision] : undefined);
    Zonal.addSpreads(state, where, [hostSpreadFields(where, options.topology, { ...options, matchLabelKeys })]);
  }

  /**
   * Pins the workload's pods to one zone with required node affinity `topologyKey In [zone]` (and the
   * region, when the topology has one).
   */
  public static pinToZone(workload: IConstruct, options: ZonalPinOptions): void {
    const { where, state } = Zonal.prepare(workload, 'Zonal.pinToZone');
    checkProps(where, options, ZONAL_PIN_PROPS, 'ZonalPinOptions', 'options');
    const { topology, zone } = options;
    requireZone(topology, where, 'zone', zone);
    if (state.spreadAcrossZones) {
      throw new Error(`${where}: the workload is spread across zones by Zonal.spread; it cannot also be pinned to ${describe(zone)}`);
    }
    if (state.pinnedZone !== undefined) {
      throw new Error(`${where}: the workload is already pinned to zone ${describe(state.pinnedZone)}`);
    }
    state.pinnedZone = zone;
    state.required.push(...zoneRequirements(topology, [zone]));
  }

  private static prepare(workload: IConstruct, method: string): { kind: string; where: string; state: ZonalState } {
    const api = workloadApiObject(method, 'workload', workload, Object.keys(SUPPORTED_KINDS),
      (kind) => (kind === 'DaemonSet' ? ' (a DaemonSet already runs one pod on every node)' : ''));
    const where = `${method}(${api.kind} '${workload.node.path}')`;
    let state = STATE.get(api);
    if (!state) {
      const created: ZonalState = { spreads: [], required: [], spreadAcrossZones: false };
      STATE.set(api, created);
      transformRendered(api, (json) => placeRendered(json, created));
      state = created;
    }
    return { kind: api.kind, where, state };
  }

  private static addSpreads(state: ZonalState, where: string, added: SpreadFields[]): void {
    for (const c of added) {
      if (state.spreads.some((o) => sameDomain(o.fields, c))) {
        throw new Error(`${where}: the workload already has a ${c.whenUnsatisfiable} spread constraint on ` +
          `${c.topologyKey}; Kubernetes rejects two with the same topologyKey and whenUnsatisfiable`);
      }
    }
    state.spreads.push(...added.map((fields) => ({ where, fields })));
  }

  private constructor() {}
}

/** Kubernetes allows one spread constraint per topologyKey and whenUnsatisfiable. */
function sameDomain(
  a: { topologyKey?: string; whenUnsatisfiable?: string },
  b: { topologyKey?: string; whenUnsatisfiable?: string },
): boolean {
  return a.topologyKey === b.topologyKey && a.whenUnsatisfiable === b.whenUnsatisfiable;
}

/**
 * The rendered workload with what Zonal asked: the spread constraints (selecting the pods by the workload's
 * selector as rendered) appended to its own, and the zone requirements added to every required node
 * affinity term (Kubernetes ORs the terms: a term without them would let pods run outside the zones), or as
 * the one term when it has none.
 */
function placeRendered(json: RenderedWorkload, state: ZonalState): RenderedWorkload {
  const template = json.spec?.template ?? {};
  const spec: PodSpec = template.spec ?? {};
  const target = { selector: renderedSelector(json), podLabels: renderedPodLabels(json) };
  const own: readonly TopologySpreadConstraint[] = spec.topologySpreadConstraints ?? [];
  const added = state.spreads.map(({ where, fields }) => {
    const c = k8s.toJson_TopologySpreadConstraint(withTarget(where, fields, target))!;
    if (own.some((o) => sameDomain(o, c))) {
      throw new Error(`${where}: the workload already has a ${c.whenUnsatisfiable} spread constraint on ${c.topologyKey} of its own; ` +
        'Kubernetes rejects two with the same topologyKey and whenUnsatisfiable');
    }
    return c;
  });
  const pod: PodSpec = {
    ...spec,
    ...(added.length > 0 ? { topologySpreadConstraints: [...own, ...added] } : {}),
    ...(state.required.length > 0
      ? { affinity: { ...spec.affinity, nodeAffinity: inZones(spec.affinity?.nodeAffinity, state) } } : {}),
  };
  return { ...json, spec: { ...json.spec, template: { ...template, spec: pod } } };
}

/** The node affinity with the zone requirements added to every required term, or as the one term when it has none. */
function inZones(given: NodeAffinity | undefined, state: ZonalState): NodeAffinity {
  const required = state.required.map((r) => k8s.toJson_NodeSelectorRequirement(r)!);
  const terms = given?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return {
    ...given,
    requiredDuringSchedulingIgnoredDuringExecution: {
      ...given?.requiredDuringSchedulingIgnoredDuringExecution,
      nodeSelectorTerms: terms.length === 0
        ? [{ matchExpressions: required }]
        : terms.map((t) => ({ ...t, matchExpressions: [...(t.matchExpressions ?? []), ...required] })),
    },
  };
}
