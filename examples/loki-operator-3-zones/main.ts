import { App, Chart, ChartProps } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { LokiObjectStorageType, LokiStackSize, ZoneAwareLokiStack, ZoneTopology } from '../../src';

/**
 * A `LokiStack` for the Loki operator that replicates every log stream to 3 ingesters in 3 different
 * zones (`spec.replication`), so losing a zone loses no log line and stops no write.
 */
export class LokiOperatorChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);

    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'logging', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    new ZoneAwareLokiStack(this, 'loki', {
      name: 'logs',
      namespace: 'logging',
      topology: new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] }),
      replicationFactor: 3,
      size: LokiStackSize.ONE_X_SMALL,
      // A Secret the operator reads: bucketnames, endpoint, access_key_id, access_key_secret.
      storage: { secretName: 'logs-s3', type: LokiObjectStorageType.S3 },
      storageClassName: 'standard',
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth` and the snapshot test). */
export function build(app: App): void {
  new LokiOperatorChart(app, 'loki-operator-3-zones', { disableResourceNameHashes: true });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
