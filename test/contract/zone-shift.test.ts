import { MAX_SHIFT_SECONDS, shiftCovers, shiftIsClusterWide, zoneShiftProblem } from '../../src/contract/zone-shift';
import { zoneShiftCrd } from '../../src/contract/zone-shift-crd';

const created = Date.parse('2026-11-27T10:00:00Z');
const spec = (extra: object = {}) => ({ zone: 'eu-west-1a', expiresAt: '2026-11-27T14:00:00Z', ...extra });

describe('a ZoneShift spec', () => {
  test('a zone and an expiry after its creation, within 3 days: valid', () => {
    expect(zoneShiftProblem(spec(), created)).toBeUndefined();
    expect(zoneShiftProblem(spec({ zone: 'region-1_eu-west-1a', namespaces: ['shop', 'logs'] }), created)).toBeUndefined();
    expect(zoneShiftProblem(spec({ expiresAt: new Date(created + MAX_SHIFT_SECONDS * 1000).toISOString() }), created)).toBeUndefined();
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
    expect([shiftCovers(spec(), 'shop'), shiftIsClusterWide(spec()), shiftIsClusterWide(spec({ namespaces: [] }))]).toEqual([true, true, true]);
    const scoped = spec({ namespaces: ['shop'] });
    expect([shiftCovers(scoped, 'shop'), shiftCovers(scoped, 'logs'), shiftCovers(scoped, undefined), shiftIsClusterWide(scoped)]).toEqual([true, false, false, false]);
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
  expect(version.additionalPrinterColumns.map((c: any) => c.name)).toEqual(['Zone', 'Expires-At', 'Phase', 'Namespaces', 'Age']);
});
