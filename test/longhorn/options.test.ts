import { Size } from 'cdk8s';
import {
  AntiAffinity, AntiAffinityLevel, LonghornDataLocality, LonghornInventory, LonghornPlacement, LonghornPlacementRequest,
  LonghornReplicaAutoBalance,
} from '../../src';
import { LONGHORN_DEFAULTS, resolveScheduling, resolveSettings } from '../../src/longhorn/options';

/** Plans on a small inventory: the public API that validates a request and resolves its options. */
const plan = (request: LonghornPlacementRequest) => LonghornPlacement.plan(new LonghornInventory({
  nodes: [1, 2, 3].map((n) => ({ name: `n${n}`, disks: [{ name: 'd', capacity: Size.gibibytes(100) }] })),
}), request);

describe('resolveSettings', () => {
  test("fills in Longhorn's defaults", () => {
    expect(resolveSettings('t')).toEqual(LONGHORN_DEFAULTS);
    expect(LONGHORN_DEFAULTS).toMatchObject({
      replicaSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.ENABLED,
      storageOverProvisioningPercentage: 100,
      storageMinimalAvailablePercentage: 25,
      defaultReplicaCount: 3,
    });
  });

  test.each([
    [{ replicaSoftAntiAffinity: AntiAffinity.IGNORED }, 'LonghornPlacement.plan: settings.replicaSoftAntiAffinity="ignored" must be ENABLED or DISABLED'],
    [{ storageMinimalAvailablePercentage: 101 }, 'settings.storageMinimalAvailablePercentage=101 must be an integer from 0 to 100'],
    [{ storageOverProvisioningPercentage: -1 }, 'settings.storageOverProvisioningPercentage=-1 must be an integer from 0 to 2147483647'],
    [{ defaultReplicaCount: 0 }, 'settings.defaultReplicaCount=0 must be an integer from 1 to 20'],
    [{ defaultReplicaCount: 21 }, 'settings.defaultReplicaCount=21 must be an integer from 1 to 20'],
    [{ replicaAutoBalance: LonghornReplicaAutoBalance.IGNORED }, 'settings.replicaAutoBalance="ignored" must not be IGNORED'],
    [{ defaultDataLocality: 'nearby' as any },
      'settings.defaultDataLocality="nearby" must be one of LonghornDataLocality.DISABLED ("disabled"), LonghornDataLocality.BEST_EFFORT ("best-effort"), LonghornDataLocality.STRICT_LOCAL ("strict-local")'],
  ])('refuses the settings %j', (settings, message) => {
    expect(() => plan({ settings })).toThrow(message);
  });
});

describe('resolveScheduling', () => {
  const hard = (r: ReturnType<typeof resolveScheduling>) => Object.fromEntries(r.levels.map((l) => [l.level, l.hard]));

  test('unset and IGNORED levels fall back to the global settings, and the origin says which decided', () => {
    const r = resolveScheduling('t', {
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaZoneSoftAntiAffinity: AntiAffinity.IGNORED,
    });
    expect(hard(r)).toEqual({ zone: false, node: true, disk: true });
    expect(r.levels.map((l) => l.origin)).toEqual([
      'the global replica-zone-soft-anti-affinity=true',
      'the global replica-soft-anti-affinity=false',
      'replicaDiskSoftAntiAffinity=disabled',
    ]);
    expect(r.replicas).toBe(3);
  });

  test('global settings decide when the volume does not', () => {
    const r = resolveScheduling('t', {
      settings: {
        replicaSoftAntiAffinity: AntiAffinity.ENABLED,
        replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED,
        defaultReplicaCount: 2,
      },
    });
    expect(hard(r)).toEqual({ zone: true, node: false, disk: false });
    expect(r.replicas).toBe(2);
    expect(r.levels.find((l) => l.level === AntiAffinityLevel.ZONE)!.origin).toBe('the global replica-zone-soft-anti-affinity=false');
  });

  test.each([
    [{ numberOfReplicas: 0 }, 'LonghornPlacement.plan: numberOfReplicas=0 must be an integer from 1 to 20'],
    [{ numberOfReplicas: -2 }, 'numberOfReplicas=-2 must be an integer from 1 to 20'],
    [{ numberOfReplicas: 1.5 }, 'numberOfReplicas=1.5 must be an integer from 1 to 20'],
    [{ numberOfReplicas: 21 }, 'numberOfReplicas=21 must be an integer from 1 to 20'],
    [{ numberOfReplicas: 2, dataLocality: LonghornDataLocality.STRICT_LOCAL },
      'LonghornPlacement.plan: numberOfReplicas=2 must be 1 with dataLocality strict-local: Longhorn keeps the only replica on the node the volume is attached to'],
    [{ settings: { defaultDataLocality: LonghornDataLocality.STRICT_LOCAL } }, 'numberOfReplicas=3 must be 1 with dataLocality strict-local'],
    [{ diskSelector: ['ssd', ''] }, 'diskSelector[1]="" must be a non-empty tag without commas or whitespace'],
    [{ nodeSelector: ['a,b'] }, 'nodeSelector[0]="a,b" must be a non-empty tag'],
    [{ replicaSoftAntiAffinity: 'maybe' as any },
      'replicaSoftAntiAffinity="maybe" must be one of AntiAffinity.IGNORED ("ignored"), AntiAffinity.ENABLED ("enabled"), AntiAffinity.DISABLED ("disabled")'],
    [{ dataEngine: 'v3' as any }, 'dataEngine="v3" must be one of LonghornDataEngine.V1 ("v1"), LonghornDataEngine.V2 ("v2")'],
  ])('refuses %j', (options, message) => {
    expect(() => plan(options)).toThrow(message);
  });

  test('strict-local with one replica is fine', () => {
    const strictLocal = resolveScheduling('t', { numberOfReplicas: 1, dataLocality: LonghornDataLocality.STRICT_LOCAL });
    expect(strictLocal.replicas).toBe(1);
  });
});
