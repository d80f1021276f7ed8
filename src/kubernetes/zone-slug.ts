import { toDnsLabel } from './kubernetes-names';

/**
 * The longest zone slug. Zone names are label values (up to 63 characters, with upper case, '_' and '.');
 * their slugs go into object names next to a construct's name and a component, which must fit 52 or 63
 * characters (prometheus-<name>-<zone>-shard-<n>), so a long zone name is shortened (with a hash) rather
 * than leaving no room for the name. Most cloud zone names fit (eu-west-1a, europe-west1-b, asia-northeast1-a).
 */
export const ZONE_SLUG_MAX = 18;
/** The hex digits of the hash that tells shortened or cleaned zone names apart. */
const ZONE_SLUG_HASH = 6;

/**
 * The DNS-label-safe name of a zone, used in every object name derived from a zone: the zone itself when
 * it is a DNS label of at most `ZONE_SLUG_MAX` characters (`eu-west-1a`), else its lower-cased letters and
 * digits followed by a hash of the zone (`Zone_A` -> `zone-a-<hash>`). It depends on the zone alone, so
 * adding or removing another zone never renames this zone's objects.
 */
export function zoneSlug(zone: string): string {
  return toDnsLabel(zone, ZONE_SLUG_MAX, false, ZONE_SLUG_HASH);
}

/** The slugs of `zones`, in order. */
export function zoneSlugs(zones: readonly string[]): string[] {
  return zones.map(zoneSlug);
}
