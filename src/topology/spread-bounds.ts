/**
 * Where the scheduler can put N pods of one workload across zones (pure): every final layout the hard
 * constraints allow, whatever order the pods are placed in, summarised as bounds.
 *
 * The model: zone z can hold at most `caps[z]` of the workload's pods (its eligible nodes' room; 0 for a zone
 * the pods cannot use), and a hard zone spread constraint (DoNotSchedule, `maxSkew` s) lets a pod into zone z
 * only while `count(z) + 1 - min <= s`, min being the fewest pods in any of its domains (0 while there are
 * fewer domains than `minDomains`, as Kubernetes counts it). Pods are placed one at a time until all are
 * placed or no zone takes another (the rest stay Pending).
 *
 * The layouts reachable that way are exactly those with `0 <= count(z) <= cap(z)` and, with a hard spread,
 * `max - min <= s` over the domains (place into the emptiest unfinished zone first to reach any of them). A
 * layout where the pods stop short of N has every zone full or at `min + s`, and its minimum is a full zone:
 * it is the one layout `min(cap(z), capMin + s)`. So the bounds below are exact, not estimates; a brute-force
 * enumeration of placement orders checks them (test/topology/spread-bounds.property.test.ts).
 */

/** A hard zone spread constraint, as it constrains one workload. */
export interface HardSpread {
  readonly maxSkew: number;
  /** Whether the minimum is taken as 0 whatever the counts (fewer domains than `minDomains`). */
  readonly minIsZero: boolean;
  /** The zones that are domains of the constraint (the others hold none of its pods and do not count). */
  readonly domains: readonly boolean[];
}

/** The final layouts of N pods over the zones, as bounds. */
export interface PlacementBounds {
  /** Pods placed in every final layout (the rest stay Pending); the same in every layout. */
  readonly placed: number;
  /** Per zone, the fewest pods it holds in any final layout. */
  readonly lo: number[];
  /** Per zone, the most pods it holds in any final layout. */
  readonly hi: number[];
}

/**
 * The bounds for `replicas` pods over zones with room `caps` (Infinity: unlimited), under `spread` (undefined:
 * no hard zone spread).
 */
export function placementBounds(replicas: number, caps: readonly number[], spread?: HardSpread): PlacementBounds {
  const zones = caps.length;
  if (!spread) {
    const room = caps.reduce((a, b) => a + b, 0);
    const placed = Math.min(replicas, room);
    return {
      placed,
      hi: caps.map((c) => Math.min(c, placed)),
      lo: caps.map((_, z) => Math.max(0, placed - sumExcept(caps, z))),
    };
  }
  const s = spread.maxSkew;
  if (spread.minIsZero) return placementBounds(replicas, caps.map((c, z) => (spread.domains[z] ? Math.min(c, s) : 0)));
  const domains = caps.map((_, z) => z).filter((z) => spread.domains[z]);
  // a zone outside the domains holds none of the pods (it is not one the pods can use)
  const capOf = (z: number) => (spread.domains[z] ? caps[z] : 0);
  const capMin = Math.min(...domains.map(capOf));
  const stuck = caps.map((_, z) => (spread.domains[z] ? Math.min(capOf(z), capMin + s) : 0));
  const stuckSum = stuck.reduce((a, b) => a + b, 0);
  if (domains.length === 0 || replicas >= stuckSum) {
    return { placed: Math.min(replicas, stuckSum), lo: [...stuck], hi: [...stuck] };
  }

  // Every layout of exactly `replicas` pods: the union over m (a lower bound of every count) of the boxes
  // m <= count(z) <= min(cap(z), m + s) over the domains.
  const lo = new Array<number>(zones).fill(Infinity);
  const hi = new Array<number>(zones).fill(-Infinity);
  const mMax = Math.min(capMin, Math.floor(replicas / domains.length));
  for (let m = 0; m <= mMax; m++) {
    const top = domains.map((z) => Math.min(capOf(z), m + s));
    const topSum = top.reduce((a, b) => a + b, 0);
    const bottomSum = m * domains.length;
    if (replicas < bottomSum || replicas > topSum) continue;
    domains.forEach((z, i) => {
      hi[z] = Math.max(hi[z], Math.min(top[i], replicas - (bottomSum - m)));
      lo[z] = Math.min(lo[z], Math.max(m, replicas - (topSum - top[i])));
    });
  }
  return {
    placed: replicas,
    lo: lo.map((v) => (v === Infinity ? 0 : v)),
    hi: hi.map((v) => (v === -Infinity ? 0 : v)),
  };
}

function sumExcept(values: readonly number[], except: number): number {
  return values.reduce((sum, v, i) => (i === except ? sum : sum + v), 0);
}
