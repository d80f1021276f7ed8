/**
 * Redis Cluster with real redis-server processes (`npm run test:integration:setup` installs Debian's):
 * how long after losing a zone every slot is served and writable again, against cluster-node-timeout, with
 * Redis failing the zone's master over alone and with the manager's fast path; and how long the manager
 * takes to bootstrap 6 and 30 nodes.
 */
import { BenchSection } from './harness';
import { failoverOptions, RedisClusterManager } from '../controller/src/redis/manager';
import { RedisShardLayout } from '../src/redis/layout';
import { untilServedAndWritable } from '../test/integration/redis/redis-keys';
import { keepConverging } from '../test/integration/redis/redis-manager-runs';
import { RedisProcesses } from '../test/integration/redis/redis-processes';

const ZONES = ['a', 'b', 'c'];
const RUNS = 5;

interface Stats { readonly median: number; readonly min: number; readonly max: number }
function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}

/**
 * Milliseconds from killing every process of a zone to all slots served and writable (`untilServedAndWritable`),
 * `RUNS` times each with Redis alone (no manager running during the loss) and with the manager converging
 * throughout (its zone-loss failover as the construct's layout ConfigMap sets it), interleaved, zones in turn.
 */
async function zoneLossRecovery(nodeTimeoutMs: number): Promise<{ redisAlone: number[]; fastPath: number[] }> {
  const layout = RedisShardLayout.plan({ zones: ZONES, masters: 3, replicasPerMaster: 1 });
  const redis = new RedisProcesses(nodeTimeoutMs);
  const manager = new RedisClusterManager(layout, [], { timeoutMs: 60_000, ...failoverOptions(redis.layoutConfigMap) });
  const samples = { redisAlone: [] as number[], fastPath: [] as number[] };
  try {
    await redis.addLayout(layout);
    manager.inventory = redis.inventory;
    if (!(await manager.converge()).healthy) throw new Error('bootstrap failed');
    for (let run = 0; run < 2 * RUNS; run++) {
      const zone = ZONES[run % ZONES.length];
      const fast = run % 2 === 1;
      const running = fast ? keepConverging(manager) : undefined;
      try {
        await redis.killZone(zone);
        (fast ? samples.fastPath : samples.redisAlone).push((await untilServedAndWritable(redis, `run${run}`, 60_000)).ms);
      } finally {
        await running?.stop();
      }
      for (const n of layout.nodesInZone(zone)) await redis.start(n.name);
      if (!(await manager.converge()).healthy) throw new Error(`no recovery after zone ${zone} came back`);
    }
    return samples;
  } finally {
    manager.close();
    await redis.close();
  }
}

/** Milliseconds the manager takes from fresh processes to a healthy cluster (replicas in sync). */
async function bootstrap(masters: number, replicasPerMaster: number): Promise<number> {
  const layout = RedisShardLayout.plan({ zones: ZONES, masters, replicasPerMaster });
  const redis = new RedisProcesses(2000);
  await redis.addLayout(layout);
  const manager = new RedisClusterManager(layout, redis.inventory, { timeoutMs: 120_000 });
  try {
    const start = Date.now();
    const state = await manager.converge();
    if (!state.healthy) throw new Error(`bootstrap of ${layout.nodes.length} nodes failed: ${JSON.stringify(state.issues)}`);
    return Date.now() - start;
  } finally {
    manager.close();
    await redis.close();
  }
}

export async function redisBench(): Promise<BenchSection> {
  const timeouts = [1000, 2000, 5000];
  const recovery: [number, Stats, Stats][] = [];
  for (const t of timeouts) {
    const { redisAlone, fastPath } = await zoneLossRecovery(t);
    recovery.push([t, stats(redisAlone), stats(fastPath)]);
  }
  const boots: [string, Stats][] = [];
  const six: number[] = [];
  const thirty: number[] = [];
  for (let i = 0; i < 3; i++) { // interleaved
    six.push(await bootstrap(3, 1));
    thirty.push(await bootstrap(15, 1));
  }
  boots.push(['6 nodes (3 masters x 1 replica)', stats(six)], ['30 nodes (15 masters x 1 replica)', stats(thirty)]);
  const cell = (s: Stats, t: number) => `${s.median} (${s.min} – ${s.max}) | ${(s.median / t).toFixed(2)}`;
  return {
    title: 'ZonalRedisCluster: zone-loss recovery and bootstrap (real redis-server)',
    body: [
      'Debian\'s redis-server on 127.0.0.1, 3 masters x 1 replica over zones a, b, c as RedisShardLayout plans them, with the ' +
      'synthesized redis.conf. Recovery: SIGKILL of both processes of one zone until a surviving node reports every slot served by a ' +
      'live master (CLUSTER SLOTS) and a write of 300 keys spread over every master is acknowledged (polled every 20 ms): by ' +
      '`WAIT 1` where the master still has a replica connected (ROLE), by the master\'s OK where its replica was in the lost zone ' +
      `(a WAIT there would only wait out its timeout). ${RUNS} runs of each, interleaved, zones in turn. Redis alone: no manager ` +
      'runs during the loss; Redis promotes the replica once the masters agree its master failed (PFAIL after cluster-node-timeout, ' +
      'FAIL, then an election 0.5 – 1 s later). Fast path: the manager converges throughout, with the zone-loss failover the ' +
      'construct sets by default (zoneLossFailoverAfter, a quarter of cluster-node-timeout): once no node of the zone answers it ' +
      'and every surviving master has had a ping to them unanswered that long, CLUSTER FAILOVER FORCE on the lost master\'s replica.',
      '',
      '| cluster-node-timeout ms | Redis alone: median ms (min – max) | median / timeout | fast path: median ms (min – max) | median / timeout |',
      '| ---: | ---: | ---: | ---: | ---: |',
      ...recovery.map(([t, alone, fast]) => `| ${t} | ${cell(alone, t)} | ${cell(fast, t)} |`),
      '',
      'Bootstrap: from fresh processes to a healthy cluster (CLUSTER MEET, ADDSLOTSRANGE, REPLICATE, replicas in sync), ' +
      'by the manager in-process, 3 runs each, interleaved.',
      '',
      '| nodes | runs | median ms | min – max ms | ratio to 6 nodes |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...boots.map(([name, s]) => `| ${name} | 3 | ${s.median} | ${s.min} – ${s.max} | ${(s.median / boots[0][1].median).toFixed(2)} |`),
    ].join('\n'),
  };
}
