import { slotRange } from './slots';
import { invalidProp } from '../shared/errors';
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
 * Where each master and replica of a Redis Cluster runs so that losing any one zone keeps the cluster
 * serving every slot (pure, deterministic).
 *
 * Redis Cluster fails a master over only when a majority of all masters agree and a replica of it
 * survives. So no zone may hold more than floor((masters - 1) / 2) masters, and every replica lives in a
 * zone other than its master's (and other than its sibling replicas' while zones allow). Masters are dealt
 * round-robin over the zones (shard `i` in zone `i % zones`), replica `j` of shard `i` in zone
 * `(i + 1 + j % (zones - 1)) % zones`; each zone lists its nodes by shard, so raising `masters` only
 * appends nodes to each zone and never changes the role of an existing one.
 */
export class RedisShardLayout {
  /** Plans the layout; throws when no layout of these numbers survives losing a zone. */
  public static plan(props: RedisShardLayoutProps): RedisShardLayout {
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
    const data = JSON.parse(json);
    const layout = RedisShardLayout._plan('RedisShardLayout.fromJson', data);
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

  private constructor(zones: string[], masters: number, replicasPerMaster: number, nodes: RedisNodePlan[], maxMastersPerZone: number) {
    this.zones = zones;
    this.masters = masters;
    this.replicasPerMaster = replicasPerMaster;
    this.nodes = nodes;
    this.maxMastersPerZone = maxMastersPerZone;
    this.shards = Array.from({ length: masters }, (_, index) => {
      const [slotStart, slotEnd] = slotRange(index, masters);
      const members = nodes.filter((n) => n.shard === index);
      return {
        index,
        slotStart,
        slotEnd,
        master: members.find((n) => n.role === RedisRole.MASTER)!.name,
        replicas: members.filter((n) => n.role === RedisRole.REPLICA).map((n) => n.name),
      };
    });
    const count = (role?: RedisRole) =>
      Object.fromEntries(zones.map((z) => [z, nodes.filter((n) => n.zone === z && (role === undefined || n.role === role)).length]));
    this.mastersPerZone = count(RedisRole.MASTER);
    this.nodesPerZone = count();
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

function planLayout(where: string, props: RedisShardLayoutProps): { nodes: RedisNodePlan[]; maxMastersPerZone: number } {
  const { zones, masters, replicasPerMaster: replicas } = props;
  if (!Array.isArray(zones) || new Set(zones).size !== zones.length || zones.some((z) => typeof z !== 'string' || z === '')) {
    throw invalidProp(where, 'zones', zones, 'must be a list of distinct, non-empty zone names');
  }
  if (zones.length < 3) {
    throw invalidProp(where, 'zones', zones,
      `has ${zones.length} zone(s): a Redis Cluster over fewer than 3 zones never survives losing one (the zone with the most masters ` +
      'holds at least half of them, and failover needs a majority). Use 3 or more zones');
  }
  if (!Number.isInteger(masters) || masters < 3) {
    throw invalidProp(where, 'masters', masters, 'must be an integer >= 3 (Redis Cluster needs 3 masters to elect a failover)');
  }
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw invalidProp(where, 'replicasPerMaster', replicas, 'must be an integer >= 0');
  }
  if (replicas === 0) {
    throw invalidProp(where, 'replicasPerMaster', replicas,
      'leaves the slots of a lost zone\'s masters with no replica to fail over to; use replicasPerMaster >= 1 to survive losing a zone');
  }
  const maxMastersPerZone = Survival.maxPerZone(masters, Quorum.majority());
  const busiest = Math.ceil(masters / zones.length);
  if (busiest > maxMastersPerZone) {
    throw invalidProp(where, 'masters', masters,
      `over ${zones.length} zones puts ${busiest} masters in one zone; losing that zone loses the majority of masters a failover needs ` +
      `(need at most ${maxMastersPerZone} per zone, floor((masters - 1) / 2)). Use ${validMasterCounts(zones.length).join(', ')} or more masters`);
  }

  const Z = zones.length;
  const placed: { zone: number; shard: number; role: RedisRole }[] = [];
  for (let shard = 0; shard < masters; shard++) {
    placed.push({ zone: shard % Z, shard, role: RedisRole.MASTER });
    for (let j = 0; j < replicas; j++) {
      placed.push({ zone: (shard + 1 + (j % (Z - 1))) % Z, shard, role: RedisRole.REPLICA });
    }
  }
  const nodes: RedisNodePlan[] = [];
  zones.forEach((zone, z) => {
    placed.filter((p) => p.zone === z).forEach((p, ordinal) => {
      nodes.push({ name: `${zone}-${ordinal}`, zone, ordinal, shard: p.shard, role: p.role });
    });
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
