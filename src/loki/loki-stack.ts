import { ApiObject, Chart, Names } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { directLoki } from './direct';
import { operatorLokiStack } from './operator';
import {
  LokiOperatorStorage, LokiOutput, LokiS3Storage, LokiStackSize, ResolvedLoki,
} from './options';
import { checkReplication } from './replication';
import { checkZoneSource, ZoneSource } from '../controller/zone-source';
import { invalidProp } from '../shared/errors';
import { isDnsLabel, labelKeyProblem } from '../shared/kubernetes-names';
import { parseBytes } from '../shared/quantity';
import { addWarning } from '../shared/warnings';
import { parseKubernetesVersion } from '../topology/kubernetes-version';
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
   * @default - requests cpu 100m, memory 256Mi
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * Resources of the ingesters (direct output).
   *
   * @default - requests cpu 500m, memory 1Gi
   */
  readonly ingesterResources?: k8s.ResourceRequirements;
}

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
    const output = props.output ?? LokiOutput.OPERATOR;
    const topology = props.topology;
    checkOptions(where, props, output);

    const replicationFactor = props.replicationFactor ?? 3;
    const ingesterReplicasPerZone = props.ingesterReplicasPerZone ?? 1;
    const check = checkReplication(where, replicationFactor,
      Object.fromEntries(topology.zones.map((z) => [z, ingesterReplicasPerZone])));
    for (const warning of check.warnings) addWarning(this, warning);

    const maxSkew = props.maxSkew ?? 1;
    if (!Number.isInteger(maxSkew) || maxSkew < 1) throw invalidProp(where, 'maxSkew', maxSkew, 'must be an integer >= 1');
    const release = props.kubernetesVersion === undefined
      ? undefined : parseKubernetesVersion(where, 'kubernetesVersion', props.kubernetesVersion);
    const zoneSource = output === LokiOutput.DIRECT
      ? checkZoneSource(where, props.zoneSource ?? ZoneSource.perZoneStatefulSets(), topology, release)
      : ZoneSource.perZoneStatefulSets(); // unused by the operator output
    const replicas = props.replicas ?? topology.zoneCount;
    if (!Number.isInteger(replicas) || replicas < 1) throw invalidProp(where, 'replicas', replicas, 'must be an integer >= 1');

    const p: ResolvedLoki = {
      where,
      topology,
      name: props.name ?? Names.toDnsLabel(this, { includeHash: false }),
      metadataNamespace: props.namespace ?? Chart.of(this).namespace,
      replicationFactor,
      maxSkew,
      release,
      zoneSource,
      ingesterReplicasPerZone,
      replicas,
      image: props.image ?? DEFAULT_LOKI_IMAGE,
      gatewayImage: props.gatewayImage ?? DEFAULT_GATEWAY_IMAGE,
      s3: props.s3,
      storageClassName: props.storageClassName,
      ingesterStorageSize: props.ingesterStorageSize ?? '10Gi',
      ruler: props.ruler ?? false,
      gateway: props.gateway ?? false,
      resources: props.resources ?? requests('100m', '256Mi'),
      ingesterResources: props.ingesterResources ?? requests('500m', '1Gi'),
    };
    if (!isDnsLabel(p.name) || p.name.length > 40) {
      throw invalidProp(where, 'name', p.name, 'must be a DNS label of at most 40 characters (object names append component and zone)');
    }
    parseBytes(where, 'ingesterStorageSize', p.ingesterStorageSize);

    if (output === LokiOutput.OPERATOR) {
      this.lokiStack = operatorLokiStack(this, p, {
        size: props.size ?? LokiStackSize.ONE_X_SMALL,
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
    }
  }
}

function requests(cpu: string, memory: string): k8s.ResourceRequirements {
  return { requests: { cpu: k8s.Quantity.fromString(cpu), memory: k8s.Quantity.fromString(memory) } };
}

/** Options that only make sense with one output, and what the operator output requires. */
function checkOptions(where: string, props: ZoneAwareLokiStackProps, output: LokiOutput): void {
  if (output === LokiOutput.OPERATOR) {
    const directOnly: [string, unknown][] = [
      ['zoneSource', props.zoneSource], ['ingesterReplicasPerZone', props.ingesterReplicasPerZone], ['replicas', props.replicas],
      ['s3', props.s3], ['ingesterStorageSize', props.ingesterStorageSize], ['ruler', props.ruler], ['gateway', props.gateway],
      ['image', props.image], ['gatewayImage', props.gatewayImage], ['resources', props.resources], ['ingesterResources', props.ingesterResources],
    ];
    for (const [prop, value] of directOnly) {
      if (value !== undefined) throw invalidProp(where, prop, value, 'only applies to output LokiOutput.DIRECT (the operator decides it from size)');
    }
    if (props.storage === undefined) {
      throw invalidProp(where, 'storage', undefined, 'must be set with LokiOutput.OPERATOR: the Secret of the object storage (secretName, type)');
    }
    if (!props.storage.secretName) throw invalidProp(where, 'storage.secretName', props.storage.secretName, 'must name the object storage Secret');
    if (!props.storageClassName) {
      throw invalidProp(where, 'storageClassName', props.storageClassName, 'must be set with LokiOutput.OPERATOR (the LokiStack requires it)');
    }
    const keys = props.extraTopologyKeys ?? [];
    keys.forEach((key, i) => {
      const problem = labelKeyProblem(key);
      if (problem) throw invalidProp(where, `extraTopologyKeys[${i}]`, key, problem);
      if (key === props.topology.topologyKey || keys.indexOf(key) !== i) {
        throw invalidProp(where, `extraTopologyKeys[${i}]`, key, 'repeats a topology key (the zone key is always spread over)');
      }
    });
  } else {
    const operatorOnly: [string, unknown][] = [['size', props.size], ['storage', props.storage], ['extraTopologyKeys', props.extraTopologyKeys]];
    for (const [prop, value] of operatorOnly) {
      if (value !== undefined) throw invalidProp(where, prop, value, 'only applies to output LokiOutput.OPERATOR');
    }
    if (props.gatewayImage !== undefined && !props.gateway) {
      throw invalidProp(where, 'gatewayImage', props.gatewayImage, 'only applies with gateway: true');
    }
  }
}
