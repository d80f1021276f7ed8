import { Chart, Size, Testing } from 'cdk8s';
import { build, threeZones, ThreeZoneStorageChart } from './main';
import { AntiAffinity, LonghornStorageClass, LonghornVolume } from '../../src';
import { warningsOf } from '../../src/shared/warnings';
import { STANDARD_VARIANT } from '../../test/example-variants';

describe('example longhorn-3-zones', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const chart = app.charts[0] as ThreeZoneStorageChart;
  const planned = (id: string) => {
    const planner = chart.node.findChild(id) as LonghornStorageClass | LonghornVolume;
    return planner.placement!.replicas;
  };

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('zone anti-affinity is hard cluster-wide', () => {
    expect(manifests.filter((m) => m.kind === 'Setting').map((m) => [m.metadata.name, m.value])).toEqual([
      ['allow-empty-disk-selector-volume', 'false'],
      ['replica-auto-balance', 'least-effort'],
      ['replica-zone-soft-anti-affinity', 'false'],
    ]);
    expect(manifests.filter((m) => m.kind === 'StorageClass').map((m) => m.parameters)).toEqual([
      { numberOfReplicas: '3' },
      { numberOfReplicas: '3', diskSelector: 'ssd' },
    ]);
  });

  test('every class and volume has one replica per zone, on the node with the most room, never on the cordoned node', () => {
    for (const id of ['zonal', 'zonal-ssd', 'archive']) {
      expect(planned(id).map((r) => r.zone)).toEqual(expect.arrayContaining(['zone-a', 'zone-b', 'zone-c']));
      expect(planned(id).map((r) => r.node)).not.toContain('c2');
      expect(planned(id).every((r) => r.relaxed.length === 0)).toBe(true);
    }
    // Untagged volumes stay on the default disks: in zone-a, a2 (nothing scheduled) rather than a1 (400Gi);
    // in zone-b, b1 (empty) rather than b2 (200Gi).
    expect(planned('zonal').map((r) => `${r.node}/${r.disk}`)).toEqual(['a2/default', 'b1/default', 'c1/default']);
    expect(planned('zonal-ssd').map((r) => `${r.node}/${r.disk}`)).toEqual(['a1/nvme', 'b1/nvme', 'c1/nvme']);
    // 400Gi more does not fit a1's default disk: 400Gi scheduled + 400Gi > 724Gi (1Ti - 300Gi reserved).
    expect(planned('archive').map((r) => `${r.node}/${r.disk}`)).toEqual(['a2/default', 'b1/default', 'c1/default']);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('a fourth replica cannot get its own zone: synth fails and names the zone level', () => {
    expect(() => new LonghornVolume(new Chart(Testing.app(), 'more'), 'four', {
      size: Size.gibibytes(10),
      numberOfReplicas: 4,
      inventory: threeZones(STANDARD_VARIANT.zones),
      settings: { replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED },
    })).toThrow('4 replicas need 4 zones without a replica of this volume (zone anti-affinity is hard: the global ' +
      'replica-zone-soft-anti-affinity=false); only 3 zones have a disk that can hold a replica: zone-a, zone-b, zone-c');
  });
});
