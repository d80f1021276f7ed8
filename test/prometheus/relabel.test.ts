import { RelabelAction, ShardRelabeling, ZoneTopology } from '../../src';

const topology = new ZoneTopology({ zones: ['eu-1a', 'eu.1b', 'eu-1c'] });

describe('ShardRelabeling.forShard', () => {
  test('zone from the EndpointSlice, then the node label; unknown zones cleared; zone kept; in-zone hashmod', () => {
    const rules = ShardRelabeling.forShard({ topology, zone: 'eu.1b', inZoneIndex: 1, zoneShards: 3 });
    expect(ShardRelabeling.toPrometheusConfig(rules)).toEqual([
      {
        source_labels: ['__meta_kubernetes_endpointslice_endpoint_zone', '__tmp_topology'],
        regex: '(.+);',
        target_label: '__tmp_topology',
        replacement: '$1',
        action: 'replace',
      },
      {
        source_labels: [
          '__meta_kubernetes_node_label_topology_kubernetes_io_zone', '__meta_kubernetes_node_labelpresent_topology_kubernetes_io_zone', '__tmp_topology',
        ],
        regex: '(.+);true;',
        target_label: '__tmp_topology',
        replacement: '$1',
        action: 'replace',
      },
      // a zone outside the topology is cleared, so the first zone's shards take the target
      { source_labels: ['__tmp_topology'], regex: '(eu-1a|eu\\.1b|eu-1c)|.*', target_label: '__tmp_topology', replacement: '$1', action: 'replace' },
      // the zone name is regex-escaped: 'eu.1b' must not match 'euX1b'
      { source_labels: ['__tmp_topology', '__tmp_disable_sharding'], regex: 'eu\\.1b;|.*;.+', action: 'keep' },
      { source_labels: ['__address__', '__tmp_hash'], regex: '(.+);', target_label: '__tmp_hash', replacement: '$1', action: 'replace' },
      { source_labels: ['__tmp_hash'], target_label: '__tmp_hash', modulus: 3, action: 'hashmod' },
      { source_labels: ['__tmp_hash', '__tmp_disable_sharding'], regex: '1;|.+;.+', action: 'keep' },
    ]);
  });

  test('the first zone also keeps targets without a known zone', () => {
    const keep = ShardRelabeling.forShard({ topology, zone: 'eu-1a' }).find((r) => r.action === RelabelAction.KEEP);
    expect(keep?.regex).toBe('(?:eu-1a)?;|.*;.+');
  });

  test('Kubernetes >= 1.35: the pod label (KEP-4742) replaces the node label', () => {
    const at = (kubernetesVersion: string) => new ZoneTopology({ zones: topology.zones, kubernetesVersion });
    for (const version of ['1.35', 'v1.35.2', '1.36', '2.0']) {
      const sources = ShardRelabeling.forShard({ topology: at(version), zone: 'eu-1a' }).map((r) => r.sourceLabels?.[0]);
      expect(sources).toContain('__meta_kubernetes_pod_label_topology_kubernetes_io_zone');
      expect(sources).not.toContain('__meta_kubernetes_node_label_topology_kubernetes_io_zone');
    }
    const older = ShardRelabeling.forShard({ topology: at('1.34.9'), zone: 'eu-1a' }).map((r) => r.sourceLabels?.[0]);
    expect(older).not.toContain('__meta_kubernetes_pod_label_topology_kubernetes_io_zone');
  });

  test('a custom topology key exists only on nodes: no EndpointSlice or pod rule, the sanitized node label', () => {
    const custom = new ZoneTopology({ zones: ['r1', 'r2'], topologyKey: 'example.com/rack-zone', kubernetesVersion: '1.35' });
    const rules = ShardRelabeling.forShard({ topology: custom, zone: 'r2' });
    expect(rules[0].sourceLabels).toEqual([
      '__meta_kubernetes_node_label_example_com_rack_zone', '__meta_kubernetes_node_labelpresent_example_com_rack_zone', '__tmp_topology',
    ]);
    expect(rules.flatMap((r) => r.sourceLabels ?? []).filter((l) => l.includes('endpointslice') || l.includes('_pod_'))).toEqual([]);
  });

  test('probes hash __param_target', () => {
    const rules = ShardRelabeling.forShard({ topology, zone: 'eu-1c', zoneShards: 2, hashLabel: '__param_target' });
    expect(rules.find((r) => r.targetLabel === '__tmp_hash')?.sourceLabels).toEqual(['__param_target', '__tmp_hash']);
  });

  test.each([
    [{ zone: 'eu-1d' }, "ShardRelabeling.forShard: zone=\"eu-1d\" is not one of the topology's zones [eu-1a, eu.1b, eu-1c]"],
    [{ zone: 'eu-1a', inZoneIndex: 2, zoneShards: 2 }, 'ShardRelabeling.forShard: inZoneIndex=2 must be an integer from 0 to zoneShards - 1 = 1'],
    [{ zone: 'eu-1a', zoneShards: 0 }, 'ShardRelabeling.forShard: zoneShards=0 must be an integer from 1 to 2147483647'],
    [{ zone: 'eu-1a', hashLabel: 'not-a-label' }, 'ShardRelabeling.forShard: hashLabel="not-a-label" is not a Prometheus label name'],
  ])('%j is refused', (props, message) => {
    expect(() => ShardRelabeling.forShard({ topology, ...props })).toThrow(message);
  });
});

describe('ShardRelabeling.byAddress and the two spellings', () => {
  test('classic address sharding, in prometheus-operator spelling', () => {
    expect(ShardRelabeling.toOperator(ShardRelabeling.byAddress(2, 5))).toEqual([
      { sourceLabels: ['__address__', '__tmp_hash'], regex: '(.+);', targetLabel: '__tmp_hash', replacement: '$1', action: 'replace' },
      { sourceLabels: ['__tmp_hash'], targetLabel: '__tmp_hash', modulus: 5, action: 'hashmod' },
      { sourceLabels: ['__tmp_hash', '__tmp_disable_sharding'], regex: '2;|.+;.+', action: 'keep' },
    ]);
  });

  test('a rule without an action renders as replace; separator is kept', () => {
    expect(ShardRelabeling.toPrometheusConfig([{ sourceLabels: ['a', 'b'], separator: '/', targetLabel: 'c' }]))
      .toEqual([{ source_labels: ['a', 'b'], separator: '/', target_label: 'c', action: 'replace' }]);
  });

  test.each([
    [5, 5, 'ShardRelabeling.byAddress: index=5 must be an integer from 0 to 4'],
    [0, 0, 'ShardRelabeling.byAddress: shards=0 must be an integer from 1 to 2147483647'],
  ])('byAddress(%d, %d) is refused', (index, shards, message) => {
    expect(() => ShardRelabeling.byAddress(index, shards)).toThrow(message);
  });
});
