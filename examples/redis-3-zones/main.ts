import { App, Chart, ChartProps, Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { ZonalRedisCluster, ZoneTopology } from '../../src';

/**
 * A Redis Cluster of 3 masters with 1 replica each over 3 zones: one master and one replica per zone,
 * every replica in another zone than its master. Losing any zone leaves 2 of 3 masters (a majority) and a
 * replica of the lost master, which takes over after the cluster-node-timeout.
 */
export class RedisChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);
    new k8s.KubeSecret(this, 'password', {
      metadata: { name: 'redis-password' },
      stringData: { password: 'change-me' },
    });
    new ZonalRedisCluster(this, 'redis', {
      topology: new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] }),
      masters: 3,
      replicasPerMaster: 1,
      password: { name: 'redis-password', key: 'password' },
      storage: { size: '1Gi' },
      clusterNodeTimeout: Duration.seconds(5),
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App): void {
  new RedisChart(app, 'redis-3-zones', { disableResourceNameHashes: true });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
