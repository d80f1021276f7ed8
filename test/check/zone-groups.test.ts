/**
 * Zone groups found in any manifests (src/check/zone-groups.ts): one system split into one StatefulSet per zone,
 * grouped by rollout-operator's label or by name, judged by the group's quorum in zones; members that are not
 * each pinned to a zone of their own are reported as such.
 */
import { unwrappedTable } from './text-table';
import { ZoneInventory, ZoneReport } from '../../src';
import { formatText } from '../../src/check/format-text';
import { nameStem } from '../../src/check/zone-groups';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const check = (...objects: any[]) => ZoneReport.analyze(objects, ZoneInventory.equalNodes(ZONES, 2));
const groupOf = (r: ZoneReport) => r.workloads.find((w) => w.kind === 'ZoneGroup');

/** A StatefulSet of 2 named `name`, with `labels`, pinned to `zone` by required node affinity unless unpinned. */
function member(
  name: string,
  zone: string | undefined,
  labels: Record<string, string> = {},
  annotations?: Record<string, string>,
): any {
  const affinity = zone === undefined ? undefined
    : {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }],
        },
      },
    };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'logs', labels, ...(annotations ? { annotations } : {}) },
    spec: {
      replicas: 2,
      serviceName: name,
      selector: { matchLabels: { name } },
      template: {
        metadata: { labels: { name, ...labels } },
        spec: { containers: [{ name: 'c', image: 'x' }], ...(affinity ? { affinity } : {}) },
      },
    },
  };
}

describe('grouped without our annotation', () => {
  test('rollout-operator\'s rollout-group label, each member pinned to its zone: survives any zone, members judged with it', () => {
    const r = check(...ZONES.map((z) => member(`ingester-${z}`, z, { 'rollout-group': 'ingester' })));
    const group = groupOf(r)!;
    expect(group).toMatchObject({
      name: 'ingester',
      namespace: 'logs',
      replicas: 6,
      needed: 0,
      neededZones: 2,
      survives: { 'zone-a': true, 'zone-b': true, 'zone-c': true },
    });
    expect(group.neededBecause).toBe('pods in a majority of its zones; grouped by grafana/rollout-operator\'s rollout-group label ingester: ingester-zone-a, ingester-zone-b, ingester-zone-c');
    expect(group.zoneLoss.map((l) => l.zonesLeft)).toEqual([2, 2, 2]);
    for (const w of r.workloads.filter((x) => x.kind === 'StatefulSet')) {
      expect(w).toMatchObject({ needed: 0, neededBecause: 'judged with its zone group ingester', zoneGroup: 'ingester', findings: [] });
    }
    expect(r.survivesAnyZoneLoss()).toBe(true);
  });

  test('names that are a stem plus a zone (no label): grouped by their names', () => {
    const r = check(...ZONES.map((z) => member(`ingester-${z}`, z)));
    expect(groupOf(r)!.neededBecause).toBe('pods in a majority of its zones; grouped by their names: ingester and a zone: ingester-zone-a, ingester-zone-b, ingester-zone-c');
    expect(r.survivesAnyZoneLoss()).toBe(true);
  });

  test('members not pinned to zones (the zone only in their names): the group fails, and the finding says to pin them', () => {
    const r = check(...ZONES.map((z) => member(`test-app-${z}`, undefined, { 'rollout-group': 'test-app' })));
    const group = groupOf(r)!;
    expect(group.survives).toEqual({ 'zone-a': false, 'zone-b': false, 'zone-c': false });
    expect(group.findings).toHaveLength(1);
    expect(group.findings[0].message).toBe('zone group test-app (test-app-zone-a, test-app-zone-b, test-app-zone-c) does not survive losing zone-a, zone-b, zone-c: ' +
      'it needs pods in 2 of its 3 zones, and its members are not each pinned to a zone of their own (test-app-zone-a may run in zone-a, zone-b, zone-c; ' +
      'test-app-zone-b may run in zone-a, zone-b, zone-c; test-app-zone-c may run in zone-a, zone-b, zone-c), so one zone may hold more than one of them');
    expect(group.findings[0].fix).toBe('Pin each member to its own zone: a required node affinity on topology.kubernetes.io/zone (operator In, that one zone) in its pod template.');
    // and no "add replicas" finding on the members
    expect(r.workloads.filter((w) => w.kind === 'StatefulSet').flatMap((w) => w.findings)).toEqual([]);
  });

  test('two members pinned to the same zone: said so', () => {
    const r = check(member('db-zone-a', 'zone-a', { 'rollout-group': 'db' }), member('db-zone-b', 'zone-a', { 'rollout-group': 'db' }), member('db-zone-c', 'zone-c', { 'rollout-group': 'db' }));
    expect(groupOf(r)!.findings[0].message).toContain('(db-zone-a and db-zone-b share zone-a)');
  });

  test('two zones of three: losing one leaves one of two zones, no majority; the fix says to run in more zones', () => {
    const r = check(member('ingester-zone-a', 'zone-a'), member('ingester-zone-b', 'zone-b'));
    const group = groupOf(r)!;
    expect(group.survives).toEqual({ 'zone-a': false, 'zone-b': false, 'zone-c': true });
    expect(group.findings[0].fix).toBe('Run the group in more zones (a member pinned to each), or give it more replicas in each.');
  });

  test('our annotations override: the quorum of the members, the group name', () => {
    const q = { 'cdk8s-zones.dev/quorum': '3' };
    const r = check(...ZONES.map((z) => member(`ingester-${z}`, z, { 'rollout-group': 'ingester' }, q)));
    expect(groupOf(r)).toMatchObject({ needed: 3, survives: { 'zone-a': true } });
    expect(groupOf(r)!.neededZones).toBeUndefined();
  });

  test('no member can be placed (pinned to zones the inventory does not name): the group fails every zone, and says why', () => {
    const r = check(...['zone-x', 'zone-y', 'zone-z'].map((z) => member(`ingester-${z}`, z, { 'rollout-group': 'ingester' })));
    const group = groupOf(r)!;
    expect(group.survives).toEqual({ 'zone-a': false, 'zone-b': false, 'zone-c': false });
    expect(group.findings.map((f) => f.message)).toEqual([
      'zone group ingester (ingester-zone-x, ingester-zone-y, ingester-zone-z) is not available even with every zone up: ' +
      'none of its members can be placed in any of the zones zone-a, zone-b, zone-c (pods in a majority of its zones)',
    ]);
    expect(r.survivesAnyZoneLoss()).toBe(false);
  });

  test('a member of a failing group never survives a zone that breaks its group (the group alone decides)', () => {
    const r = check(member('ingester-zone-a', 'zone-a'), member('ingester-zone-b', 'zone-b'));
    for (const m of r.workloads.filter((w) => w.kind === 'StatefulSet')) {
      expect(m.survives).toEqual({ 'zone-a': false, 'zone-b': false, 'zone-c': true });
      expect(m.zoneLoss.map((l) => l.survives)).toEqual([false, false, true]);
    }
    expect(groupOf(r)!.members).toEqual(['StatefulSet/logs/ingester-zone-a', 'StatefulSet/logs/ingester-zone-b']);
  });

  test('a single workload with a zone in its name is no group', () => {
    const r = check(member('cache-zone-a', 'zone-a'));
    expect(groupOf(r)).toBeUndefined();
  });

  test('the text report shows the group\'s need in zones', () => {
    const members = ZONES.map((z) => member(`ingester-${z}`, z, { 'rollout-group': 'ingester' }));
    const text = unwrappedTable(formatText(check(...members).data));
    expect(text).toMatch(/ZoneGroup\/logs\/ingester\s+6\s+2 zones\s+2-2\s+2-2\s+2-2\s+ok 2\/2 zones, 2 pending\s+ok 2\/2 zones, 2 pending\s+ok 2\/2 zones, 2 pending/);
    // a member needs no replicas of its own (no "NEEDS 0", no "ok 2/0"): it names its group and says what a loss leaves
    expect(text).toMatch(/StatefulSet\/logs\/ingester-zone-a\s+2\s+group ingester\s+2-2\s+0-0\s+0-0\s+0 left\s+2 left\s+2 left\n/);
  });
});

test.each([
  ['ingester-zone-a', ['zone-a'], 'ingester'], ['ingester-zone-a', [], 'ingester'], ['ingester-zonea', [], 'ingester'],
  ['store-eu-west-1a', ['eu-west-1a'], 'store'], ['web', [], undefined], ['zone-a', ['zone-a'], undefined],
])('the stem of %s (zones %j) is %s', (name, zones, stem) => {
  expect(nameStem(name, zones)).toBe(stem);
});

test('a zone the manifests pin that the inventory does not name is reported, with the closest zone when it looks like a typo', () => {
  const r = check(member('ingester-zone-a', 'zone-a'), member('ingester-zone-b', 'zone-b'), member('ingester-zone-c', 'zonec'));
  const unknown = r.data.findings.filter((f) => f.rule === 'unknown-zone');
  expect(unknown.map((f) => f.message)).toEqual([
    'StatefulSet logs/ingester-zone-c pins pods to zone "zonec", which is not one of the zones [zone-a, zone-b, zone-c]: no pod can be placed there. Did you mean "zone-c"?',
  ]);
  expect(unknown[0].fix).toBe('Write "zone-c" (or name "zonec" with --zones or in the inventory, if it is a real zone).');
  const far = check(member('x', 'us-east-1a'));
  expect(far.data.findings.find((f) => f.rule === 'unknown-zone')!.message).not.toContain('did you mean');
});
