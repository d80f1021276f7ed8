/**
 * The hints the EndpointSlice controller gives a Service with `service.kubernetes.io/topology-mode: Auto`
 * (Kubernetes 1.35, k8s.io/endpointslice topologycache), counted per zone. Each zone is allotted endpoints in
 * proportion to the allocatable CPU of its ready nodes; every endpoint starts hinted for its own zone, and zones
 * with more than their share give endpoints to zones with less. When no allotment keeps every endpoint within 20%
 * of its fair load, the controller gives no hints at all and kube-proxy routes cluster-wide. Pure; the same float
 * arithmetic as the controller's.
 */

/** The most an endpoint may be overloaded by its zone's allotment (the controller's overloadThreshold). */
const OVERLOAD_THRESHOLD = 0.2;

/** One way the controller may hint the endpoints (several when its choices among equal zones differ). */
export interface HintOutcome {
  /** Per zone, the endpoints hinted for it (its clients use only these). */
  readonly hinted: readonly number[];
  /** Per zone, its own endpoints it keeps (the rest are hinted for other zones). */
  readonly kept: readonly number[];
}

/** Why the controller gives no hints (as its TopologyAwareHintsDisabled event says), or the ways it hints. */
export type Hints = { readonly fellBack: string } | { readonly outcomes: readonly HintOutcome[] };

interface Allocation {
  readonly minimum: number;
  readonly desired: number;
}

/**
 * The hints for `endpoints[z]` ready endpoints in zone z, given each zone's share of the ready nodes' CPU (0: no
 * ready node there; a string: why the controller has no shares, as a node without a zone label or CPU).
 */
export function topologyHints(endpoints: readonly number[], cpuShares: readonly number[] | string): Hints {
  if (typeof cpuShares === 'string') return { fellBack: cpuShares };
  const total = endpoints.reduce((a, b) => a + b, 0);
  const allocations = allocate(total, cpuShares);
  if (typeof allocations === 'string') return { fellBack: allocations };
  const outcomes = new Map<string, HintOutcome>();
  for (const { give, receive } of givingAndReceiving(allocations, endpoints)) {
    const kept = endpoints.map((n, z) => n - give[z]);
    const outcome = { hinted: kept.map((k, z) => k + receive[z]), kept };
    outcomes.set(outcome.hinted.join(','), outcome);
  }
  return { outcomes: [...outcomes.values()] };
}

/** The fewest endpoints, from `from` on, the controller gives hints for (undefined: none up to 10,000). */
export function fewestHintedEndpoints(from: number, cpuShares: readonly number[] | string): number | undefined {
  if (typeof cpuShares === 'string') return undefined;
  for (let n = Math.max(from, 1); n <= 10_000; n++) if (typeof allocate(n, cpuShares) !== 'string') return n;
  return undefined;
}

/** The controller's getAllocations: per zone with CPU, the fewest endpoints and the desired number. */
function allocate(total: number, shares: readonly number[]): (Allocation | undefined)[] | string {
  const zones = shares.filter((s) => s > 0).length;
  if (zones < 2) return 'the ready nodes are in one zone only';
  if (zones > total) return `fewer ready endpoints (${total}) than zones with ready nodes (${zones})`;
  let minTotal = 0;
  const allocations = shares.map((share) => {
    if (share <= 0) return undefined;
    const desired = share * total;
    const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)));
    minTotal += minimum;
    return { minimum, desired: Math.max(desired, minimum) };
  });
  if (minTotal > total) {
    return `no allotment of ${total} endpoints to ${zones} zones keeps each within 20% of its zone's CPU share ` +
      `(the minimums add up to ${minTotal})`;
  }
  return allocations;
}

interface Moves {
  readonly give: number[];
  readonly receive: number[];
}

/**
 * The controller's getGivingAndReceivingZones: the whole endpoints each zone gives and receives. It takes the zone
 * with the most to give and the one with the most to receive, one endpoint at a time; where zones tie, the
 * controller's pick follows Go's map order, so every pick is followed.
 */
function givingAndReceiving(allocations: readonly (Allocation | undefined)[], endpoints: readonly number[]): Moves[] {
  const giving = endpoints.map((n, z) => Math.max(0, n - (allocations[z]?.desired ?? n)));
  const receiving = endpoints.map((n, z) => Math.max(0, (allocations[z]?.desired ?? n) - n));
  const found = new Map<string, Moves>();
  const seen = new Set<string>();
  const step = (g: number[], r: number[], moves: Moves) => {
    const key = `${g.join(',')}|${r.join(',')}`;
    if (seen.has(key)) return;
    seen.add(key);
    const [give, receive] = [most(g), most(r)];
    const toGive = give.length > 0 ? g[give[0]] : 0;
    const toReceive = receive.length > 0 ? r[receive[0]] : 0;
    if (give.length === 0 || receive.length === 0 || (toGive < 1 && toReceive < 1) || toGive < 0.5 || toReceive < 0.5) {
      found.set(`${moves.give.join(',')}|${moves.receive.join(',')}`, moves);
      return;
    }
    for (const a of give) {
      for (const b of receive) {
        step(g.map((v, z) => (z === a ? v - 1 : v)), r.map((v, z) => (z === b ? v - 1 : v)), {
          give: moves.give.map((v, z) => (z === a ? v + 1 : v)),
          receive: moves.receive.map((v, z) => (z === b ? v + 1 : v)),
        });
      }
    }
  };
  step(giving, receiving, { give: endpoints.map(() => 0), receive: endpoints.map(() => 0) });
  return [...found.values()];
}

/** The zones holding the greatest positive value (Go's getMost, which ignores values of 0 and below). */
function most(values: readonly number[]): number[] {
  const top = Math.max(0, ...values);
  return top > 0 ? values.flatMap((v, z) => (v === top ? [z] : [])) : [];
}
