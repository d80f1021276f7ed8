import { REDIS_CLUSTER_SLOTS, slotRange } from './slots';
import { redisNodeName } from '../contract/redis';
import { labelValueProblem } from '../kubernetes/kubernetes-names';
import { zoneSlug } from '../kubernetes/zone-slug';
import { invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props, PropSpec } from '../shared/props';
import { Quorum, Survival, SurvivalVerdict } from '../topology/survival';

/** The role a Redis node is planned to have in its shard. */
export enum RedisRole {
  /** Serves the shard's slots and takes writes. */
  MASTER = 'master',
  /** Replicates the shard's master and takes over when it fails. */
  REPLICA = 'replica',
}

/**
 * One planned Redis node: which shard, which role, which zone, and its position in that zone's
 * StatefulSet.
 */
export interface RedisNodePlan {
  /** The node's name: `<zone>-<ordinal>` (the pod is `<cluster>-<zone>-<ordinal>`). */
  readonly name: string;
  /** The zone the node runs in. */
  readonly zone: string;
  /** Its ordinal in the zone's StatefulSet. */
  readonly ordinal: number;
  /** The shard it belongs to, 0 to masters - 1. */
  readonly shard: number;
  /** Its planned role. */
  readonly role: RedisRole;
}

/** One shard (a master and its replicas) and the hash slots it serves. */
export interface RedisShardPlan {
  /** The shard's index. */
  readonly index: number;
  /** First hash slot it serves. */
  readonly slotStart: number;
  /** Last hash slot it serves (inclusive). */
  readonly slotEnd: number;
  /** The name of its planned master (a `RedisNodePlan.name`). */
  readonly master: string;
  /** The names of its planned replicas. */
  readonly replicas: string[];
}

/**
 * Input of `RedisShardLayout.plan`.
 */
export interface RedisShardLayoutProps {
  /** The zones, in order; master `i` goes to zone `i % zones`. */
  readonly zones: string[];
  /** The number of masters (shards), at least 3. */
  readonly masters: number;
  /** Replicas per master, at least 1 (a zone loss must leave a replica of each of its masters). */
  readonly replicasPerMaster: number;
}

/**
 * The most nodes a layout may plan. The layout is stored as JSON in a ConfigMap, which Kubernetes caps at
 * 1 MiB, and each node takes at least 64 bytes of it: a larger plan could never be stored (and planning it
 * would only use up memory). `ZonalRedisCluster` checks the exact size of its ConfigMap.
 */
export const MAX_REDIS_NODES = Math.floor((1024 * 1024) / 64);

const PROPS: PropSpec<RedisShardLayoutProps> = {
  zones: Props.arrayOf(Props.string(undefined, 'a zone name')),
  masters: Props.integer(0, Number.MAX_SAFE_INTEGER),
  replicasPerMaster: Props.integer(0, Number.MAX_SAFE_INTEGER),
};

/**
 * Where each master and replica of a Redis Cluster runs so that losing any one zone keeps the cluster
 * serving every slot (pure, deterministic).
 *
 * Redis Cluster fails a master over only when a majority of all masters agree and a replica of it
 * survives. So no zone may hold more than floor((masters - 1) / 2) masters, and every replica lives in a
 * zone other than its master's (and other than its sibling replicas' while zones allow). Masters are dealt
 * round-robin over the zones (shard `i` in zone `i % zones`), replica `j` of shard `i` in zone
 * `(i + 1 + j % (zones - 1)) % zones`.
 *
 * Each zone lists its nodes (the ordinals of its StatefulSet) by tier, then shard: tier 0 holds every
 * master and every first replica, tier j the replicas j. So the plan is stable where a StatefulSet can
 * follow it (it only adds or removes its highest ordinals): changing `replicasPerMaster` only appends or
 * removes the highest tiers, and changing `masters` while `replicasPerMaster` is 1 only appends or removes
 * the highest ordinals of each zone; every node that stays keeps its shard and role. Changing `masters`
 * with 2 or more replicas per master inserts or removes tier-0 nodes before the higher tiers: the replicas
 * of those tiers change ordinal, hence shard (docs/redis.md).
 */
export class RedisShardLayout {
  /** Plans the layout; throws when no layout of these numbers survives losing a zone. */
  public static plan(props: RedisShardLayoutProps): RedisShardLayout {
    checkProps('RedisShardLayout', props, PROPS, 'RedisShardLayoutProps');
    return RedisShardLayout._plan('RedisShardLayout', props);
  }

  /** @internal */
  public static _plan(where: string, props: RedisShardLayoutProps): RedisShardLayout {
    const { nodes, maxMastersPerZone } = planLayout(where, props);
    return new RedisShardLayout([...props.zones], props.masters, props.replicasPerMaster, nodes, maxMastersPerZone);
  }

  /**
   * Reads a layout back from its JSON form (`toJson()`), as the runtime does from the layout ConfigMap;
   * re-plans from its numbers and throws when the nodes differ from the plan.
   */
  public static fromJson(json: string): RedisShardLayout {
    const where = 'RedisShardLayout.fromJson';
    checkArg(where, 'json', json, Props.string());
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      throw invalidProp(where, 'json', json, `is not JSON: ${(e as Error).message}`);
    }
    // checked next against the layout's props (which throws unless it holds them)
    const data = (parsed ?? undefined) as RedisShardLayoutProps & { nodes: object[] } | undefined;
    checkProps(where, data, { ...PROPS, nodes: Props.any() }, 'layout');
    const layout = RedisShardLayout._plan(where, data!);
    if (JSON.stringify(layout.toData()) !== JSON.stringify(data)) {
      throw invalidProp('RedisShardLayout.fromJson', 'json', json.slice(0, 80), 'is not the plan of its own zones/masters/replicasPerMaster');
    }
    return layout;
  }

  /** The zones, in order. */
  public readonly zones: string[];
  /** The number of masters (shards). */
  public readonly masters: number;
  /** Replicas per master. */
  public readonly replicasPerMaster: number;
  /** Every node, by zone (in `zones` order) then ordinal. */
  public readonly nodes: RedisNodePlan[];
  /** Every shard, by index. */
  public readonly shards: RedisShardPlan[];
  /** The most masters any zone may hold: floor((masters - 1) / 2). */
  public readonly maxMastersPerZone: number;
  /** Masters planned in each zone. */
  public readonly mastersPerZone: { [zone: string]: number };
  /** Nodes (pods) planned in each zone: the zone needs at least this many schedulable hosts. */
  public readonly nodesPerZone: { [zone: string]: number };
  /** The masters' survival of the worst single-zone loss (majority quorum). */
  public readonly survival: SurvivalVerdict;
  /**
   * True when every replica is in a zone other than its master and its sibling replicas (false only when
   * replicasPerMaster >= zones, where some replicas must share a zone with a sibling).
   */
  public readonly replicasInDistinctZones: boolean;

  private constructor(
    zones: string[],
    masters: number,
    replicasPerMaster: number,
    nodes: RedisNodePlan[],
    maxMastersPerZone: number,
  ) {
    this.zones = zones;
    this.masters = masters;
    this.replicasPerMaster = replicasPerMaster;
    this.nodes = nodes;
    this.maxMastersPerZone = maxMastersPerZone;
    // One pass over the nodes (a layout may hold thousands): shards by index, counts by zone.
    const members: RedisNodePlan[][] = Array.from({ length: masters }, () => []);
    this.mastersPerZone = Object.fromEntries(zones.map((z) => [z, 0]));
    this.nodesPerZone = Object.fromEntries(zones.map((z) => [z, 0]));
    for (const n of nodes) {
      members[n.shard].push(n);
      this.nodesPerZone[n.zone]++;
      if (n.role === RedisRole.MASTER) this.mastersPerZone[n.zone]++;
    }
    this.shards = members.map((shard, index) => {
      const [slotStart, slotEnd] = slotRange(index, masters);
      return {
        index,
        slotStart,
        slotEnd,
        master: shard.find((n) => n.role === RedisRole.MASTER)!.name,
        replicas: shard.filter((n) => n.role === RedisRole.REPLICA).map((n) => n.name),
      };
    });
    this.survival = Survival.check(this.mastersPerZone, Quorum.majority());
    this.replicasInDistinctZones = replicasPerMaster < zones.length;
  }

  /** The planned node named `name`; throws when there is none. */
  public node(name: string): RedisNodePlan {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw invalidProp('RedisShardLayout.node', 'name', name, `is not a node of this layout (${this.nodes.map((n) => n.name).join(', ')})`);
    return node;
  }

  /** The nodes of `zone`, by ordinal. */
  public nodesInZone(zone: string): RedisNodePlan[] {
    return this.nodes.filter((n) => n.zone === zone);
  }

  /** The layout as JSON (the layout ConfigMap's `layout.json`, read by the runtime controller). */
  public toJson(): string {
    return JSON.stringify(this.toData(), undefined, 2);
  }

  private toData() {
    return {
      zones: this.zones,
      masters: this.masters,
      replicasPerMaster: this.replicasPerMaster,
      nodes: this.nodes,
    };
  }
}

/** The zones, masters and replicas a layout can be planned from: each refused with the rule it breaks. */
function checkLayoutProps(where: string, props: RedisShardLayoutProps): void {
  const { zones, masters, replicasPerMaster: replicas } = props;
  const areDistinctZoneNames = Array.isArray(zones)
    && new Set(zones).size === zones.length
    && !zones.some((z) => typeof z !== 'string' || z === '' || labelValueProblem(z));
  if (!areDistinctZoneNames) {
    throw invalidProp(where, 'zones', zones, 'must be a list of distinct zone names (non-empty label values)');
  }
  const slugs = zones.map(zoneSlug);
  if (new Set(slugs).size !== slugs.length) {
    throw invalidProp(where, 'zones', zones, `must have distinct object-name slugs, but they are ${JSON.stringify(slugs)}`);
  }
  if (zones.length < 3) {
    throw invalidProp(where, 'zones', zones,
      `has ${zones.length} zone(s): a Redis Cluster over fewer than 3 zones never survives losing one (the zone with the most masters ` +
      'holds at least half of them, and failover needs a majority). Use 3 or more zones');
  }
  if (!Number.isInteger(masters) || masters < 3 || masters > REDIS_CLUSTER_SLOTS) {
    throw invalidProp(where, 'masters', masters,
      `must be an integer from 3 to ${REDIS_CLUSTER_SLOTS} (Redis Cluster needs 3 masters to elect a failover, and each master serves at least one of its ${REDIS_CLUSTER_SLOTS} hash slots)`);
  }
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw invalidProp(where, 'replicasPerMaster', replicas, 'must be an integer >= 0');
  }
  if (masters * (replicas + 1) > MAX_REDIS_NODES) {
    throw invalidProp(where, 'replicasPerMaster', replicas,
      `with ${masters} masters makes ${masters * (replicas + 1)} nodes, more than the ${MAX_REDIS_NODES} whose layout fits the 1 MiB of a ConfigMap: use fewer masters or replicas`);
  }
  if (replicas === 0) {
    throw invalidProp(where, 'replicasPerMaster', replicas,
      'leaves the slots of a lost zone\'s masters with no replica to fail over to; use replicasPerMaster >= 1 to survive losing a zone');
  }
}

function planLayout(
  where: string,
  props: RedisShardLayoutProps,
): { nodes: RedisNodePlan[]; maxMastersPerZone: number } {
  checkLayoutProps(where, props);
  const { zones, masters, replicasPerMaster: replicas } = props;
  const slugs = zones.map(zoneSlug);
  const maxMastersPerZone = Survival.maxPerZone(masters, Quorum.majority());
  const busiest = Math.ceil(masters / zones.length);
  if (busiest > maxMastersPerZone) {
    throw invalidProp(where, 'masters', masters,
      `over ${zones.length} zones puts ${busiest} masters in one zone; losing that zone loses the majority of masters a failover needs ` +
      `(need at most ${maxMastersPerZone} per zone, floor((masters - 1) / 2)). Use ${validMasterCounts(zones.length).join(', ')} or more masters`);
  }

  const Z = zones.length;
  // Each zone lists its nodes by tier, then shard (see planTiers): one list per zone, filled in that order.
  const byZone: { shard: number; role: RedisRole }[][] = zones.map(() => []);
  for (let tier = 0; tier < replicas; tier++) {
    for (let shard = 0; shard < masters; shard++) {
      if (tier === 0) byZone[shard % Z].push({ shard, role: RedisRole.MASTER });
      byZone[(shard + 1 + (tier % (Z - 1))) % Z].push({ shard, role: RedisRole.REPLICA });
    }
  }
  const nodes: RedisNodePlan[] = [];
  zones.forEach((zone, z) => {
    byZone[z].forEach((p, ordinal) => nodes.push({
      name: redisNodeName(slugs[z], ordinal),
      zone,
      ordinal,
      shard: p.shard,
      role: p.role,
    }));
  });
  return { nodes, maxMastersPerZone };
}

/** The smallest master counts (up to 3 of them, below 10) that survive a zone loss over `zones` zones. */
export function validMasterCounts(zones: number): number[] {
  const ok: number[] = [];
  for (let n = 3; ok.length < 3 && n < 100; n++) {
    if (Math.ceil(n / zones) <= Survival.maxPerZone(n, Quorum.majority())) ok.push(n);
  }
  return ok;
}
