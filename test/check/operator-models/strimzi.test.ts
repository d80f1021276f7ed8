/**
 * Strimzi's Kafka and node pools read through their model (src/check/operator-models/rows/strimzi.ts).
 */
import { allZones, check, errors, hardZoneSpread, pinnedTo, row, skippedMessages, ZONE_KEY, ZONES } from './helpers';
import { ZoneInventory, ZoneReport } from '../../../src';

describe('Strimzi Kafka with node pools', () => {
  const kafka = (spec: object = {}) => ({
    apiVersion: 'kafka.strimzi.io/v1',
    kind: 'Kafka',
    metadata: { name: 'events', namespace: 'kafka' },
    spec: { kafka: { config: { 'default.replication.factor': 3, 'min.insync.replicas': '2' }, ...spec } },
  });
  const pool = (name: string, roles: string[], replicas: number, template?: object) => ({
    apiVersion: 'kafka.strimzi.io/v1',
    kind: 'KafkaNodePool',
    metadata: { name, namespace: 'kafka', labels: { 'strimzi.io/cluster': 'events' } },
    spec: {
      replicas,
      roles,
      storage: { type: 'persistent-claim', size: '10Gi', class: 'fast' },
      ...(template ? { template: { pod: template } } : {}),
    },
  });
  const poolSpread = (poolName: string) => ({ topologySpreadConstraints: [hardZoneSpread({ 'strimzi.io/pool-name': poolName })] });

  test('pools spread hard over the zones and a rack on the zone key: one pod set per pool, the system survives any zone', () => {
    const r = check(kafka({ rack: { topologyKey: ZONE_KEY } }), pool('controllers', ['controller'], 3, poolSpread('controllers')),
      pool('brokers', ['broker'], 3, poolSpread('brokers')));
    const system = row(r, 'Kafka', 'events');
    expect(system).toMatchObject({
      namespace: 'kafka',
      replicas: 6,
      members: ['StrimziPodSet/kafka/events-controllers', 'StrimziPodSet/kafka/events-brokers'],
      survives: allZones(true),
    });
    expect(system.neededBecause).toContain('2 of 3 copies (spec.kafka.config["min.insync.replicas"] 2; spec.kafka.config["default.replication.factor"] 3)');
    const brokers = row(r, 'StrimziPodSet', 'events-brokers');
    expect(brokers).toMatchObject({ replicas: 3, zoneGroup: 'events', perZone: { 'zone-a': { guaranteed: 1, worstCase: 1 } } });
    // the operator's labels, which the user's spread selects by
    expect(r.workloads.filter((w) => w.kind === 'StrimziPodSet').map((w) => w.name)).toEqual(['events-controllers', 'events-brokers']);
  });

  test('the same pools without a rack: one broker per zone holds at most one replica of a partition, so it survives', () => {
    const r = check(kafka(), pool('controllers', ['controller'], 3, poolSpread('controllers')), pool('brokers', ['broker'], 3, poolSpread('brokers')));
    expect(row(r, 'Kafka', 'events').survives).toEqual(allZones(true));
  });

  test('six brokers two per zone without a rack: a zone may hold 2 of a partition\'s 3 replicas, fewer than min.insync 2 left', () => {
    const r = check(kafka(), pool('controllers', ['controller'], 3, poolSpread('controllers')), pool('brokers', ['broker'], 6, poolSpread('brokers')));
    const system = row(r, 'Kafka', 'events');
    expect(system.survives).toEqual(allZones(false));
    expect(errors(system).map((f) => f.message)).toEqual([
      'Kafka events does not survive losing zone-a, zone-b, zone-c: losing zone-a, zone-b, zone-c may take 2 of an item\'s 3 copies ' +
      '(nothing places the copies in different zones); it needs 2 (every partition keeps min.insync.replicas in-sync replicas for acks=all ' +
      'writes: 2 of 3 copies (spec.kafka.config["min.insync.replicas"] 2; spec.kafka.config["default.replication.factor"] 3))',
    ]);
    // with the rack on the zone key, Kafka puts them in 3 racks: one per zone
    const racked = check(kafka({ rack: { topologyKey: ZONE_KEY } }), pool('controllers', ['controller'], 3, poolSpread('controllers')),
      pool('brokers', ['broker'], 6, poolSpread('brokers')));
    expect(row(racked, 'Kafka', 'events').survives).toEqual(allZones(true));
  });

  test('no spread: the 3 controllers may share a zone, the KRaft quorum is lost with it; its members say so too', () => {
    const r = check(kafka({ rack: { topologyKey: ZONE_KEY } }), pool('dual', ['controller', 'broker'], 3));
    const system = row(r, 'Kafka', 'events');
    expect(errors(system)[0].message).toContain('losing zone-a, zone-b, zone-c leaves 0 of its 3 voters in the worst case; it needs a majority, 2');
    expect(row(r, 'StrimziPodSet', 'events-dual').survives).toEqual(allZones(false));
  });

  test('the rack adds a required node affinity "<key> Exists" to brokers only: nodes without the key take no broker', () => {
    const r = ZoneReport.analyze([kafka({ rack: { topologyKey: 'example.com/rack' } }), pool('controllers', ['controller'], 3, poolSpread('controllers')),
      pool('brokers', ['broker'], 3, poolSpread('brokers'))], ZoneInventory.equalNodes(ZONES, 3));
    expect(row(r, 'StrimziPodSet', 'events-brokers').pendingWorstCase).toBe(3);
    expect(row(r, 'StrimziPodSet', 'events-controllers').pendingWorstCase).toBe(0);
  });

  test('the pool\'s template.pod replaces the Kafka\'s; the Kafka\'s applies to pools without one', () => {
    const r = check(kafka({ template: { pod: { affinity: pinnedTo('zone-a') } } }), pool('controllers', ['controller'], 3, poolSpread('controllers')),
      pool('brokers', ['broker'], 3));
    expect(row(r, 'StrimziPodSet', 'events-controllers').perZone['zone-b'].guaranteed).toBe(1);
    expect(row(r, 'StrimziPodSet', 'events-brokers').perZone).toMatchObject({ 'zone-a': { guaranteed: 3 }, 'zone-b': { worstCase: 0 } });
  });

  test('its PodDisruptionBudget (all pods less maxUnavailable 1) blocks draining a zone that holds two of its pods', () => {
    const r = check(kafka(), pool('brokers', ['broker', 'controller'], 3, { affinity: pinnedTo('zone-a') }));
    expect(row(r, 'Kafka', 'events').zoneLoss.find((l) => l.zone === 'zone-a')!.drainBlocked).toBe(true);
  });

  test('node pools without their Kafka, a Kafka without pools, an old version: each named, none guessed', () => {
    expect(skippedMessages(check(pool('brokers', ['broker'], 3)))).toEqual(['KafkaNodePool kafka/brokers is part of Kafka events, which is not in the input: not checked']);
    expect(skippedMessages(check(kafka()))).toEqual([
      'Kafka kafka/events makes its pods from KafkaNodePools labelled strimzi.io/cluster=events, none of which is in the input: not checked',
    ]);
    expect(skippedMessages(check({ ...kafka(), apiVersion: 'kafka.strimzi.io/v1alpha1' }))[0])
      .toBe('Kafka kafka/events is kafka.strimzi.io/v1alpha1, a version the Strimzi 1.2.0 model does not know (it knows v1, v1beta2): not guessed: not checked');
  });

  test('fields of the wrong type: a finding naming the field, never an exception', () => {
    expect(skippedMessages(check(kafka(), pool('brokers', ['broker'], 'three' as unknown as number)))).toEqual([
      'Kafka kafka/events has KafkaNodePool brokers: spec.replicas "three", not a whole number from 0 to 2147483647: not checked',
    ]);
    const bad = check({ ...kafka(), spec: { kafka: { config: { 'min.insync.replicas': { two: 2 } } } } }, pool('b', ['broker', 'controller'], 3));
    expect(skippedMessages(bad)[0]).toContain('has spec.kafka.config["min.insync.replicas"] {"two":2}, not a whole number');
  });
});

