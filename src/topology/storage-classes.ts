import { requireZone, ZoneTopology } from './zone-topology';
import { invalidProp } from '../shared/errors';
import { KubeProps } from '../shared/kubernetes-props';
import { Props } from '../shared/props';

/** Whether a workload's volumes are of one zone each, and if not, why a per-zone class cannot be set. */
export interface ZonalVolumes {
  readonly ok: boolean;
  readonly why?: string;
}

/** The check of a `storageClassNamePerZone` prop: zone -> StorageClass name. */
export const STORAGE_CLASS_PER_ZONE_PROP = Props.optional(Props.mapOf(KubeProps.dnsSubdomain()));

/**
 * Storage classes per zone (`storageClassNamePerZone`), with one class for every zone as the shorthand
 * (`storageClassName`): a cloud whose disks are zonal often has a class per zone (a zone's own disk type or
 * replication), and a class can be retired from one zone without touching the others.
 */
export class ZoneStorageClasses {
  /**
   * Checks `perZone` against the topology: every key must be one of its zones. `zonal` says whether the
   * workload has volumes of one zone each (per-zone StatefulSets); when it has not, a per-zone map cannot
   * be expressed and is refused with `why`.
   */
  public static of(
    where: string, prop: string, topology: ZoneTopology, single: string | undefined,
    perZone: { readonly [zone: string]: string } | undefined, zonal: ZonalVolumes = { ok: true },
  ): ZoneStorageClasses {
    if (perZone !== undefined) {
      if (!zonal.ok) throw invalidProp(where, prop, perZone, zonal.why ?? 'needs volumes of one zone each');
      for (const zone of Object.keys(perZone)) requireZone(topology, where, `${prop} key`, zone);
    }
    return new ZoneStorageClasses(single, perZone ?? {});
  }

  private constructor(private readonly single: string | undefined, private readonly perZone: { readonly [zone: string]: string }) {}

  /** The class of `zone`'s volumes (undefined: the cluster's default class); `undefined` zone: the single class. */
  public forZone(zone: string | undefined): string | undefined {
    return (zone !== undefined ? this.perZone[zone] : undefined) ?? this.single;
  }
}
