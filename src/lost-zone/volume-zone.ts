/**
 * The zone a PersistentVolume is bound to (pure), named as the shifts name zones (the topology keys' values joined,
 * as the zone annotation): under each key, the one value its required node affinity allows (every term names the
 * same single value), else its label; none when a key has neither (a volume any zone can use: the loss of a zone
 * does not take it).
 */
import { ZoneAnnotation } from '../contract/zone-annotation';

interface Requirement {
  readonly key?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
}

export interface VolumeFields {
  readonly metadata: { readonly labels?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly nodeAffinity?: {
      readonly required?: {
        readonly nodeSelectorTerms?: ReadonlyArray<{ readonly matchExpressions?: readonly Requirement[] }>;
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
  const zones = new Set(terms.map((term) => {
    const pins = (term.matchExpressions ?? [])
      .filter((r) => r.key === zoneKey && r.operator === 'In' && r.values?.length === 1);
    return pins.length > 0 ? pins[0].values![0] : undefined;
  }));
  if (terms.length > 0 && zones.size === 1 && !zones.has(undefined)) return [...zones][0];
  return terms.length === 0 ? volume.metadata.labels?.[zoneKey] : undefined;
}
