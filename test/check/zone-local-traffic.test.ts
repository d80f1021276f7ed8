/**
 * Services that keep clients in their zone (trafficDistribution PreferSameZone / PreferClose): the check notes one
 * whose pods may be absent from some zone in the worst case, since clients there then cross zones.
 */
import { ZoneInventory, ZoneReport } from '../../src';
import { ZONE_LOCAL_TRAFFIC_GAP } from '../../src/check/zone-local-traffic';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const check = (...objects: any[]) => ZoneReport.analyze(objects, ZoneInventory.equalNodes(['a', 'b', 'c'], 2));
const gaps = (...objects: any[]) => check(...objects).data.findings.filter((f) => f.rule === ZONE_LOCAL_TRAFFIC_GAP);
/** A required node selector: nodes in one of `zones`. */
const inZones = (zones: string[]) => ({
  nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: zones }] }],
});

function deployment(
  name: string,
  replicas: number,
  opts: { maxSkew?: number; hard?: boolean; namespace?: string; pod?: any } = {},
): any {
  const spread = opts.hard === false ? [] : [{
    topologyKey: ZONE_KEY,
    maxSkew: opts.maxSkew ?? 1,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app: name } },
  }];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'web' } },
        spec: { containers: [{ name: 'c', image: 'x' }], topologySpreadConstraints: spread, ...opts.pod },
      },
    },
  };
}
const service = (name: string, selector: any, trafficDistribution?: string, namespace?: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { selector, ports: [{ port: 80 }], ...(trafficDistribution ? { trafficDistribution } : {}) },
});

describe('zone-local-traffic-gap', () => {
  test('3 replicas under a hard zone spread over 3 zones: every zone holds one, nothing to note', () => {
    expect(gaps(deployment('web', 3), service('web', { app: 'web' }, 'PreferSameZone'))).toEqual([]);
  });

  test('2 replicas over 3 zones: any zone may hold none, so the note names every zone, the Service and its pods', () => {
    const [gap, ...rest] = gaps(deployment('web', 2), service('web', { app: 'web' }, 'PreferSameZone'));
    expect(rest).toEqual([]);
    expect(gap.severity).toBe('info');
    expect(gap.message).toContain('Service web');
    expect(gap.message).toContain('PreferSameZone');
    expect(gap.message).toContain('Deployment web');
    expect(gap.message).toContain('zone(s) a, b, c');
  });

  test('PreferClose, the older name, is read the same way', () => {
    expect(gaps(deployment('web', 2), service('web', { app: 'web' }, 'PreferClose'))).toHaveLength(1);
  });

  test('4 replicas with maxSkew 2 over 3 zones: one zone may stay empty', () => {
    expect(gaps(deployment('web', 4, { maxSkew: 2 }), service('web', { app: 'web' }, 'PreferSameZone'))).toHaveLength(1);
    expect(gaps(deployment('web', 5, { maxSkew: 2 }), service('web', { app: 'web' }, 'PreferSameZone'))).toEqual([]);
  });

  test('no hard spread: 6 replicas may all share a zone', () => {
    expect(gaps(deployment('web', 6, { hard: false }), service('web', { app: 'web' }, 'PreferSameZone'))).toHaveLength(1);
  });

  test('pods that cannot run in a zone (node affinity) leave it without an endpoint, whatever the replicas', () => {
    const pod = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: inZones(['a', 'b']) } } };
    const [gap] = gaps(deployment('web', 6, { pod }), service('web', { app: 'web' }, 'PreferSameZone'));
    expect(gap.message).toContain('zone(s) c');
  });

  test('two workloads behind one Service: the zones they cover together count', () => {
    const a = deployment('a', 1, { pod: { nodeSelector: { [ZONE_KEY]: 'a' } } });
    const inBOrC = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: inZones(['b', 'c']) } };
    const rest = deployment('rest', 6, { pod: { affinity: inBOrC } });
    expect(gaps(a, rest, service('all', { tier: 'web' }, 'PreferSameZone'))).toEqual([]);
    expect(gaps(a, service('all', { tier: 'web' }, 'PreferSameZone'))[0].message).toContain('zone(s) b, c');
  });

  test('nothing to note without trafficDistribution, for another namespace\'s pods, or a Service selecting no workload', () => {
    expect(gaps(deployment('web', 1), service('web', { app: 'web' }))).toEqual([]);
    expect(gaps(deployment('web', 1, { namespace: 'x' }), service('web', { app: 'web' }, 'PreferSameZone', 'y'))).toEqual([]);
    expect(gaps(deployment('web', 1), service('other', { app: 'other' }, 'PreferSameZone'))).toEqual([]);
  });

  test('a malformed Service (no selector, a selector of numbers) is no crash and no note', () => {
    const malformed = (spec: unknown) => ({ kind: 'Service', metadata: { name: 's' }, spec });
    expect(gaps(deployment('web', 1), malformed({ trafficDistribution: 'PreferSameZone' }))).toEqual([]);
    expect(gaps(deployment('web', 1), malformed({ trafficDistribution: 'PreferSameZone', selector: { app: 1 } }))).toEqual([]);
    expect(gaps(deployment('web', 1), malformed(null))).toEqual([]);
  });
});
