/**
 * Operators' resources read through their models (src/check/operator-models): the pod sets each operator makes,
 * with the labels, counts and pod spec fields its source gives them, judged as one system by what it needs.
 */
import { ZoneInventory, ZoneReport } from '../../src';
import { WorkloadReport } from '../../src/check/model';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const check = (...objects: unknown[]) => ZoneReport.analyze(objects, ZoneInventory.equalNodes(ZONES, 3));
const row = (r: ZoneReport, kind: string, name: string) => r.workloads.find((w) => w.kind === kind && w.name === name)!;
const allZones = (survives: boolean) => Object.fromEntries(ZONES.map((z) => [z, survives]));
const errors = (w: WorkloadReport) => w.findings.filter((f) => f.severity === 'error');
const skippedMessages = (r: ZoneReport) => r.data.findings.filter((f) => f.rule === 'object-skipped').map((f) => f.message);

/** Pinned to one zone by a required node affinity. */
const pinnedTo = (zone: string) => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }],
    },
  },
});
const hardZoneSpread = (labels: Record<string, string>) => ({
  topologyKey: ZONE_KEY, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels },
});

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
      'Kafka kafka/events has item.spec.replicas "three", not a whole number: not checked',
    ]);
    const bad = check({ ...kafka(), spec: { kafka: { config: { 'min.insync.replicas': { two: 2 } } } } }, pool('b', ['broker', 'controller'], 3));
    expect(skippedMessages(bad)[0]).toContain('has spec.kafka.config["min.insync.replicas"] {"two":2}, not a whole number');
  });
});

describe('RabbitMQ cluster-operator', () => {
  const rabbit = (spec: object = {}, annotations?: Record<string, string>) => ({
    apiVersion: 'rabbitmq.com/v1beta1',
    kind: 'RabbitmqCluster',
    metadata: { name: 'mq', namespace: 'apps', ...(annotations ? { annotations } : {}) },
    spec: { replicas: 3, ...spec },
  });
  const nameLabel = { 'app.kubernetes.io/name': 'mq' };

  test('the default spread is soft (ScheduleAnyway): all 3 nodes may share a zone, pause_minority then stops the cluster', () => {
    const r = check(rabbit());
    expect(row(r, 'StatefulSet', 'mq-server').perZone['zone-a']).toEqual({ guaranteed: 0, worstCase: 3 });
    expect(row(r, 'RabbitmqCluster', 'mq').survives).toEqual(allZones(false));
  });

  test('the documented production override (a hard zone spread, merged by topologyKey over the default): survives any zone', () => {
    const podSpec = { topologySpreadConstraints: [hardZoneSpread(nameLabel)] };
    const override = { statefulSet: { spec: { template: { spec: podSpec } } } };
    const r = check(rabbit({ override }));
    expect(row(r, 'RabbitmqCluster', 'mq')).toMatchObject({ survives: allZones(true), needed: 2, members: ['StatefulSet/apps/mq-server'] });
    expect(row(r, 'StatefulSet', 'mq-server').perZone['zone-c']).toEqual({ guaranteed: 1, worstCase: 1 });
  });

  test('the override\'s replicas win over spec.replicas; unset, 1 replica: one zone loses it', () => {
    expect(row(check(rabbit({ override: { statefulSet: { spec: { replicas: 5 } } } })), 'StatefulSet', 'mq-server').replicas).toBe(5);
    const single = check({ apiVersion: 'rabbitmq.com/v1beta1', kind: 'RabbitmqCluster', metadata: { name: 'one' } });
    expect(row(single, 'StatefulSet', 'one-server')).toMatchObject({ replicas: 1, replicasFrom: 'the operator\'s default (spec.replicas unset: 1)' });
    expect(row(single, 'RabbitmqCluster', 'one').survives).toEqual(allZones(false));
  });
});

describe('cass-operator CassandraDatacenter', () => {
  const dc = (spec: object) => ({
    apiVersion: 'cassandra.datastax.com/v1beta1',
    kind: 'CassandraDatacenter',
    metadata: { name: 'dc1', namespace: 'db' },
    spec: {
      clusterName: 'Prod_Cluster',
      serverType: 'cassandra',
      storageConfig: { cassandraDataVolumeClaimSpec: { storageClassName: 'ssd' } },
      ...spec,
    },
  });

  test('three racks, each pinned to a zone by nodeAffinityLabels: one replica of each token range per zone, survives any zone', () => {
    const racks = ZONES.map((z, i) => ({ name: `r${i + 1}`, nodeAffinityLabels: { [ZONE_KEY]: z } }));
    const r = check(dc({ size: 7, racks }));
    // 7 split 3/2/2 in rack order; names cleaned as the operator cleans them
    expect(r.workloads.filter((w) => w.kind === 'StatefulSet').map((w) => [w.name, w.replicas])).toEqual([
      ['prod-cluster-dc1-r1-sts', 3], ['prod-cluster-dc1-r2-sts', 2], ['prod-cluster-dc1-r3-sts', 2],
    ]);
    expect(row(r, 'CassandraDatacenter', 'dc1').survives).toEqual(allZones(true));
  });

  test('racks not pinned to zones: a zone may hold every rack, and all 3 replicas of a token range', () => {
    const r = check(dc({ size: 3, racks: [{ name: 'r1' }, { name: 'r2' }, { name: 'r3' }] }));
    expect(errors(row(r, 'CassandraDatacenter', 'dc1'))[0].message).toContain('may take 3 of an item\'s 3 copies');
  });

  test('no racks: one rack "default" holds every replica of a token range', () => {
    const r = check(dc({ size: 3 }));
    expect(r.workloads.map((w) => w.name)).toEqual(['prod-cluster-dc1-default-sts', 'dc1']);
    expect(row(r, 'CassandraDatacenter', 'dc1').survives).toEqual(allZones(false));
  });

  test('the required anti-affinity on the hostname keeps one Cassandra pod per node: 4 per zone on 3 nodes leave one Pending', () => {
    const racks = ZONES.map((z, i) => ({ name: `r${i + 1}`, nodeAffinityLabels: { [ZONE_KEY]: z } }));
    const r = check(dc({ size: 12, racks }));
    expect(row(r, 'StatefulSet', 'prod-cluster-dc1-r1-sts').pendingWorstCase).toBe(1);
    expect(row(check(dc({ size: 12, racks, allowMultipleNodesPerWorker: true })), 'StatefulSet', 'prod-cluster-dc1-r1-sts').pendingWorstCase).toBe(0);
  });

  test('spec.stopped scales every rack to 0; a size in the millions is counted, not built', () => {
    const stopped = check(dc({ size: 3, stopped: true }));
    expect(stopped.workloads.find((w) => w.kind === 'StatefulSet')!.replicas).toBe(0);
    const huge = check(dc({ size: 3_000_000, racks: [{ name: 'r1' }, { name: 'r2' }] }));
    expect(row(huge, 'StatefulSet', 'prod-cluster-dc1-r1-sts').replicas).toBe(1_500_000);
  });
});
