/**
 * The zone a PersistentVolume is bound to (pure), named as the shifts name zones (the topology keys' values joined,
 * as the zone annotation): under each key, the one value its required node affinity allows (every term names the
 * same single value), else its label; none when a key has neither (a volume any zone can use: the loss of a zone
 * does not take it).
 */
import { ZoneAnnotation } from '../contract/zone-annotation';
import { ZoneRequirement, zoneOfTerms } from '../kubernetes/pinned-zone';

export interface VolumeFields {
  readonly metadata: { readonly labels?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly nodeAffinity?: {
      readonly required?: {
        readonly nodeSelectorTerms?: ReadonlyArray<{ readonly matchExpressions?: readonly ZoneRequirement[] }>;
      };
    };
  };
}

/** `volume`'s zone under `topologyKeys`, or undefined. */
export function volumeZone(volume: VolumeFields, topologyKeys: readonly string[]): string | undefined {
  const values = topologyKeys.map((key) => valueUnder(volume, key));
  return values.every((v) => v !== undefined) ? values.join(ZoneAnnotation.VALUE_SEPARATOR) : undefined;
}

function valueUnder(volume: VolumeFields, zoneKey: string): string | undefined {
  const terms = volume.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  return terms.length > 0 ? zoneOfTerms(terms, [zoneKey]) : volume.metadata.labels?.[zoneKey];
}
