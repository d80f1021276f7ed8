/**
 * Redis Cluster with real redis-server processes (`npm run test:integration:setup` installs Debian's):
 * how long after losing a zone every slot is served and writable again, against cluster-node-timeout; and
 * how long the manager takes to bootstrap 6 and 30 nodes.
 */
import { BenchSection } from './harness';
import { RedisClusterManager } from '../controller/src/redis/manager';
import { RedisShardLayout } from '../src/redis/layout';
import { RedisProcesses, untilServedAndWritable } from '../test/integration/redis/redis-cluster';

const ZONES = ['a', 'b', 'c'];
const RUNS = 5;

interface Stats { readonly median: number; readonly min: number; readonly max: number }
function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}

/** Milliseconds from killing every process of a zone to all slots served and writable, `RUNS` times (zones in turn). */
async function zoneLossRecovery(nodeTimeoutMs: number): Promise<number[]> {
  const layout = RedisShardLayout.plan({ zones: ZONES, masters: 3, replicasPerMaster: 1 });
  const redis = new RedisProcesses(nodeTimeoutMs);
  const manager = new RedisClusterManager(layout, [], { timeoutMs: 60_000 });
  try {
    await redis.addLayout(layout);
    manager.inventory = redis.inventory;
    if (!(await manager.converge()).healthy) throw new Error('bootstrap failed');
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const zone = ZONES[run % ZONES.length];
      await redis.killZone(zone);
      samples.push((await untilServedAndWritable(redis, `run${run}`, 60_000)).ms);
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
  const timeouts = [1000, 2000, 4000];
  const recovery: [number, Stats][] = [];
  for (const t of timeouts) recovery.push([t, stats(await zoneLossRecovery(t))]);
  const boots: [string, Stats][] = [];
  const six: number[] = [];
  const thirty: number[] = [];
  for (let i = 0; i < 3; i++) { // interleaved
    six.push(await bootstrap(3, 1));
    thirty.push(await bootstrap(15, 1));
  }
  boots.push(['6 nodes (3 masters x 1 replica)', stats(six)], ['30 nodes (15 masters x 1 replica)', stats(thirty)]);
  return {
    title: 'ZonalRedisCluster: zone-loss recovery and bootstrap (real redis-server)',
    body: [
      'Debian\'s redis-server on 127.0.0.1, 3 masters x 1 replica over zones a, b, c as RedisShardLayout plans them. ' +
      `Recovery: SIGKILL of both processes of one zone (zones in turn, ${RUNS} runs per timeout) until a surviving node ` +
      'reports every slot served by a live master and 300 writes spread over every master succeed (polled every 20 ms). ' +
      'The failover itself is Redis\'s (a replica is promoted once its master is marked failed after cluster-node-timeout); ' +
      'the manager only moves masters back afterwards.',
      '',
      '| cluster-node-timeout ms | runs | median ms | min – max ms | median / timeout |',
      '| ---: | ---: | ---: | ---: | ---: |',
      ...recovery.map(([t, s]) => `| ${t} | ${RUNS} | ${s.median} | ${s.min} – ${s.max} | ${(s.median / t).toFixed(2)} |`),
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
