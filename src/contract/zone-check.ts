/**
 * How a workload tells the zone check (src/check) what it needs to keep working when a zone is lost. The
 * library's own constructs annotate their workloads with it; users may annotate theirs.
 */
import { PROJECT_DOMAIN } from './labels';

/**
 * The replicas a workload (or a zone group) needs: `majority` (more than half of its replicas), a whole number
 * (`0`: it may be down while its zone is, e.g. a zone-local shard or a singleton whose system works without it),
 * or `zone-majority` (a zone group: pods left in more than half of the zones it runs in).
 */
export const QUORUM_ANNOTATION = `${PROJECT_DOMAIN}/quorum`;
/** Why the workload needs what its quorum says, for the report. */
export const QUORUM_REASON_ANNOTATION = `${PROJECT_DOMAIN}/quorum-reason`;
/**
 * Workloads of one system split by zone (e.g. one StatefulSet per zone): the check judges them together, by
 * the group's quorum, instead of each one alone.
 */
export const ZONE_GROUP_ANNOTATION = `${PROJECT_DOMAIN}/zone-group`;
/**
 * The replicas a controller scales the workload to when its manifest leaves `replicas` unset (the Redis manager
 * sizes each zone's StatefulSet to the layout): what the check counts instead of Kubernetes' default of 1.
 */
export const REPLICAS_ANNOTATION = `${PROJECT_DOMAIN}/replicas`;

/** The replicas a REPLICAS_ANNOTATION value names, or undefined when it is no whole number. */
export function annotatedReplicas(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}
/** The quorum of a zone group that needs a majority of its zones. */
export const ZONE_MAJORITY = 'zone-majority';

/** The annotations that declare a workload's quorum (and its zone group). */
export function quorumAnnotations(quorum: string, reason: string, group?: string): { [key: string]: string } {
  return {
    [QUORUM_ANNOTATION]: quorum,
    [QUORUM_REASON_ANNOTATION]: reason,
    ...(group !== undefined ? { [ZONE_GROUP_ANNOTATION]: group } : {}),
  };
}
