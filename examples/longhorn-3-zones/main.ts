import { App, Chart, ChartProps, Size } from 'cdk8s';
import { Construct } from 'constructs';
import {
  AntiAffinity, LonghornDiskInventory, LonghornInventory, LonghornReplicaAutoBalance, LonghornSettings,
  LonghornStorageClass, LonghornVolume,
} from 'cdk8s-zones';

/** Longhorn's default disk on a 1 TiB node disk, with Longhorn's default 30% reserved. */
function defaultDisk(scheduled?: Size): LonghornDiskInventory {
  return { name: 'default', capacity: Size.tebibytes(1), reserved: Size.gibibytes(300), scheduled };
}

/** A local NVMe disk, tagged so that the fast StorageClass selects it. */
const nvme: LonghornDiskInventory = { name: 'nvme', capacity: Size.gibibytes(500), tags: ['ssd'] };

/**
 * Six Longhorn nodes in three zones. Some disks already hold other volumes' replicas (`scheduled`), and
 * node c2 is cordoned (Longhorn does not schedule to it).
 */
/** Two storage nodes in each of three zones (`a`, `b`, `c` with the default zone names). */
export function threeZones([a, b, c]: string[]): LonghornInventory {
  return new LonghornInventory({
    nodes: [
      { name: 'a1', zone: a, disks: [defaultDisk(Size.gibibytes(400)), nvme] },
      { name: 'a2', zone: a, disks: [defaultDisk()] },
      { name: 'b1', zone: b, disks: [defaultDisk(), nvme] },
      { name: 'b2', zone: b, disks: [defaultDisk(Size.gibibytes(200))] },
      { name: 'c1', zone: c, disks: [defaultDisk(Size.gibibytes(100)), nvme] },
      { name: 'c2', zone: c, allowScheduling: false, disks: [defaultDisk()] },
    ],
  });
}

/** Props of `ThreeZoneStorageChart`: a chart's, and the zones. */
export interface ThreeZoneStorageChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * Longhorn storage that survives losing a zone: zone anti-affinity is hard cluster-wide, so no zone ever
 * holds two replicas of a volume, and the synth-time check proves that three zones can hold every
 * class's and volume's replicas.
 */
export class ThreeZoneStorageChart extends Chart {
  constructor(scope: Construct, id: string, props: ThreeZoneStorageChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];

    const inventory = threeZones(zoneNames);
    const settings = new LonghornSettings(this, 'settings', {
      replicaZoneSoftAntiAffinity: AntiAffinity.DISABLED,
      replicaAutoBalance: LonghornReplicaAutoBalance.LEAST_EFFORT,
      // Volumes without a disk selector stay off the tagged NVMe disks, which are for the SSD class.
      allowEmptyDiskSelectorVolume: false,
    });

    new LonghornStorageClass(this, 'zonal', {
      name: 'longhorn-zonal',
      numberOfReplicas: 3,
      inventory,
      settings: settings.scheduling,
      representativeVolumeSize: Size.gibibytes(100),
    });

    new LonghornStorageClass(this, 'zonal-ssd', {
      name: 'longhorn-zonal-ssd',
      numberOfReplicas: 3,
      diskSelector: ['ssd'],
      inventory,
      settings: settings.scheduling,
      representativeVolumeSize: Size.gibibytes(200),
    });

    new LonghornVolume(this, 'archive', {
      name: 'archive',
      size: Size.gibibytes(400),
      numberOfReplicas: 3,
      inventory,
      settings: settings.scheduling,
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth` and the snapshot test). */
export function build(app: App, zones?: string[]): void {
  new ThreeZoneStorageChart(app, 'longhorn', { disableResourceNameHashes: true, zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
