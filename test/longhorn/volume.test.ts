import { Duration, Size } from 'cdk8s';
import {
  AntiAffinity, LonghornDataEngine, LonghornDataLocality, LonghornInventory, LonghornReplicaAutoBalance, LonghornVolume,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';
import { only, synth, testChart } from '../util';

const threeDisks = new LonghornInventory({
  nodes: [{ name: 'n1', disks: ['sda', 'sdb', 'sdc'].map((name) => ({ name, capacity: Size.tebibytes(1) })) }],
});

describe('LonghornVolume', () => {
  test('emits a longhorn.io/v1beta2 Volume with the overrides, the size in bytes as a string', () => {
    const chart = testChart();
    const volume = new LonghornVolume(chart, 'db', {
      name: 'db-data',
      size: Size.gibibytes(20),
      numberOfReplicas: 3,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.IGNORED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      dataLocality: LonghornDataLocality.DISABLED,
      replicaAutoBalance: LonghornReplicaAutoBalance.IGNORED,
      dataEngine: LonghornDataEngine.V1,
      diskSelector: ['ssd'],
      nodeSelector: ['storage'],
      staleReplicaTimeout: Duration.minutes(30),
      extraSpec: { accessMode: 'rwo', frontend: 'blockdev' },
    });
    const manifests = synth(chart);
    expect(manifests).toMatchSnapshot();
    const obj = only(manifests, 'Volume', 'db-data');
    expect(obj.apiVersion).toBe('longhorn.io/v1beta2');
    expect(obj.metadata.namespace).toBe('longhorn-system');
    expect(obj.spec).toEqual({
      size: '21474836480',
      numberOfReplicas: 3,
      replicaSoftAntiAffinity: 'enabled',
      replicaZoneSoftAntiAffinity: 'ignored',
      replicaDiskSoftAntiAffinity: 'disabled',
      dataLocality: 'disabled',
      replicaAutoBalance: 'ignored',
      dataEngine: 'v1',
      diskSelector: ['ssd'],
      nodeSelector: ['storage'],
      staleReplicaTimeout: 30,
      accessMode: 'rwo',
      frontend: 'blockdev',
    });
    expect(volume.size).toBeInstanceOf(Size);
    expect(volume.size.toKibibytes() * 1024).toBe(21474836480);
    expect(volume.name).toBe('db-data');
  });

  test('story 3 of the seed: a high-priority volume with hard disk anti-affinity fails synth when disks run out', () => {
    const chart = testChart();
    expect(() => new LonghornVolume(chart, 'critical', {
      size: Size.gibibytes(10),
      numberOfReplicas: 4,
      inventory: threeDisks,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
    })).toThrow("LonghornVolume 'test/critical': numberOfReplicas=4 cannot be placed on the inventory: replica 4 of 4 cannot be " +
      'scheduled: 4 replicas need 4 disks without a replica of this volume (disk anti-affinity is hard: ' +
      'replicaDiskSoftAntiAffinity=disabled); node n1 has 3 disks');
  });

  test('the same volume with 3 replicas is placed one per disk, with no warning', () => {
    const chart = testChart();
    const volume = new LonghornVolume(chart, 'critical', {
      size: Size.gibibytes(10),
      numberOfReplicas: 3,
      inventory: threeDisks,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
    });
    expect(volume.placement!.replicas.map((r) => r.disk)).toEqual(['sda', 'sdb', 'sdc']);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('the size is checked against the disks: a volume too large for them fails synth', () => {
    expect(() => new LonghornVolume(testChart(), 'big', {
      size: Size.tebibytes(2), numberOfReplicas: 1, inventory: threeDisks,
    })).toThrow('no disk has room for another 2Ti replica');
  });

  test('defaults: generated name, longhorn-system, only the size', () => {
    const chart = testChart();
    const volume = new LonghornVolume(chart, 'plain', { size: Size.gibibytes(1), namespace: 'storage' });
    const obj = only(synth(chart), 'Volume');
    expect(obj.metadata).toMatchObject({ name: volume.name, namespace: 'storage' });
    expect(obj.spec).toEqual({ size: '1073741824' });
  });

  test('extraSpec takes strings, numbers and booleans, written as given', () => {
    const chart = testChart();
    new LonghornVolume(chart, 'v', {
      size: Size.gibibytes(1), extraSpec: { accessMode: 'rwx', snapshotMaxCount: 10, encrypted: true },
    });
    expect(only(synth(chart), 'Volume').spec).toEqual({
      size: '1073741824', accessMode: 'rwx', snapshotMaxCount: 10, encrypted: true,
    });
  });

  test.each([
    [{ size: Size.kibibytes(1000000000 / 1024) }, "LonghornVolume 'test/v': size=[Size 976562.5Ki] must be a positive multiple of 2Mi (2097152 bytes): Longhorn would round it up to 954Mi"],
    [{ size: Size.kibibytes(0) }, 'size=[Size 0Ki] must be larger than zero'],
    [{ size: Size.gibibytes(NaN) }, 'size=[Size NaNGi] must be a finite, non-negative size'],
    [{ size: '5Gi' as any }, 'size="5Gi" must be a cdk8s Size, e.g. Size.gibibytes(10) (not a string such as \'10Gi\')'],
    [{ size: Size.gibibytes(1), numberOfReplicas: 0 }, "LonghornVolume 'test/v': numberOfReplicas=0 must be an integer from 1 to 20"],
    [{ size: Size.gibibytes(1), numberOfReplicas: 3, dataLocality: LonghornDataLocality.STRICT_LOCAL }, 'numberOfReplicas=3 must be 1 with dataLocality strict-local'],
    [{ size: Size.gibibytes(1), extraSpec: { size: '5' } }, 'extraSpec.size="5" conflicts with the typed prop that sets size="1073741824"'],
    [{ size: Size.gibibytes(1), extraSpec: { frontend: { kind: 'blockdev' } as any } },
      "extraSpec[\"frontend\"]={\"kind\":\"blockdev\"} must be a string, a finite number or true/false (the fields of a Longhorn Volume's spec are scalars)"],
    [{ size: Size.gibibytes(1), extraSpec: { snapshotMaxCount: Infinity } }, 'extraSpec["snapshotMaxCount"]=Infinity must be a string, a finite number or true/false'],
    [{ size: Size.gibibytes(1), inventory: threeDisks, nodeSelector: ['gpu'] }, 'nodeSelector[0]="gpu" is a tag no node of the inventory has'],
  ])('refuses %j', (props, message) => {
    expect(() => new LonghornVolume(testChart(), 'v', props)).toThrow(message);
  });

  test('a volume left at the global defaults on one node relaxes the zone and warns about nothing it could avoid', () => {
    const chart = testChart();
    const inventory = new LonghornInventory({
      nodes: ['n1', 'n2', 'n3'].map((name) => ({ name, zone: 'only', disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] })),
    });
    const volume = new LonghornVolume(chart, 'v', { size: Size.gibibytes(10), inventory });
    expect(volume.placement!.replicas.map((r) => r.node)).toEqual(['n1', 'n2', 'n3']);
    expect(volume.placement!.notes).toContain('zone only holds replicas 1, 2, 3: the inventory has 1 zone for this volume, so sharing it is unavoidable');
    expect(warningsOf(chart)).toEqual([]);
  });
});
