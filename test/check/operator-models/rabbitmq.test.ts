/**
 * RabbitMQ cluster-operator's RabbitmqCluster read through its model (rows/rabbitmq.ts).
 */
import { allZones, check, hardZoneSpread, row } from './helpers';

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

