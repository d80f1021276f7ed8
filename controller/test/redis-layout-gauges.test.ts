/**
 * A ZonalRedisCluster's layout gauges after a pass: each reachable node with its zone, role and shard (its master's
 * pod), per zone the masters the layout plans as replicas; a pass replaces the cluster's series, and a cluster gone
 * has none.
 */
import { RedisRole } from '../../src/redis/layout';
import { createMetrics } from '../src/metrics';
import { RedisLayoutGauges } from '../src/reconcilers/redis-layout-metrics';

async function series(metrics: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  const { values } = await metrics.registry.getSingleMetric(name)!.get();
  return values.map((v) => `${Object.values(v.labels).join(' ')}=${v.value}`).sort();
}

type Role = RedisRole | undefined;
const node = (name: string, zone: string | undefined, role: Role, planned: RedisRole, extra: object = {}) => ({
  name, zone, role, plannedRole: planned, plannedZone: zone, reachable: role !== undefined, ...extra,
});

test('nodes by zone, role and shard; masters off the plan per zone; a new pass replaces the series; a cluster gone has none', async () => {
  const metrics = createMetrics({ defaultMetrics: false });
  const gauges = new RedisLayoutGauges(metrics);
  // as planned: 0 master in a, its replica 1 in b
  gauges.show('db/cache', {
    nodes: [
      node('0', 'a', RedisRole.MASTER, RedisRole.MASTER),
      node('1', 'b', RedisRole.REPLICA, RedisRole.REPLICA, { master: '0' }),
    ],
  } as any);
  expect(await series(metrics, 'cdk8s_zones_redis_node')).toEqual([
    'db cache cache-0 a master cache-0=1',
    'db cache cache-1 b replica cache-0=1',
  ]);
  expect(await series(metrics, 'cdk8s_zones_redis_masters_off_plan')).toEqual(['db cache a=0', 'db cache b=0']);
  // failed over: 1 is master, 0 unreachable
  gauges.show('db/cache', {
    nodes: [
      node('0', 'a', undefined, RedisRole.MASTER),
      node('1', 'b', RedisRole.MASTER, RedisRole.REPLICA),
    ],
  } as any);
  expect(await series(metrics, 'cdk8s_zones_redis_node')).toEqual(['db cache cache-1 b master cache-1=1']);
  expect(await series(metrics, 'cdk8s_zones_redis_masters_off_plan')).toEqual(['db cache a=0', 'db cache b=1']);
  gauges.forget('db/cache');
  expect(await series(metrics, 'cdk8s_zones_redis_node')).toEqual([]);
  expect(await series(metrics, 'cdk8s_zones_redis_masters_off_plan')).toEqual([]);
});
