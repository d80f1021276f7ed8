import { Testing } from 'cdk8s';
import { build } from './main';

describe('example loki-operator-3-zones', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('one LokiStack replicating over the zone key with factor 3, no deprecated replicationFactor', () => {
    const stacks = manifests.filter((m) => m.kind === 'LokiStack');
    expect(stacks.map((s) => [
      s.metadata.namespace, s.metadata.name, s.spec.replication, s.spec.replicationFactor,
    ])).toEqual([
      ['logging', 'logs', { factor: 3, zones: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1 }] }, undefined],
    ]);
  });
});
