import { App, Chart, ChartProps, Duration, Size } from 'cdk8s';
import { Construct } from 'constructs';
import { WebhookTls, ZonalRedisCluster, ZoneController, ZoneTopology } from 'cdk8s-zones';

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
 * A Redis Cluster of 3 masters with 1 replica each over 3 zones: one master and one replica per zone,
 * every replica in another zone than its master. Losing any zone leaves 2 of 3 masters (a majority) and a
 * replica of the lost master, which takes over after the cluster-node-timeout. Evictions go one zone at a
 * time (a ZoneDisruptionBudget the controller's webhook enforces).
 *
 * Every node requires the password of the Secret `redis-password` (key `password`), which this app does not
 * hold (a repository must never hold it): create it in the cluster's namespace before the pods start, e.g.
 *   kubectl create secret generic redis-password --from-literal=password="$(openssl rand -base64 32)"
 * or with sealed-secrets / external-secrets.
 */
export class RedisChart extends Chart {
  constructor(scope: Construct, id: string, props: RedisChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];
    // The runtime controller bootstraps and heals the cluster, and its eviction webhook lets node drains
    // take Redis pods from one zone at a time, so a master and its replica are never evicted together.
    const controller = new ZoneController(this, 'controller', {
      redisManager: true,
      zoneDisruptionBudget: true,
      webhookTls: WebhookTls.selfManaged(),
    });
    new ZonalRedisCluster(this, 'redis', {
      controller,
      name: 'redis',
      // The cluster's version: from 1.34 the client Services keep each client's traffic in its zone (PreferSameZone).
      topology: new ZoneTopology({ zones: zoneNames, kubernetesVersion: '1.35' }),
      masters: 3,
      replicasPerMaster: 1,
      password: { name: 'redis-password', key: 'password' }, // created outside the app (see above)
      storage: { size: Size.gibibytes(1) },
      clusterNodeTimeout: Duration.seconds(5),
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, zones?: string[]): void {
  new RedisChart(app, 'redis-3-zones', { disableResourceNameHashes: true, namespace: 'redis', zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
