/**
 * The one zone node selector terms confine something to, if any (pure): a pod template (a nodeSelector on a zone
 * label, or every required node affinity term naming the same single zone) or a PersistentVolume (its required node
 * affinity). Pods pinned so never come back in another zone: a zonal shift keeps them in service (its fail-safe),
 * the lost-zone recovery leaves them alone.
 */

/** The node labels a pod is pinned to a zone by, unless told others. */
export const WELL_KNOWN_ZONE_KEYS: readonly string[] = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];

export interface ZoneRequirement {
  readonly key?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
}

/** The zone every one of `terms` (ORed) names, `In` one value under one of `zoneKeys`; undefined when they differ. */
export function zoneOfTerms(
  terms: ReadonlyArray<{ readonly matchExpressions?: readonly ZoneRequirement[] }>,
  zoneKeys: readonly string[] = WELL_KNOWN_ZONE_KEYS,
): string | undefined {
  const zoneOf = (term: { readonly matchExpressions?: readonly ZoneRequirement[] }) => {
    const pins = (term.matchExpressions ?? [])
      .filter((r) => zoneKeys.includes(r.key ?? '') && r.operator === 'In' && r.values?.length === 1);
    return pins.length > 0 ? pins[0].values![0] : undefined;
  };
  const zones = new Set(terms.map(zoneOf));
  return terms.length > 0 && zones.size === 1 && !zones.has(undefined) ? [...zones][0] : undefined;
}

/** A pod spec's required node affinity terms (ORed), none when it has none. */
export function requiredNodeTerms(podSpec: any): Array<{ matchExpressions?: ZoneRequirement[] }> {
  return podSpec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
}

/** The one zone a pod template confines its pods to (a nodeSelector, or every required node term), if any. */
export function pinnedZone(podSpec: any, zoneKeys: readonly string[] = WELL_KNOWN_ZONE_KEYS): string | undefined {
  for (const key of zoneKeys) {
    const selected = podSpec?.nodeSelector?.[key];
    if (typeof selected === 'string') return selected;
  }
  return zoneOfTerms(requiredNodeTerms(podSpec), zoneKeys);
}
