import { App, Chart, ChartProps } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { LokiObjectStorageType, LokiStackSize, ZoneAwareLokiStack, ZoneTopology } from 'cdk8s-zones';

/** Props of `LokiOperatorChart`: a chart's, and the zones. */
export interface LokiOperatorChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * A `LokiStack` for the Loki operator that replicates every log stream to 3 ingesters in 3 different
 * zones (`spec.replication`), so losing a zone loses no log line and stops no write. The 1x.small size
 * runs 2 ingesters, which cannot hold a replica in each of 3 zones (the quorum of 2 would need both,
 * and one zone down takes one): the stack runs 3 (`ingesterReplicas`, also what the construct picks by default).
 */
export class LokiOperatorChart extends Chart {
  constructor(scope: Construct, id: string, props: LokiOperatorChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];

    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'logging', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    new ZoneAwareLokiStack(this, 'loki', {
      name: 'logs',
      namespace: 'logging',
      topology: new ZoneTopology({ zones: zoneNames }),
      replicationFactor: 3,
      operator: {
        size: LokiStackSize.ONE_X_SMALL,
        ingesterReplicas: 3,
        // A Secret the operator reads: bucketnames, endpoint, access_key_id, access_key_secret.
        objectStorage: { secretName: 'logs-s3', type: LokiObjectStorageType.S3 },
        storageClassName: 'standard',
      },
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth` and the snapshot test). */
export function build(app: App, zones?: string[]): void {
  new LokiOperatorChart(app, 'loki-operator-3-zones', { disableResourceNameHashes: true, zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
