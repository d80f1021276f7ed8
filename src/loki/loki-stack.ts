import { ApiObject, Size } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { QUERY_INGESTERS_WITHIN } from './config';
import { directLoki, WORKERS_SERVICE_SUFFIX } from './direct';
import { LOKI_DIRECT_PROPS, LokiDirectOptions } from './direct-options';
import { recoverIngesters } from './lost-zone-recovery';
import { migrationNotice, migrationStep, MigrationStep } from './migration';
import { migrationRollouts } from './migration-rollouts';
import { lokiMonitored } from './monitored-loki';
import { OperatorLokiStack, operatorLokiStack } from './operator';
import { LOKI_OPERATOR_PROPS, LokiOperatorOptions } from './operator-options';
import { LokiComponent, LokiOutput, LokiStackSize, OPERATOR_INGESTERS, ResolvedLoki } from './options';
import { fewestSurvivingIngesters, writeSurvival } from './replication';
import { IngesterRollout, ingesterRollout } from './rollout';
import { containerResources } from '../kubernetes/container-resources';
import { MAX_STATEFULSET_NAME, NAME_MAX } from '../kubernetes/kubernetes-names';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { derivedName, resolveNamespace } from '../kubernetes/object-names';
import { sizeQuantity } from '../kubernetes/quantity';
import { zoneSlugs } from '../kubernetes/zone-slug';
import { MonitoredComponent, ScraperPeers } from '../monitoring/monitored';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';
import { addWarning } from '../shared/warnings';
import { fewestZonesWithPods } from '../topology/spread';
import { majorityOf } from '../topology/survival';
import { ZoneStorageClasses } from '../topology/zonal-storage';
import { ZoneTopology } from '../topology/zone-topology';
import { checkZoneSource, ZoneSource, ZoneSourceKind } from '../zone-source/zone-source';

/** The Loki image of the direct output (the release the integration tier proves). */
export const DEFAULT_LOKI_IMAGE = 'docker.io/grafana/loki:3.7.8';
/** The gateway's image (nginx running as an unprivileged user). */
export const DEFAULT_GATEWAY_IMAGE = 'docker.io/nginxinc/nginx-unprivileged:1.29-alpine';

/**
 * Props of `ZoneAwareLokiStack`: what both outputs share, and the options of the one to synthesize (set
 * exactly one of `operator` and `direct`).
 */
export interface ZoneAwareLokiStackProps {
  /** The zones to replicate across. Each stream gets one replica in each of `replicationFactor` zones. */
  readonly topology: ZoneTopology;

  /**
   * Replicas of every log stream, each in a different zone. At most the number of zones; writes need
   * floor(RF/2)+1 of them, so 3 over 3 zones survives a zone outage.
   *
   * @default 3
   */
  readonly replicationFactor?: number;

  /**
   * The largest allowed difference in pods of one component between two zones (every zone spread).
   *
   * @default 1
   */
  readonly maxSkew?: number;

  /**
   * The base of every object name.
   *
   * @default - derived from the construct path
   */
  readonly name?: string;

  /**
   * The namespace of every object.
   *
   * @default - the chart's namespace
   */
  readonly namespace?: string;

  /**
   * Synthesize a `LokiStack` (loki.grafana.com/v1) for the Loki operator, with these options.
   *
   * @default - not the operator output (then `direct` must be set)
   */
  readonly operator?: LokiOperatorOptions;

  /**
   * Synthesize Loki itself in microservices mode as plain Kubernetes objects, with these options.
   *
   * @default - not the direct output (then `operator` must be set)
   */
  readonly direct?: LokiDirectOptions;
}

const PROPS: PropSpec<ZoneAwareLokiStackProps> = {
  topology: Props.instanceOf(ZoneTopology),
  replicationFactor: Props.optional(Props.integer(1)),
  maxSkew: Props.optional(Props.integer(1)),
  name: Props.optional(KubeProps.serviceName()),
  namespace: Props.optional(KubeProps.dnsLabel()),
  operator: Props.optional(Props.struct(LOKI_OPERATOR_PROPS, 'LokiOperatorOptions')),
  direct: Props.optional(Props.struct(LOKI_DIRECT_PROPS, 'LokiDirectOptions')),
};

/**
 * Loki that replicates every log stream across zones and survives losing a zone: either a `LokiStack`
 * for the Loki operator with `spec.replication`, or Loki in microservices mode as plain Kubernetes
 * objects with zone awareness, zone spread and a zone source that tells each ingester its zone.
 *
 * Checks what upstream never does: a replication factor above the number of zones (which Loki silently
 * shrinks while keeping the quorum), a single zone, and 2 zones with replication factor 2 (a warning).
 */
export class ZoneAwareLokiStack extends Construct {
  /** The LokiStack (operator output). */
  public readonly lokiStack?: ApiObject;
  /** The ingester StatefulSets (direct output): one per zone with `ZoneSource.perZoneStatefulSets()`. */
  public readonly ingesters: k8s.KubeStatefulSet[];
  /** The Loki configuration (direct output). */
  public readonly configMap?: k8s.KubeConfigMap;

  /** What a Prometheus that monitors the stack scrapes and alerts on (direct output). */
  private readonly monitored?: () => MonitoredComponent;

  constructor(scope: Construct, id: string, props: ZoneAwareLokiStackProps) {
    super(scope, id);
    const where = `ZoneAwareLokiStack '${this.node.path}'`;
    checkProps(where, props, PROPS, 'ZoneAwareLokiStackProps');
    const output = outputOf(where, props);
    const common: Common = {
      where,
      topology: props.topology,
      replicationFactor: props.replicationFactor ?? 3,
      maxSkew: props.maxSkew ?? 1,
    };
    if (output === LokiOutput.OPERATOR) {
      const name = baseName(this, common, props.name, output, ZoneSource.perZoneStatefulSets());
      const metadataNamespace = resolveNamespace(where, this, props.namespace);
      const operator = resolveOperator(props.operator!, common);
      this.lokiStack = operatorLokiStack(this, { ...common, name, metadataNamespace }, operator);
      this.ingesters = [];
      return;
    }
    const direct = props.direct!;
    const p = resolveDirect(this, props, direct, common);
    if (p.s3 === undefined) {
      addWarning(this, 'no direct.objectStorage: chunks and index go to each pod\'s own filesystem, which the other pods cannot read; only for tests');
    }
    const scrapers = new ScraperPeers();
    const rendered = directLoki(this, p, scrapers.list);
    this.monitored = () => lokiMonitored(p, scrapers);
    if (direct.lostZoneRecovery === true) recoverIngesters(where, p, rendered.ingesters, direct.controller);
    this.ingesters = rendered.ingesters;
    this.configMap = rendered.configMap;
    const rollout = {
      mode: direct.ingesterRollout ?? IngesterRollout.AUTO,
      controller: direct.controller,
      recovers: direct.lostZoneRecovery,
    };
    const ingesters = ingesterRollout(this, p, rendered.ingesters, rollout);
    if (p.migrationByController) {
      migrationRollouts(this, p, rendered.deployments, ingesters!, direct.controller!, QUERY_INGESTERS_WITHIN);
    }
    if (p.migration !== undefined) {
      addWarning(this, migrationNotice(p.migration, QUERY_INGESTERS_WITHIN, p.migrationByController === true));
    }
  }

  /**
   * What a Prometheus that monitors the stack scrapes and alerts on (`TopologyShardedPrometheus.monitor`).
   *
   * @internal
   */
  public _monitoring(): MonitoredComponent {
    if (!this.monitored) {
      throw invalidProp(`ZoneAwareLokiStack '${this.node.path}'`, 'operator', 'set',
        'is the Loki operator\'s output: the operator scrapes its own components (its ServiceMonitors feature gate); ' +
        'monitor() takes the direct output');
    }
    return this.monitored();
  }
}

/** What both outputs share, resolved. */
type Common = Pick<ResolvedLoki, 'where' | 'topology' | 'replicationFactor' | 'maxSkew'>;

/** The direct output's settings, checked and defaulted. */
function resolveDirect(
  scope: Construct,
  props: ZoneAwareLokiStackProps,
  direct: LokiDirectOptions,
  common: Common,
): ResolvedLoki {
  const { where, topology } = common;
  const zoneSource = checkZoneSource(where, direct.zoneSource ?? ZoneSource.perZoneStatefulSets(), topology);
  const ingesterReplicasPerZone = direct.ingesterReplicasPerZone ?? 1;
  checkDirectIngesters(where, topology, zoneSource, common.replicationFactor, common.maxSkew, ingesterReplicasPerZone);
  if (direct.gatewayImage !== undefined && !direct.gateway) {
    throw invalidProp(where, 'direct.gatewayImage', direct.gatewayImage, 'only applies with direct.gateway: true');
  }
  const ingesterStorage = direct.ingesterStorage ?? { size: Size.gibibytes(10) };
  const migration = direct.zoneAwarenessMigration
    && migrationStep(where, direct.zoneAwarenessMigration, zoneSource, QUERY_INGESTERS_WITHIN, Date.now());
  return {
    ...common,
    name: baseName(scope, common, props.name, LokiOutput.DIRECT, zoneSource),
    metadataNamespace: resolveNamespace(where, scope, props.namespace),
    zoneSource,
    ingesterReplicasPerZone,
    replicas: direct.replicas ?? topology.zoneCount,
    image: direct.image ?? DEFAULT_LOKI_IMAGE,
    gatewayImage: direct.gatewayImage ?? DEFAULT_GATEWAY_IMAGE,
    s3: direct.objectStorage,
    storageClasses: ZoneStorageClasses.of(where, 'direct.ingesterStorage', topology, ingesterStorage,
      zoneSource.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS ? { ok: true }
        : { ok: false, why: 'needs ingesters of one zone each: ZoneSource.perZoneStatefulSets()' }),
    ingesterStorageSize: sizeQuantity(ingesterStorage.size),
    ruler: direct.ruler ?? false,
    gateway: direct.gateway ?? false,
    resources: direct.resources ?? containerResources('100m', '256Mi', '512Mi'),
    ingesterResources: direct.ingesterResources ?? containerResources('500m', '1Gi', '2Gi'),
    networkPolicy: direct.networkPolicy,
    migration,
    migrationByController: migration === MigrationStep.WRITE_PATH && direct.controller !== undefined,
  };
}

/** The output that `operator` or `direct` chooses: exactly one of them must be set. */
function outputOf(where: string, props: ZoneAwareLokiStackProps): LokiOutput {
  if (props.operator !== undefined && props.direct !== undefined) {
    throw invalidProp(where, 'direct', props.direct, 'is set beside operator: set one of them (a LokiStack for the Loki operator, or Loki as plain objects)');
  }
  if (props.operator === undefined && props.direct === undefined) {
    throw invalidProp(where, 'operator', undefined,
      'must be set, or direct must: operator: { objectStorage, storageClassName } for a LokiStack, direct: { ... } for Loki as plain objects');
  }
  return props.operator ? LokiOutput.OPERATOR : LokiOutput.DIRECT;
}

/** The operator output's settings, checked: the ingesters and the extra topology keys. */
function resolveOperator(
  o: LokiOperatorOptions,
  { where, topology, replicationFactor, maxSkew }: Common,
): OperatorLokiStack {
  const size = o.size ?? LokiStackSize.ONE_X_SMALL;
  const keys = o.extraTopologyKeys ?? [];
  keys.forEach((key, i) => {
    if (key === topology.topologyKey || keys.indexOf(key) !== i) {
      throw invalidProp(where, `operator.extraTopologyKeys[${i}]`, key, 'repeats a topology key (the zone key is always spread over)');
    }
  });
  return {
    size,
    ingesterReplicas: checkOperatorIngesters(where, topology, o.ingesterReplicas, size, replicationFactor, maxSkew),
    storage: o.objectStorage,
    storageClassName: o.storageClassName,
    extraTopologyKeys: keys,
  };
}

/**
 * The base of every object name: the given one, or one derived from the construct path, that leaves room for what the
 * names append.
 */
function baseName(
  scope: Construct,
  { where, topology }: Common,
  given: string | undefined,
  output: LokiOutput,
  zoneSource: ZoneSource,
): string {
  const room = nameRoom(output, zoneSource, zoneSlugs(topology.zones));
  const name = given ?? derivedName(scope, room);
  if (name.length > room) {
    throw invalidProp(where, 'name', name,
      `is too long: at most ${room} characters leave room for what the object names append (component${output === LokiOutput.DIRECT ? ' and zone' : ''})`);
  }
  return name;
}

/**
 * The ingester count of the operator output: the given one, or the size's when it survives a zone loss, else
 * the fewest that do; refused (naming size, ingesters, zones and factor) when writes would stop with a zone down.
 */
function checkOperatorIngesters(
  where: string,
  topology: ZoneTopology,
  given: number | undefined,
  size: LokiStackSize,
  replicationFactor: number,
  maxSkew: number,
): number {
  const zones = topology.zones;
  const sized = OPERATOR_INGESTERS[size];
  const ingesters = given ?? fewestSurvivingIngesters(replicationFactor, zones, maxSkew, sized) ?? sized;
  const covered = fewestZonesWithPods(ingesters, zones.length, maxSkew);
  const verdict = writeSurvival(replicationFactor, zones, covered);
  if (!verdict.survives) {
    const layout = given === undefined
      ? `size ${size} (${ingesters} ingester${ingesters === 1 ? '' : 's'})` : `${ingesters} ingester${ingesters === 1 ? '' : 's'} (size ${size})`;
    const fewest = fewestSurvivingIngesters(replicationFactor, zones, maxSkew, 1);
    throw invalidProp(where, given === undefined ? 'replicationFactor' : 'operator.ingesterReplicas',
      given ?? replicationFactor,
      `with ${layout}, replicationFactor ${replicationFactor} and maxSkew ${maxSkew} over ${zones.length} zone(s) [${zones.join(', ')}] ` +
      `does not keep writes going with a zone down: ${spreadText(ingesters, covered, zones.length)}; ${verdict.reason}. ` +
      (fewest === undefined ? noLayoutFix(replicationFactor, zones.length) : `Set operator.ingesterReplicas to ${fewest} or more`));
  }
  return ingesters;
}

/** The direct output: per-zone StatefulSets cover every zone; one spread StatefulSet covers what its skew allows. */
function checkDirectIngesters(
  where: string,
  topology: ZoneTopology,
  source: ZoneSource,
  replicationFactor: number,
  maxSkew: number,
  perZone: number,
): number {
  const zones = topology.zones;
  const ingesters = perZone * zones.length;
  const covered = source.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS
    ? zones.length
    : fewestZonesWithPods(ingesters, zones.length, maxSkew);
  const verdict = writeSurvival(replicationFactor, zones, covered);
  if (!verdict.survives) {
    throw invalidProp(where, 'replicationFactor', replicationFactor,
      `with ${perZone} ingester(s) per zone and maxSkew ${maxSkew} over ${zones.length} zone(s) [${zones.join(', ')}] does not keep writes ` +
      `going with a zone down: ${spreadText(ingesters, covered, zones.length)}; ${verdict.reason}. ` +
      (covered < zones.length && replicationFactor >= 3 && replicationFactor <= zones.length
        ? 'Use maxSkew 1, more ingesters per zone, or ZoneSource.perZoneStatefulSets()' : noLayoutFix(replicationFactor, zones.length)));
  }
  return ingesters;
}

function spreadText(ingesters: number, covered: number, zones: number): string {
  return covered === zones ? 'every zone holds an ingester, so a stream has one replica per zone up to the factor'
    : `${ingesters} ingester(s) may occupy only ${covered} of the ${zones} zones, so a stream may have only ${covered} replica(s)`;
}

/** What to change when no number of ingesters helps: the factor or the zones. */
function noLayoutFix(replicationFactor: number, zones: number): string {
  if (zones < 3) return `Loki needs 3 or more zones to survive losing one (the topology has ${zones}); use replicationFactor 3 over 3 zones`;
  if (replicationFactor > zones) {
    return `Loki silently shrinks each stream's replicas to the ${zones} zones while the write quorum stays ${majorityOf(replicationFactor)}: use replicationFactor <= ${zones}`;
  }
  return `replicationFactor ${replicationFactor} leaves no replica to spare (quorum ${majorityOf(replicationFactor)}): use replicationFactor 3 or more`;
}

/** The longest base name the output's object names leave room for. */
function nameRoom(output: LokiOutput, source: ZoneSource, slugs: string[]): number {
  if (output === LokiOutput.OPERATOR) {
    // The operator names StatefulSets <name>-<component> (at most 52 characters), the longest component being
    // index-gateway.
    return MAX_STATEFULSET_NAME - `-${LokiComponent.INDEX_GATEWAY}`.length;
  }
  const longestSlug = source.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS
    ? Math.max(...slugs.map((s) => s.length + 1))
    : 0;
  return Math.min(
    MAX_STATEFULSET_NAME - `-${LokiComponent.INGESTER}`.length - longestSlug,
    NAME_MAX - `-${LokiComponent.QUERY_FRONTEND}${WORKERS_SERVICE_SUFFIX}`.length, // the longest Service name
  );
}
