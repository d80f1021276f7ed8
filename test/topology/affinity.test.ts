import { FailureDomain, ZoneAffinity, ZoneTopology } from '../../src';
import { requiredZoneAffinity } from '../../src/topology/affinity';

const zones = new ZoneTopology({ zones: ['a', 'b', 'c'] });
const regional = new ZoneTopology({ zones: ['a', 'b'], region: 'eu-1' });
const podLabels = { app: 'db' };

describe('ZoneAffinity', () => {
  test.each([
    [zones, 'b', [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['b'] }]],
    [regional, 'a', [
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] },
      { key: 'topology.kubernetes.io/region', operator: 'In', values: ['eu-1'] },
    ]],
  ])('requiredZoneAffinity(%#) requires the zone (and region)', (topology, zone, expressions) => {
    expect(requiredZoneAffinity(topology, [zone])).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: expressions }] },
    });
  });

  test('restrictToZones requires every zone of the topology', () => {
    expect(ZoneAffinity.restrictToZones(zones).requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms)
      .toEqual([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b', 'c'] }] }]);
  });

  test.each([
    [FailureDomain.ZONE, true, undefined, {
      requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: podLabels } }],
    }],
    [FailureDomain.HOST, true, undefined, {
      requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: podLabels } }],
    }],
    [FailureDomain.ZONE, false, undefined, {
      preferredDuringSchedulingIgnoredDuringExecution: [{
        weight: 100, podAffinityTerm: { topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: podLabels } },
      }],
    }],
    [FailureDomain.HOST, false, 30, {
      preferredDuringSchedulingIgnoredDuringExecution: [{
        weight: 30, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: podLabels } },
      }],
    }],
  ])('podAntiAffinity by %s, required=%s, weight=%s', (domain, required, weight, expected) => {
    expect(ZoneAffinity.podAntiAffinity({ topology: zones, domain, podLabels, required, weight })).toEqual(expected);
  });

  test.each([
    [{ required: false, weight: 0 }, 'ZoneAffinity.podAntiAffinity: weight=0 must be an integer from 1 to 100'],
    [{ required: false, weight: 101 }, 'weight=101 must be an integer from 1 to 100'],
    [{ required: true, weight: 50 }, 'weight=50 only applies to a preferred rule (required: false)'],
    [{ selector: { matchLabels: { app: 'web' } } }, 'selector={"matchLabels":{"app":"web"}} does not match the pod labels {"app":"db"}'],
  ])('podAntiAffinity rejects %j', (options, message) => {
    const build = () => ZoneAffinity.podAntiAffinity({
      topology: zones, domain: FailureDomain.HOST, podLabels, ...options,
    });
    expect(build).toThrow(message);
  });
});
