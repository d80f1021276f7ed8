/**
 * The rules that come with a monitored ZonalRedisCluster, held to the real promtool over the Redis manager's gauges:
 * a shard with two nodes in one zone alerts after 2 minutes (and not for a failover that settles sooner, nor for
 * another cluster, nor from a replica that no longer leads); masters off the plan after 15 minutes; the manager's
 * unhealthy passes from 20 in a row.
 */
import { Promtool, promtoolOver } from './promtool';
import { redisAlertGroup } from '../../../src/monitoring/redis-rules';

const LEADER = 'cdk8s_zones_leader{instance="c1:8080"}';
let promtool: Promtool;
beforeAll(() => {
  promtool = promtoolOver(redisAlertGroup('db', 'cache'));
});
afterAll(() => promtool.close());

const node = (pod: string, zone: string, role: string, shard: string, cluster = 'cache', instance = 'c1:8080') =>
  `cdk8s_zones_redis_node{instance="${instance}",namespace="db",cluster="${cluster}",pod="${pod}",zone="${zone}",role="${role}",shard="${shard}"}`;

test('promtool check rules accepts them', () => {
  expect(promtool.run('check', 'rules', 'rules.yml')).toMatchObject({ code: 0, output: expect.stringContaining('SUCCESS: 3 rules found') });
});

/** The alert of shard cache-3, whose master moved into zone-b beside its replica. */
const shardInZoneB = () => promtool.alert('ZonalRedisShardInOneZone',
  { instance: 'c1:8080', namespace: 'db', cluster: 'cache', shard: 'cache-3', zone: 'zone-b' },
  'ZonalRedisCluster db/cache: shard cache-3 has 2 nodes in zone zone-b; losing that zone loses the shard',
  'A master and its replica (or two of its nodes) serve from one zone: a failover or a node moved put them there,'
  + ' and the manager has not moved them apart.');

test('promtool test rules: each fires when it must, and only then', () => {
  const tests = [
    {
      // shard cache-0: master in zone-a, replica in zone-b; from 10m the master is cache-3, moved into zone-b (the
      // replica's zone) until 30m. Shard cache-1 has its master and replica in zone-c for one minute only (20m).
      // Another cluster's shard and a former leader's stale series put two nodes in one zone all along. The manager
      // removes a node's series when it moves, which Prometheus marks stale on its next scrape (`stale`).
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x60' },
        { series: 'cdk8s_zones_leader{instance="c2:8080"}', values: '0x60' },
        { series: node('cache-0', 'zone-a', 'master', 'cache-0'), values: '1x9 stale' },
        { series: node('cache-3', 'zone-b', 'master', 'cache-3'), values: '_x10 1x20 stale' },
        { series: node('cache-3', 'zone-a', 'master', 'cache-3'), values: '_x31 1x29' },
        { series: node('cache-4', 'zone-b', 'replica', 'cache-0'), values: '1x9 stale' },
        { series: node('cache-4', 'zone-b', 'replica', 'cache-3'), values: '_x10 1x50' },
        { series: node('cache-1', 'zone-c', 'master', 'cache-1'), values: '1x60' },
        { series: node('cache-5', 'zone-a', 'replica', 'cache-1'), values: '1x19 stale 1x40' },
        { series: node('cache-5', 'zone-c', 'replica', 'cache-1'), values: '_x20 1 stale' },
        { series: node('other-0', 'zone-a', 'master', 'other-0', 'other'), values: '1x60' },
        { series: node('other-1', 'zone-a', 'replica', 'other-0', 'other'), values: '1x60' },
        { series: node('cache-0', 'zone-a', 'master', 'cache-0', 'cache', 'c2:8080'), values: '1x60' },
        { series: node('cache-4', 'zone-a', 'replica', 'cache-0', 'cache', 'c2:8080'), values: '1x60' },
      ],
      alert_rule_test: [
        { eval_time: '11m', alertname: 'ZonalRedisShardInOneZone', exp_alerts: [] },
        { eval_time: '13m', alertname: 'ZonalRedisShardInOneZone', exp_alerts: [shardInZoneB()] },
        // cache-1's minute in one zone never alerts
        { eval_time: '22m', alertname: 'ZonalRedisShardInOneZone', exp_alerts: [shardInZoneB()] },
        // healed at 31m: the master back in zone-a
        { eval_time: '35m', alertname: 'ZonalRedisShardInOneZone', exp_alerts: [] },
      ],
    },
    {
      // zone-b holds one master the layout plans as a replica from 5m to 25m, and from 40m on
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x90' },
        { series: 'cdk8s_zones_redis_masters_off_plan{instance="c1:8080",namespace="db",cluster="cache",zone="zone-b"}', values: '0x4 1x20 0x15 1x50' },
        { series: 'cdk8s_zones_redis_masters_off_plan{instance="c1:8080",namespace="db",cluster="cache",zone="zone-a"}', values: '0x90' },
      ],
      alert_rule_test: [
        { eval_time: '19m', alertname: 'ZonalRedisMastersOffPlan', exp_alerts: [] },
        {
          eval_time: '21m',
          alertname: 'ZonalRedisMastersOffPlan',
          exp_alerts: [promtool.alert('ZonalRedisMastersOffPlan', { instance: 'c1:8080', namespace: 'db', cluster: 'cache', zone: 'zone-b' },
            'ZonalRedisCluster db/cache: 1 master(s) in zone zone-b where the layout plans replicas',
            'Masters have been off the layout\'s plan for 15m: after a failover the manager fails them back once their'
            + ' planned nodes are healthy; it has not.')],
        },
        { eval_time: '30m', alertname: 'ZonalRedisMastersOffPlan', exp_alerts: [] },
        { eval_time: '50m', alertname: 'ZonalRedisMastersOffPlan', exp_alerts: [] },
      ],
    },
    {
      // unhealthy passes counting up one a minute: 19 at 19m (silent), 20 at 20m (fires)
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x60' },
        { series: 'cdk8s_zones_redis_cluster_consecutive_passes{instance="c1:8080",namespace="db",cluster="cache",result="unhealthy"}', values: '0+1x60' },
        { series: 'cdk8s_zones_redis_cluster_consecutive_passes{instance="c1:8080",namespace="db",cluster="other",result="unhealthy"}', values: '0+1x60' },
      ],
      alert_rule_test: [
        { eval_time: '19m', alertname: 'ZonalRedisClusterUnhealthy', exp_alerts: [] },
        {
          eval_time: '20m',
          alertname: 'ZonalRedisClusterUnhealthy',
          exp_alerts: [promtool.alert('ZonalRedisClusterUnhealthy', { instance: 'c1:8080', namespace: 'db', cluster: 'cache', result: 'unhealthy' },
            'ZonalRedisCluster db/cache has been unhealthy for 20 passes of the Redis manager in a row',
            'The manager has found the cluster unhealthy (slots not covered, a master without a replica in another zone,'
            + ' nodes failing) on every pass for about five minutes, and has not healed it.')],
        },
      ],
    },
  ];
  promtool.expectTestsPass(tests);
});
