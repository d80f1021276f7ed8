/**
 * The one place that translates the library's Loki objects into Cortex's flags, for the ring proofs: Loki and
 * Cortex share the ring (dskit's lineage: distributors replicate each stream or series to `replication_factor`
 * ingesters of the ring, one per zone with zone awareness; ingesters heartbeat into a memberlist ring and answer
 * `/ready` once ACTIVE), so the layout the constructs choose can run on Cortex (Apache-2.0) instead of Loki.
 *
 * Read from the synthesized objects: which workloads are distributors, ingesters and queriers (`-target=`),
 * each ingester StatefulSet's zone (its zone flag) and replicas, and from the Loki configuration each mounts
 * (ConfigMap key named by `-config.file=`): the replication factor, zone awareness, the heartbeat and the
 * ingesters' min ready duration, the queriers' lookback into the ingesters. Pure; tested by
 * test/loki/ring-layout.test.ts.
 */
import * as path from 'path';
import { parse } from 'yaml';
import { ZONE_FLAG } from '../../../src/loki/direct';

/** What a ring member's configuration says about the ring. */
export interface RingSettings {
  readonly replicationFactor: number;
  readonly zoneAwareness: boolean;
  /** Go durations as Loki writes them (`1s`); unset: the program's default. */
  readonly heartbeatPeriod?: string;
  readonly heartbeatTimeout?: string;
  readonly minReadyDuration?: string;
  /** querier.query_ingesters_within: how far back queriers ask ingesters (older data comes from the store alone). */
  readonly queryIngestersWithin?: string;
}

export type RingTarget = 'distributor' | 'ingester' | 'querier';

/** One workload of the Loki objects that takes part in the ingester ring. */
export interface RingWorkload {
  readonly name: string;
  readonly target: RingTarget;
  readonly replicas: number;
  /** The ingesters' zone, from their arguments (the per-zone StatefulSets); unset for the others. */
  readonly zone?: string;
  /**
   * The zone of each ordinal of an ingester workload whose pods learn their zone at run time (one StatefulSet for
   * every zone): where the scheduler puts them, as the caller of `lokiRing` says.
   */
  readonly ordinalZones?: readonly string[];
  readonly ring: RingSettings;
}

const TARGETS: readonly string[] = ['distributor', 'ingester', 'querier'];

/** Loki's default replication factor (common.replication_factor), which it copies onto the ingesters' ring. */
const LOKI_DEFAULT_REPLICATION_FACTOR = 3;

/**
 * The distributor, ingester and querier workloads of `objects` (a synthesized direct Loki output). Ingesters told
 * their zone at run time need `runTimeZones`: ordinal i runs in `runTimeZones[i % length]`, as a hard zone spread
 * of maxSkew 1 places a StatefulSet's pods over those zones.
 */
export function lokiRing(objects: any[], runTimeZones?: readonly string[]): RingWorkload[] {
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  return objects
    .filter((o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.spec?.template?.spec)
    .flatMap((w) => {
      const member = ringMemberOf(w.metadata.name, w.spec.template.spec, configMaps, runTimeZones !== undefined);
      if (!member) return [];
      const replicas: number = w.spec.replicas ?? 1;
      const ordinalZones = member.target === 'ingester' && member.zone === undefined
        ? Array.from({ length: replicas }, (_, i) => runTimeZones![i % runTimeZones!.length]) : undefined;
      return [{ ...member, replicas, ...(ordinalZones ? { ordinalZones } : {}) }];
    });
}

/** The ring role of one pod spec (a workload's template or a pod), or undefined when it is none of the three. */
export function ringMemberOf(
  name: string,
  podSpec: any,
  configMaps: any[],
  zoneAtRunTime = false,
): Omit<RingWorkload, 'replicas'> | undefined {
  const container = (podSpec.containers ?? []).find((c: any) => (c.args ?? []).some((a: string) => a.startsWith('-target=')));
  if (!container) return undefined;
  const args: string[] = container.args;
  const target = flag(args, '-target')!;
  if (!TARGETS.includes(target)) return undefined;
  const zone = flag(args, ZONE_FLAG);
  if (target === 'ingester' && zone === undefined && !zoneAtRunTime) {
    throw new Error(`${name}: the ingester's zone is not in its arguments (${ZONE_FLAG}); the ring proofs run the per-zone StatefulSets, ` +
      'whose zone is known at synth time, or are told where the scheduler puts each pod');
  }
  return {
    name,
    target: target as RingTarget,
    zone: target === 'ingester' ? zone : undefined,
    ring: ringSettings(name, podSpec, container, configMaps),
  };
}

/**
 * Cortex's flags for a member with these settings: the same replication factor, zone awareness and sharding
 * (by all labels, as Loki shards streams) on the distributors' writes and the queriers' reads (Cortex reads
 * them from `-distributor.*` in both), the zone and heartbeat of an ingester. Addresses, ports and storage are the
 * caller's.
 */
export function cortexFlags(member: Pick<RingWorkload, 'target' | 'zone' | 'ring'>): string[] {
  const { ring } = member;
  const flags = [
    `-target=${member.target === 'querier' ? 'querier,store-gateway' : member.target}`,
    `-distributor.replication-factor=${ring.replicationFactor}`,
    `-distributor.zone-awareness-enabled=${ring.zoneAwareness}`,
    // Loki places each stream by all its labels; Cortex's default places every series of a metric name together.
    '-distributor.shard-by-all-labels=true',
  ];
  if (ring.heartbeatTimeout !== undefined) flags.push(`-ring.heartbeat-timeout=${ring.heartbeatTimeout}`);
  if (member.target === 'querier' && ring.queryIngestersWithin !== undefined) flags.push(`-querier.query-ingesters-within=${ring.queryIngestersWithin}`);
  if (member.target === 'ingester') {
    if (member.zone !== undefined) flags.push(`-ingester.availability-zone=${member.zone}`);
    if (ring.heartbeatPeriod !== undefined) flags.push(`-ingester.heartbeat-period=${ring.heartbeatPeriod}`);
    if (ring.minReadyDuration !== undefined) flags.push(`-ingester.min-ready-duration=${ring.minReadyDuration}`);
  }
  return flags;
}

/** The ring settings of the Loki configuration the container reads (`-config.file=` in a mounted ConfigMap). */
function ringSettings(name: string, podSpec: any, container: any, configMaps: any[]): RingSettings {
  const file = flag(container.args, '-config.file');
  if (file === undefined) throw new Error(`${name}: no -config.file= argument`);
  const mount = (container.volumeMounts ?? []).find((m: any) => m.mountPath === path.dirname(file));
  const volume = mount && (podSpec.volumes ?? []).find((v: any) => v.name === mount.name);
  const configMap = volume?.configMap && configMaps.find((c) => c.metadata.name === volume.configMap.name);
  const text = configMap?.data?.[path.basename(file)];
  if (typeof text !== 'string') throw new Error(`${name}: ${file} is not a key of a ConfigMap it mounts`);
  const config = parse(text) ?? {};
  const common = config.common ?? {};
  const lifecycler = config.ingester?.lifecycler ?? {};
  return prune({
    // Loki copies common.replication_factor (default 3) over the ingesters' ring at start.
    replicationFactor: common.replication_factor ?? LOKI_DEFAULT_REPLICATION_FACTOR,
    // An explicit ingester ring setting wins over the common one, which Loki copies onto every ring.
    zoneAwareness: lifecycler.ring?.zone_awareness_enabled ?? common.ring?.zone_awareness_enabled ?? false,
    heartbeatPeriod: lifecycler.heartbeat_period ?? common.ring?.heartbeat_period,
    heartbeatTimeout: lifecycler.ring?.heartbeat_timeout ?? common.ring?.heartbeat_timeout,
    minReadyDuration: lifecycler.min_ready_duration,
    queryIngestersWithin: config.querier?.query_ingesters_within,
  });
}

/** The value of `-name=value` in `args`. */
function flag(args: string[], name: string): string | undefined {
  const arg = args.find((a) => a.startsWith(`${name}=`));
  return arg?.slice(name.length + 1);
}

function prune<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
