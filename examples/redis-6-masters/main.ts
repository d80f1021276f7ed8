import { App, Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { ZonalRedisCluster, ZoneTopology } from '../../src';

/**
 * A Redis Cluster of 6 masters with 1 replica each over 3 zones: 2 masters per zone, the most that still
 * leaves a majority (4 of 6) when a zone is lost. Four pods per zone; pods of one shard never share a host.
 */
export class RedisChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);
    new ZonalRedisCluster(this, 'cache', {
      topology: new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] }),
      masters: 6,
      replicasPerMaster: 1,
      requireFullCoverage: false,
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App): void {
  new RedisChart(app, 'redis-6-masters', { disableResourceNameHashes: true });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
