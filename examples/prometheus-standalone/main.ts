import { App, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { PrometheusOutput, TopologyShardedPrometheus, ZoneTopology } from '../../src';
import { ExampleChartProps, ExampleVariant, STANDARD_VARIANT } from '../variant';

/**
 * Seven zone-local Prometheus shards over three zones, no operator: plain StatefulSets, one per shard,
 * each with its own prometheus.yml. Seven is not a multiple of three: zone-a gets three shards and the
 * others two, and every shard scrapes (each zone's targets are hashed over that zone's shard count).
 * Pods and Services opt in to scraping with the `prometheus.io/scrape: "true"` annotation.
 */
export class StandalonePrometheusChart extends Chart {
  constructor(scope: Construct, id: string, props: ExampleChartProps = {}) {
    super(scope, id, props);
    const variant = props.variant ?? STANDARD_VARIANT;

    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'monitoring', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    const zones = new ZoneTopology({ zones: variant.zones });
    new TopologyShardedPrometheus(this, variant.id('prometheus'), {
      name: 'prometheus',
      namespace: 'monitoring',
      topology: zones,
      shards: 7,
      output: PrometheusOutput.STANDALONE,
      externalLabels: { cluster: 'example' },
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, variant: ExampleVariant = STANDARD_VARIANT): void {
  new StandalonePrometheusChart(app, 'prometheus-standalone', { disableResourceNameHashes: true, variant });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
