import { App, Chart, ChartProps } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from 'cdk8s-zones';

/** Props of `LokiDirectChart`: a chart's, and the zones. */
export interface LokiDirectChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * Loki in microservices mode without an operator, replicating every stream to 3 ingesters in 3 zones:
 * one ingester StatefulSet per zone (2 ingesters each) with the zone in its arguments, every other
 * component spread over the zones, chunks in an S3-compatible bucket. The runtime controller rolls a change
 * out to the ingesters one zone at a time (a ZoneAwareUpdate over the three StatefulSets, each ingester
 * ACTIVE in the ring before the next batch).
 */
export class LokiDirectChart extends Chart {
  constructor(scope: Construct, id: string, props: LokiDirectChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];

    new k8s.KubeNamespace(this, 'namespace', {
      metadata: { name: 'logging', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });

    // The runtime controller rolls a change to the ingesters zone by zone.
    const controller = new ZoneController(this, 'controller', { zoneAnnotator: false, zoneAwareUpdate: true });
    new ZoneAwareLokiStack(this, 'loki', {
      name: 'logs',
      namespace: 'logging',
      // The cluster's version: from 1.34 the client Services keep each client's traffic in its zone (PreferSameZone).
      topology: new ZoneTopology({ zones: zoneNames, kubernetesVersion: '1.35' }),
      replicationFactor: 3,
      direct: {
        controller,
        zoneSource: ZoneSource.perZoneStatefulSets(),
        ingesterReplicasPerZone: 2,
        // A Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the bucket.
        objectStorage: { bucket: 'logs', endpoint: 'minio.storage.svc:9000', insecure: true, credentialsSecretName: 'logs-s3' },
        gateway: true,
      },
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth` and the snapshot test). */
export function build(app: App, zones?: string[]): void {
  new LokiDirectChart(app, 'loki-direct-3-zones', { disableResourceNameHashes: true, zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
