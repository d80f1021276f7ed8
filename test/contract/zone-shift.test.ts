import {
  isOutByShift,
  MAX_SHIFT_SECONDS,
  nextShiftExpiry,
  outOfServiceZones,
  shiftCovers,
  shiftInForce,
  shiftIsClusterWide,
  ZONE_IN_SERVICE_CONDITION,
  ZONE_SHIFT_TAINT_KEY,
  zonesTaintedByShift,
  zoneShiftProblem,
} from '../../src/contract/zone-shift';
import { zoneShiftCrd } from '../../src/contract/zone-shift-crd';

const created = Date.parse('2026-11-27T10:00:00Z');
const spec = (extra: object = {}) => ({ zone: 'eu-west-1a', expiresAt: '2026-11-27T14:00:00Z', ...extra });

describe('a ZoneShift spec', () => {
  test('a zone and an expiry after its creation, within 3 days: valid', () => {
    expect(zoneShiftProblem(spec(), created)).toBeUndefined();
    expect(zoneShiftProblem(spec({ zone: 'region-1_eu-west-1a', namespaces: ['shop', 'logs'] }), created)).toBeUndefined();
    const longest = new Date(created + MAX_SHIFT_SECONDS * 1000).toISOString();
    expect(zoneShiftProblem(spec({ expiresAt: longest }), created)).toBeUndefined();
  });

  test.each([
    [{ zone: '' }, /spec.zone "" must be a zone/],
    [{ zone: 'a b' }, /spec.zone "a b" must be a zone/],
    [{ zone: 'a__b' }, /must be a zone/],
    [{ zone: 7 }, /spec.zone 7 must be a zone/],
    [{ expiresAt: 'tomorrow' }, /spec.expiresAt "tomorrow" must be an RFC 3339 time/],
    [{ expiresAt: '2026-11-27T10:00:00Z' }, /must be after the shift's creation \(2026-11-27T10:00:00.000Z\)/],
    [{ expiresAt: '2026-11-30T10:00:01Z' }, /must be at most 72 hours after the shift's creation/],
    [{ namespaces: ['Shop'] }, /spec.namespaces: "Shop" is not a DNS label/],
    [{ namespaces: 'shop' }, /spec.namespaces "shop" must be a list/],
    [{ namespaces: [3] }, /spec.namespaces: 3 is not a namespace name/],
  ])('%j is refused, saying why', (extra, message) => {
    expect(zoneShiftProblem(spec(extra), created)).toMatch(message);
  });

  test('no spec at all is refused, not a TypeError', () => {
    expect(zoneShiftProblem(undefined, created)).toMatch(/spec.zone undefined must be a zone/);
  });

  test('a cluster-wide shift covers every namespace; a scoped one only its own', () => {
    expect([shiftCovers(spec(), 'shop'), shiftIsClusterWide(spec()), shiftIsClusterWide(spec({ namespaces: [] }))])
      .toEqual([true, true, true]);
    const scoped = spec({ namespaces: ['shop'] });
    expect([
      shiftCovers(scoped, 'shop'),
      shiftCovers(scoped, 'logs'),
      shiftCovers(scoped, undefined),
      shiftIsClusterWide(scoped),
    ]).toEqual([true, false, false, false]);
  });
});

describe('shifts in force', () => {
  const obj = (name: string, extra: object = {}, meta: object = {}) => ({
    metadata: { name, creationTimestamp: '2026-11-27T10:00:00Z', ...meta },
    spec: spec(extra),
  });
  const shifts = [
    obj('a'),
    obj('b', { zone: 'eu-west-1b', namespaces: ['shop'], expiresAt: '2026-11-27T12:00:00Z' }),
    obj('c', { zone: 'eu-west-1c' }, { deletionTimestamp: '2026-11-27T11:00:00Z' }), // cancelled
    obj('d', { zone: 'eu-west-1d', expiresAt: '2026-12-27T10:00:00Z' }), // invalid: beyond 72 h
    { metadata: { name: 'e' } }, // no spec, no creation time
  ];
  const at = (t: string) => Date.parse(t);

  test('valid, not expired, not being deleted', () => {
    expect(shifts.map((s) => shiftInForce(s, at('2026-11-27T11:00:00Z')) !== undefined)).toEqual([true, true, false, false, false]);
    expect(shiftInForce(shifts[0], at('2026-11-27T14:00:00Z'))).toBeUndefined(); // expired at that instant
  });

  test('the zones out of service for a namespace, and for cluster-scoped objects (nodes: cluster-wide shifts only)', () => {
    const now = at('2026-11-27T11:00:00Z');
    expect([...outOfServiceZones(shifts, 'shop', now)].sort()).toEqual(['eu-west-1a', 'eu-west-1b']);
    expect([...outOfServiceZones(shifts, 'logs', now)]).toEqual(['eu-west-1a']);
    expect([...outOfServiceZones(shifts, undefined, now)]).toEqual(['eu-west-1a']);
    expect([...outOfServiceZones(shifts, 'shop', at('2026-11-27T13:00:00Z'))]).toEqual(['eu-west-1a']);
  });

  test('the next expiry of a shift in force', () => {
    expect(nextShiftExpiry(shifts, at('2026-11-27T11:00:00Z'))).toBe(at('2026-11-27T12:00:00Z'));
    expect(nextShiftExpiry(shifts, at('2026-11-27T15:00:00Z'))).toBeUndefined();
  });
});

test('the CRD: cluster-scoped, zone and expiry required, the zone immutable, a status subresource', () => {
  const crd: any = zoneShiftCrd();
  expect(crd.metadata.name).toBe('zoneshifts.cdk8s-zones.dev');
  expect(crd.spec.scope).toBe('Cluster');
  const version = crd.spec.versions[0];
  expect(version.subresources).toEqual({ status: {} });
  const specSchema = version.schema.openAPIV3Schema.properties.spec;
  expect(specSchema.required).toEqual(['zone', 'expiresAt']);
  expect(specSchema['x-kubernetes-validations']).toEqual([expect.objectContaining({ rule: 'self.zone == oldSelf.zone' })]);
  expect(version.additionalPrinterColumns.map((c: any) => c.name)).toEqual(['Zone', 'Expires-At', 'Phase', 'Lost', 'Recovery', 'Namespaces', 'Age']);
});

describe('what the budgets read of a shift', () => {
  const pod = (conditions: Array<[string, string]>, deleting = false) => ({
    metadata: { name: 'p', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    status: { conditions: conditions.map(([type, status]) => ({ type, status })) },
  });
  const gate = ZONE_IN_SERVICE_CONDITION;

  test.each([
    ['gate False, containers ready, not Ready: out by the shift', [[gate, 'False'], ['ContainersReady', 'True'], ['Ready', 'False']], false, true],
    ['containers not ready: unavailable whatever the gate', [[gate, 'False'], ['ContainersReady', 'False'], ['Ready', 'False']], false, false],
    ['gate True', [[gate, 'True'], ['ContainersReady', 'True'], ['Ready', 'True']], false, false],
    ['no gate', [['ContainersReady', 'True'], ['Ready', 'False']], false, false],
    ['being deleted', [[gate, 'False'], ['ContainersReady', 'True'], ['Ready', 'False']], true, false],
  ] as Array<[string, Array<[string, string]>, boolean, boolean]>)('%s', (_, conditions, deleting, out) => {
    expect(isOutByShift(pod(conditions, deleting))).toBe(out);
  });

  test('the zones whose nodes carry the shift\'s taint, by its value', () => {
    const node = (...taints: Array<{ key: string; value?: string }>) => ({ metadata: {}, spec: { taints } });
    expect([...zonesTaintedByShift([
      node({ key: ZONE_SHIFT_TAINT_KEY, value: 'zone-a' }, { key: 'other', value: 'zone-b' }),
      node({ key: ZONE_SHIFT_TAINT_KEY, value: 'zone-a' }),
      node({ key: 'node.kubernetes.io/unschedulable' }),
      node(),
    ])]).toEqual(['zone-a']);
  });
});
