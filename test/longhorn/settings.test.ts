import { AntiAffinity, LonghornDataLocality, LonghornReplicaAutoBalance, LonghornSettings } from '../../src';
import { synth, testChart } from '../util';

describe('LonghornSettings', () => {
  test('emits one Setting per given value, named after the setting, with a top-level string value', () => {
    const chart = testChart();
    const settings = new LonghornSettings(chart, 'longhorn', {
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      storageOverProvisioningPercentage: 150,
      storageMinimalAvailablePercentage: 10,
      replicaAutoBalance: LonghornReplicaAutoBalance.LEAST_EFFORT,
      defaultReplicaCount: 2,
      defaultDataLocality: LonghornDataLocality.BEST_EFFORT,
      allowEmptyNodeSelectorVolume: false,
      allowEmptyDiskSelectorVolume: true,
      storageReservedPercentageForDefaultDisk: 20,
      extraSettings: { 'replica-replenishment-wait-interval': '600' },
    });
    const manifests = synth(chart);
    expect(manifests).toMatchSnapshot();
    expect(manifests.map((m) => [m.kind, m.metadata.name, m.metadata.namespace, m.value])).toEqual([
      ['Setting', 'allow-empty-disk-selector-volume', 'longhorn-system', 'true'],
      ['Setting', 'allow-empty-node-selector-volume', 'longhorn-system', 'false'],
      ['Setting', 'default-data-locality', 'longhorn-system', 'best-effort'],
      ['Setting', 'default-replica-count', 'longhorn-system', '2'],
      ['Setting', 'replica-auto-balance', 'longhorn-system', 'least-effort'],
      ['Setting', 'replica-disk-soft-anti-affinity', 'longhorn-system', 'false'],
      ['Setting', 'replica-replenishment-wait-interval', 'longhorn-system', '600'],
      ['Setting', 'replica-soft-anti-affinity', 'longhorn-system', 'true'],
      ['Setting', 'replica-zone-soft-anti-affinity', 'longhorn-system', 'false'],
      ['Setting', 'storage-minimal-available-percentage', 'longhorn-system', '10'],
      ['Setting', 'storage-over-provisioning-percentage', 'longhorn-system', '150'],
      ['Setting', 'storage-reserved-percentage-for-default-disk', 'longhorn-system', '20'],
    ]);
    for (const m of manifests) {
      expect(m.apiVersion).toBe('longhorn.io/v1beta2');
      expect(m.spec).toBeUndefined();
    }
    expect(settings.values['replica-soft-anti-affinity']).toBe('true');
  });

  test('scheduling: the given values, and Longhorn defaults for the rest', () => {
    const settings = new LonghornSettings(testChart(), 's', {
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      namespace: 'lh',
    });
    expect(settings.scheduling).toMatchObject({
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.ENABLED,
      storageOverProvisioningPercentage: 100,
      storageMinimalAvailablePercentage: 25,
    });
    expect(Object.keys(settings.values)).toEqual(['replica-soft-anti-affinity']);
  });

  test.each([
    [{}, "LonghornSettings 'test/s': no setting given"],
    [{ replicaDiskSoftAntiAffinity: AntiAffinity.IGNORED }, "LonghornSettings 'test/s': replicaDiskSoftAntiAffinity=\"ignored\" must be ENABLED or DISABLED"],
    [{ storageMinimalAvailablePercentage: 120 }, 'storageMinimalAvailablePercentage=120 must be an integer from 0 to 100'],
    [{ defaultReplicaCount: 0 }, 'defaultReplicaCount=0 must be an integer from 1 to 20'],
    [{ replicaSoftAntiAffinity: AntiAffinity.ENABLED, extraSettings: { 'replica-soft-anti-affinity': 'false' } },
      'extraSettings.replica-soft-anti-affinity="false" conflicts with the typed prop that sets it to "true"'],
    [{ extraSettings: { 'Bad Name': '1' } }, 'extraSettings.Bad Name="1" is not a Longhorn setting name'],
    [{ extraSettings: { 'x-y': 1 as any } }, 'extraSettings["x-y"]=1 must be a string'],
  ])('refuses %j', (props, message) => {
    expect(() => new LonghornSettings(testChart(), 's', props)).toThrow(message);
  });
});
