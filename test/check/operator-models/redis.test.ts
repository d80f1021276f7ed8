/**
 * Redis run by operators, read through their models: Spotahome's RedisFailover (rows/spotahome-redis.ts) and
 * OT-Container-Kit's RedisCluster, RedisReplication and RedisSentinel (rows/ot-redis.ts).
 */
import { allZones, check, errors, hardZoneSpread, pinnedTo, row } from './helpers';

describe('Spotahome RedisFailover', () => {
  const failover = (spec: object = {}) => ({
    apiVersion: 'databases.spotahome.com/v1',
    kind: 'RedisFailover',
    metadata: { name: 'cache', namespace: 'apps' },
    spec,
  });
  const spread = (component: string) => ({ topologySpreadConstraints: [hardZoneSpread({ 'app.kubernetes.io/name': 'cache', 'app.kubernetes.io/component': component })] });

  test('defaults: 3 Redis and 3 sentinels with a preferred host anti-affinity only, so the sentinels may share a zone', () => {
    const r = check(failover());
    expect(r.workloads.map((w) => `${w.kind} ${w.name} ${w.replicas}`)).toEqual(['StatefulSet rfr-cache 3', 'Deployment rfs-cache 3', 'RedisFailover cache 6']);
    expect(errors(row(r, 'RedisFailover', 'cache'))[0].message).toContain('leaves 0 of its 3 voters in the worst case; it needs a majority, 2 (a failover authorised by a majority of the sentinels');
  });

  test('both components spread hard over the zones: a majority of sentinels and a replica left, survives any zone', () => {
    const r = check(failover({ redis: spread('redis'), sentinel: spread('sentinel') }));
    expect(row(r, 'RedisFailover', 'cache').survives).toEqual(allZones(true));
  });

  test('replicas of 0 or less are made 3; its budgets keep 2 (1 with 2 Redis or fewer), so draining a zone of 2 is blocked', () => {
    expect(row(check(failover({ redis: { replicas: 0 } })), 'StatefulSet', 'rfr-cache').replicas).toBe(3);
    const r = check(failover({ redis: { replicas: 3, affinity: pinnedTo('zone-a') }, sentinel: spread('sentinel') }));
    expect(row(r, 'StatefulSet', 'rfr-cache').zoneLoss.find((l) => l.zone === 'zone-a')!.drainBlocked).toBe(true);
  });
});

describe('OT-Container-Kit redis-operator', () => {
  const ot = (kind: string, spec: object) => ({ apiVersion: 'redis.redis.opstreelabs.in/v1beta2', kind, metadata: { name: 'r', namespace: 'apps' }, spec });
  const spread = (app: string) => ({ topologySpreadConstraints: [hardZoneSpread({ app })] });

  test('RedisCluster: leaders and followers each spread over the zones, yet a leader and its follower may share one', () => {
    const r = check(ot('RedisCluster', { clusterSize: 3, redisLeader: spread('r-leader'), redisFollower: spread('r-follower') }));
    expect(r.workloads.filter((w) => w.kind === 'StatefulSet').map((w) => `${w.name} ${w.replicas}`)).toEqual(['r-leader 3', 'r-follower 3']);
    const system = row(r, 'RedisCluster', 'r');
    expect(errors(system).map((f) => f.message)).toEqual([expect.stringContaining('may take 2 of an item\'s 2 copies (nothing places the copies in different zones)')]);
  });

  test('RedisReplication with its sentinels, both spread hard: survives; without spec.sentinel, one replica left is enough', () => {
    const r = check(ot('RedisReplication', { clusterSize: 3, ...spread('r'), sentinel: { size: 3, ...spread('r-s') } }));
    expect(r.workloads.map((w) => w.name)).toEqual(['r', 'r-s', 'r']);
    expect(row(r, 'RedisReplication', 'r').survives).toEqual(allZones(true));
    expect(row(check(ot('RedisReplication', { clusterSize: 2, ...spread('r') })), 'RedisReplication', 'r').survives).toEqual(allZones(true));
  });

  test('RedisSentinel: quorum "2" of 3 spread sentinels survives; a quorum of 3 needs every sentinel', () => {
    expect(row(check(ot('RedisSentinel', { ...spread('r-sentinel') })), 'RedisSentinel', 'r').survives).toEqual(allZones(true));
    const strict = row(check(ot('RedisSentinel', { ...spread('r-sentinel'), redisSentinelConfig: { quorum: '3' } })), 'RedisSentinel', 'r');
    expect(errors(strict)[0].message).toContain('it needs 3 (the sentinel quorum that agrees the master is down (spec.redisSentinelConfig.quorum 3))');
  });
});
