/**
 * Every final layout of a workload's pods on nodes, by trying every placement order (pure; memoized on the
 * layout). For a hard host spread together with a hard zone spread, whose interplay the per-zone bounds of
 * spread-bounds.ts do not capture exactly. Gives up (undefined) beyond `maxStates` layouts.
 */

export interface NodeSearch {
  readonly replicas: number;
  /** Per node: its zone (an index), and how many of the pods fit on it. */
  readonly nodes: readonly { readonly zone: number; readonly room: number }[];
  readonly zones: number;
  readonly zoneSpread?: { readonly maxSkew: number; readonly minIsZero: boolean; readonly domains: readonly boolean[] };
  readonly hostSpread?: { readonly maxSkew: number; readonly minIsZero: boolean; readonly domains: readonly boolean[] };
}

/**
 * What the final layouts give: pods placed (fewest), per zone the fewest and most pods, per zone lost the fewest left.
 */
export interface SearchResult {
  readonly placed: number;
  readonly lo: number[];
  readonly hi: number[];
  readonly survivors: number[];
}

/** A node spread's or a zone spread's limits, as the search applies them. */
type Spread = NonNullable<NodeSearch['zoneSpread']>;

export function searchLayouts(p: NodeSearch, maxStates = 20_000): SearchResult | undefined {
  const alike = alikeNodes(p);
  const finals = new FinalLayouts(p.zones);
  const seen = new Set<string>();
  const stack: number[][] = [p.nodes.map(() => 0)];
  while (stack.length > 0) {
    const counts = stack.pop()!;
    const key = counts.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > maxStates) return undefined;
    const perZone = new Array<number>(p.zones).fill(0);
    counts.forEach((c, i) => { perZone[p.nodes[i].zone] += c; });
    const total = counts.reduce((a, b) => a + b, 0);
    const next = nodesThatTakeOne(p, counts, perZone);
    if (total === p.replicas || next.length === 0) {
      finals.add(perZone, total);
      continue;
    }
    // one node per class and count: the others would give the same layout, up to alike nodes
    const tried = new Set<string>();
    for (const i of next) {
      const step = `${alike.classOf[i]}#${counts[i]}`;
      if (tried.has(step)) continue;
      tried.add(step);
      stack.push(alike.canonical(counts.map((c, j) => (j === i ? c + 1 : c))));
    }
  }
  return finals.result();
}

/**
 * Nodes alike (zone, room, counted by the host spread) are interchangeable: a layout is kept with each class's
 * counts sorted, so the search visits one of the layouts that differ only by which alike node holds what.
 */
function alikeNodes(p: NodeSearch): { classOf: string[]; canonical: (counts: number[]) => number[] } {
  const classOf = p.nodes.map((n, i) => `${n.zone}|${n.room}|${p.hostSpread?.domains[i] ?? ''}`);
  const members = new Map<string, number[]>();
  classOf.forEach((c, i) => members.set(c, [...(members.get(c) ?? []), i]));
  const canonical = (counts: number[]) => {
    const out = [...counts];
    for (const idx of members.values()) {
      const sorted = idx.map((i) => counts[i]).sort((a, b) => b - a);
      idx.forEach((i, k) => { out[i] = sorted[k]; });
    }
    return out;
  };
  return { classOf, canonical };
}

/** The nodes that can take one more pod: room left, and neither spread's maxSkew exceeded by it. */
function nodesThatTakeOne(p: NodeSearch, counts: readonly number[], perZone: readonly number[]): number[] {
  const zoneMin = minOver(p.zoneSpread, perZone);
  const hostMin = minOver(p.hostSpread, counts);
  const within = (spread: Spread | undefined, i: number, count: number, min: number) =>
    !spread || (spread.domains[i] && count + 1 - min <= spread.maxSkew);
  return counts.map((_, i) => i).filter((i) => {
    const z = p.nodes[i].zone;
    return counts[i] < p.nodes[i].room
      && within(p.zoneSpread, z, perZone[z], zoneMin)
      && within(p.hostSpread, i, counts[i], hostMin);
  });
}

/** What the final layouts found so far give (see SearchResult). */
class FinalLayouts {
  private placed = Infinity;
  private readonly lo: number[];
  private readonly hi: number[];
  private readonly survivors: number[];

  constructor(zones: number) {
    this.lo = new Array<number>(zones).fill(Infinity);
    this.hi = new Array<number>(zones).fill(0);
    this.survivors = new Array<number>(zones).fill(Infinity);
  }

  /** Records a final layout: `perZone` pods in each zone, `total` in all. */
  add(perZone: readonly number[], total: number): void {
    this.placed = Math.min(this.placed, total);
    perZone.forEach((c, z) => {
      this.lo[z] = Math.min(this.lo[z], c);
      this.hi[z] = Math.max(this.hi[z], c);
      this.survivors[z] = Math.min(this.survivors[z], total - c);
    });
  }

  result(): SearchResult {
    return { placed: this.placed, lo: this.lo, hi: this.hi, survivors: this.survivors };
  }
}

function minOver(spread: NodeSearch['zoneSpread'], counts: readonly number[]): number {
  if (!spread || spread.minIsZero) return 0;
  const inDomains = counts.filter((_, i) => spread.domains[i]);
  return inDomains.length === 0 ? 0 : Math.min(...inDomains);
}
