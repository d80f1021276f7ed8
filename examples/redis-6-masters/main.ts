import { App, Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { ZonalRedisCluster, ZoneController, ZoneTopology } from 'cdk8s-zones';

/** Props of `RedisChart`: a chart's, and the zones. */
export interface RedisChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * A Redis Cluster of 6 masters with 1 replica each over 3 zones: 2 masters per zone, the most that still
 * leaves a majority (4 of 6) when a zone is lost. Four pods per zone; pods of one shard never share a host.
 * The password is the key `password` of the Secret `cache-auth`, created outside the app (never in a repository).
 */
export class RedisChart extends Chart {
  constructor(scope: Construct, id: string, props: RedisChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];
    // The runtime controller's Redis manager bootstraps and heals the cluster. Without its eviction webhook,
    // the cluster's disruption budget lets one pod go at a time.
    const controller = new ZoneController(this, 'controller', { zoneAnnotator: false, redisManager: true });
    new ZonalRedisCluster(this, 'cache', {
      controller,
      name: 'cache',
      // The cluster's version: from 1.34 the client Services keep each client's traffic in its zone (PreferSameZone).
      topology: new ZoneTopology({ zones: zoneNames, kubernetesVersion: '1.35' }),
      masters: 6,
      replicasPerMaster: 1,
      password: { name: 'cache-auth', key: 'password' },
      requireFullCoverage: false,
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, zones?: string[]): void {
  new RedisChart(app, 'redis-6-masters', { disableResourceNameHashes: true, namespace: 'cache', zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
