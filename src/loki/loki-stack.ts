import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { directLoki } from './direct';
import { operatorLokiStack } from './operator';
import {
  LokiComponent, LokiObjectStorageType, LokiOperatorStorage, LokiOutput, LokiS3Storage, LokiStackSize, OPERATOR_INGESTERS, ResolvedLoki,
} from './options';
import { fewestSurvivingIngesters, fewestZonesWithIngesters, quorum, writeSurvival } from './replication';
import { IngesterRollout, ingesterRollout } from './rollout';
import { IZoneController } from '../controller/controller-reference';
import { CONTROLLER_PROP } from '../controller/requirements';
import { checkZoneSource, ZoneSource, ZoneSourceKind } from '../controller/zone-source';
import { containerResources } from '../shared/container-resources';
import { invalidProp } from '../shared/errors';
import { MAX_STATEFULSET_NAME, NAME_MAX } from '../shared/kubernetes-names';
import { KubeProps } from '../shared/kubernetes-props';
import { NETWORK_POLICY_PROPS, NetworkPolicyOptions } from '../shared/network-policy';
import { derivedName, resolveNamespace } from '../shared/object-names';
import { checkProps, Props, PropSpec } from '../shared/props';
import { addWarning } from '../shared/warnings';
import { zoneSlugs } from '../shared/zone-slug';
import { parseKubernetesVersion } from '../topology/kubernetes-version';
import { STORAGE_CLASS_PER_ZONE_PROP, ZoneStorageClasses } from '../topology/storage-classes';
import { ZoneTopology } from '../topology/zone-topology';

/** The Loki image of the direct output (the release the integration tier proves). */
export const DEFAULT_LOKI_IMAGE = 'docker.io/grafana/loki:3.7.8';
/** The gateway's image (nginx running as an unprivileged user). */
export const DEFAULT_GATEWAY_IMAGE = 'docker.io/nginxinc/nginx-unprivileged:1.29-alpine';

/**
 * Props of `ZoneAwareLokiStack`.
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
   * What to synthesize: a `LokiStack` for the Loki operator, or Loki itself as Kubernetes objects.
   *
   * @default LokiOutput.OPERATOR
   */
  readonly output?: LokiOutput;

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
   * The operator's t-shirt size (operator output only).
   *
   * @default LokiStackSize.ONE_X_SMALL
   */
  readonly size?: LokiStackSize;

  /**
   * The ingesters of the LokiStack (operator output), written into `spec.template.ingester.replicas`. The
   * construct checks that the write quorum holds with any one zone down for the worst placement the zone
   * spread allows, and refuses a count that cannot.
   *
   * @default - the size's ingester count when it keeps writes going with a zone down, else the fewest that do
   * (3 for replicationFactor 3 over 3 zones with 1x.small, which runs 2)
   */
  readonly ingesterReplicas?: number;

  /**
   * The object storage Secret the operator reads (operator output; required there).
   *
   * @default - none (required with LokiOutput.OPERATOR)
   */
  readonly storage?: LokiOperatorStorage;

  /**
   * The storage class of the volumes (required with the operator output; the ingesters' volume claims
   * with the direct output). Use one with volumeBindingMode WaitForFirstConsumer, so volumes are made
   * in their pod's zone.
   *
   * @default - none with the operator output (required); the cluster's default class with the direct output
   */
  readonly storageClassName?: string;

  /**
   * A storage class per zone (zone -> class name) for the volumes of that zone's ingesters (direct output
   * with per-zone StatefulSets); zones it does not name use `storageClassName`.
   *
   * @default - `storageClassName` in every zone
   */
  readonly storageClassNamePerZone?: { [zone: string]: string };

  /**
   * Further node label keys to spread over, besides the topology's zone key (operator output: one
   * `spec.replication.zones` entry each; the operator joins their values with `_` into the zone).
   *
   * @default - none
   */
  readonly extraTopologyKeys?: string[];

  /**
   * How each pod learns its zone (direct output only).
   *
   * @default ZoneSource.perZoneStatefulSets()
   */
  readonly zoneSource?: ZoneSource;

  /**
   * The cluster's Kubernetes version, e.g. '1.35'; checked against the zone source's minimum
   * (`ZoneSource.podTopologyLabels()` needs 1.35).
   *
   * @default - unknown: not checked
   */
  readonly kubernetesVersion?: string;

  /**
   * Ingesters in each zone (direct output).
   *
   * @default 1
   */
  readonly ingesterReplicasPerZone?: number;

  /**
   * Replicas of each stateless component (distributor, querier, query-frontend, index-gateway, ruler,
   * gateway; direct output). The compactor always has one.
   *
   * @default - the number of zones
   */
  readonly replicas?: number;

  /**
   * S3-compatible object storage (direct output).
   *
   * @default - the filesystem of each pod: only for tests, since pods do not share it
   */
  readonly s3?: LokiS3Storage;

  /**
   * Size of each ingester's volume claim (WAL), a Kubernetes quantity (direct output).
   *
   * @default '10Gi'
   */
  readonly ingesterStorageSize?: string;

  /**
   * Run the ruler (direct output).
   *
   * @default false
   */
  readonly ruler?: boolean;

  /**
   * Run an nginx gateway in front: pushes to the distributors, queries to the query-frontends (direct output).
   *
   * @default false
   */
  readonly gateway?: boolean;

  /**
   * The Loki image (direct output).
   *
   * @default 'docker.io/grafana/loki:3.7.8'
   */
  readonly image?: string;

  /**
   * The gateway image (direct output with `gateway`).
   *
   * @default 'docker.io/nginxinc/nginx-unprivileged:1.29-alpine'
   */
  readonly gatewayImage?: string;

  /**
   * Resources of every component but the ingesters (direct output).
   *
   * @default - requests cpu 100m, memory 256Mi; limits memory 512Mi
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * Resources of the ingesters (direct output).
   *
   * @default - requests cpu 500m, memory 1Gi; limits memory 2Gi
   */
  readonly ingesterResources?: k8s.ResourceRequirements;

  /**
   * NetworkPolicies (direct output): the components accept HTTP, gRPC and memberlist from one another,
   * HTTP and gRPC (pushes, queries, /metrics) from `clients` and the gateway; the gateway accepts HTTP
   * from `clients`. With the operator output the Loki operator owns the pods and their policies.
   *
   * @default - policies that admit clients from the stack's own namespace
   */
  readonly networkPolicy?: NetworkPolicyOptions;

  /**
   * How the ingesters take a new revision (direct output): zone by zone by the runtime controller (a
   * ZoneAwareUpdate over the ingester StatefulSets, waiting for each ingester's `/ready`), or a partitioned
   * RollingUpdate you step through zone by zone. See docs/loki.md, "Rolling out a change".
   *
   * @default IngesterRollout.AUTO: zone-aware when `controller` is set, else partitioned (with a synth warning)
   */
  readonly ingesterRollout?: IngesterRollout;

  /**
   * The runtime controller that rolls the ingesters zone by zone (direct output): a `ZoneController` of this
   * app with `zoneAwareUpdate`, or `ZoneController.fromInstalled(...)` for one another app installs (serving
   * this namespace). The ingesters admit its pods to their HTTP port (it asks their `/ready`).
   *
   * @default - none: the ingesters roll by a partitioned RollingUpdate (see `ingesterRollout`)
   */
  readonly controller?: IZoneController;
}

const S3_PROPS: PropSpec<LokiS3Storage> = {
  bucket: KubeProps.dnsSubdomain(), // S3 bucket names: 3 to 63 lower-case letters, digits, '.' and '-'
  endpoint: Props.optional(Props.string((e) => (/^[^\s/]+(:\d+)?$/.test(e) ? undefined : "must be host[:port] without a scheme or path, e.g. 'minio:9000'"), 'host[:port]')),
  region: Props.optional(Props.nonEmptyString()),
  credentialsSecretName: Props.optional(KubeProps.dnsSubdomain()),
  insecure: Props.optional(Props.boolean()),
  forcePathStyle: Props.optional(Props.boolean()),
};

const PROPS: PropSpec<ZoneAwareLokiStackProps> = {
  topology: Props.instanceOf(ZoneTopology),
  replicationFactor: Props.optional(Props.integer(1)),
  output: Props.optional(Props.enumOf(LokiOutput, 'LokiOutput')),
  maxSkew: Props.optional(Props.integer(1)),
  name: Props.optional(KubeProps.serviceName()),
  namespace: Props.optional(KubeProps.dnsLabel()),
  size: Props.optional(Props.enumOf(LokiStackSize, 'LokiStackSize')),
  ingesterReplicas: Props.optional(Props.integer(1)),
  storage: Props.optional(Props.struct<LokiOperatorStorage>({
    secretName: KubeProps.dnsSubdomain(),
    type: Props.enumOf(LokiObjectStorageType, 'LokiObjectStorageType'),
  }, 'LokiOperatorStorage')),
  storageClassName: Props.optional(KubeProps.dnsSubdomain()),
  storageClassNamePerZone: STORAGE_CLASS_PER_ZONE_PROP,
  extraTopologyKeys: Props.optional(Props.arrayOf(KubeProps.labelKey())),
  zoneSource: Props.optional(Props.instanceOf(ZoneSource)),
  kubernetesVersion: Props.optional(Props.string()),
  ingesterReplicasPerZone: Props.optional(Props.integer(1, undefined, 'a zone without ingesters cannot hold its replica of each stream')),
  replicas: Props.optional(Props.integer(1)),
  s3: Props.optional(Props.struct(S3_PROPS, 'LokiS3Storage')),
  ingesterStorageSize: Props.optional(KubeProps.bytes()),
  ruler: Props.optional(Props.boolean()),
  gateway: Props.optional(Props.boolean()),
  image: Props.optional(KubeProps.image()),
  gatewayImage: Props.optional(KubeProps.image()),
  resources: Props.optional(KubeProps.resources()),
  ingesterResources: Props.optional(KubeProps.resources()),
  networkPolicy: Props.optional(Props.struct(NETWORK_POLICY_PROPS, 'NetworkPolicyOptions')),
  ingesterRollout: Props.optional(Props.enumOf(IngesterRollout, 'IngesterRollout')),
  controller: Props.optional(CONTROLLER_PROP),
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

  constructor(scope: Construct, id: string, props: ZoneAwareLokiStackProps) {
    super(scope, id);
    const where = `ZoneAwareLokiStack '${this.node.path}'`;
    checkProps(where, props, PROPS, 'ZoneAwareLokiStackProps');
    const output = props.output ?? LokiOutput.OPERATOR;
    const topology = props.topology;
    checkOptions(where, props, output);

    const release = props.kubernetesVersion === undefined
      ? undefined : parseKubernetesVersion(where, 'kubernetesVersion', props.kubernetesVersion);
    const zoneSource = output === LokiOutput.DIRECT
      ? checkZoneSource(where, props.zoneSource ?? ZoneSource.perZoneStatefulSets(), topology, release)
      : ZoneSource.perZoneStatefulSets(); // unused by the operator output
    const size = props.size ?? LokiStackSize.ONE_X_SMALL;
    const maxSkew = props.maxSkew ?? 1;
    const replicationFactor = props.replicationFactor ?? 3;
    const ingesterReplicasPerZone = props.ingesterReplicasPerZone ?? 1;
    const ingesterReplicas = output === LokiOutput.OPERATOR
      ? checkOperatorIngesters(where, props, size, replicationFactor, maxSkew)
      : checkDirectIngesters(where, props, zoneSource, replicationFactor, maxSkew, ingesterReplicasPerZone);

    const slugs = zoneSlugs(topology.zones);
    const room = nameRoom(output, zoneSource, slugs);
    const p: ResolvedLoki = {
      where,
      topology,
      name: props.name ?? derivedName(this, room),
      metadataNamespace: resolveNamespace(where, this, props.namespace),
      replicationFactor,
      maxSkew,
      release,
      zoneSource,
      ingesterReplicasPerZone,
      replicas: props.replicas ?? topology.zoneCount,
      image: props.image ?? DEFAULT_LOKI_IMAGE,
      gatewayImage: props.gatewayImage ?? DEFAULT_GATEWAY_IMAGE,
      s3: props.s3,
      storageClasses: ZoneStorageClasses.of(where, 'storageClassNamePerZone', topology, props.storageClassName, props.storageClassNamePerZone,
        output === LokiOutput.OPERATOR ? { ok: false, why: 'only applies to output LokiOutput.DIRECT (a LokiStack has one storageClassName)' }
          : zoneSource.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS ? { ok: true }
            : { ok: false, why: 'needs ingesters of one zone each: ZoneSource.perZoneStatefulSets()' }),
      ingesterStorageSize: props.ingesterStorageSize ?? '10Gi',
      ruler: props.ruler ?? false,
      gateway: props.gateway ?? false,
      resources: props.resources ?? containerResources('100m', '256Mi', '512Mi'),
      ingesterResources: props.ingesterResources ?? containerResources('500m', '1Gi', '2Gi'),
      networkPolicy: props.networkPolicy,
    };
    if (p.name.length > room) {
      throw invalidProp(where, 'name', p.name,
        `is too long: at most ${room} characters leave room for what the object names append (component${output === LokiOutput.DIRECT ? ' and zone' : ''})`);
    }

    if (output === LokiOutput.OPERATOR) {
      this.lokiStack = operatorLokiStack(this, p, {
        size,
        ingesterReplicas,
        storage: props.storage!,
        storageClassName: props.storageClassName!,
        extraTopologyKeys: props.extraTopologyKeys ?? [],
      });
      this.ingesters = [];
    } else {
      if (p.s3 === undefined) {
        addWarning(this, 'no s3 storage: chunks and index go to each pod\'s own filesystem, which the other pods cannot read; only for tests');
      }
      const direct = directLoki(this, p);
      this.ingesters = direct.ingesters;
      this.configMap = direct.configMap;
      ingesterRollout(this, p, direct.ingesters, {
        mode: props.ingesterRollout ?? IngesterRollout.AUTO,
        controller: props.controller,
      });
    }
  }
}

/**
 * The ingester count of the operator output: the given one, or the size's when it survives a zone loss, else
 * the fewest that do; refused (naming size, ingesters, zones and factor) when writes would stop with a zone down.
 */
function checkOperatorIngesters(
  where: string, props: ZoneAwareLokiStackProps, size: LokiStackSize, replicationFactor: number, maxSkew: number,
): number {
  const zones = props.topology.zones;
  const sized = OPERATOR_INGESTERS[size];
  const ingesters = props.ingesterReplicas ?? fewestSurvivingIngesters(replicationFactor, zones, maxSkew, sized) ?? sized;
  const covered = fewestZonesWithIngesters(ingesters, zones.length, maxSkew);
  const verdict = writeSurvival(replicationFactor, zones, covered);
  if (!verdict.survives) {
    const layout = props.ingesterReplicas === undefined
      ? `size ${size} (${ingesters} ingester${ingesters === 1 ? '' : 's'})` : `${ingesters} ingester${ingesters === 1 ? '' : 's'} (size ${size})`;
    const fewest = fewestSurvivingIngesters(replicationFactor, zones, maxSkew, 1);
    throw invalidProp(where, props.ingesterReplicas === undefined ? 'replicationFactor' : 'ingesterReplicas',
      props.ingesterReplicas ?? replicationFactor,
      `with ${layout}, replicationFactor ${replicationFactor} and maxSkew ${maxSkew} over ${zones.length} zone(s) [${zones.join(', ')}] ` +
      `does not keep writes going with a zone down: ${spreadText(ingesters, covered, zones.length)}; ${verdict.reason}. ` +
      (fewest === undefined ? noLayoutFix(replicationFactor, zones.length) : `Set ingesterReplicas to ${fewest} or more`));
  }
  return ingesters;
}

/** The direct output: per-zone StatefulSets cover every zone; one spread StatefulSet covers what its skew allows. */
function checkDirectIngesters(
  where: string, props: ZoneAwareLokiStackProps, source: ZoneSource, replicationFactor: number, maxSkew: number, perZone: number,
): number {
  const zones = props.topology.zones;
  const ingesters = perZone * zones.length;
  const covered = source.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS ? zones.length : fewestZonesWithIngesters(ingesters, zones.length, maxSkew);
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
    return `Loki silently shrinks each stream's replicas to the ${zones} zones while the write quorum stays ${quorum(replicationFactor)}: use replicationFactor <= ${zones}`;
  }
  return `replicationFactor ${replicationFactor} leaves no replica to spare (quorum ${quorum(replicationFactor)}): use replicationFactor 3 or more`;
}

/** The longest base name the output's object names leave room for. */
function nameRoom(output: LokiOutput, source: ZoneSource, slugs: string[]): number {
  if (output === LokiOutput.OPERATOR) {
    // The operator names StatefulSets <name>-<component> (at most 52 characters), the longest component being index-gateway.
    return MAX_STATEFULSET_NAME - `-${LokiComponent.INDEX_GATEWAY}`.length;
  }
  const longestSlug = source.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS ? Math.max(...slugs.map((s) => s.length + 1)) : 0;
  return Math.min(
    MAX_STATEFULSET_NAME - `-${LokiComponent.INGESTER}`.length - longestSlug,
    NAME_MAX - `-${LokiComponent.QUERY_FRONTEND}`.length, // the longest Service name
  );
}

/** Options that only make sense with one output, and what the operator output requires. */
function checkOptions(where: string, props: ZoneAwareLokiStackProps, output: LokiOutput): void {
  if (output === LokiOutput.OPERATOR) {
    const directOnly: [string, unknown][] = [
      ['zoneSource', props.zoneSource], ['ingesterReplicasPerZone', props.ingesterReplicasPerZone], ['replicas', props.replicas],
      ['s3', props.s3], ['ingesterStorageSize', props.ingesterStorageSize], ['ruler', props.ruler], ['gateway', props.gateway],
      ['image', props.image], ['gatewayImage', props.gatewayImage], ['resources', props.resources], ['ingesterResources', props.ingesterResources],
      ['networkPolicy', props.networkPolicy], ['ingesterRollout', props.ingesterRollout],
      ['controller', props.controller],
    ];
    for (const [prop, value] of directOnly) {
      if (value !== undefined) throw invalidProp(where, prop, value, 'only applies to output LokiOutput.DIRECT (the operator decides it from size)');
    }
    if (props.storage === undefined) {
      throw invalidProp(where, 'storage', undefined, 'must be set with LokiOutput.OPERATOR: the Secret of the object storage (secretName, type)');
    }
    if (props.storageClassName === undefined) {
      throw invalidProp(where, 'storageClassName', props.storageClassName, 'must be set with LokiOutput.OPERATOR (the LokiStack requires it)');
    }
    const keys = props.extraTopologyKeys ?? [];
    keys.forEach((key, i) => {
      if (key === props.topology.topologyKey || keys.indexOf(key) !== i) {
        throw invalidProp(where, `extraTopologyKeys[${i}]`, key, 'repeats a topology key (the zone key is always spread over)');
      }
    });
  } else {
    const operatorOnly: [string, unknown][] = [
      ['size', props.size], ['ingesterReplicas', props.ingesterReplicas], ['storage', props.storage], ['extraTopologyKeys', props.extraTopologyKeys],
    ];
    for (const [prop, value] of operatorOnly) {
      if (value !== undefined) throw invalidProp(where, prop, value, 'only applies to output LokiOutput.OPERATOR');
    }
    if (props.gatewayImage !== undefined && !props.gateway) {
      throw invalidProp(where, 'gatewayImage', props.gatewayImage, 'only applies with gateway: true');
    }
  }
}
