/**
 * The zone report never claims survival that some placement allowed by the hard constraints breaks: random
 * workloads on random inventories, against a brute-force enumeration of every order the scheduler could place
 * the pods in, node by node, written from the scheduling rules (node affinity, taints, requests, spread
 * constraints with their policies and minDomains, pod anti-affinity to the workload's own pods).
 */
import * as fc from 'fast-check';
import { ZoneReport } from '../../src';
import { ZoneInventory } from '../../src/check/inventory';

const ZONES = ['a', 'b', 'c'];
const ZONE_KEY = 'topology.kubernetes.io/zone';
const HOST_KEY = 'kubernetes.io/hostname';

interface Node { name: string; zone: string; labels: Record<string, string>; tainted: boolean; cpu: number }

const inventoryArb = fc.array(fc.record({
  zone: fc.constantFrom(...ZONES),
  ssd: fc.boolean(),
  tainted: fc.boolean(),
  cpu: fc.constantFrom(1, 2, 4),
}), { minLength: 1, maxLength: 6 }).map((specs) => specs.map((s, i): Node => ({
  name: `n${i}`,
  zone: s.zone,
  labels: { [ZONE_KEY]: s.zone, [HOST_KEY]: `n${i}`, ...(s.ssd ? { disk: 'ssd' } : {}) },
  tainted: s.tainted,
  cpu: s.cpu,
})));

const workloadArb = fc.record({
  replicas: fc.integer({ min: 1, max: 6 }),
  cpu: fc.constantFrom(0, 1, 2),
  zones: fc.option(fc.subarray(ZONES, { minLength: 1 }), { nil: undefined }),
  ssd: fc.boolean(),
  tolerates: fc.boolean(),
  zoneSpread: fc.option(fc.record({
    maxSkew: fc.integer({ min: 1, max: 2 }),
    minDomains: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    taintsHonor: fc.boolean(),
    affinityIgnore: fc.boolean(),
  }), { nil: undefined }),
  hostSpread: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
  antiHost: fc.boolean(),
  antiZone: fc.boolean(),
  minAvailable: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
});
type Workload = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

function manifests(w: Workload): any[] {
  const labels = { app: 'w' };
  const terms = [{
    matchExpressions: [
      ...(w.zones ? [{ key: ZONE_KEY, operator: 'In', values: w.zones }] : []),
      ...(w.ssd ? [{ key: 'disk', operator: 'Exists' }] : []),
    ],
  }].filter((t) => t.matchExpressions.length > 0);
  const spread = [
    ...(w.zoneSpread ? [{
      topologyKey: ZONE_KEY,
      maxSkew: w.zoneSpread.maxSkew,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: labels },
      ...(w.zoneSpread.minDomains ? { minDomains: w.zoneSpread.minDomains } : {}),
      ...(w.zoneSpread.taintsHonor ? { nodeTaintsPolicy: 'Honor' } : {}),
      ...(w.zoneSpread.affinityIgnore ? { nodeAffinityPolicy: 'Ignore' } : {}),
    }] : []),
    ...(w.hostSpread
      ? [{
        topologyKey: HOST_KEY,
        maxSkew: w.hostSpread,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: labels },
      }]
      : []),
  ];
  const anti = [...(w.antiHost ? [HOST_KEY] : []), ...(w.antiZone ? [ZONE_KEY] : [])]
    .map((topologyKey) => ({ topologyKey, labelSelector: { matchLabels: labels } }));
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: {
        replicas: w.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: String(w.cpu) } } }],
            ...(w.tolerates ? { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } : {}),
            ...(spread.length ? { topologySpreadConstraints: spread } : {}),
            affinity: {
              ...(terms.length
                ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } }
                : {}),
              ...(anti.length ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: anti } } : {}),
            },
          },
        },
      },
    },
    ...(w.minAvailable
      ? [{
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'pdb' },
        spec: { minAvailable: w.minAvailable, selector: { matchLabels: labels } },
      }]
      : []),
  ];
}

/** Every final layout (pods per node) of the workload on the nodes, over every placement order. */
function finalLayouts(w: Workload, nodes: Node[]): number[][] {
  const affinityOk = (n: Node) => (!w.zones || w.zones.includes(n.zone)) && (!w.ssd || n.labels.disk === 'ssd');
  const taintOk = (n: Node) => !n.tainted || w.tolerates;
  const room = nodes.map((n) => (affinityOk(n) && taintOk(n) ? (w.cpu === 0 ? 110 : Math.floor(n.cpu / w.cpu)) : 0));
  const zs = w.zoneSpread;
  const countedByZoneSpread = (n: Node) => (zs?.affinityIgnore || affinityOk(n)) && (!zs?.taintsHonor || taintOk(n));
  const zoneDomains = ZONES.filter((z) => nodes.some((n) => n.zone === z && countedByZoneSpread(n)));
  const hostDomains = nodes.map((_, i) => i).filter((i) => affinityOk(nodes[i]));
  const finals: number[][] = [];
  const seen = new Set<string>();
  const visit = (counts: number[]) => {
    const key = counts.join(',');
    if (seen.has(key)) return;
    seen.add(key);
    const inZone = (z: string) => counts.reduce((s, c, i) => (nodes[i].zone === z ? s + c : s), 0);
    const ok = (i: number) => {
      if (counts[i] >= room[i]) return false;
      if (w.antiHost && counts[i] > 0) return false;
      if (w.antiZone && inZone(nodes[i].zone) > 0) return false;
      if (zs) {
        if (!zoneDomains.includes(nodes[i].zone)) return false;
        const min = zs.minDomains && zoneDomains.length < zs.minDomains ? 0 : Math.min(...zoneDomains.map(inZone));
        if (inZone(nodes[i].zone) + 1 - min > zs.maxSkew) return false;
      }
      if (w.hostSpread) {
        if (!hostDomains.includes(i)) return false;
        const min = Math.min(...hostDomains.map((j) => counts[j]));
        if (counts[i] + 1 - min > w.hostSpread) return false;
      }
      return true;
    };
    const next = counts.map((_, i) => i).filter(ok);
    if (counts.reduce((a, b) => a + b, 0) === w.replicas || next.length === 0) {
      finals.push(counts);
      return;
    }
    for (const i of next) visit(counts.map((c, j) => (j === i ? c + 1 : c)));
  };
  visit(nodes.map(() => 0));
  return finals;
}

test('a zone loss the report says is survived is survived by every final layout', () => {
  fc.assert(fc.property(inventoryArb, workloadArb, (nodes, w) => {
    const inventory = new ZoneInventory({
      zones: ZONES,
      nodes: nodes.map((n) => ({
        name: n.name,
        zone: n.zone,
        labels: n.labels,
        taints: n.tainted ? [{ key: 'dedicated', effect: 'NoSchedule' }] : [],
        allocatableCpu: String(n.cpu),
      })),
    });
    const report = ZoneReport.analyze(manifests(w), inventory).workloads[0];
    const finals = finalLayouts(w, nodes);
    for (const zone of ZONES) {
      const worst = Math.min(...finals.map((f) => f.reduce((s, c, i) => (nodes[i].zone === zone ? s : s + c), 0)));
      if (report.survives[zone]) expect(worst).toBeGreaterThanOrEqual(report.needed);
      // the worst-case survivors it reports are no more than the enumeration finds
      expect(report.zoneLoss.find((l) => l.zone === zone)!.survivors).toBeLessThanOrEqual(worst);
    }
    const perZone = (f: number[], z: string) => f.reduce((s, c, i) => (nodes[i].zone === z ? s + c : s), 0);
    for (const zone of ZONES) {
      expect(report.perZone[zone].guaranteed).toBeLessThanOrEqual(Math.min(...finals.map((f) => perZone(f, zone))));
      expect(report.perZone[zone].worstCase).toBeGreaterThanOrEqual(Math.max(...finals.map((f) => perZone(f, zone))));
    }
  }), { numRuns: 3000 });
});
