/**
 * DNS-label-safe names for zones (zone names are label values: they may hold upper case, '_' and '.',
 * which object names may not): lower-cased, every run of other characters turned into '-'. When two
 * zones would get the same name (or one an empty name), every zone is named by its position instead
 * (`zone-0`, `zone-1`, ...), so names stay unique and deterministic.
 */
export function zoneSlugs(zones: string[]): string[] {
  const slugs = zones.map((zone) => zone.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, ''));
  const clash = slugs.some((slug, i) => slug === '' || slugs.indexOf(slug) !== i);
  return clash ? zones.map((_, i) => `zone-${i}`) : slugs;
}
