/**
 * ECK's Elasticsearch read through its model (src/check/operator-models/rows/eck.ts): a StatefulSet per nodeSet,
 * master-eligible voters, its default anti-affinity, zone awareness and the spread it adds.
 */
import { allZones, check, errors, row, skippedMessages, ZONES } from './helpers';

const es = (nodeSets: object[], version = 'v1') => ({
  apiVersion: `elasticsearch.k8s.elastic.co/${version}`,
  kind: 'Elasticsearch',
  metadata: { name: 'logs', namespace: 'search' },
  spec: { version: '9.1.0', nodeSets },
});

test('one nodeSet of 3 with every role and zoneAwareness: a hard zone spread, one pod per zone, survives any zone', () => {
  const r = check(es([{ name: 'default', count: 3, zoneAwareness: {} }]));
  expect(row(r, 'StatefulSet', 'logs-es-default').perZone).toEqual(
    Object.fromEntries(ZONES.map((z) => [z, { guaranteed: 1, worstCase: 1 }])));
  expect(row(r, 'Elasticsearch', 'logs')).toMatchObject({ survives: allZones(true), needed: 2 });
});

test('without zoneAwareness: only the default preferred anti-affinity on hosts, so all 3 masters may share a zone', () => {
  const system = row(check(es([{ name: 'default', count: 3 }])), 'Elasticsearch', 'logs');
  expect(system.survives).toEqual(allZones(false));
  expect(errors(system).map((f) => f.message)).toEqual([
    'Elasticsearch logs does not survive losing zone-a, zone-b, zone-c: losing zone-a, zone-b, zone-c leaves 0 of its 3 voters ' +
    'in the worst case; it needs a majority, 2 (master election (a majority of the master-eligible nodes): 3 voters)',
    'Elasticsearch logs does not survive losing zone-a, zone-b, zone-c: losing zone-a, zone-b, zone-c may take 2 of an item\'s 2 copies ' +
    '(nothing places the copies in different zones); it needs 1 (every shard keeps a copy (index.number_of_replicas 1 assumed, ' +
    'Elasticsearch\'s default: 2 copies): 1 of 2 copies)',
  ]);
});

test('zone-aware masters, data nodes without it: the data nodeSet only requires the zone key, so its copies may share a zone', () => {
  const r = check(es([
    { name: 'masters', count: 3, config: { 'node.roles': ['master'] }, zoneAwareness: {} },
    { name: 'data', count: 2, config: { node: { roles: ['data'] } } },
  ]));
  const system = row(r, 'Elasticsearch', 'logs');
  expect(system.neededBecause).toContain('3 voters');
  expect(errors(system).map((f) => f.message)).toEqual([expect.stringContaining('may take 2 of an item\'s 2 copies;')]);
  // with awareness on for the data nodes too, copies sit in different zones
  const aware = check(es([
    { name: 'masters', count: 3, config: { 'node.roles': ['master'] }, zoneAwareness: {} },
    { name: 'data', count: 3, config: { 'node.roles': ['data_hot'] }, zoneAwareness: {} },
  ]));
  expect(row(aware, 'Elasticsearch', 'logs').survives).toEqual(allZones(true));
});

test('zoneAwareness.zones limits the nodeSet to those zones: 3 masters over 2 zones, one zone holds 2 of them', () => {
  const r = check(es([{ name: 'default', count: 3, zoneAwareness: { zones: ['zone-a', 'zone-b'] } }]));
  expect(row(r, 'StatefulSet', 'logs-es-default').perZone['zone-c']).toEqual({ guaranteed: 0, worstCase: 0 });
  expect(row(r, 'Elasticsearch', 'logs').survives).toEqual({ 'zone-a': false, 'zone-b': false, 'zone-c': true });
});

test('node.master false or roles without master: not a voter; a single master is lost with its zone', () => {
  const r = check(es([
    { name: 'master', count: 1, config: { 'node.roles': ['master'] }, zoneAwareness: {} },
    { name: 'data', count: 3, config: { 'node.master': false, 'node.roles': ['master', 'data'] }, zoneAwareness: {} },
  ]));
  expect(row(r, 'Elasticsearch', 'logs').neededBecause).toContain(': 1 voters');
  expect(Object.values(row(r, 'Elasticsearch', 'logs').survives).filter((s) => !s)).toHaveLength(3);
});

test('an unmodelled version and a nodeSet with no count are named', () => {
  expect(skippedMessages(check(es([{ name: 'd', count: 3 }], 'v1beta1')))[0]).toContain('is elasticsearch.k8s.elastic.co/v1beta1, a version the ECK v3.5.0 model does not know');
  expect(skippedMessages(check(es([{ name: 'd' }])))).toEqual(['Elasticsearch search/logs sets no spec.nodeSets[0].count: not checked']);
});
