/**
 * Zones the manifests pin pods to that the inventory does not name (pure): a nodeSelector, a required node
 * affinity's `In` values, or a volume's node affinity on the zone key. Pods pinned there can never be placed, and a
 * near miss of a known zone is most likely a typo: the finding names the closest zone.
 */
import { CheckInput } from './check-input';
import { FindingSeverity, ZoneFinding } from './model';
import { NodeSelectorTerm, Requirement } from '../kubernetes/objects';

/** One finding per zone named in the input but not in `zones`, with what names it. */
export function unknownZoneFindings(input: CheckInput, zones: readonly string[], zoneKey: string): ZoneFinding[] {
  const namedBy = new Map<string, string[]>();
  const note = (zone: unknown, by: string) => {
    if (typeof zone !== 'string' || zones.includes(zone)) return;
    namedBy.set(zone, [...new Set([...namedBy.get(zone) ?? [], by])]);
  };
  for (const w of input.workloads) {
    const by = `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`;
    note(w.pod.nodeSelector?.[zoneKey], by);
    const terms = w.pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    for (const zone of zonesIn(terms, zoneKey)) note(zone, by);
  }
  for (const v of input.volumes) for (const zone of zonesIn(v.nodeTerms, zoneKey)) note(zone, `PersistentVolume ${v.name}`);
  return [...namedBy].map(([zone, by]) => {
    const near = closest(zone, zones);
    return {
      rule: 'unknown-zone',
      severity: FindingSeverity.WARNING,
      message: `${by.join(', ')} ${by.length > 1 ? 'pin' : 'pins'} pods to zone ${JSON.stringify(zone)}, which is not one of the zones `
        + `[${zones.join(', ')}]: no pod can be placed there${near ? `. Did you mean ${JSON.stringify(near)}?` : ''}`,
      fix: near ? `Write ${JSON.stringify(near)} (or name ${JSON.stringify(zone)} with --zones or in the inventory, if it is a real zone).`
        : 'Name the zone with --zones or in the inventory if it is a real zone, or pin the pods to one that is.',
    };
  });
}

/** The zones the `In` requirements on the zone key of `terms` name. */
function zonesIn(terms: readonly NodeSelectorTerm[] | undefined, zoneKey: string): unknown[] {
  const requirements: readonly Requirement[] = (Array.isArray(terms) ? terms : [])
    .flatMap((t: NodeSelectorTerm) => (Array.isArray(t?.matchExpressions) ? t.matchExpressions : []));
  return requirements.filter((e) => e?.key === zoneKey && e.operator === 'In' && Array.isArray(e.values))
    .flatMap((e) => e.values as unknown[]);
}

/** The known zone within two edits of `zone` (the closest; a tie, the first), if any. */
export function closest(zone: string, zones: readonly string[]): string | undefined {
  const scored = zones.map((z) => [z, editDistance(zone.toLowerCase(), z.toLowerCase())] as const)
    .filter(([, d]) => d <= Math.min(2, Math.floor(zone.length / 3)));
  scored.sort((a, b) => a[1] - b[1]);
  return scored[0]?.[0];
}

/** Levenshtein distance (names are short: a row at a time). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}
