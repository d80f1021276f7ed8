/** How the replica planner's messages name levels, domains and lists of names. */
import { AntiAffinityLevel } from './options';
import { Level } from './planner-rules';

/** A level's unit, singular and plural. */
export const UNIT = { zone: ['zone', 'zones'], node: ['node', 'nodes'], disk: ['disk', 'disks'] } as const;

/** A zone as messages name it ('': the nodes without a zone label, which Longhorn counts as one zone). */
export function zoneName(zone: string): string {
  return zone === '' ? '(no zone label)' : zone;
}

export function domainName(level: Level, domain: string): string {
  return level === AntiAffinityLevel.ZONE ? zoneName(domain) : domain;
}

/** "1 node", "3 zones". */
export function plural(count: number, level: Level): string {
  return `${count} ${UNIT[level][count === 1 ? 0 : 1]}`;
}

/** The first `max` items, then how many more. */
export function list(items: string[], max = 5): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}
