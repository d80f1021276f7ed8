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

/** What the final layouts give: pods placed (fewest), per zone the fewest and most pods, per zone lost the fewest left. */
export interface SearchResult {
  readonly placed: number;
  readonly lo: number[];
  readonly hi: number[];
  readonly survivors: number[];
}

export function searchLayouts(p: NodeSearch, maxStates = 50_000): SearchResult | undefined {
  const seen = new Set<string>();
  const lo = new Array<number>(p.zones).fill(Infinity);
  const hi = new Array<number>(p.zones).fill(0);
  const survivors = new Array<number>(p.zones).fill(Infinity);
  let placed = Infinity;
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
    const zoneMin = minOver(p.zoneSpread, perZone);
    const hostMin = minOver(p.hostSpread, counts);
    const next = counts.map((_, i) => i).filter((i) => {
      const z = p.nodes[i].zone;
      if (counts[i] >= p.nodes[i].room) return false;
      if (p.zoneSpread && (!p.zoneSpread.domains[z] || perZone[z] + 1 - zoneMin > p.zoneSpread.maxSkew)) return false;
      if (p.hostSpread && (!p.hostSpread.domains[i] || counts[i] + 1 - hostMin > p.hostSpread.maxSkew)) return false;
      return true;
    });
    if (total === p.replicas || next.length === 0) {
      placed = Math.min(placed, total);
      perZone.forEach((c, z) => {
        lo[z] = Math.min(lo[z], c);
        hi[z] = Math.max(hi[z], c);
        survivors[z] = Math.min(survivors[z], total - c);
      });
      continue;
    }
    for (const i of next) stack.push(counts.map((c, j) => (j === i ? c + 1 : c)));
  }
  return { placed, lo, hi, survivors };
}

function minOver(spread: NodeSearch['zoneSpread'], counts: readonly number[]): number {
  if (!spread || spread.minIsZero) return 0;
  const inDomains = counts.filter((_, i) => spread.domains[i]);
  return inDomains.length === 0 ? 0 : Math.min(...inDomains);
}
