import { Size } from 'cdk8s';
import { requireZone, ZoneTopology } from './zone-topology';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { invalidProp } from '../shared/errors';
import { Props, PropSpec } from '../shared/props';

/**
 * The persistent volumes of a workload laid out by zone (Loki's ingesters, Prometheus shards, Redis nodes):
 * one claim per pod, of one size, in a StorageClass for every zone or one per zone.
 */
export interface ZonalStorage {
  /** The size of each pod's volume claim, e.g. `Size.gibibytes(10)`. */
  readonly size: Size;

  /**
   * The StorageClass of the claims. Use one with `volumeBindingMode: WaitForFirstConsumer`, so each volume
   * is created in its pod's zone.
   *
   * @default - the cluster's default StorageClass
   */
  readonly storageClassName?: string;

  /**
   * A StorageClass per zone (zone -> class name), for the claims of that zone's pods; zones it does not name
   * use `storageClassName`. A cloud whose disks are zonal often has a class per zone, and a class can be
   * retired from one zone without touching the others. Needs pods of one zone per StatefulSet.
   *
   * @default - `storageClassName` in every zone
   */
  readonly storageClassNamePerZone?: { [zone: string]: string };
}

/** The checks of a `ZonalStorage` prop. */
export const ZONAL_STORAGE_PROPS: PropSpec<ZonalStorage> = {
  size: KubeProps.size(),
  storageClassName: Props.optional(KubeProps.dnsSubdomain()),
  storageClassNamePerZone: Props.optional(Props.mapOf(KubeProps.dnsSubdomain())),
};

/** Whether a workload's volumes are of one zone each, and if not, why a per-zone class cannot be set. */
export interface ZonalVolumes {
  readonly ok: boolean;
  readonly why?: string;
}

/** The StorageClass of each zone's claims, from a `ZonalStorage` (internal). */
export class ZoneStorageClasses {
  /**
   * Checks the per-zone classes of `storage` (the prop named `prop`) against the topology: every key must be one
   * of its zones. `zonal` says whether the workload has volumes of one zone each (per-zone StatefulSets); when
   * it has not, a per-zone map cannot be expressed and is refused with `why`.
   */
  public static of(
    where: string,
    prop: string,
    topology: ZoneTopology,
    storage: Omit<ZonalStorage, 'size'> | undefined,
    zonal: ZonalVolumes = { ok: true },
  ): ZoneStorageClasses {
    const perZone = storage?.storageClassNamePerZone;
    const perZoneProp = `${prop}.storageClassNamePerZone`;
    if (perZone !== undefined) {
      if (!zonal.ok) throw invalidProp(where, perZoneProp, perZone, zonal.why ?? 'needs volumes of one zone each');
      for (const zone of Object.keys(perZone)) requireZone(topology, where, `${perZoneProp} key`, zone);
    }
    return new ZoneStorageClasses(storage?.storageClassName, perZone ?? {});
  }

  private constructor(
    private readonly single: string | undefined,
    private readonly perZone: { readonly [zone: string]: string },
  ) {}

  /**
   * Why a zone's pods cannot stand in on the other zones' nodes (a lost zone's, brought back there), or undefined: a
   * stand-in's new claim asks for its own zone's class, which may make volumes in that zone only.
   */
  public standInProblem(): string | undefined {
    const zones = Object.keys(this.perZone);
    if (zones.length === 0) return undefined;
    return `cannot be used with a StorageClass per zone (${zones.join(', ')}): a lost zone's pods come back in the other ` +
      'zones on new claims of their own zone\'s class, which may make volumes in that zone only. Give one ' +
      'storageClassName (volumeBindingMode WaitForFirstConsumer) instead';
  }

  /** The class of `zone`'s volumes (undefined: the cluster's default class); `undefined` zone: the single class. */
  public forZone(zone: string | undefined): string | undefined {
    return (zone !== undefined ? this.perZone[zone] : undefined) ?? this.single;
  }
}
