import { App, Chart, ChartProps, Size } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { TopologyShardedPrometheus, ZoneTopology } from 'cdk8s-zones';

/** Props of `PrometheusChart`: a chart's, and the zones. */
export interface PrometheusChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * Six zone-local Prometheus shards over three zones, run by prometheus-operator: one `Prometheus` per
 * zone (two shards each, two replicas per shard), pinned to its zone, scraping only its zone's targets.
 * No scrape crosses a zone, and every target is scraped by exactly one shard; the shards monitor themselves
 * (docs/monitoring.md).
 */
export class PrometheusChart extends Chart {
  constructor(scope: Construct, id: string, props: PrometheusChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];

    // Pod Security "restricted" is enforced in the namespace the shards run in.
    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'monitoring', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    const zones = new ZoneTopology({ zones: zoneNames });
    const prometheus = new TopologyShardedPrometheus(this, 'prometheus', {
      name: 'prometheus',
      namespace: 'monitoring',
      topology: zones,
      shards: 6,
      replicas: 2,
      externalLabels: { cluster: 'example' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      storage: { size: Size.gibibytes(50) },
    });
    // its own shards, zone-locally: a PodMonitor, the rule of a shard that lost its zone's targets, the zone dashboard
    prometheus.monitor(prometheus);
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, zones?: string[]): void {
  new PrometheusChart(app, 'prometheus-3-zones', { disableResourceNameHashes: true, zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
