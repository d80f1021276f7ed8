/**
 * Every Longhorn custom resource this library emits passes the upstream CRD schemas (../shared/crds,
 * strict about unknown fields): both examples and a table of configurations that sets every typed prop.
 */
import { App, Chart, Duration, Size, Testing } from 'cdk8s';
import { build as buildThreeZones } from '../../../examples/longhorn-3-zones/main';
import { build as buildSingleNode } from '../../../examples/longhorn-single-node-3-disks/main';
import {
  AntiAffinity, LonghornDataEngine, LonghornDataLocality, LonghornReplicaAutoBalance, LonghornSettings, LonghornVolume,
  LonghornVolumeProps,
} from '../../../src';
import { CrdSchemas } from '../crd-schema';

const schemas = CrdSchemas.fromShared();

function manifestsOf(build: (app: App) => void): any[] {
  const app = Testing.app();
  build(app);
  return app.charts.flatMap((chart) => Testing.synth(chart));
}

function longhornObjects(manifests: any[]): any[] {
  return manifests.filter((m) => m.apiVersion === 'longhorn.io/v1beta2');
}

describe('Longhorn custom resources against the upstream CRDs', () => {
  test.each([
    ['longhorn-single-node-3-disks', buildSingleNode, 3],
    ['longhorn-3-zones', buildThreeZones, 4],
  ])('example %s: every Volume and Setting is valid', (_name, build, count) => {
    const objects = longhornObjects(manifestsOf(build));
    expect(objects).toHaveLength(count);
    for (const object of objects) {
      expect(schemas.covers(object)).toBe(true);
      expect(schemas.errors(object)).toEqual([]);
    }
  });

  const volumes: [string, LonghornVolumeProps][] = [
    ['only a size', { size: Size.gibibytes(10) }],
    ['every typed field', {
      size: Size.gibibytes(20),
      numberOfReplicas: 3,
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      dataLocality: LonghornDataLocality.BEST_EFFORT,
      replicaAutoBalance: LonghornReplicaAutoBalance.BEST_EFFORT,
      dataEngine: LonghornDataEngine.V2,
      diskSelector: ['ssd', 'fast'],
      nodeSelector: ['storage'],
      staleReplicaTimeout: Duration.hours(48),
    }],
    ['IGNORED everywhere', {
      size: Size.mebibytes(2),
      replicaSoftAntiAffinity: AntiAffinity.IGNORED,
      replicaZoneSoftAntiAffinity: AntiAffinity.IGNORED,
      replicaDiskSoftAntiAffinity: AntiAffinity.IGNORED,
      replicaAutoBalance: LonghornReplicaAutoBalance.IGNORED,
    }],
    ['strict-local with one replica', { size: Size.tebibytes(1), numberOfReplicas: 1, dataLocality: LonghornDataLocality.STRICT_LOCAL }],
    ['escape hatch fields', { size: Size.gibibytes(5), extraSpec: { accessMode: 'rwx', frontend: 'blockdev', snapshotMaxCount: 10 } }],
  ];
  test.each(volumes)('Volume with %s is valid', (_name, props) => {
    const chart = new Chart(Testing.app(), 'c');
    new LonghornVolume(chart, 'v', props);
    const [volume] = Testing.synth(chart);
    expect(schemas.errors(volume)).toEqual([]);
  });

  test('every typed setting is a valid Setting', () => {
    const chart = new Chart(Testing.app(), 'c');
    new LonghornSettings(chart, 's', {
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      storageOverProvisioningPercentage: 200,
      storageMinimalAvailablePercentage: 10,
      replicaAutoBalance: LonghornReplicaAutoBalance.LEAST_EFFORT,
      defaultReplicaCount: 2,
      defaultDataLocality: LonghornDataLocality.BEST_EFFORT,
      allowEmptyNodeSelectorVolume: false,
      allowEmptyDiskSelectorVolume: false,
      storageReservedPercentageForDefaultDisk: 20,
      extraSettings: { 'replica-replenishment-wait-interval': '600' },
    });
    const settings = Testing.synth(chart);
    expect(settings).toHaveLength(12);
    for (const setting of settings) expect(schemas.errors(setting)).toEqual([]);
  });

  test('the schemas do catch a broken Volume and Setting (the check above can fail)', () => {
    const chart = new Chart(Testing.app(), 'c');
    new LonghornVolume(chart, 'v', {
      size: Size.gibibytes(1),
      extraSpec: { replicaSoftAntiAffinity: 'sometimes', numberOfReplica: 3 },
    });
    const [volume] = Testing.synth(chart);
    const errors = schemas.errors(volume).join('\n');
    expect(errors).toMatch(/\/spec\/replicaSoftAntiAffinity must be equal to one of the allowed values/);
    expect(errors).toMatch(/\/spec must NOT have additional properties \(numberOfReplica\)/);
    expect(schemas.errors({ apiVersion: 'longhorn.io/v1beta2', kind: 'Setting', metadata: { name: 'x' }, spec: { value: 'true' } }).join('\n'))
      .toMatch(/must have required property 'value'/);
  });
});
