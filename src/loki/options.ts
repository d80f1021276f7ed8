import { k8s } from 'cdk8s-plus-28';
import { MigrationStep } from './migration';
import { NetworkPolicyOptions } from '../kubernetes/network-policy';
import { ZoneStorageClasses } from '../topology/zonal-storage';
import { ZoneTopology } from '../topology/zone-topology';
import { ZoneSource } from '../zone-source/zone-source';

/** What `ZoneAwareLokiStack` synthesizes: the output its `operator` or `direct` options choose (internal). */
export enum LokiOutput {
  /** A `LokiStack` custom resource (loki.grafana.com/v1) for the Loki operator. */
  OPERATOR = 'operator',
  /** Loki itself in microservices mode, as plain Kubernetes objects (no operator). */
  DIRECT = 'direct',
}

/** The Loki operator's t-shirt sizes (`spec.size`). */
export enum LokiStackSize {
  /** Demo only: no replication, tiny resources. */
  ONE_X_DEMO = '1x.demo',
  /** Small development clusters. */
  ONE_X_PICO = '1x.pico',
  /** Up to about 100 GB/day. */
  ONE_X_EXTRA_SMALL = '1x.extra-small',
  /** Up to about 500 GB/day. */
  ONE_X_SMALL = '1x.small',
  /** Up to about 2 TB/day. */
  ONE_X_MEDIUM = '1x.medium',
}

/**
 * The ingesters each size runs (the Loki operator's size table, `spec.template.ingester.replicas` of its
 * defaults, operator v0.11; releases before 1x.pico existed ran 1 for 1x.extra-small). The construct
 * always writes the ingester count into the LokiStack, so the table only decides the default.
 */
export const OPERATOR_INGESTERS: { readonly [size in LokiStackSize]: number } = {
  [LokiStackSize.ONE_X_DEMO]: 1,
  [LokiStackSize.ONE_X_PICO]: 3,
  [LokiStackSize.ONE_X_EXTRA_SMALL]: 2,
  [LokiStackSize.ONE_X_SMALL]: 2,
  [LokiStackSize.ONE_X_MEDIUM]: 3,
};

/** The object storage kinds the Loki operator's storage secret can describe. */
export enum LokiObjectStorageType {
  /** Amazon S3 or an S3-compatible store. */
  S3 = 's3',
  /** Google Cloud Storage. */
  GCS = 'gcs',
  /** Azure Blob Storage. */
  AZURE = 'azure',
  /** OpenStack Swift. */
  SWIFT = 'swift',
  /** Alibaba Cloud OSS. */
  ALIBABACLOUD = 'alibabacloud',
}

/** Object storage of the operator output: a Secret the Loki operator reads (`spec.storage.secret`). */
export interface LokiOperatorStorage {
  /** The Secret holding the bucket and credentials, in the LokiStack's namespace. */
  readonly secretName: string;
  /** What kind of store the Secret describes. */
  readonly type: LokiObjectStorageType;
}

/** S3-compatible object storage of the direct output. */
export interface LokiS3Storage {
  /** The bucket for chunks and index. */
  readonly bucket: string;

  /**
   * The endpoint, host[:port] (MinIO, Ceph RGW, ...).
   *
   * @default - AWS S3 in `region`
   */
  readonly endpoint?: string;

  /**
   * The region.
   *
   * @default - none (most S3-compatible stores ignore it)
   */
  readonly region?: string;

  /**
   * A Secret with `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, passed to every Loki container as
   * environment variables.
   *
   * @default - none: credentials come from the pod's identity (e.g. IRSA)
   */
  readonly credentialsSecretName?: string;

  /**
   * Plain HTTP to the endpoint.
   *
   * @default false
   */
  readonly insecure?: boolean;

  /**
   * Path-style addressing (bucket in the path, as most S3-compatible stores need).
   *
   * @default - true with an endpoint, false on AWS S3
   */
  readonly forcePathStyle?: boolean;
}

/** The Loki components of the direct output. */
export enum LokiComponent {
  /** Receives pushes and writes each stream to `replicationFactor` ingesters. */
  DISTRIBUTOR = 'distributor',
  /** Holds recent streams in memory and a WAL; the zone-aware ring members. */
  INGESTER = 'ingester',
  /** Runs queries against ingesters and storage. */
  QUERIER = 'querier',
  /** Splits, queues and caches queries for the queriers. */
  QUERY_FRONTEND = 'query-frontend',
  /** Serves the index to queriers. */
  INDEX_GATEWAY = 'index-gateway',
  /** Compacts the index and applies retention. */
  COMPACTOR = 'compactor',
  /** Evaluates recording and alerting rules. */
  RULER = 'ruler',
  /** One entry point: pushes to the distributors, queries to the query-frontends. */
  GATEWAY = 'gateway',
}

/** Validated, defaulted settings the outputs render (internal). */
export interface ResolvedLoki {
  readonly where: string;
  readonly topology: ZoneTopology;
  readonly name: string;
  readonly metadataNamespace?: string;
  readonly replicationFactor: number;
  readonly maxSkew: number;
  readonly zoneSource: ZoneSource;
  readonly ingesterReplicasPerZone: number;
  readonly replicas: number;
  readonly image: string;
  readonly gatewayImage: string;
  readonly s3?: LokiS3Storage;
  /** The storage class of each zone's ingester volumes. */
  readonly storageClasses: ZoneStorageClasses;
  readonly ingesterStorageSize: string;
  readonly ruler: boolean;
  readonly gateway: boolean;
  readonly resources: k8s.ResourceRequirements;
  readonly ingesterResources: k8s.ResourceRequirements;
  readonly networkPolicy?: NetworkPolicyOptions;
  /** The step of a migration to zone awareness; unset: none (every component zone-aware). */
  readonly migration?: MigrationStep;
  /**
   * Step 2 of a migration, with a controller: it rolls the distributors, then the queriers and rulers a lookback
   * later, to their zone-aware templates (migration-rollouts.ts).
   */
  readonly migrationByController?: boolean;
}

/** The name of a component's Service, and of its Deployment, StatefulSets or ZoneAwareUpdate. */
export const componentName = (p: ResolvedLoki, c: LokiComponent): string => `${p.name}-${c}`;
