/**
 * The part of Loki's configuration the library may write, with the types and values Loki documents, written
 * by hand from Loki's published configuration reference:
 *
 *   Grafana Loki v3.7, "Grafana Loki configuration parameters",
 *   https://github.com/grafana/loki/blob/v3.7.6/docs/sources/shared/configuration.md
 *   (https://grafana.com/docs/loki/v3.7.x/configure/; the same page for every 3.7 patch release: the image the
 *   library names is 3.7.8, and the page's fields did not change between v3.7.0 and v3.7.6)
 *
 * Each block lists its fields as the reference does; a block lists only the fields the library has a use for
 * (others are left out, so a new field is added here from the reference, with its type, before the library
 * may write it). Types are the reference's placeholders ("Generic placeholders"); `oneOf` holds the values a
 * field's description names as supported.
 */

export type FieldType =
  | 'boolean' | 'int' | 'string' | 'duration' | 'daytime' | 'list of strings'
  | { readonly oneOf: readonly string[] }
  | { readonly block: Block }
  | { readonly listOf: Block };

export interface Block { readonly [field: string]: FieldType }

const block = (b: Block): FieldType => ({ block: b });

/** `kvstore` (ring backends): "Supported values are: consul, etcd, inmemory, memberlist, multi". */
const kvstore = block({ store: { oneOf: ['consul', 'etcd', 'inmemory', 'memberlist', 'multi'] }, prefix: 'string' });

/** `s3_storage_config`. */
const s3StorageConfig = block({
  s3: 'string',
  s3forcepathstyle: 'boolean',
  bucketnames: 'string',
  endpoint: 'string',
  region: 'string',
  access_key_id: 'string',
  secret_access_key: 'string',
  session_token: 'string',
  insecure: 'boolean',
  signature_version: 'string',
  storage_class: 'string',
  disable_dualstack: 'boolean',
});

/** `period_config`: one entry of `schema_config.configs`. */
const periodConfig: Block = {
  from: 'daytime',
  // "Either tsdb or boltdb-shipper" (the others deprecated).
  store: { oneOf: ['tsdb', 'boltdb-shipper'] },
  // "Either aws (alias s3), azure, gcs, alibabacloud, bos, cos, swift, filesystem, or a named_store".
  object_store: { oneOf: ['aws', 's3', 'azure', 'gcs', 'alibabacloud', 'bos', 'cos', 'swift', 'filesystem'] },
  // "current recommended schema is v13".
  schema: { oneOf: ['v13'] },
  index: block({ path_prefix: 'string', prefix: 'string', period: 'duration' }),
  chunks: block({ prefix: 'string', period: 'duration' }),
  row_shards: 'int',
};

/** The top level of `loki.yaml`. */
export const LOKI_CONFIG_REFERENCE: Block = {
  target: 'string',
  auth_enabled: 'boolean',
  server: block({
    http_listen_network: 'string',
    http_listen_address: 'string',
    http_listen_port: 'int',
    grpc_listen_network: 'string',
    grpc_listen_address: 'string',
    grpc_listen_port: 'int',
    // "Valid formats: [logfmt, json]", "Valid levels: [debug, info, warn, error]".
    log_format: { oneOf: ['logfmt', 'json'] },
    log_level: { oneOf: ['debug', 'info', 'warn', 'error'] },
  }),
  common: block({
    path_prefix: 'string',
    storage: block({
      s3: s3StorageConfig,
      filesystem: block({ chunks_directory: 'string', rules_directory: 'string' }),
    }),
    persist_tokens: 'boolean',
    replication_factor: 'int',
    ring: block({
      kvstore,
      heartbeat_period: 'duration',
      heartbeat_timeout: 'duration',
      tokens_file_path: 'string',
      zone_awareness_enabled: 'boolean',
      num_tokens: 'int',
      replication_factor: 'int',
      instance_id: 'string',
      instance_interface_names: 'list of strings',
      instance_port: 'int',
      instance_addr: 'string',
      instance_availability_zone: 'string',
    }),
    instance_interface_names: 'list of strings',
    instance_addr: 'string',
    compactor_address: 'string',
    compactor_grpc_address: 'string',
  }),
  memberlist: block({
    node_name: 'string',
    randomize_node_name: 'boolean',
    advertise_addr: 'string',
    advertise_port: 'int',
    cluster_label: 'string',
    join_members: 'list of strings',
    min_join_backoff: 'duration',
    max_join_backoff: 'duration',
    max_join_retries: 'int',
    abort_if_cluster_join_fails: 'boolean',
    rejoin_interval: 'duration',
    left_ingesters_timeout: 'duration',
    leave_timeout: 'duration',
    bind_addr: 'list of strings',
    bind_port: 'int',
  }),
  ingester: block({
    lifecycler: block({
      ring: block({
        kvstore,
        heartbeat_timeout: 'duration',
        replication_factor: 'int',
        zone_awareness_enabled: 'boolean',
        excluded_zones: 'string',
      }),
      num_tokens: 'int',
      heartbeat_period: 'duration',
      heartbeat_timeout: 'duration',
      observe_period: 'duration',
      join_after: 'duration',
      min_ready_duration: 'duration',
      interface_names: 'list of strings',
      final_sleep: 'duration',
      tokens_file_path: 'string',
      availability_zone: 'string',
      unregister_on_shutdown: 'boolean',
      readiness_check_ring_health: 'boolean',
      address: 'string',
      port: 'int',
      id: 'string',
    }),
    wal: block({ enabled: 'boolean', dir: 'string', checkpoint_duration: 'duration', flush_on_shutdown: 'boolean', replay_memory_ceiling: 'int' }),
    query_store_max_look_back_period: 'duration',
  }),
  querier: block({ query_ingesters_within: 'duration', max_concurrent: 'int', query_ingester_only: 'boolean' }),
  schema_config: block({ configs: { listOf: periodConfig } }),
  storage_config: block({
    tsdb_shipper: block({
      active_index_directory: 'string',
      cache_location: 'string',
      cache_ttl: 'duration',
      resync_interval: 'duration',
      index_gateway_client: block({ server_address: 'string' }),
    }),
  }),
  compactor: block({ working_directory: 'string', retention_enabled: 'boolean', delete_request_store: 'string' }),
  frontend_worker: block({ frontend_address: 'string', scheduler_address: 'string' }),
  analytics: block({ reporting_enabled: 'boolean' }),
};

/**
 * The command-line flags the library passes to Loki, as the reference documents them: `-config.file` and
 * `-config.expand-env` ("Use environment variables in the configuration"), `-target` (its supported values),
 * and the CLI flag of `common.ring.instance_availability_zone`.
 */
export const LOKI_FLAGS: Block = {
  '-config.file': 'string',
  '-config.expand-env': 'boolean',
  '-target': {
    oneOf: ['all', 'compactor', 'distributor', 'ingester', 'querier', 'query-scheduler', 'ingester-querier', 'query-frontend',
      'index-gateway', 'ruler', 'table-manager', 'read', 'write'],
  },
  '-common.storage.ring.instance-availability-zone': 'string',
};

/** Every argument of `args` that is no documented flag with a value of its type. */
export function flagViolations(args: string[]): string[] {
  return args.flatMap((arg) => {
    const m = /^(-[a-z.-]+)=(.*)$/.exec(arg);
    if (!m) return [`${arg}: not -flag=value`];
    const type = LOKI_FLAGS[m[1]];
    if (type === undefined) return [`${m[1]}: no such flag in the reference`];
    const value = type === 'boolean' ? (m[2] === 'true' ? true : m[2] === 'false' ? false : m[2]) : m[2];
    return typeViolations(value, type, m[1]);
  });
}

/** A Go duration (the fields above are Go durations: `ns` to `h`, no `d`), or `0` without a unit. */
const DURATION = /^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$/;
/** `<int>`: a plain integer, or a size in bytes with a unit. */
const INT = /^[0-9]+(B|KB|MB|GB|TB|PB|EB)?$/;
/** `<daytime>`: YYYY-MM-DD. */
const DAYTIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** Every place `config` leaves the reference: `<path>: <what is wrong>`; [] when it keeps to it. */
export function referenceViolations(config: unknown, reference: Block = LOKI_CONFIG_REFERENCE, at = ''): string[] {
  if (!isObject(config)) return [`${at || '(top level)'}: a block must be a mapping, got ${describe(config)}`];
  return Object.entries(config).flatMap(([key, value]) => {
    const where = at ? `${at}.${key}` : key;
    const type = reference[key];
    if (type === undefined) return [`${where}: no such field in the reference's ${at || 'top level'} block`];
    return typeViolations(value, type, where);
  });
}

function typeViolations(value: unknown, type: FieldType, where: string): string[] {
  if (typeof type === 'object') {
    if ('block' in type) return referenceViolations(value, type.block, where);
    if ('listOf' in type) {
      if (!Array.isArray(value)) return [`${where}: a list expected, got ${describe(value)}`];
      return value.flatMap((v, i) => referenceViolations(v, type.listOf, `${where}[${i}]`));
    }
    return typeof value === 'string' && type.oneOf.includes(value) ? [] : [`${where}: one of ${type.oneOf.join(', ')} expected, got ${describe(value)}`];
  }
  const ok = {
    'boolean': () => typeof value === 'boolean',
    'int': () => (typeof value === 'number' && Number.isInteger(value) && value >= 0)
      || (typeof value === 'string' && INT.test(value)),
    'string': () => typeof value === 'string',
    'duration': () => typeof value === 'string' && DURATION.test(value),
    'daytime': () => typeof value === 'string' && DAYTIME.test(value),
    'list of strings': () => Array.isArray(value) && value.every((v) => typeof v === 'string'),
  }[type]();
  return ok ? [] : [`${where}: <${type}> expected, got ${describe(value)}`];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  return Array.isArray(v) ? 'a list' : isObject(v) ? 'a mapping' : JSON.stringify(v);
}
