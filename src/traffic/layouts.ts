/**
 * The layouts of a workload's pods over the zones that the worst case is searched over: counts per zone between
 * the fewest a zone is sure of and the most it may hold (the zone check's bounds), adding up to the pods placed.
 * The extreme ones, where each zone but one is at its fewest, its most, or 1: for a fixed set of empty zones, the
 * crossing share and the busiest endpoint are linear or convex in the counts under no policy and the
 * trafficDistribution ones, so their worst is at such a layout. Topology-aware hints round by the layout, and their
 * worst may be at another one (test/traffic/worst-case.property.test.ts shows one): for them every layout is tried
 * up to EVERY_LAYOUT_LIMIT, and beyond, the extreme ones, which the report then says. Pure.
 */

/** Up to this many layouts, every one is tried. */
export const EVERY_LAYOUT_LIMIT = 20_000;

/** A workload's possible layouts: per zone the fewest (`lo`) and most (`hi`) pods, `placed` in all. */
export interface LayoutBounds {
  readonly lo: readonly number[];
  readonly hi: readonly number[];
  readonly placed: number;
}

/** A layout known exactly: each zone holds `counts[z]`. */
export function exactLayout(counts: readonly number[]): LayoutBounds {
  return { lo: counts, hi: counts, placed: counts.reduce((a, b) => a + b, 0) };
}

/** Every layout when there are at most EVERY_LAYOUT_LIMIT, else the extreme ones (none when the bounds admit none). */
export function searchedLayouts(b: LayoutBounds): number[][] {
  return triesEveryLayout(b) ? everyLayout(b) : extremeLayouts(b);
}

/** Whether `searchedLayouts` tries every layout (there are at most EVERY_LAYOUT_LIMIT). */
export function triesEveryLayout(b: LayoutBounds): boolean {
  return layoutCount(b, EVERY_LAYOUT_LIMIT + 1) <= EVERY_LAYOUT_LIMIT;
}

/** How many layouts there are, counting up to `cap`. */
function layoutCount(b: LayoutBounds, cap: number): number {
  // ways[s]: the layouts of the zones so far that hold s pods
  let ways = [1, ...new Array(b.placed).fill(0)];
  b.lo.forEach((lo, z) => {
    const next = new Array(b.placed + 1).fill(0);
    ways.forEach((w, s) => {
      for (let n = lo; n <= b.hi[z] && s + n <= b.placed; n++) next[s + n] = Math.min(cap, next[s + n] + w);
    });
    ways = next;
  });
  return ways[b.placed];
}

/** Every layout within the bounds. */
export function everyLayout(b: LayoutBounds): number[][] {
  const out: number[][] = [];
  const zones = b.lo.length;
  const maxAfter = b.hi.map((_, z) => b.hi.slice(z + 1).reduce((a, c) => a + c, 0));
  const minAfter = b.lo.map((_, z) => b.lo.slice(z + 1).reduce((a, c) => a + c, 0));
  const walk = (z: number, left: number, layout: number[]) => {
    if (z === zones) {
      if (left === 0) out.push([...layout]);
      return;
    }
    for (let n = b.lo[z]; n <= b.hi[z] && n <= left; n++) {
      if (left - n > maxAfter[z] || left - n < minAfter[z]) continue;
      layout.push(n);
      walk(z + 1, left - n, layout);
      layout.pop();
    }
  };
  walk(0, b.placed, []);
  return out;
}

/** The layouts with every zone but one at its fewest, its most or 1, distinct. */
export function extremeLayouts(b: LayoutBounds): number[][] {
  const zones = b.lo.length;
  const choices = b.lo.map((lo, z) => [...new Set([lo, b.hi[z], ...(lo === 0 && b.hi[z] >= 1 ? [1] : [])])]);
  const found = new Map<string, number[]>();
  for (let free = 0; free < zones; free++) {
    const walk = (z: number, layout: number[], sum: number) => {
      if (z === zones) {
        const rest = b.placed - sum;
        if (rest < b.lo[free] || rest > b.hi[free]) return;
        const full = [...layout];
        full[free] = rest;
        found.set(full.join(','), full);
        return;
      }
      const options = z === free ? [0] : choices[z];
      for (const n of options) {
        layout.push(n);
        walk(z + 1, layout, sum + (z === free ? 0 : n));
        layout.pop();
      }
    };
    walk(0, [], 0);
  }
  return [...found.values()];
}
