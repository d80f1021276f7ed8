import { Duration, Size } from 'cdk8s';
import { PersistentVolumeReclaimPolicy } from 'cdk8s-plus-28';
import {
  AntiAffinity, LonghornDataEngine, LonghornDataLocality, LonghornInventory, LonghornReplicaAutoBalance,
  LonghornSettings, LonghornStorageClass, VolumeBindingMode,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';
import { only, synth, testChart } from '../util';

const singleNode = new LonghornInventory({
  nodes: [{
    name: 'n1',
    disks: [{ name: 'sda', capacity: Size.gibibytes(500) }, { name: 'sdb', capacity: Size.gibibytes(500) }],
  }],
});

describe('LonghornStorageClass', () => {
  test('emits a driver.longhorn.io StorageClass with every typed parameter as a string', () => {
    const chart = testChart();
    new LonghornStorageClass(chart, 'fast', {
      name: 'longhorn-fast',
      numberOfReplicas: 2,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      dataLocality: LonghornDataLocality.BEST_EFFORT,
      diskSelector: ['ssd', 'fast'],
      nodeSelector: ['storage'],
      replicaAutoBalance: LonghornReplicaAutoBalance.LEAST_EFFORT,
      staleReplicaTimeout: Duration.hours(24),
      dataEngine: LonghornDataEngine.V1,
      volumeBindingMode: VolumeBindingMode.WAIT_FOR_FIRST_CONSUMER,
      allowVolumeExpansion: false,
      reclaimPolicy: PersistentVolumeReclaimPolicy.RETAIN,
      defaultClass: true,
      extraParameters: { fsType: 'xfs' },
    });
    const manifests = synth(chart);
    expect(manifests).toMatchSnapshot();
    const sc = only(manifests, 'StorageClass', 'longhorn-fast');
    expect(sc).toMatchObject({
      apiVersion: 'storage.k8s.io/v1',
      provisioner: 'driver.longhorn.io',
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: false,
      metadata: {
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        labels: { 'app.kubernetes.io/managed-by': 'cdk8s-zones', 'app.kubernetes.io/component': 'storage-class' },
      },
    });
    expect(sc.parameters).toEqual({
      numberOfReplicas: '2',
      staleReplicaTimeout: '1440',
      replicaSoftAntiAffinity: 'enabled',
      replicaZoneSoftAntiAffinity: 'disabled',
      replicaDiskSoftAntiAffinity: 'disabled',
      dataLocality: 'best-effort',
      replicaAutoBalance: 'least-effort',
      dataEngine: 'v1',
      diskSelector: 'ssd,fast',
      nodeSelector: 'storage',
      fsType: 'xfs',
    });
    for (const value of Object.values(sc.parameters)) expect(typeof value).toBe('string');
  });

  test('defaults: only what was set, Immediate binding, expansion allowed, Delete', () => {
    const chart = testChart();
    const sc = new LonghornStorageClass(chart, 'plain');
    const obj = only(synth(chart), 'StorageClass');
    expect(obj).toEqual({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: sc.name, labels: expect.any(Object) },
      provisioner: 'driver.longhorn.io',
      parameters: {},
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
      allowVolumeExpansion: true,
    });
    expect(sc.placement).toBeUndefined();
  });

  test('story 2 of the seed: hard disk anti-affinity with more replicas than disks fails synth, naming the level', () => {
    const chart = testChart();
    expect(() => new LonghornStorageClass(chart, 'mirror', {
      inventory: singleNode,
      numberOfReplicas: 3,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
    })).toThrow("LonghornStorageClass 'test/mirror': numberOfReplicas=3 cannot be placed on the inventory: replica 3 of 3 cannot be " +
      'scheduled: 3 replicas need 3 disks without a replica of this volume (disk anti-affinity is hard: ' +
      'replicaDiskSoftAntiAffinity=disabled); node n1 has 2 disks');
  });

  test('story 1: soft disk anti-affinity does its best and warns about the shared disk', () => {
    const chart = testChart();
    const sc = new LonghornStorageClass(chart, 'best', {
      inventory: singleNode,
      numberOfReplicas: 3,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.ENABLED,
      representativeVolumeSize: Size.gibibytes(50),
    });
    expect(sc.placement!.replicas.map((r) => r.disk)).toEqual(['sda', 'sdb', 'sda']);
    expect(warningsOf(chart)).toEqual([
      'test/best: degraded placement: disk n1/sda holds replicas 1, 3 (disk anti-affinity is soft: replicaDiskSoftAntiAffinity=enabled); ' +
      'losing that disk loses 2 of 3 replicas',
    ]);
  });

  test('the global settings decide the levels the class leaves unset', () => {
    const chart = testChart();
    const settings = new LonghornSettings(chart, 'settings', { replicaSoftAntiAffinity: AntiAffinity.ENABLED });
    expect(() => new LonghornStorageClass(chart, 'default-node', { inventory: singleNode, numberOfReplicas: 2 }))
      .toThrow('node anti-affinity is hard: the global replica-soft-anti-affinity=false');
    const sc = new LonghornStorageClass(chart, 'with-settings', {
      inventory: singleNode,
      numberOfReplicas: 2,
      settings: settings.scheduling,
    });
    expect(sc.placement!.complete).toBe(true);
    expect(only(synth(chart), 'StorageClass', sc.name).parameters).toEqual({ numberOfReplicas: '2' });
  });

  test('a representative size that fits no disk fails synth with the capacity numbers', () => {
    const chart = testChart();
    expect(() => new LonghornStorageClass(chart, 'huge', {
      inventory: singleNode, numberOfReplicas: 1, representativeVolumeSize: Size.gibibytes(600),
    })).toThrow('no disk has room for another 600Gi replica: n1/sda has 0 scheduled; another 600Gi exceeds the 500Gi allowed');
  });

  test.each([
    [{ numberOfReplicas: 0 }, "LonghornStorageClass 'test/sc': numberOfReplicas=0 must be an integer from 1 to 20"],
    [{ numberOfReplicas: 2, dataLocality: LonghornDataLocality.STRICT_LOCAL }, 'numberOfReplicas=2 must be 1 with dataLocality strict-local'],
    [{ inventory: singleNode, diskSelector: ['nvme'] }, 'diskSelector[0]="nvme" is a tag no disk of the inventory has (disk tags: none)'],
    [{ inventory: singleNode, nodeSelector: ['storage'] }, 'nodeSelector[0]="storage" is a tag no node of the inventory has'],
    [{ representativeVolumeSize: Size.gibibytes(10) }, 'representativeVolumeSize=[Size 10Gi] is only used by the placement check: give an inventory too'],
    [{ staleReplicaTimeout: Duration.seconds(90) }, 'staleReplicaTimeout="1 minute 30 seconds" must be a whole number of minutes, at least 1'],
    [{ numberOfReplicas: 2, extraParameters: { numberOfReplicas: '3' } },
      'extraParameters.numberOfReplicas="3" conflicts with the typed prop that sets numberOfReplicas="2": set it one way'],
  ])('refuses %j', (props, message) => {
    expect(() => new LonghornStorageClass(testChart(), 'sc', props)).toThrow(message);
  });
});
