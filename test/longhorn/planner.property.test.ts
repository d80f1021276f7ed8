/**
 * Properties of the Longhorn placement planner on random small inventories, checked against a brute-force
 * search written independently of the planner: it knows only the rules (eligibility, capacity, hard levels),
 * not Longhorn's order of preference.
 */
import { Size } from 'cdk8s';
import * as fc from 'fast-check';
import {
  AntiAffinity, AntiAffinityLevel, LonghornDiskType, LonghornInventory, LonghornNodeInventory, LonghornPlacement,
  LonghornPlacementPlan, LonghornPlacementRequest,
} from '../../src';

const GI = 2 ** 30;
const LEVELS = [AntiAffinityLevel.ZONE, AntiAffinityLevel.NODE, AntiAffinityLevel.DISK];

const diskArb = fc.record({
  capacityGi: fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 9, arbitrary: fc.integer({ min: 2, max: 12 }) },
  ),
  freePercent: fc.constantFrom(100, 100, 80, 30, 10),
  reservedGi: fc.integer({ min: 0, max: 2 }),
  scheduledGi: fc.integer({ min: 0, max: 4 }),
  tags: fc.subarray(['fast', 'slow']),
  allowScheduling: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  block: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});
const nodeArb = fc.record({
  zone: fc.constantFrom(undefined, 'a', 'b', 'c'),
  tags: fc.subarray(['storage']),
  allowScheduling: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  disks: fc.array(diskArb, { minLength: 0, maxLength: 3 }),
});
const modeArb = fc.constantFrom(
  undefined, AntiAffinity.IGNORED, AntiAffinity.ENABLED, AntiAffinity.ENABLED, AntiAffinity.DISABLED,
);
const globalModeArb = fc.constantFrom(AntiAffinity.ENABLED, AntiAffinity.ENABLED, AntiAffinity.DISABLED);

const caseArb = fc.record({
  nodes: fc.array(nodeArb, { minLength: 1, maxLength: 5 }),
  replicas: fc.integer({ min: 1, max: 4 }),
  sizeGi: fc.integer({ min: 0, max: 3 }),
  zone: modeArb,
  node: modeArb,
  disk: modeArb,
  globalZone: globalModeArb,
  globalNode: globalModeArb,
  globalDisk: globalModeArb,
  overProvisioning: fc.constantFrom(50, 100, 200),
  minimalAvailable: fc.constantFrom(0, 10, 25),
  useNodeSelector: fc.boolean(),
  diskSelectorTags: fc.subarray(['fast', 'slow'], { maxLength: 1 }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** A disk's free bytes: its free percentage of the capacity, in whole KiB (a Size's smallest unit). */
const availableBytes = (d: { capacityGi: number; freePercent: number }) =>
  Math.floor(d.capacityGi * GI * d.freePercent / 100 / 1024) * 1024;

function build(c: Case): {
  inventory: LonghornInventory;
  nodes: LonghornNodeInventory[];
  request: LonghornPlacementRequest;
} {
  const nodes: LonghornNodeInventory[] = c.nodes.map((n, i) => ({
    name: `n${i}`,
    zone: n.zone,
    tags: n.tags,
    allowScheduling: n.allowScheduling,
    disks: n.disks.map((d, j) => ({
      name: `d${j}`,
      capacity: Size.gibibytes(d.capacityGi),
      available: Size.kibibytes(availableBytes(d) / 1024),
      reserved: Size.gibibytes(Math.min(d.reservedGi, d.capacityGi)),
      scheduled: Size.gibibytes(d.scheduledGi),
      tags: d.tags,
      allowScheduling: d.allowScheduling,
      diskType: d.block ? LonghornDiskType.BLOCK : LonghornDiskType.FILESYSTEM,
    })),
  }));
  const nodeTags = new Set(nodes.flatMap((n) => n.tags ?? []));
  const diskTags = new Set(nodes.flatMap((n) => n.disks.flatMap((d) => d.tags ?? [])));
  const request: LonghornPlacementRequest = {
    numberOfReplicas: c.replicas,
    size: c.sizeGi === 0 ? undefined : Size.gibibytes(c.sizeGi),
    replicaZoneSoftAntiAffinity: c.zone,
    replicaSoftAntiAffinity: c.node,
    replicaDiskSoftAntiAffinity: c.disk,
    nodeSelector: c.useNodeSelector && nodeTags.has('storage') ? ['storage'] : undefined,
    diskSelector: c.diskSelectorTags.filter((t) => diskTags.has(t)),
    settings: {
      replicaZoneSoftAntiAffinity: c.globalZone,
      replicaSoftAntiAffinity: c.globalNode,
      replicaDiskSoftAntiAffinity: c.globalDisk,
      storageOverProvisioningPercentage: c.overProvisioning,
      storageMinimalAvailablePercentage: c.minimalAvailable,
    },
  };
  return { inventory: new LonghornInventory({ nodes }), nodes, request };
}

/** The rules, restated from Longhorn's documentation and source, independently of the planner. */
interface RuleDisk { node: string; zone: string; id: string; room: (k: number) => boolean }
interface Rules { disks: RuleDisk[]; hard: { [level: string]: boolean }; replicas: number }

function rules(c: Case, request: LonghornPlacementRequest): Rules {
  const hard = (own: AntiAffinity | undefined, global: AntiAffinity) =>
    (own === AntiAffinity.ENABLED || own === AntiAffinity.DISABLED ? own : global) === AntiAffinity.DISABLED;
  const size = c.sizeGi * GI;
  const disks: RuleDisk[] = [];
  for (const [i, n] of c.nodes.entries()) {
    if (!n.allowScheduling || (request.nodeSelector && !n.tags.includes('storage'))) continue;
    for (const [j, d] of n.disks.entries()) {
      if (!d.allowScheduling || d.block || !(request.diskSelector ?? []).every((t) => d.tags.includes(t))) continue;
      const capacity = d.capacityGi * GI;
      const available = availableBytes(d);
      const limit = Math.trunc((capacity - Math.min(d.reservedGi, d.capacityGi) * GI) * c.overProvisioning / 100);
      const open = capacity > 0 && available > 0 && available > Math.trunc(capacity * c.minimalAvailable / 100);
      disks.push({
        node: `n${i}`,
        zone: n.zone ?? '',
        id: `n${i}/d${j}`,
        room: (k) => k === 0 || (open && d.scheduledGi * GI + k * size <= limit),
      });
    }
  }
  return {
    disks,
    replicas: c.replicas,
    hard: { zone: hard(c.zone, c.globalZone), node: hard(c.node, c.globalNode), disk: hard(c.disk, c.globalDisk) },
  };
}

/** True when `chosen` (disk indexes, with repetition) breaks no rule. */
function valid(r: Rules, chosen: RuleDisk[]): boolean {
  const count = (key: (d: RuleDisk) => string) => {
    const m = new Map<string, number>();
    for (const d of chosen) m.set(key(d), (m.get(key(d)) ?? 0) + 1);
    return m;
  };
  const perDisk = count((d) => d.id);
  for (const d of r.disks) if (!d.room(perDisk.get(d.id) ?? 0)) return false;
  if (r.hard.zone && [...count((d) => d.zone).values()].some((n) => n > 1)) return false;
  if (r.hard.node && [...count((d) => d.node).values()].some((n) => n > 1)) return false;
  if (r.hard.disk && [...perDisk.values()].some((n) => n > 1)) return false;
  return true;
}

/** Tries every multiset of `replicas` disks. */
function bruteForceFeasible(r: Rules): boolean {
  const search = (start: number, chosen: RuleDisk[]): boolean => {
    if (chosen.length === r.replicas) return valid(r, chosen);
    for (let i = start; i < r.disks.length; i++) {
      if (search(i, [...chosen, r.disks[i]])) return true;
    }
    return false;
  };
  return search(0, []);
}

function scheduledDisks(r: Rules, plan: LonghornPlacementPlan): RuleDisk[] {
  return plan.replicas.filter((p) => p.scheduled).map((p) => {
    const disk = r.disks.find((d) => d.id === `${p.node}/${p.disk}`);
    if (!disk) throw new Error(`replica ${p.replica} went to ${p.node}/${p.disk}, which no rule allows`);
    return disk;
  });
}

function planOf(c: Case) {
  const { inventory, nodes, request } = build(c);
  return { plan: LonghornPlacement.plan(inventory, request), r: rules(c, request), request, nodes };
}

const RUNS = { numRuns: 500 };

describe('LonghornPlacement.plan properties', () => {
  test('a placement never breaks a hard level, never overfills a disk and uses only eligible disks', () => {
    fc.assert(fc.property(caseArb, (c) => {
      const { plan, r } = planOf(c);
      expect(valid(r, scheduledDisks(r, plan))).toBe(true);
    }), RUNS);
  });

  test('"impossible" agrees with a brute-force search, and so does "complete"', () => {
    fc.assert(fc.property(caseArb, (c) => {
      const { plan, r } = planOf(c);
      expect(plan.complete).toBe(bruteForceFeasible(r));
      expect(plan.replicas).toHaveLength(c.replicas);
      if (!plan.complete) expect(plan.failure).toMatch(/^replica \d+ of \d+ cannot be scheduled: /);
    }), RUNS);
  });

  test('a replica relaxes a level only when fewer domains of that level have room than there are replicas', () => {
    fc.assert(fc.property(caseArb, (c) => {
      const { plan, r } = planOf(c);
      const key = { zone: (d: RuleDisk) => d.zone, node: (d: RuleDisk) => d.node, disk: (d: RuleDisk) => d.id };
      for (const level of LEVELS) {
        const roomy = new Set(r.disks.filter((d) => d.room(1)).map(key[level]));
        if (roomy.size >= c.replicas) {
          expect(plan.replicas.filter((p) => p.relaxed.includes(level))).toEqual([]);
        }
      }
    }), RUNS);
  });

  test('relaxed levels say exactly which domains a replica shares with earlier ones, and never a hard level', () => {
    fc.assert(fc.property(caseArb, (c) => {
      const { plan, r } = planOf(c);
      const placed = plan.replicas.filter((p) => p.scheduled);
      placed.forEach((p, i) => {
        const earlier = placed.slice(0, i);
        const expected = [
          earlier.some((e) => e.zone === p.zone) ? AntiAffinityLevel.ZONE : undefined,
          earlier.some((e) => e.node === p.node) ? AntiAffinityLevel.NODE : undefined,
          earlier.some((e) => e.node === p.node && e.disk === p.disk) ? AntiAffinityLevel.DISK : undefined,
        ].filter((l) => l !== undefined);
        expect(p.relaxed).toEqual(expected);
        for (const level of p.relaxed) expect(r.hard[level]).toBe(false);
      });
    }), RUNS);
  });

  test('deterministic: the same answer whatever the order of nodes and disks in the inventory', () => {
    fc.assert(fc.property(caseArb, fc.nat(), (c, seed) => {
      const { plan, nodes, request } = planOf(c);
      const rotate = <T>(items: T[]) => items.map((_, i) => items[(i + seed) % items.length]);
      const shuffled = rotate(nodes).map((n) => ({ ...n, disks: rotate(n.disks).reverse() }));
      expect(LonghornPlacement.plan(new LonghornInventory({ nodes: shuffled }), request)).toEqual(plan);
    }), RUNS);
  });
});
