import { Chart, Testing } from 'cdk8s';
import { build, SINGLE_NODE, SingleNodeStorageChart } from './main';
import { AntiAffinity, LonghornStorageClass, LonghornVolume } from '../../src';
import { warningsOf } from '../../src/shared/warnings';

describe('example longhorn-single-node-3-disks', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const chart = app.charts[0] as SingleNodeStorageChart;

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('the settings let replicas share the node; the strict class and the critical volume forbid sharing a disk', () => {
    expect(manifests.filter((m) => m.kind === 'Setting').map((m) => [m.metadata.name, m.value])).toEqual([
      ['replica-disk-soft-anti-affinity', 'true'],
      ['replica-soft-anti-affinity', 'true'],
    ]);
    const classes = Object.fromEntries(manifests
      .filter((m) => m.kind === 'StorageClass')
      .map((m) => [m.metadata.name, m.parameters]));
    expect(classes).toEqual({
      'longhorn-mirrored': { numberOfReplicas: '3' },
      'longhorn-mirrored-strict': { numberOfReplicas: '3', replicaDiskSoftAntiAffinity: 'disabled' },
    });
    const volume = manifests.find((m) => m.kind === 'Volume');
    expect(volume.spec).toEqual({ size: String(150 * 2 ** 30), numberOfReplicas: 3, replicaDiskSoftAntiAffinity: 'disabled' });
  });

  test('every class and volume puts one replica on each disk, even though nvme0 is four times larger', () => {
    const planned = chart.node.findAll()
      .filter((c): c is LonghornStorageClass | LonghornVolume =>
        c instanceof LonghornStorageClass || c instanceof LonghornVolume)
      .map((c) => [c.node.id, c.placement!.replicas.map((r) => `${r.node}/${r.disk}`)]);
    expect(planned).toEqual([
      ['mirrored', ['storage-1/nvme0', 'storage-1/sata0', 'storage-1/sata1']],
      ['mirrored-strict', ['storage-1/nvme0', 'storage-1/sata0', 'storage-1/sata1']],
      ['critical', ['storage-1/nvme0', 'storage-1/sata0', 'storage-1/sata1']],
    ]);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('a fourth replica: the soft class doubles up on a disk with a warning, the strict one fails synth', () => {
    const scope = new Chart(Testing.app(), 'more');
    const settings = { replicaSoftAntiAffinity: AntiAffinity.ENABLED };
    new LonghornStorageClass(scope, 'soft', { numberOfReplicas: 4, inventory: SINGLE_NODE, settings });
    expect(warningsOf(scope)).toEqual([expect.stringMatching(/^more\/soft: degraded placement: disk storage-1\/nvme0 holds replicas 1, 4/)]);
    expect(() => new LonghornStorageClass(scope, 'strict', {
      numberOfReplicas: 4, replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED, inventory: SINGLE_NODE, settings,
    })).toThrow('4 replicas need 4 disks without a replica of this volume (disk anti-affinity is hard: ' +
      'replicaDiskSoftAntiAffinity=disabled); node storage-1 has 3 disks');
  });
});
