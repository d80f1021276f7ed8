import { ApiObject, Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct, IConstruct } from 'constructs';
import { prometheusMonitored } from './monitored-shards';
import { PrometheusMonitors, scrapersPeer } from './monitors';
import {
  AGENT_KIND, OPERATOR_EXTERNAL_LABELS, operatorInstanceLabels, operatorPrometheuses, PROMETHEUS_KIND,
  ZONE_SCRAPE_CLASS,
} from './operator';
import { operatorTopologyShards } from './operator-formula';
import { OperatorSharding, PrometheusOutput, ResolvedPrometheus, ShardingMode } from './options';
import { TOPOLOGY_SHARDED_PROMETHEUS_PROPS, TopologyShardedPrometheusProps } from './prometheus-props';
import { discoveryRbac } from './rbac';
import { isPrometheusLabelName, zoneSources } from './relabel';
import { checkShardCount, ShardPlan } from './shard-plan';
import { REPLICA_EXTERNAL_LABEL, standaloneInstanceLabels, standaloneShards } from './standalone';
import { WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { containerResources } from '../kubernetes/container-resources';
import { MAX_STATEFULSET_NAME } from '../kubernetes/kubernetes-names';
import { derivedName, resolveNamespace } from '../kubernetes/object-names';
import { zoneSlugs } from '../kubernetes/zone-slug';
import { MonitoredComponent, monitoredOf, ScraperPeers } from '../monitoring/monitored';
import { durationText } from '../shared/durations';
import { invalidProp } from '../shared/errors';
import { checkProps } from '../shared/props';
import { addWarning } from '../shared/warnings';
import { ZonalVolumes, ZoneStorageClasses } from '../topology/zonal-storage';

/** The Prometheus image of the standalone output (3.5 is a long-term-support release). */
export const DEFAULT_PROMETHEUS_IMAGE = 'quay.io/prometheus/prometheus:v3.5.0';

/**
 * Zone-local Prometheus shards: each shard runs in one zone and scrapes only that zone's targets, so
 * scrapes never cross zones, and every target is scraped by exactly one shard.
 *
 * Output is prometheus-operator resources (one `Prometheus` per zone, or one with `shardingStrategy`)
 * or plain Kubernetes objects (a StatefulSet and prometheus.yml per shard). See docs/prometheus.md.
 */
export class TopologyShardedPrometheus extends Construct {
  /** The shard plan (topology mode; undefined in address mode). */
  public readonly plan: ShardPlan | undefined;

  /**
   * The prometheus-operator `Prometheus` (operator output) or `PrometheusAgent` (agent output) resources, in zone
   * order.
   */
  public readonly prometheuses: ApiObject[];

  /** The StatefulSets of the shards (standalone output), in shard order. */
  public readonly statefulSets: k8s.KubeStatefulSet[];

  /** The ServiceAccount the Prometheus pods run as. */
  public readonly serviceAccount: k8s.KubeServiceAccount;

  /** The components `monitor()` was given, and what it emitted for them. */
  private readonly monitors: PrometheusMonitors;
  /** What a Prometheus that monitors this one scrapes and alerts on. */
  private readonly monitored: () => MonitoredComponent;

  constructor(scope: Construct, id: string, props: TopologyShardedPrometheusProps) {
    super(scope, id);
    const where = `TopologyShardedPrometheus '${this.node.path}'`;
    checkProps(where, props, TOPOLOGY_SHARDED_PROMETHEUS_PROPS, 'TopologyShardedPrometheusProps');
    const mode = props.mode ?? ShardingMode.TOPOLOGY;
    const output = props.output ?? PrometheusOutput.OPERATOR;
    checkOptions(where, props, mode, output);

    this.plan = mode === ShardingMode.TOPOLOGY
      ? ShardPlan._of(where, props.topology.zones, props.shards, props.shardsPerZone) : undefined;
    if (mode === ShardingMode.ADDRESS) checkShardCount(where, props.shards);
    const p = resolvePrometheus(this, where, props, { mode, output, plan: this.plan });
    checkResolved(p, output);

    this.serviceAccount = discoveryRbac(this, p, needsNodeMetadata(p));
    const standalone = output === PrometheusOutput.STANDALONE;
    const scrapersOfShards = new ScraperPeers();
    const scrapers = scrapersPeer(p, standalone ? standaloneInstanceLabels(p) : operatorInstanceLabels(p));
    const evaluatesRules = output !== PrometheusOutput.AGENT;
    this.monitors = new PrometheusMonitors(this, p, scrapers, evaluatesRules, standalone, () => this.statefulSets);
    if (!standalone) {
      const kind = output === PrometheusOutput.AGENT ? AGENT_KIND : PROMETHEUS_KIND;
      this.prometheuses = operatorPrometheuses(this, p, this.serviceAccount.name, kind);
      this.statefulSets = [];
      if (mode === ShardingMode.TOPOLOGY && p.operatorSharding === OperatorSharding.SHARDING_STRATEGY) {
        warnIdleShards(this, p);
      }
    } else {
      this.prometheuses = [];
      this.statefulSets = standaloneShards(this, p, this.serviceAccount.name, this.monitors, scrapersOfShards.list);
    }
    this.monitored = () => prometheusMonitored(p, output, scrapersOfShards.admit);
  }

  /**
   * What a Prometheus that monitors this one (itself too) scrapes and alerts on.
   *
   * @internal
   */
  public _monitoring(): MonitoredComponent {
    return this.monitored();
  }

  /**
   * Scrapes `target`, a component of this library, and evaluates the zone alert rules that come with it.
   *
   * Zone-local as every other scrape: a shard scrapes its zone's pods of the target. The target's NetworkPolicy
   * admits the shards' pods on exactly its metrics ports. Operator outputs: a PodMonitor and a PrometheusRule in the
   * target's namespace (an agent gets no rules: it evaluates none); standalone: a scrape job and rule files.
   * docs/monitoring.md.
   *
   * @param target a ZoneController, ZonalRedisCluster, ZoneAwareLokiStack or TopologyShardedPrometheus (this one too)
   */
  public monitor(target: IConstruct): void {
    const where = `TopologyShardedPrometheus '${this.node.path}'.monitor`;
    this.monitors.add(where, monitoredOf(where, target));
  }
}

/** The sharding mode, the output and the zone plan the props resolve to. */
interface ResolvedShape {
  readonly mode: ShardingMode;
  readonly output: PrometheusOutput;
  readonly plan: ShardPlan | undefined;
}

/**
 * The props with every default filled in and every duration rendered; a name of ours leaves room for what the
 * longest StatefulSet name adds to it.
 */
function resolvePrometheus(
  scope: Construct, where: string, props: TopologyShardedPrometheusProps, shape: ResolvedShape,
): ResolvedPrometheus {
  const { mode, output } = shape;
  const topology = props.topology;
  const sources = zoneSources(topology);
  const namespace = resolveNamespace(where, scope, props.namespace);
  if (namespace === undefined) {
    throw invalidProp(where, 'namespace', namespace,
      "must be set (or the chart's namespace): the ClusterRoleBinding must name the ServiceAccount's namespace");
  }
  const standalone = output === PrometheusOutput.STANDALONE;
  const scrapeInterval = durationText(where, 'scrapeInterval', props.scrapeInterval ?? Duration.seconds(30));
  const retention = output === PrometheusOutput.AGENT ? undefined
    : durationText(where, 'retention', props.retention ?? Duration.hours(24));
  const resolved: Omit<ResolvedPrometheus, 'name'> = {
    where,
    topology,
    mode,
    operatorSharding: props.operatorSharding ?? OperatorSharding.PER_ZONE,
    namespace,
    metadataNamespace: props.namespace,
    shards: props.shards,
    replicas: props.replicas ?? 1,
    plan: shape.plan?.shards ?? [],
    zoneNames: zoneSlugs(topology.zones),
    sources,
    externalLabelName: mode === ShardingMode.TOPOLOGY ? props.externalLabelName ?? 'zone' : '',
    externalLabels: { ...props.externalLabels },
    nodeSelector: props.nodeSelector,
    image: props.image ?? (standalone ? DEFAULT_PROMETHEUS_IMAGE : undefined),
    scrapeInterval,
    retention,
    remoteWrite: props.remoteWrite ?? [],
    resources: props.resources ?? containerResources('100m', '512Mi', '2Gi'),
    storage: props.storage,
    storageClasses: ZoneStorageClasses.of(where, 'storage', topology, props.storage,
      zonalShards(mode, output, props.operatorSharding)),
    scrapeClasses: props.scrapeClasses ?? [],
    monitorSelector: props.monitorSelector ?? {},
    monitorNamespaces: props.monitorNamespaces,
    networkPolicy: props.networkPolicy,
  };
  const room = MAX_STATEFULSET_NAME - longestStatefulSetName({ ...resolved, name: '' }, output).length;
  return { ...resolved, name: props.name ?? derivedName(scope, room) };
}

/** Whether the discovery reads Nodes: to label targets with their node's zone, or for a scrape class. */
function needsNodeMetadata(p: ResolvedPrometheus): boolean {
  const byZone = p.mode === ShardingMode.TOPOLOGY
    && (p.sources.nodeLabel || p.operatorSharding === OperatorSharding.SHARDING_STRATEGY);
  return byZone || p.scrapeClasses.some((c) => c.attachNodeMetadata);
}

/** Whether every shard (and so its volume) is in one zone. */
function zonalShards(
  mode: ShardingMode,
  output: PrometheusOutput,
  sharding: OperatorSharding | undefined,
): ZonalVolumes {
  if (mode === ShardingMode.ADDRESS) return { ok: false, why: 'needs shards of one zone each: address mode spreads every shard over the zones' };
  if (output !== PrometheusOutput.STANDALONE && sharding === OperatorSharding.SHARDING_STRATEGY) {
    return { ok: false, why: 'needs shards of one zone each: with shardingStrategy one resource (one storage class) spans the zones; use OperatorSharding.PER_ZONE' };
  }
  return { ok: true };
}

/** Options that only make sense with a mode or output. */
function checkOptions(
  where: string,
  props: TopologyShardedPrometheusProps,
  mode: ShardingMode,
  output: PrometheusOutput,
): void {
  if (mode === ShardingMode.ADDRESS) {
    const zoneOnly: [string, unknown][] = [
      ['shardsPerZone', props.shardsPerZone], ['externalLabelName', props.externalLabelName], ['operatorSharding', props.operatorSharding],
    ];
    for (const [prop, value] of zoneOnly) {
      if (value !== undefined) {
        throw invalidProp(where, prop, value, 'only applies to mode ShardingMode.TOPOLOGY (address mode does not shard by zone)');
      }
    }
  }
  if (output !== PrometheusOutput.STANDALONE && props.networkPolicy !== undefined) {
    throw invalidProp(where, 'networkPolicy', props.networkPolicy, 'only applies to output PrometheusOutput.STANDALONE (prometheus-operator owns its pods)');
  }
  if (output === PrometheusOutput.STANDALONE) {
    const operatorOnly: [string, unknown][] = [
      ['operatorSharding', props.operatorSharding], ['scrapeClasses', props.scrapeClasses], ['monitorSelector', props.monitorSelector],
      ['remoteWrite', props.remoteWrite],
    ];
    for (const [prop, value] of operatorOnly) {
      if (value !== undefined) throw invalidProp(where, prop, value, 'only applies to outputs PrometheusOutput.OPERATOR and PrometheusOutput.AGENT');
    }
  }
  if (output === PrometheusOutput.AGENT) {
    if (props.retention !== undefined) {
      throw invalidProp(where, 'retention', props.retention, 'does not apply to output PrometheusOutput.AGENT: an agent keeps samples only until remote write sends them');
    }
    if ((props.remoteWrite ?? []).length === 0) {
      throw invalidProp(where, 'remoteWrite', props.remoteWrite, 'must name at least one endpoint with output PrometheusOutput.AGENT: an agent only forwards what it scrapes');
    }
  }
  const queues = (props.remoteWrite ?? []).map((r) => r.name).filter((n): n is string => n !== undefined);
  const repeated = queues.find((n, i) => queues.indexOf(n) !== i);
  if (repeated !== undefined) throw invalidProp(where, 'remoteWrite[].name', repeated, 'must be unique among the endpoints');
  if (props.operatorSharding === OperatorSharding.SHARDING_STRATEGY && props.shardsPerZone !== undefined) {
    throw invalidProp(where, 'shardsPerZone', props.shardsPerZone,
      "cannot be expressed with prometheus-operator's shardingStrategy (it deals shards evenly): use OperatorSharding.PER_ZONE");
  }
  const replicas = props.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) throw invalidProp(where, 'replicas', replicas, 'must be an integer >= 1');
}

function checkResolved(p: ResolvedPrometheus, output: PrometheusOutput): void {
  const { where } = p;
  if (p.externalLabelName !== '') checkExternalLabelName(where, 'externalLabelName', p.externalLabelName, output);
  for (const name of Object.keys(p.externalLabels)) {
    checkExternalLabelName(where, `externalLabels key ${JSON.stringify(name)}`, name, output);
    if (name === p.externalLabelName) {
      throw invalidProp(where, 'externalLabels', p.externalLabels, `sets ${JSON.stringify(name)}, which externalLabelName gives each shard's zone`);
    }
  }
  const longest = longestStatefulSetName(p, output);
  if (longest.length > MAX_STATEFULSET_NAME) {
    throw invalidProp(where, 'name', p.name,
      `is too long: it makes the StatefulSet name ${JSON.stringify(longest)} (${longest.length} characters), over the ` +
      `${MAX_STATEFULSET_NAME} that leave room for the pods' controller-revision-hash label; set a shorter name`);
  }
  checkScrapeClasses(p);
  if (p.operatorSharding === OperatorSharding.SHARDING_STRATEGY && p.mode === ShardingMode.TOPOLOGY) {
    if (p.topology.topologyKey !== WELL_KNOWN_ZONE_KEY) {
      throw invalidProp(where, 'operatorSharding', p.operatorSharding,
        `needs the topology key ${WELL_KNOWN_ZONE_KEY} (prometheus-operator's shardingStrategy reads only that one), not ${JSON.stringify(p.topology.topologyKey)}: use OperatorSharding.PER_ZONE`);
    }
  }
}

function checkExternalLabelName(where: string, prop: string, name: string, output: PrometheusOutput): void {
  if (!isPrometheusLabelName(name) || name.startsWith('__')) {
    throw invalidProp(where, prop, name, 'is not a valid label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ (reserved)');
  }
  const reserved = output === PrometheusOutput.STANDALONE ? [REPLICA_EXTERNAL_LABEL] : OPERATOR_EXTERNAL_LABELS;
  if (reserved.includes(name)) {
    throw invalidProp(where, prop, name, `is set on every Prometheus already (${reserved.join(', ')}); pick another name`);
  }
}

function checkScrapeClasses(p: ResolvedPrometheus): void {
  const names = new Set<string>();
  for (const c of p.scrapeClasses) {
    if (c.name === '' || names.has(c.name) || c.name === ZONE_SCRAPE_CLASS) {
      throw invalidProp(p.where, 'scrapeClasses[].name', c.name,
        `must be non-empty and unique${c.name === ZONE_SCRAPE_CLASS ? `; ${ZONE_SCRAPE_CLASS} is the construct's own class` : ''}`);
    }
    names.add(c.name);
    if (c.attachNodeMetadata === false && p.mode === ShardingMode.TOPOLOGY && p.sources.nodeLabel) {
      throw invalidProp(p.where, `scrapeClasses[${JSON.stringify(c.name)}].attachNodeMetadata`, false,
        "cannot be false: the zone is read from the node's labels (Kubernetes < 1.35 or a custom topology key)");
    }
  }
  const defaults = p.scrapeClasses.filter((c) => c.isDefault).map((c) => c.name);
  if (defaults.length > 1) {
    throw invalidProp(p.where, 'scrapeClasses', defaults, 'has more than one default class (prometheus-operator allows one)');
  }
}

function longestStatefulSetName(p: ResolvedPrometheus, output: PrometheusOutput): string {
  const lastShard = Math.max(p.shards - 1, 0);
  if (output === PrometheusOutput.STANDALONE) {
    const ids = p.mode === ShardingMode.ADDRESS
      ? [`${lastShard}`]
      : p.plan.map((s) => `${p.zoneNames[s.zoneIndex]}-${s.inZoneIndex}`);
    return ids.map((id) => `${p.name}-${id}`).reduce((a, b) => (b.length > a.length ? b : a));
  }
  // prometheus-operator names its StatefulSets prometheus-<name> and prometheus-<name>-shard-<n>; an agent's,
  // prom-agent-<name>[-shard-<n>]: a prefix of the same length.
  if (p.mode === ShardingMode.TOPOLOGY && p.operatorSharding === OperatorSharding.PER_ZONE) {
    return p.topology.zones.map((zone, z) => {
      const zoneShards = p.plan.filter((s) => s.zone === zone).length;
      return `prometheus-${p.name}-${p.zoneNames[z]}${zoneShards > 1 ? `-shard-${zoneShards - 1}` : ''}`;
    }).reduce((a, b) => (b.length > a.length ? b : a));
  }
  return `prometheus-${p.name}${lastShard > 0 ? `-shard-${lastShard}` : ''}`;
}

/** prometheus-operator's shardingStrategy leaves shards idle when shards is not a multiple of the zones. */
function warnIdleShards(scope: Construct, p: ResolvedPrometheus): void {
  const shards = operatorTopologyShards(p.topology.zones, p.shards);
  const idle = shards.filter((s) => s.idle);
  if (idle.length === 0) return;
  const zones = p.topology.zones.length;
  const lower = Math.floor(p.shards / zones) * zones;
  addWarning(scope,
    `shards=${p.shards} over ${zones} zones with prometheus-operator's shardingStrategy: it gives each zone ` +
    `floor(${p.shards}/${zones})=${shards[0].modulus} hash bucket(s), so shard(s) ` +
    `${idle.map((s) => `${s.index} (zone ${s.zone}, bucket ${s.inZoneIndex})`).join(', ')} scrape no target ` +
    `(prometheus-operator issue #8664). Use OperatorSharding.PER_ZONE (every shard scrapes), or shards=${lower} or ${lower + zones}.`);
}

