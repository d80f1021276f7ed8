/**
 * The stand-in labels (src/lost-zone/stand-ins.ts): on the other zones' nodes while a zone with pinned stand-in
 * StatefulSets is lost, kept while any of their pods or claims is away from its zone, and gone after; then
 * properties over random clusters: the changes bring every node to exactly that, and nothing else changes.
 */
import fc from 'fast-check';
import { standInLabel } from '../../src/contract/lost-zone';
import { NodeLabelChange, StandInInput, standInLabelChanges, standInZones } from '../../src/lost-zone/stand-ins';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const nodes = ZONES.map((zone) => ({ name: `${zone}-1`, zone, labels: { 'topology.kubernetes.io/zone': zone, 'team': 'x' } }));
const ingesters = ZONES.map((zone) => ({ namespace: 'logs', name: `ingester-${zone}`, zone, claimTemplates: ['data'] }));
const homePods = ZONES.map((zone) => ({ namespace: 'logs', statefulSet: `ingester-${zone}`, zone }));
const homeClaims = ZONES.map((zone) => ({ namespace: 'logs', name: `data-ingester-${zone}-0`, zone }));

const base: StandInInput = { lostZones: [], workloads: ingesters, pods: homePods, claims: homeClaims, nodes };

test('nothing lost, everything home: no stand-in label anywhere', () => {
  expect(standInZones(base)).toEqual([]);
  expect(standInLabelChanges(base)).toEqual([]);
});

test('a zone declared lost: its stand-in label on every node of the other zones, none on its own', () => {
  expect(standInLabelChanges({ ...base, lostZones: ['zone-a'] })).toEqual([
    { node: 'zone-b-1', labels: { [standInLabel('zone-a')]: 'true' } },
    { node: 'zone-c-1', labels: { [standInLabel('zone-a')]: 'true' } },
  ]);
  // a zone lost with no stand-in StatefulSet pinned to it needs none
  expect(standInLabelChanges({ ...base, workloads: ingesters.slice(1), lostZones: ['zone-a'] })).toEqual([]);
});

test('the shift over, the labels stay while a stand-in pod or claim is away from its zone, and go once none is', () => {
  const labelled = nodes.map((n) => (n.zone === 'zone-a' ? n : { ...n, labels: { ...n.labels, [standInLabel('zone-a')]: 'true' } }));
  const away = { ...base, nodes: labelled, pods: [...homePods.slice(1), { namespace: 'logs', statefulSet: 'ingester-zone-a', zone: 'zone-b' }] };
  expect(standInLabelChanges(away)).toEqual([]);
  const awayClaim = { namespace: 'logs', name: 'data-ingester-zone-a-0', zone: 'zone-c' };
  const claimAway = { ...base, nodes: labelled, claims: [...homeClaims.slice(1), awayClaim] };
  expect(standInZones(claimAway)).toEqual(['zone-a']);
  // a claim of another StatefulSet whose name starts alike, or in another namespace, is not one of its claims
  const lookalike = {
    ...base,
    nodes: labelled,
    claims: [
      { namespace: 'logs', name: 'data-ingester-zone-a-x-0', zone: 'zone-c' }, { namespace: 'other', name: 'data-ingester-zone-a-0', zone: 'zone-c' },
    ],
  };
  expect(standInLabelChanges(lookalike)).toEqual([
    { node: 'zone-b-1', labels: { [standInLabel('zone-a')]: null } },
    { node: 'zone-c-1', labels: { [standInLabel('zone-a')]: null } },
  ]);
});

/** `nodes` with `changes` applied as a merge patch of their labels. */
function applied(input: StandInInput, changes: readonly NodeLabelChange[]): StandInInput {
  return {
    ...input,
    nodes: input.nodes.map((n) => {
      const change = changes.find((c) => c.node === n.name);
      if (!change) return n;
      const labels: Record<string, string> = { ...n.labels };
      for (const [k, v] of Object.entries(change.labels)) if (v === null) delete labels[k]; else labels[k] = v;
      return { ...n, labels };
    }),
  };
}

test('property: the changes leave every node with exactly the stand-in labels wanted, its other labels untouched, and are then none', () => {
  const zone = fc.constantFrom(...ZONES);
  const cluster = fc.record({
    lostZones: fc.subarray(ZONES),
    pinned: fc.subarray(ZONES, { minLength: 1 }),
    podZones: fc.array(fc.option(zone, { nil: undefined }), { maxLength: 6 }),
    claimZones: fc.array(zone, { maxLength: 6 }),
    nodeZones: fc.array(fc.option(zone, { nil: undefined }), { minLength: 1, maxLength: 6 }),
    stale: fc.array(zone, { maxLength: 3 }),
  });
  fc.assert(fc.property(cluster, (c) => {
    const workloads = c.pinned.map((z) => ({ namespace: 'logs', name: `i-${z}`, zone: z, claimTemplates: ['data'] }));
    const input: StandInInput = {
      lostZones: c.lostZones,
      workloads,
      pods: c.podZones.map((z, i) => ({ namespace: 'logs', statefulSet: workloads[i % workloads.length].name, zone: z })),
      claims: c.claimZones.map((z, i) => {
        const owner = workloads[i % workloads.length].name;
        return { namespace: 'logs', name: `data-${owner}-${i}`, zone: z };
      }),
      nodes: c.nodeZones.map((z, i) => ({
        name: `n${i}`,
        zone: z,
        labels: { keep: 'me', ...Object.fromEntries(c.stale.map((s) => [standInLabel(s), 'true'])) },
      })),
    };
    const wanted = standInZones(input);
    // a zone lost with a stand-in StatefulSet pinned there always wants its stand-ins
    for (const z of c.lostZones) if (c.pinned.includes(z)) expect(wanted).toContain(z);
    const after = applied(input, standInLabelChanges(input));
    for (const n of after.nodes) {
      const has = Object.keys(n.labels).filter((k) => k.startsWith('stand-in.')).sort();
      expect(has).toEqual(wanted.filter((z) => n.zone !== undefined && n.zone !== z).map(standInLabel).sort());
      expect(n.labels.keep).toBe('me');
    }
    expect(standInLabelChanges(after)).toEqual([]);
  }), { numRuns: 500 });
});
