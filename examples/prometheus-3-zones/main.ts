import { App, Chart, Size } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { TopologyShardedPrometheus, ZoneTopology } from '../../src';
import { ExampleChartProps, ExampleVariant, STANDARD_VARIANT } from '../variant';

/**
 * Six zone-local Prometheus shards over three zones, run by prometheus-operator: one `Prometheus` per
 * zone (two shards each, two replicas per shard), pinned to its zone, scraping only its zone's targets.
 * No scrape crosses a zone, and every target is scraped by exactly one shard.
 */
export class PrometheusChart extends Chart {
  constructor(scope: Construct, id: string, props: ExampleChartProps = {}) {
    super(scope, id, props);
    const variant = props.variant ?? STANDARD_VARIANT;

    // Pod Security "restricted" is enforced in the namespace the shards run in.
    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'monitoring', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    const zones = new ZoneTopology({ zones: variant.zones });
    new TopologyShardedPrometheus(this, variant.id('prometheus'), {
      name: 'prometheus',
      namespace: 'monitoring',
      topology: zones,
      shards: 6,
      replicas: 2,
      externalLabels: { cluster: 'example' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      storage: { size: Size.gibibytes(50) },
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, variant: ExampleVariant = STANDARD_VARIANT): void {
  new PrometheusChart(app, 'prometheus-3-zones', { disableResourceNameHashes: true, variant });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
