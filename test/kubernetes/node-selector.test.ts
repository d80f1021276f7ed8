import * as fc from 'fast-check';
import { ZoneTopology } from '../../src';
import { mergeNodeSelector } from '../../src/kubernetes/node-selector';

const zones = new ZoneTopology({ zones: ['a', 'b'], region: 'eu-1' });

describe('mergeNodeSelector', () => {
  test.each([
    [undefined, { 'topology.kubernetes.io/zone': 'a', 'topology.kubernetes.io/region': 'eu-1' }],
    [{ disk: 'ssd' }, { 'disk': 'ssd', 'topology.kubernetes.io/zone': 'a', 'topology.kubernetes.io/region': 'eu-1' }],
    // the generated zone (and region) value overrides the user's value for the same key
    [{ 'topology.kubernetes.io/zone': 'will-be-replaced', 'disk': 'ssd' },
      { 'topology.kubernetes.io/zone': 'a', 'disk': 'ssd', 'topology.kubernetes.io/region': 'eu-1' }],
  ])('forZone(a, %j)', (user, expected) => {
    expect(mergeNodeSelector('test', user, zones.nodeLabelsForZone('a'))).toEqual(expected);
  });

  test.each([
    [{ 'bad key': 'x' }, 'test: nodeSelector key="bad key" is not a valid label key'],
    [{ disk: 'not ok' }, 'test: nodeSelector["disk"]="not ok" is not a valid label value'],
  ])('merge rejects %j', (user, message) => {
    expect(() => mergeNodeSelector('test', user, { zone: 'a' })).toThrow(message);
  });

  test('property: merging never drops a user key other than the generated keys, and generated values win', () => {
    const name = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,8}[a-z0-9])?$/);
    fc.assert(fc.property(fc.dictionary(name, name), fc.dictionary(name, name, { minKeys: 1 }), (user, generated) => {
      const merged = mergeNodeSelector('test', user, generated);
      for (const [key, value] of Object.entries(user)) {
        expect(merged[key]).toBe(key in generated ? generated[key] : value);
      }
      for (const [key, value] of Object.entries(generated)) expect(merged[key]).toBe(value);
      const keys = new Set([...Object.keys(user), ...Object.keys(generated)]);
      expect(Object.keys(merged).sort()).toEqual([...keys].sort());
    }));
  });
});
