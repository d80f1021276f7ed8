import { App, Chart, ChartProps } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { PrometheusOutput, TopologyShardedPrometheus, ZoneTopology } from 'cdk8s-zones';

/** Props of `StandalonePrometheusChart`: a chart's, and the zones. */
export interface StandalonePrometheusChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * Seven zone-local Prometheus shards over three zones, no operator: plain StatefulSets, one per shard,
 * each with its own prometheus.yml. Seven is not a multiple of three: zone-a gets three shards and the
 * others two, and every shard scrapes (each zone's targets are hashed over that zone's shard count).
 * Pods and Services opt in to scraping with the `prometheus.io/scrape: "true"` annotation; the shards monitor
 * themselves (docs/monitoring.md).
 */
export class StandalonePrometheusChart extends Chart {
  constructor(scope: Construct, id: string, props: StandalonePrometheusChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];

    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'monitoring', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    const zones = new ZoneTopology({ zones: zoneNames });
    const prometheus = new TopologyShardedPrometheus(this, 'prometheus', {
      name: 'prometheus',
      namespace: 'monitoring',
      topology: zones,
      shards: 7,
      output: PrometheusOutput.STANDALONE,
      externalLabels: { cluster: 'example' },
    });
    // its own shards, zone-locally, with the alert of a shard that lost its zone's targets and the zone dashboard
    prometheus.monitor(prometheus);
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, zones?: string[]): void {
  new StandalonePrometheusChart(app, 'prometheus-standalone', { disableResourceNameHashes: true, zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
