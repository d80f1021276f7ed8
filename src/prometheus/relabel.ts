import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { escapeRegex } from '../monitoring/promql';
import { invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props, PropSpec } from '../shared/props';
import { ZoneTopology } from '../topology/zone-topology';

/** What a relabel rule does (Prometheus `relabel_config.action`). */
export enum RelabelAction {
  /** Set `targetLabel` to `replacement` (with regex groups) when `regex` matches. */
  REPLACE = 'replace',
  /** Drop targets whose joined source labels do not match `regex`. */
  KEEP = 'keep',
  /** Drop targets whose joined source labels match `regex`. */
  DROP = 'drop',
  /** Set `targetLabel` to the hash of the joined source labels modulo `modulus`. */
  HASHMOD = 'hashmod',
  /** Copy labels whose name matches `regex` to the name given by `replacement`. */
  LABELMAP = 'labelmap',
  /** Remove labels whose name matches `regex`. */
  LABELDROP = 'labeldrop',
  /** Remove labels whose name does not match `regex`. */
  LABELKEEP = 'labelkeep',
  /** Drop targets whose joined source labels differ from `targetLabel`'s value. */
  KEEPEQUAL = 'keepequal',
  /** Drop targets whose joined source labels equal `targetLabel`'s value. */
  DROPEQUAL = 'dropequal',
  /** Set `targetLabel` to the lower-cased joined source labels. */
  LOWERCASE = 'lowercase',
  /** Set `targetLabel` to the upper-cased joined source labels. */
  UPPERCASE = 'uppercase',
}

/**
 * One Prometheus relabel rule, spelled once; `ShardRelabeling.toPrometheusConfig` and
 * `ShardRelabeling.toOperator` render it for a `prometheus.yml` or a prometheus-operator resource.
 */
export interface RelabelRule {
  /**
   * Labels whose values are joined with `separator` and matched against `regex`.
   *
   * @default - none
   */
  readonly sourceLabels?: string[];

  /**
   * Separator between the joined source label values.
   *
   * @default ';'
   */
  readonly separator?: string;

  /**
   * The label a replace, hashmod, lowercase or uppercase rule writes.
   *
   * @default - none
   */
  readonly targetLabel?: string;

  /**
   * RE2 regular expression, anchored at both ends by Prometheus.
   *
   * @default '(.*)'
   */
  readonly regex?: string;

  /**
   * Modulus of a hashmod rule.
   *
   * @default - none
   */
  readonly modulus?: number;

  /**
   * Replacement of a replace rule; `$1` refers to the regex's first group.
   *
   * @default '$1'
   */
  readonly replacement?: string;

  /**
   * What the rule does.
   *
   * @default RelabelAction.REPLACE
   */
  readonly action?: RelabelAction;
}

/** The run-time checks of `RelabelRule`. */
export const RELABEL_RULE_PROPS: PropSpec<RelabelRule> = {
  sourceLabels: Props.optional(Props.arrayOf(Props.string((s) => (isPrometheusLabelName(s) ? undefined : 'is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)'), 'a label name'))),
  separator: Props.optional(Props.string()),
  targetLabel: Props.optional(Props.nonEmptyString('a label name')),
  regex: Props.optional(Props.string()),
  modulus: Props.optional(Props.integer(1, Number.MAX_SAFE_INTEGER)),
  replacement: Props.optional(Props.string()),
  action: Props.optional(Props.enumOf(RelabelAction, 'RelabelAction')),
};
const RELABEL_RULES = Props.arrayOf(Props.struct(RELABEL_RULE_PROPS, 'RelabelRule'));

const SHARD_RELABELING_PROPS: PropSpec<ShardRelabelingProps> = {
  topology: Props.instanceOf(ZoneTopology),
  zone: Props.string(),
  inZoneIndex: Props.optional(Props.integer(0)),
  zoneShards: Props.optional(Props.integer(1)),
  hashLabel: Props.optional(Props.string()),
};

/** The label prometheus-operator and this library read a target's zone from (a scrape class may set it first). */
export const TOPOLOGY_LABEL = '__tmp_topology';
/** The label holding the value to hash, then the hash (a scrape class may set it first to hash something else). */
export const HASH_LABEL = '__tmp_hash';
/** A target with a non-empty value here is scraped by every shard, in every zone (as in prometheus-operator). */
export const DISABLE_SHARDING_LABEL = '__tmp_disable_sharding';

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** True when `name` is a valid Prometheus label name. */
export function isPrometheusLabelName(name: string): boolean {
  return LABEL_NAME.test(name);
}

/** Prometheus's discovery label for a Kubernetes label key: every character outside [a-zA-Z0-9_] becomes '_'. */
export function sanitizeLabelName(key: string): string {
  return key.replace(/[^a-zA-Z0-9_]/g, '_');
}


/** Where the zone of a discovered target is read from, in order; the first non-empty one wins. */
export interface ZoneSources {
  /** The EndpointSlice's endpoint zone (role endpointslice; set from the node's topology.kubernetes.io/zone). */
  readonly endpointSlice: boolean;
  /** The pod's topology.kubernetes.io/zone label (Kubernetes >= 1.35, KEP-4742). */
  readonly podLabel: boolean;
  /** The node's zone label (needs attach_metadata node: true, and RBAC to read nodes). */
  readonly nodeLabel: boolean;
}

/**
 * Where a target's zone is read for a topology: an EndpointSlice's zone with the well-known key, the pod's own
 * label when pods carry it (the topology's `podsCarryZoneLabel`), else the node's label.
 */
export function zoneSources(topology: ZoneTopology): ZoneSources {
  const wellKnown = topology.topologyKey === WELL_KNOWN_ZONE_KEY;
  return { endpointSlice: wellKnown, podLabel: topology.podsCarryZoneLabel, nodeLabel: !topology.podsCarryZoneLabel };
}

/** What a shard keeps: the zone and the in-zone hash bucket. */
export interface ShardSelection {
  readonly zone: string;
  readonly inZoneIndex: number;
  readonly zoneShards: number;
}

/** Whether `zone`'s shards also keep the targets of no known zone: the topology's first zone's do. */
export function keepsUnzonedTargets(topology: ZoneTopology, zone: string): boolean {
  return zone === topology.zones[0];
}

/**
 * The rules that decide a target's zone and keep it only when it is `zone`'s: set `__tmp_topology` from
 * the first zone source that has a value (unless a scrape class set it already), clear it when it names a
 * zone outside the topology, then keep the target when it is in `zone`, when it has no known zone and
 * `zone` is the topology's first zone (so such targets are still scraped exactly once), or when sharding
 * is disabled for it.
 */
export function zoneSelectionRules(topology: ZoneTopology, sources: ZoneSources, zone: string): RelabelRule[] {
  const rules: RelabelRule[] = [];
  if (sources.endpointSlice) {
    rules.push({
      sourceLabels: ['__meta_kubernetes_endpointslice_endpoint_zone', TOPOLOGY_LABEL],
      regex: '(.+);',
      targetLabel: TOPOLOGY_LABEL,
      replacement: '$1',
      action: RelabelAction.REPLACE,
    });
  }
  if (sources.podLabel) rules.push(labelRule('pod', WELL_KNOWN_ZONE_KEY));
  if (sources.nodeLabel) rules.push(labelRule('node', topology.topologyKey));
  const known = topology.zones.map(escapeRegex).join('|');
  rules.push({
    sourceLabels: [TOPOLOGY_LABEL],
    regex: `(${known})|.*`,
    targetLabel: TOPOLOGY_LABEL,
    replacement: '$1',
    action: RelabelAction.REPLACE,
  });
  const own = escapeRegex(zone);
  const zoneMatch = keepsUnzonedTargets(topology, zone) ? `(?:${own})?` : own;
  rules.push({
    sourceLabels: [TOPOLOGY_LABEL, DISABLE_SHARDING_LABEL],
    regex: `${zoneMatch};|.*;.+`,
    action: RelabelAction.KEEP,
  });
  return rules;
}

/** The label a monitored component's series carry their pod's zone in (`TopologyShardedPrometheus.monitor`). */
export const ZONE_TARGET_LABEL = 'zone';

/**
 * The rules that copy a pod target's zone into `ZONE_TARGET_LABEL`: the pod's own zone label when pods carry it, else
 * its node's (the discovery attaches the node's metadata then). They read only what the discovery gives, so they hold
 * wherever they run among the other rules.
 */
export function podZoneLabelRules(topology: ZoneTopology, sources: ZoneSources): RelabelRule[] {
  return [
    ...(sources.podLabel ? [labelRule('pod', WELL_KNOWN_ZONE_KEY, ZONE_TARGET_LABEL)] : []),
    ...(sources.nodeLabel ? [labelRule('node', topology.topologyKey, ZONE_TARGET_LABEL)] : []),
  ];
}

/** Sets `target` from an object's label `key` when the label is present and `target` is still empty. */
function labelRule(object: 'pod' | 'node', key: string, target = TOPOLOGY_LABEL): RelabelRule {
  const name = sanitizeLabelName(key);
  return {
    sourceLabels: [`__meta_kubernetes_${object}_label_${name}`, `__meta_kubernetes_${object}_labelpresent_${name}`, target],
    regex: '(.+);true;',
    targetLabel: target,
    replacement: '$1',
    action: RelabelAction.REPLACE,
  };
}

/**
 * Classic address sharding: hash `hashLabel` (unless a scrape class set `__tmp_hash`) modulo `modulus`
 * and keep bucket `index`, or every target whose sharding is disabled.
 */
export function hashShardRules(index: number, modulus: number, hashLabel: string): RelabelRule[] {
  return [
    {
      sourceLabels: [hashLabel, HASH_LABEL],
      regex: '(.+);',
      targetLabel: HASH_LABEL,
      replacement: '$1',
      action: RelabelAction.REPLACE,
    },
    { sourceLabels: [HASH_LABEL], targetLabel: HASH_LABEL, modulus, action: RelabelAction.HASHMOD },
    { sourceLabels: [HASH_LABEL, DISABLE_SHARDING_LABEL], regex: `${index};|.+;.+`, action: RelabelAction.KEEP },
  ];
}

/** A rule in Prometheus configuration spelling, as a `prometheus.yml` reads it (fields left out when unset). */
export interface ConfigRelabelRule {
  readonly source_labels?: string[];
  readonly separator?: string;
  readonly target_label?: string;
  readonly regex?: string;
  readonly modulus?: number;
  readonly replacement?: string;
  readonly action: RelabelAction;
}

/** A rule in Prometheus configuration spelling (`source_labels`, `target_label`). */
export function toConfigSpelling(rule: RelabelRule): ConfigRelabelRule {
  return spell<ConfigRelabelRule>(rule, 'source_labels', 'target_label');
}

/** A rule in prometheus-operator spelling (`sourceLabels`, `targetLabel`): the rule, its unset fields left out. */
export function toOperatorSpelling(rule: RelabelRule): RelabelRule {
  return spell<RelabelRule>(rule, 'sourceLabels', 'targetLabel');
}

/** The rule's set fields in one order for both spellings, the two label fields named as the spelling names them. */
function spell<T extends ConfigRelabelRule | RelabelRule>(
  rule: RelabelRule, sourceLabels: string, targetLabel: string,
): T {
  const spelled = compact({
    [sourceLabels]: rule.sourceLabels && [...rule.sourceLabels],
    separator: rule.separator,
    [targetLabel]: rule.targetLabel,
    regex: rule.regex,
    modulus: rule.modulus,
    replacement: rule.replacement,
    action: rule.action ?? RelabelAction.REPLACE,
  });
  return spelled as unknown as T; // the computed keys are the spelling's two label fields
}

/** `o` without its undefined fields (so the YAML holds only what was set). */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Props of `ShardRelabeling.forShard`. */
export interface ShardRelabelingProps {
  /** The zones. */
  readonly topology: ZoneTopology;

  /** The zone whose targets the shard keeps. */
  readonly zone: string;

  /**
   * The shard's index inside its zone (the hash bucket it keeps).
   *
   * @default 0
   */
  readonly inZoneIndex?: number;

  /**
   * The number of shards in the zone (the modulus of the in-zone hash).
   *
   * @default 1
   */
  readonly zoneShards?: number;

  /**
   * The label whose value is hashed: `__address__` for pods and services, `__param_target` for probes.
   *
   * @default '__address__'
   */
  readonly hashLabel?: string;
}

/**
 * Generates the relabel rules that make one Prometheus shard keep only its zone's targets and only its
 * slice of them (pure). The same rules the `TopologyShardedPrometheus` construct emits; usable in any
 * hand-written `prometheus.yml` or scrape class.
 */
export class ShardRelabeling {
  /**
   * Zone determination, zone keep and in-zone hash sharding for one shard, in order. A target whose zone
   * is unknown (no zone source, or a zone outside the topology) is kept by the first zone's shards, so
   * it is still scraped exactly once.
   */
  public static forShard(props: ShardRelabelingProps): RelabelRule[] {
    const where = 'ShardRelabeling.forShard';
    checkProps(where, props, SHARD_RELABELING_PROPS, 'ShardRelabelingProps');
    const selection = checkSelection(where, props.topology, {
      zone: props.zone, inZoneIndex: props.inZoneIndex ?? 0, zoneShards: props.zoneShards ?? 1,
    });
    const hashLabel = checkHashLabel(where, props.hashLabel ?? '__address__');
    const sources = zoneSources(props.topology);
    return [
      ...zoneSelectionRules(props.topology, sources, selection.zone),
      ...hashShardRules(selection.inZoneIndex, selection.zoneShards, hashLabel),
    ];
  }

  /** Classic address sharding over `shards` shards (no zones): the rules of shard `index`. */
  public static byAddress(index: number, shards: number, hashLabel?: string): RelabelRule[] {
    const where = 'ShardRelabeling.byAddress';
    checkArg(where, 'shards', shards, Props.integer(1));
    checkArg(where, 'hashLabel', hashLabel, Props.optional(Props.string()));
    if (!Number.isInteger(index) || index < 0 || index >= shards) {
      throw invalidProp(where, 'index', index, `must be an integer from 0 to ${shards - 1}`);
    }
    return hashShardRules(index, shards, checkHashLabel(where, hashLabel ?? '__address__'));
  }

  /**
   * The rules in Prometheus configuration spelling (`source_labels`, `target_label`), for a `prometheus.yml`:
   * per rule, its set fields by their configuration names, with `action` always there (`replace` by default).
   */
  public static toPrometheusConfig(rules: RelabelRule[]): { [field: string]: string | number | string[] }[] {
    checkArg('ShardRelabeling.toPrometheusConfig', 'rules', rules, RELABEL_RULES);
    return rules.map((r) => ({ ...toConfigSpelling(r) }));
  }

  /**
   * The rules in prometheus-operator spelling (`sourceLabels`, `targetLabel`), for monitors and scrape classes:
   * each rule with its set fields only, and `action` always there (`RelabelAction.REPLACE` by default).
   */
  public static toOperator(rules: RelabelRule[]): RelabelRule[] {
    checkArg('ShardRelabeling.toOperator', 'rules', rules, RELABEL_RULES);
    return rules.map(toOperatorSpelling);
  }

  private constructor() {}
}

/** Validates a shard selection against the topology; `where` names the caller in error messages. */
export function checkSelection(where: string, topology: ZoneTopology, s: ShardSelection): ShardSelection {
  if (!topology.hasZone(s.zone)) {
    throw invalidProp(where, 'zone', s.zone, `is not one of the topology's zones [${topology.zones.join(', ')}]`);
  }
  if (!Number.isInteger(s.zoneShards) || s.zoneShards < 1) {
    throw invalidProp(where, 'zoneShards', s.zoneShards, 'must be an integer >= 1');
  }
  if (!Number.isInteger(s.inZoneIndex) || s.inZoneIndex < 0 || s.inZoneIndex >= s.zoneShards) {
    throw invalidProp(where, 'inZoneIndex', s.inZoneIndex, `must be an integer from 0 to zoneShards - 1 = ${s.zoneShards - 1}`);
  }
  return s;
}

function checkHashLabel(where: string, label: string): string {
  if (!isPrometheusLabelName(label)) {
    throw invalidProp(where, 'hashLabel', label, 'is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)');
  }
  return label;
}
