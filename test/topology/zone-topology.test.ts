import { ZoneTopology } from '../../src';

describe('ZoneTopology', () => {
  test('defaults to the well-known label keys', () => {
    const t = new ZoneTopology({ zones: ['a', 'b', 'c'] });
    expect(t.zones).toEqual(['a', 'b', 'c']);
    expect(t.zoneCount).toBe(3);
    expect(t.topologyKey).toBe('topology.kubernetes.io/zone');
    expect(t.hostnameKey).toBe('kubernetes.io/hostname');
    expect(t.regionKey).toBe('topology.kubernetes.io/region');
    expect(t.region).toBeUndefined();
  });

  test('keeps the zone order and copies the array', () => {
    const zones = ['c', 'a', 'b'];
    const t = new ZoneTopology({ zones });
    zones.push('d');
    expect(t.zones).toEqual(['c', 'a', 'b']);
  });

  test('custom keys and a region', () => {
    const t = new ZoneTopology({
      zones: ['rack-1', 'rack-2'],
      topologyKey: 'example.com/rack',
      hostnameKey: 'example.com/host',
      region: 'eu-west-1',
      regionKey: 'example.com/region',
    });
    expect(t.nodeLabelsForZone('rack-2')).toEqual({ 'example.com/rack': 'rack-2', 'example.com/region': 'eu-west-1' });
  });

  test('nodeLabelsForZone without a region has only the zone key', () => {
    expect(new ZoneTopology({ zones: ['a'] }).nodeLabelsForZone('a')).toEqual({ 'topology.kubernetes.io/zone': 'a' });
  });

  test.each([
    [{ zones: [] }, /ZoneTopology: zones=\[\] must be a list of at least one zone name/],
    [{ zones: ['a', 'b', 'a'] }, /ZoneTopology: zones\[2\]="a" duplicates zones\[0\]/],
    [{ zones: ['eu west'] }, /ZoneTopology: zones\[0\]="eu west" is not a valid label value/],
    [{ zones: ['a', ''] }, /ZoneTopology: zones\[1\]="" must not be empty/],
    [{ zones: ['a'], topologyKey: 'Topology/zone' }, /ZoneTopology: topologyKey="Topology\/zone" is not a valid label key/],
    [{ zones: ['a'], hostnameKey: 'bad key' }, /ZoneTopology: hostnameKey="bad key" is not a valid label key/],
    [{ zones: ['a'], regionKey: 'a/b/c' }, /ZoneTopology: regionKey="a\/b\/c" is not a valid label key/],
    [{ zones: ['a'], region: 'eu west 1' }, /ZoneTopology: region="eu west 1" is not a valid label value/],
    [{ zones: ['a'], region: '' }, /ZoneTopology: region="" must not be empty/],
    [{ zones: ['a'], hostnameKey: 'topology.kubernetes.io/zone' }, /hostnameKey=.* must differ from topologyKey/],
  ])('%j is rejected', (props, message) => {
    expect(() => new ZoneTopology(props)).toThrow(message);
  });

  test('nodeLabelsForZone rejects a zone outside the topology', () => {
    expect(() => new ZoneTopology({ zones: ['a', 'b'] }).nodeLabelsForZone('c'))
      .toThrow('ZoneTopology.nodeLabelsForZone: zone="c" is not one of the topology\'s zones [a, b]');
  });
});

describe('ZoneTopology.podsCarryZoneLabel: whether a pod can read its zone from its own labels', () => {
  test.each([
    [undefined, undefined, false],
    ['1.34.9', undefined, false],
    ['1.35', undefined, true],
    ['v1.36.1-gke.100', undefined, true],
    ['2.0', undefined, true],
    ['1.35', 'example.com/rack', false], // Kubernetes copies only topology.kubernetes.io/zone
  ])('version %p, key %p: %p', (kubernetesVersion, topologyKey, carried) => {
    const t = new ZoneTopology({ zones: ['a', 'b'], kubernetesVersion, topologyKey });
    expect(t.podsCarryZoneLabel).toBe(carried);
    expect(t.kubernetesVersion).toBe(kubernetesVersion);
  });

  test('refuses what is not a version', () => {
    expect(() => new ZoneTopology({ zones: ['a'], kubernetesVersion: 'latest' }))
      .toThrow("ZoneTopology: kubernetesVersion=\"latest\" is not a Kubernetes version like '1.35' or 'v1.35.2'");
  });
});
