import * as fc from 'fast-check';
import {
  NodeInclusionPolicy, RevisionLabel, TopologySpread, WhenUnsatisfiable, ZoneTopology,
} from '../../src';
import { selectorMatches } from '../../src/kubernetes/label-selector';

const zones3 = new ZoneTopology({ zones: ['a', 'b', 'c'] });
const podLabels = { 'app.kubernetes.io/name': 'web' };

describe('TopologySpread.acrossZones', () => {
  test('defaults: maxSkew 1, DoNotSchedule, minDomains = number of zones, selector = pod labels', () => {
    expect(TopologySpread.acrossZones({ topology: zones3, podLabels })).toEqual({
      topologyKey: 'topology.kubernetes.io/zone',
      maxSkew: 1,
      whenUnsatisfiable: 'DoNotSchedule',
      minDomains: 3,
      labelSelector: { matchLabels: podLabels },
    });
  });

  test.each([
    // [options, expected fields]
    [{ maxSkew: 2 }, { maxSkew: 2, minDomains: 3 }],
    [{ minDomains: 2 }, { minDomains: 2 }],
    [{ whenUnsatisfiable: WhenUnsatisfiable.SCHEDULE_ANYWAY }, { whenUnsatisfiable: 'ScheduleAnyway', minDomains: undefined }],
    [{ matchLabelKeys: [RevisionLabel.POD_TEMPLATE_HASH] }, { matchLabelKeys: ['pod-template-hash'] }],
    [{ nodeAffinityPolicy: NodeInclusionPolicy.IGNORE, nodeTaintsPolicy: NodeInclusionPolicy.HONOR },
      { nodeAffinityPolicy: 'Ignore', nodeTaintsPolicy: 'Honor' }],
  ])('%j', (options, expected) => {
    expect(TopologySpread.acrossZones({ topology: zones3, podLabels, ...options })).toMatchObject(expected);
  });

  describe('where node taints are honored, one zone may be out of service', () => {
    const spread = (topology: ZoneTopology, options = {}) =>
      TopologySpread.acrossZones({ topology, podLabels, ...options });
    const zones = (n: number, kubernetesVersion?: string) =>
      new ZoneTopology({ zones: ['a', 'b', 'c', 'd'].slice(0, n), kubernetesVersion });

    test.each([
      // [zones, kubernetesVersion, nodeTaintsPolicy, minDomains]
      [3, '1.33', 'Honor', 2],
      [3, '1.35', 'Honor', 2],
      [4, '1.34', 'Honor', 3],
      [2, '1.33', 'Honor', undefined],
      [3, '1.32', undefined, 3],
      [3, undefined, undefined, 3],
      [2, '1.32', undefined, 2],
    ])('%i zones on Kubernetes %s: nodeTaintsPolicy %s, minDomains %s', (n, version, policy, minDomains) => {
      const c = spread(zones(n, version));
      expect(c.nodeTaintsPolicy).toBe(policy);
      expect(c.minDomains).toBe(minDomains);
    });

    test("the user's policy wins, and minDomains follows it", () => {
      expect(spread(zones(3, '1.35'), { nodeTaintsPolicy: NodeInclusionPolicy.IGNORE }))
        .toMatchObject({ nodeTaintsPolicy: 'Ignore', minDomains: 3 });
      expect(spread(zones(3), { nodeTaintsPolicy: NodeInclusionPolicy.HONOR }))
        .toMatchObject({ nodeTaintsPolicy: 'Honor', minDomains: 2 });
      expect(spread(zones(3, '1.35'), { minDomains: 3 })).toMatchObject({ nodeTaintsPolicy: 'Honor', minDomains: 3 });
    });

    test('a soft spread gets Honor but no minDomains', () => {
      expect(spread(zones(3, '1.35'), { whenUnsatisfiable: WhenUnsatisfiable.SCHEDULE_ANYWAY }))
        .toMatchObject({ nodeTaintsPolicy: 'Honor', minDomains: undefined });
    });
  });

  test('a custom topology key and a narrower selector', () => {
    const racks = new ZoneTopology({ zones: ['r1', 'r2'], topologyKey: 'example.com/rack' });
    const c = TopologySpread.acrossZones({
      topology: racks,
      podLabels: { app: 'db', role: 'primary' },
      selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] },
    });
    expect(c.topologyKey).toBe('example.com/rack');
    expect(c.minDomains).toBe(2);
    expect(c.labelSelector).toEqual({ matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] });
  });

  test.each([
    [{ maxSkew: 0 }, 'TopologySpread.acrossZones: maxSkew=0 must be an integer from 1 to 2147483647'],
    [{ maxSkew: 1.5 }, 'TopologySpread.acrossZones: maxSkew=1.5 must be an integer from 1 to 2147483647'],
    [{ whenUnsatisfiable: WhenUnsatisfiable.SCHEDULE_ANYWAY, minDomains: 2 },
      'TopologySpread.acrossZones: minDomains=2 is only allowed with whenUnsatisfiable=DoNotSchedule (got ScheduleAnyway)'],
    [{ minDomains: 4 }, 'TopologySpread.acrossZones: minDomains=4 exceeds the 3 zone(s) of the topology'],
    [{ minDomains: 0 }, 'TopologySpread.acrossZones: minDomains=0 must be an integer from 1 to 2147483647'],
    [{ matchLabelKeys: ['app.kubernetes.io/name'] },
      'TopologySpread.acrossZones: matchLabelKeys="app.kubernetes.io/name" is also a key of the label selector'],
    [{ matchLabelKeys: ['pod-template-hash', 'pod-template-hash'] }, 'matchLabelKeys="pod-template-hash" is listed twice'],
    [{ matchLabelKeys: ['bad key'] }, 'matchLabelKeys[0]="bad key" is not a valid label key'],
    [{ selector: { matchLabels: { app: 'other' } } },
      'TopologySpread.acrossZones: selector={"matchLabels":{"app":"other"}} does not match the pod labels {"app.kubernetes.io/name":"web"}'],
    [{ podLabels: {} }, 'TopologySpread.acrossZones: selector={"matchLabels":{}} is empty'],
  ])('rejects %j', (options, message) => {
    expect(() => TopologySpread.acrossZones({ topology: zones3, podLabels, ...options })).toThrow(message);
  });
});

describe('TopologySpread.acrossHosts', () => {
  test('defaults: soft, on the hostname key, no minDomains', () => {
    expect(TopologySpread.acrossHosts({ topology: zones3, podLabels })).toEqual({
      topologyKey: 'kubernetes.io/hostname',
      maxSkew: 1,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: podLabels },
    });
  });

  test('a hard host spread may ask for more domains than zones', () => {
    const c = TopologySpread.acrossHosts({
      topology: zones3,
      podLabels,
      whenUnsatisfiable: WhenUnsatisfiable.DO_NOT_SCHEDULE,
      minDomains: 9,
    });
    expect(c).toMatchObject({ whenUnsatisfiable: 'DoNotSchedule', minDomains: 9 });
  });

  test('rejects minDomains on a soft host spread', () => {
    expect(() => TopologySpread.acrossHosts({ topology: zones3, podLabels, minDomains: 2 }))
      .toThrow('TopologySpread.acrossHosts: minDomains=2 is only allowed with whenUnsatisfiable=DoNotSchedule');
  });
});

describe('properties', () => {
  const labelName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
  const zoneSets = fc.uniqueArray(labelName, { minLength: 1, maxLength: 8 });
  const labelSets = fc.dictionary(labelName, labelName, { minKeys: 1, maxKeys: 5 });

  test('for random zones and options the constraint is valid and counts the pod itself', () => {
    fc.assert(fc.property(
      zoneSets,
      labelSets,
      fc.integer({ min: 1, max: 10 }),
      fc.boolean(),
      fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      (zones, labels, maxSkew, hard, minDomains) => {
        const topology = new ZoneTopology({ zones });
        const when = hard ? WhenUnsatisfiable.DO_NOT_SCHEDULE : WhenUnsatisfiable.SCHEDULE_ANYWAY;
        const build = () => TopologySpread.acrossZones({
          topology, podLabels: labels, maxSkew, whenUnsatisfiable: when, minDomains,
        });
        if (minDomains !== undefined && (!hard || minDomains > zones.length)) {
          expect(build).toThrow(/minDomains/);
          return;
        }
        const c = build();
        expect(c.maxSkew).toBeGreaterThanOrEqual(1);
        expect(c.topologyKey).toBe(topology.topologyKey);
        expect(selectorMatches(c.labelSelector as any, labels)).toBe(true);
        if (hard) {
          expect(c.minDomains).toBe(minDomains ?? zones.length);
          expect(c.minDomains!).toBeLessThanOrEqual(zones.length);
        } else {
          expect(c.minDomains).toBeUndefined();
        }
      }));
  });

  test('a selector that does not match the pod labels is always rejected', () => {
    fc.assert(fc.property(zoneSets, labelSets, labelName, (zones, labels, value) => {
      const [key] = Object.keys(labels);
      fc.pre(labels[key] !== value);
      const topology = new ZoneTopology({ zones });
      const selector = { matchLabels: { [key]: value } };
      expect(() => TopologySpread.acrossZones({ topology, podLabels: labels, selector }))
        .toThrow(/does not match the pod labels/);
    }));
  });
});
