import { checkArg, Props } from '../shared/props';

/**
 * How many replicas must remain for a system to keep working.
 */
export class Quorum {
  /**
   * More than half of all replicas (floor(total / 2) + 1): Raft/etcd members, Redis Cluster masters,
   * Loki/dskit replication sets.
   */
  public static majority(): Quorum {
    return new Quorum('majority', majorityOf);
  }

  /** At least `count` replicas, whatever the total. */
  public static atLeast(count: number): Quorum {
    checkArg('Quorum.atLeast', 'count', count, Props.integer(1, Number.MAX_SAFE_INTEGER));
    return new Quorum(`at least ${count}`, () => count);
  }

  private constructor(
    /** A short description, e.g. "majority". */
    public readonly description: string,
    private readonly rule: (total: number) => number,
  ) {}

  /** How many of `total` replicas must remain. */
  public required(total: number): number {
    return this.rule(total);
  }
}

/** A number of replicas or zones. */
const COUNT = Props.integer(0, Number.MAX_SAFE_INTEGER);

/**
 * The answer to "does this layout survive losing zones?".
 */
export interface SurvivalVerdict {
  /** True when the replicas left after the worst-case loss still meet the quorum. */
  readonly survives: boolean;
  /** How many zones were assumed lost. */
  readonly zonesLost: number;
  /** The zones whose loss is the worst case (most replicas; ties broken by name). */
  readonly worstCaseZones: string[];
  /** Replicas in the layout. */
  readonly total: number;
  /** Replicas left after the worst-case loss. */
  readonly remaining: number;
  /** Replicas the quorum needs. */
  readonly required: number;
  /** One sentence that explains the verdict, for error messages and logs. */
  readonly reason: string;
}

/**
 * Survival math over zones (pure): the Redis layout, Loki's ring and the zone check ask it the same
 * question.
 */
export class Survival {
  /**
   * Can the layout lose any `zonesLost` zones and still meet the quorum? The worst case is losing the
   * zones that hold the most replicas.
   *
   * @param replicasPerZone replicas in each zone (zones with 0 may be listed)
   * @param quorum how many replicas must remain
   * @param zonesLost how many zones are lost at once (default 1)
   */
  public static check(
    replicasPerZone: { [zone: string]: number },
    quorum: Quorum,
    zonesLost?: number,
  ): SurvivalVerdict {
    const where = 'Survival.check';
    checkArg(where, 'replicasPerZone', replicasPerZone, Props.mapOf(COUNT));
    checkArg(where, 'quorum', quorum, Props.instanceOf(Quorum));
    checkArg(where, 'zonesLost', zonesLost, Props.optional(COUNT));
    const k = zonesLost ?? 1;
    const zones = Object.keys(replicasPerZone).sort((a, b) => replicasPerZone[b] - replicasPerZone[a] || compare(a, b));
    const worst = zones.slice(0, k);
    const total = zones.reduce((sum, z) => sum + replicasPerZone[z], 0);
    const lost = worst.reduce((sum, z) => sum + replicasPerZone[z], 0);
    const remaining = total - lost;
    const required = quorum.required(total);
    const survives = remaining >= required;

    const lostText = worst.length === 0
      ? 'losing no zone'
      : `losing ${worst.length === 1 ? 'zone' : 'zones'} ${worst.join(', ')} (${lost} of ${total} replicas)`;
    const reason = `${lostText} leaves ${remaining}; the quorum (${quorum.description}) needs ${required}` +
      (survives ? '' : total < required ? ' (the layout is below quorum even with every zone up)' : '');
    return { survives, zonesLost: k, worstCaseZones: worst, total, remaining, required, reason };
  }

  /**
   * The most replicas any one zone may hold so that losing `zonesLost` such zones still meets the quorum,
   * for `total` replicas. Returns 0 when even that cannot work.
   */
  public static maxPerZone(total: number, quorum: Quorum, zonesLost?: number): number {
    const where = 'Survival.maxPerZone';
    checkArg(where, 'total', total, COUNT);
    checkArg(where, 'quorum', quorum, Props.instanceOf(Quorum));
    checkArg(where, 'zonesLost', zonesLost, Props.optional(COUNT));
    const k = zonesLost ?? 1;
    if (k === 0) return total;
    return Math.max(0, Math.floor((total - quorum.required(total)) / k));
  }

  private constructor() {}
}

/** More than half of `total`: floor(total / 2) + 1, the one home of the majority rule. */
export function majorityOf(total: number): number {
  return Math.floor(total / 2) + 1;
}

/**
 * Whether a zone-aware replication ring (dskit's: Loki, Cortex, Mimir) keeps taking writes with one zone down.
 * It writes each item to one replica per zone in min(factor, zones holding members) zones (it silently shrinks
 * the replica set to the zones it has) while a write still needs a majority of `factor`; losing the zone of one
 * replica must leave that majority.
 *
 * @param zonesWithMembers the zones sure to hold ring members
 */
export function ringWriteSurvival(factor: number, zonesWithMembers: readonly string[]): SurvivalVerdict {
  const replicas = Math.min(factor, zonesWithMembers.length);
  const perZone = Object.fromEntries(zonesWithMembers.slice(0, replicas).map((zone) => [zone, 1]));
  return Survival.check(perZone, Quorum.atLeast(majorityOf(factor)), 1);
}

/** Code-point order, so results do not depend on the locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
