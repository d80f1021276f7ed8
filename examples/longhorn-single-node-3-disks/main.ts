import { App, Chart, ChartProps, Size } from 'cdk8s';
import { Construct } from 'constructs';
import { AntiAffinity, LonghornInventory, LonghornSettings, LonghornStorageClass, LonghornVolume } from 'cdk8s-zones';

/**
 * The node and disks of a single-node Longhorn cluster: one large NVMe disk and two smaller SATA disks.
 * The check uses it to place replicas at synth time (in a real repository, write what `kubectl get
 * nodes.longhorn.io -n longhorn-system -o yaml` shows).
 */
export const SINGLE_NODE = new LonghornInventory({
  nodes: [{
    name: 'storage-1',
    disks: [
      { name: 'nvme0', capacity: Size.tebibytes(2) },
      { name: 'sata0', capacity: Size.gibibytes(500) },
      { name: 'sata1', capacity: Size.gibibytes(500) },
    ],
  }],
});

/**
 * RAID-1-like mirroring on one node (Longhorn's disk anti-affinity, LEP 20230718): three replicas of each
 * volume, one per disk, so the volume survives losing any two disks.
 */
export class SingleNodeStorageChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);
    // One node: replicas must be allowed to share it. Disks stay soft globally (Longhorn's default).
    const settings = new LonghornSettings(this, 'settings', {
      replicaSoftAntiAffinity: AntiAffinity.ENABLED,
      replicaDiskSoftAntiAffinity: AntiAffinity.ENABLED,
    });

    // Story 1: spread replicas over the disks, and do the best it can when there are fewer disks.
    new LonghornStorageClass(this, 'mirrored', {
      name: 'longhorn-mirrored',
      numberOfReplicas: 3,
      inventory: SINGLE_NODE,
      settings: settings.scheduling,
      representativeVolumeSize: Size.gibibytes(100),
    });

    // Story 2: every volume of this class must have its replicas on different disks, or fail obviously.
    new LonghornStorageClass(this, 'mirrored-strict', {
      name: 'longhorn-mirrored-strict',
      numberOfReplicas: 3,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      inventory: SINGLE_NODE,
      settings: settings.scheduling,
      representativeVolumeSize: Size.gibibytes(100),
    });

    // Story 3: one high-priority volume with hard disk anti-affinity, whatever the global setting says.
    // 150Gi, not 200Gi: Longhorn counts a volume's replicas on a node's other disks against each disk
    // (longhorn/longhorn#12653), so each 500Gi SATA disk must have room for all three replicas; the check
    // warns when it does not.
    new LonghornVolume(this, 'critical', {
      name: 'critical-data',
      size: Size.gibibytes(150),
      numberOfReplicas: 3,
      replicaDiskSoftAntiAffinity: AntiAffinity.DISABLED,
      inventory: SINGLE_NODE,
      settings: settings.scheduling,
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth` and the snapshot test). */
export function build(app: App): void {
  new SingleNodeStorageChart(app, 'longhorn', { disableResourceNameHashes: true });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
