/**
 * An operator's pod sets named after zones (an ECK nodeSet per zone) stay members of their operator's resource:
 * they are not taken for a zone group by their names.
 */
import { check, row } from './helpers';

test('ECK nodeSets named zone-a, zone-b, zone-c: one Elasticsearch system, no zone group', () => {
  const nodeSets = ['zone-a', 'zone-b', 'zone-c'].map((z) => ({ name: z, count: 1, zoneAwareness: { zones: [z] } }));
  const r = check({ apiVersion: 'elasticsearch.k8s.elastic.co/v1', kind: 'Elasticsearch', metadata: { name: 'logs' }, spec: { nodeSets } });
  expect(r.workloads.filter((w) => w.kind === 'ZoneGroup')).toEqual([]);
  expect(row(r, 'Elasticsearch', 'logs').members).toEqual(['zone-a', 'zone-b', 'zone-c'].map((z) => `StatefulSet/-/logs-es-${z}`));
  expect(row(r, 'StatefulSet', 'logs-es-zone-a').zoneGroup).toBe('logs');
});
