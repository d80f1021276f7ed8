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

export function searchLayouts(p: NodeSearch, maxStates = 20_000): SearchResult | undefined {
  // Nodes alike (zone, room, counted by the host spread) are interchangeable: a layout is kept with each class's
  // counts sorted, so the search visits one of the layouts that differ only by which alike node holds what.
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
    // one node per class and count: the others would give the same layout, up to alike nodes
    const tried = new Set<string>();
    for (const i of next) {
      const key2 = `${classOf[i]}#${counts[i]}`;
      if (tried.has(key2)) continue;
      tried.add(key2);
      stack.push(canonical(counts.map((c, j) => (j === i ? c + 1 : c))));
    }
  }
  return { placed, lo, hi, survivors };
}

function minOver(spread: NodeSearch['zoneSpread'], counts: readonly number[]): number {
  if (!spread || spread.minIsZero) return 0;
  const inDomains = counts.filter((_, i) => spread.domains[i]);
  return inDomains.length === 0 ? 0 : Math.min(...inDomains);
}
