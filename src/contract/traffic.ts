/**
 * What the traffic report (`cdk8s-zones traffic`) cannot see in a manifest, declared by the object: which zone's
 * targets a Prometheus shard scrapes, and a Service whose clients are not pods in the zones. The library's own
 * objects carry them; a user's may too.
 */
import { PROJECT_DOMAIN } from './labels';

/** The zone whose targets the shard scrapes: its scrapes cross zones wherever its pods may run elsewhere. */
export const SCRAPES_ZONE_ANNOTATION = `${PROJECT_DOMAIN}/scrapes-zone`;
/**
 * `true` on the shards that also scrape the targets of no known zone (no zone label, or a zone outside the topology):
 * those targets may be in any zone, so their scrapes may cross.
 */
export const SCRAPES_UNZONED_ANNOTATION = `${PROJECT_DOMAIN}/scrapes-unzoned-targets`;

/** The annotations of a shard that scrapes `zone`'s targets (and, `unzoned`, those of no known zone). */
export function scrapeZoneAnnotations(zone: string, unzoned: boolean): { [key: string]: string } {
  return { [SCRAPES_ZONE_ANNOTATION]: zone, ...(unzoned ? { [SCRAPES_UNZONED_ANNOTATION]: 'true' } : {}) };
}

/**
 * On a Service: `outside` when its clients are not pods spread over the zones (the API server calling a webhook,
 * a load balancer): the report shows where its endpoints are, and no share crossing zones.
 */
export const TRAFFIC_CLIENTS_ANNOTATION = `${PROJECT_DOMAIN}/traffic-clients`;
/** The TRAFFIC_CLIENTS_ANNOTATION value of a Service whose clients are outside the zones. */
export const CLIENTS_OUTSIDE = 'outside';
