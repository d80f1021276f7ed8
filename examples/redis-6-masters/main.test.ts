import { Testing } from 'cdk8s';
import { build } from './main';

describe('example redis-6-masters', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('four pods per zone, two of them masters (the manager scales each zone\'s StatefulSet to the layout: no replicas in it)', () => {
    expect(manifests.filter((m) => m.kind === 'StatefulSet').map((s) => [s.metadata.name, s.spec.replicas])).toEqual([
      ['cache-zone-a', undefined], ['cache-zone-b', undefined], ['cache-zone-c', undefined],
    ]);
    const layout = JSON.parse(manifests.find((m) => m.metadata.name === 'cache-layout').data['layout.json']);
    for (const zone of ['zone-a', 'zone-b', 'zone-c']) {
      expect(layout.nodes.filter((n: any) => n.zone === zone)).toHaveLength(4);
      expect(layout.nodes.filter((n: any) => n.zone === zone && n.role === 'master')).toHaveLength(2);
    }
  });
});
