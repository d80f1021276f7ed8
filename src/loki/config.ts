import { Duration, Yaml } from 'cdk8s';

/**
 * How far back queriers ask ingesters for data (querier.query_ingesters_within): Loki's default, written out
 * because a migration to zone awareness waits this long between its phases. Longer than ingester.max_chunk_age
 * (2h), so that what the ingesters no longer answer for has been flushed to storage.
 */
export const QUERY_INGESTERS_WITHIN = Duration.hours(3);

/** Where Loki keeps chunks and index files (internal: the construct and the real-Loki proof build it). */
export type LokiStorageConfig =
  | { readonly type: 'filesystem'; readonly directory: string }
  | {
    readonly type: 's3';
    /** S3-compatible endpoint (host[:port]); unset: AWS S3 of `region`. */
    readonly endpoint?: string;
    readonly bucket: string;
    readonly region?: string;
    /** Plain HTTP to the endpoint (a MinIO in the cluster). */
    readonly insecure?: boolean;
    /** Path-style addressing (most S3-compatible stores). */
    readonly forcePathStyle?: boolean;
  };

/** Everything one Loki process's configuration depends on. */
export interface LokiConfigInput {
  /** Replicas of every stream (ingester.lifecycler.ring.replication_factor). */
  readonly replicationFactor: number;
  /** Spread a stream's replicas over distinct zones (common.ring.zone_awareness_enabled). */
  readonly zoneAwareness: boolean;
  /**
   * This process's zone (common.ring.instance_availability_zone): a literal, or `${VAR}` expanded by Loki
   * at start from the environment (`-config.expand-env=true`). Unset: no zone (processes that are not
   * in a ring, or zone awareness off).
   */
  readonly instanceZone?: string;
  /** Ring instance id; unset: Loki's default, the host name (the pod name in Kubernetes). */
  readonly instanceId?: string;
  /** The address the process advertises in the rings; unset: Loki picks its interface's address. */
  readonly instanceAddr?: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  /** Listen address of both servers; unset: all interfaces. */
  readonly listenAddress?: string;
  /** Gossip port of memberlist. */
  readonly memberlistPort: number;
  /** Gossip bind address; unset: all interfaces. */
  readonly memberlistBindAddr?: string;
  /** host:port (or a DNS name resolving to every member) to join. */
  readonly joinMembers: string[];
  /** Local state: WAL, index cache, compactor work dir. */
  readonly pathPrefix: string;
  readonly storage: LokiStorageConfig;
  /** query-frontend address the queriers pull work from (host:grpcPort); unset: queriers answer directly. */
  readonly frontendAddress?: string;
  /** compactor HTTP address (http://host:port) the other components send deletes to; unset: none. */
  readonly compactorAddress?: string;
  /** index-gateway address (host:grpcPort) queriers ask for the index; unset: they read it from storage. */
  readonly indexGatewayAddress?: string;
  /** querier.query_ingesters_within, a Go duration; unset: Loki's default. */
  readonly queryIngestersWithin?: string;
  /** Seconds between ring heartbeats, and after which a silent instance is unhealthy. */
  readonly heartbeat?: { readonly periodSeconds: number; readonly timeoutSeconds: number };
}

/** A Loki configuration file as an object, by Loki's YAML keys (a field left undefined is left out). */
export interface LokiConfig {
  readonly auth_enabled: boolean;
  readonly server: {
    readonly http_listen_address?: string;
    readonly http_listen_port: number;
    readonly grpc_listen_address?: string;
    readonly grpc_listen_port: number;
    readonly log_level: string;
  };
  readonly common: LokiCommonSection;
  readonly memberlist: {
    readonly bind_addr?: string[];
    readonly bind_port: number;
    readonly advertise_addr?: string;
    readonly advertise_port?: number;
    readonly join_members: string[];
  };
  readonly ingester: LokiIngesterSection;
  readonly schema_config: LokiStorageSections['schema_config'];
  readonly storage_config: LokiStorageSections['storage_config'];
  readonly compactor: { readonly working_directory: string };
  readonly querier: { readonly query_ingesters_within?: string };
  readonly frontend_worker?: { readonly frontend_address: string };
  readonly analytics: { readonly reporting_enabled: boolean };
}

/** `common`: the replication factor, the rings and the store every component shares. */
interface LokiCommonSection {
  readonly path_prefix: string;
  readonly replication_factor: number;
  readonly compactor_address?: string;
  readonly ring: {
    readonly kvstore: { readonly store: string };
    readonly zone_awareness_enabled: boolean;
    readonly instance_availability_zone?: string;
    readonly instance_id?: string;
    readonly instance_addr?: string;
    readonly heartbeat_period?: string;
    readonly heartbeat_timeout?: string;
  };
  readonly storage: LokiObjectStore;
}

/** `ingester`: its ring's replication factor, when it is Ready, its write-ahead log. */
interface LokiIngesterSection {
  readonly lifecycler: { readonly ring: { readonly replication_factor: number }; readonly min_ready_duration: string };
  readonly wal: { readonly dir: string };
}

/** `schema_config` and `storage_config`: the TSDB schema and where its index lives. */
interface LokiStorageSections {
  readonly schema_config: {
    readonly configs: readonly {
      readonly from: string;
      readonly store: string;
      readonly object_store: string;
      readonly schema: string;
      readonly index: { readonly prefix: string; readonly period: string };
    }[];
  };
  readonly storage_config: {
    readonly tsdb_shipper: {
      readonly active_index_directory: string;
      readonly cache_location: string;
      readonly index_gateway_client?: { readonly server_address: string };
    };
  };
}

/** `common.storage`: a local filesystem or an S3-compatible store. */
type LokiObjectStore =
  | { readonly filesystem: { readonly chunks_directory: string; readonly rules_directory: string } }
  | {
    readonly s3: {
      readonly endpoint?: string;
      readonly bucketnames: string;
      readonly region?: string;
      readonly insecure?: boolean;
      readonly s3forcepathstyle?: boolean;
    };
  };

/** The first day of the schema (any day before the first write). */
const SCHEMA_FROM = '2024-01-01';

/**
 * A Loki configuration (as an object) for one process of a microservices deployment: memberlist rings,
 * zone awareness, replication factor, storage and a TSDB v13 schema. Pure; `renderLokiConfig` turns it
 * into YAML. Every component reads the same file; `-target=` selects what a process runs.
 */
export function lokiConfig(input: LokiConfigInput): LokiConfig {
  return prune({
    auth_enabled: false,
    server: {
      http_listen_address: input.listenAddress,
      http_listen_port: input.httpPort,
      grpc_listen_address: input.listenAddress,
      grpc_listen_port: input.grpcPort,
      log_level: 'info',
    },
    common: commonSection(input),
    memberlist: {
      bind_addr: input.memberlistBindAddr === undefined ? undefined : [input.memberlistBindAddr],
      bind_port: input.memberlistPort,
      advertise_addr: input.instanceAddr,
      advertise_port: input.instanceAddr === undefined ? undefined : input.memberlistPort,
      join_members: input.joinMembers,
    },
    ingester: ingesterSection(input),
    ...storageSections(input),
    compactor: { working_directory: `${input.pathPrefix}/compactor` },
    querier: { query_ingesters_within: input.queryIngestersWithin },
    frontend_worker: input.frontendAddress === undefined ? undefined : { frontend_address: input.frontendAddress },
    analytics: { reporting_enabled: false },
  });
}

/** What every component shares: the replication factor, the rings (in memberlist, zone-aware) and the store. */
function commonSection(input: LokiConfigInput): LokiCommonSection {
  const heartbeat = input.heartbeat && {
    heartbeat_period: `${input.heartbeat.periodSeconds}s`, heartbeat_timeout: `${input.heartbeat.timeoutSeconds}s`,
  };
  return {
    path_prefix: input.pathPrefix,
    // Loki copies common.replication_factor over ingester.lifecycler.ring.replication_factor at start
    // (config_wrapper applyIngesterReplicationFactor): setting only the ingester's would be ignored.
    replication_factor: input.replicationFactor,
    compactor_address: input.compactorAddress,
    // The ingesters' ring, and every other ring, in memberlist.
    ring: {
      kvstore: { store: 'memberlist' },
      zone_awareness_enabled: input.zoneAwareness,
      instance_availability_zone: input.instanceZone,
      instance_id: input.instanceId,
      instance_addr: input.instanceAddr,
      // Loki copies these onto every ring, the ingesters' lifecycler included.
      ...heartbeat,
    },
    storage: storageConfig(input.storage),
  };
}

/** The ingester: its ring's replication factor, when it is Ready after joining, and its write-ahead log. */
function ingesterSection(input: LokiConfigInput): LokiIngesterSection {
  return {
    lifecycler: {
      ring: { replication_factor: input.replicationFactor },
      // Ready (/ready) only 15 s after joining the ring ACTIVE (Loki's default, written out): time for the ring to
      // reach every distributor before a rollout takes the next zone down. At 0 s a zone-per-wave rollout could
      // take a zone down while the distributors still saw the last one away, and refuse pushes (found by CI).
      min_ready_duration: '15s',
    },
    wal: { dir: `${input.pathPrefix}/wal` },
  };
}

/** The TSDB v13 schema on the object store, and where the TSDB index lives locally and is served from. */
function storageSections(input: LokiConfigInput): LokiStorageSections {
  const indexGateway = input.indexGatewayAddress;
  return {
    schema_config: {
      configs: [{
        from: SCHEMA_FROM,
        store: 'tsdb',
        object_store: input.storage.type,
        schema: 'v13',
        index: { prefix: 'index_', period: '24h' },
      }],
    },
    storage_config: {
      tsdb_shipper: {
        active_index_directory: `${input.pathPrefix}/tsdb-index`,
        cache_location: `${input.pathPrefix}/tsdb-cache`,
        index_gateway_client: indexGateway === undefined ? undefined : { server_address: indexGateway },
      },
    },
  };
}

/** The configuration as YAML, the format Loki reads. */
export function renderLokiConfig(config: LokiConfig): string {
  return Yaml.stringify(config);
}

function storageConfig(storage: LokiStorageConfig): LokiObjectStore {
  if (storage.type === 'filesystem') {
    return {
      filesystem: { chunks_directory: `${storage.directory}/chunks`, rules_directory: `${storage.directory}/rules` },
    };
  }
  return {
    s3: {
      endpoint: storage.endpoint,
      bucketnames: storage.bucket,
      region: storage.region,
      insecure: storage.insecure,
      s3forcepathstyle: storage.forcePathStyle,
      // Credentials come from the environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) or the pod's role.
    },
  };
}

/** Drops undefined fields (and objects left empty), so the YAML holds only what was set. */
function prune<T>(value: T): T {
  return pruned(value) as T;
}

function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruned);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const p = pruned(v);
    if (typeof p === 'object' && p !== null && !Array.isArray(p) && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}
