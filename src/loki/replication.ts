import { Quorum, Survival, SurvivalVerdict } from '../topology/survival';

/**
 * Whether Loki keeps taking writes with a zone down (pure), through the library's survival math.
 *
 * With zone awareness, dskit writes each stream to `replicationFactor` ingesters, one per zone. When fewer
 * zones hold ingesters, it silently uses one per zone it has, while a write still needs floor(RF/2)+1 of
 * them. So a stream has min(RF, zones with ingesters) replicas, one per zone, and losing the zone of one
 * of them must leave the quorum.
 */

/** The number of replicas a write must reach: floor(RF/2)+1 (dskit). */
export function quorum(replicationFactor: number): number {
  return Math.floor(replicationFactor / 2) + 1;
}

/**
 * The fewest zones that hold an ingester when `ingesters` pods are spread over `zones` zones by a hard zone
 * spread of `maxSkew` (DoNotSchedule). A zone may stay empty while every other zone holds at most maxSkew
 * (the skew to an empty zone); once there are more ingesters than that allows, every zone holds one.
 */
export function fewestZonesWithIngesters(ingesters: number, zones: number, maxSkew: number): number {
  if (ingesters > (zones - 1) * maxSkew) return zones;
  return Math.ceil(ingesters / maxSkew);
}

/**
 * The verdict on a stream's replicas losing one zone: min(RF, zonesWithIngesters) replicas, one per zone,
 * against a quorum of floor(RF/2)+1.
 */
export function writeSurvival(replicationFactor: number, zones: readonly string[], zonesWithIngesters: number): SurvivalVerdict {
  const replicas = Math.min(replicationFactor, zonesWithIngesters);
  const perZone = Object.fromEntries(zones.slice(0, replicas).map((zone) => [zone, 1]));
  return Survival.check(perZone, Quorum.atLeast(quorum(replicationFactor)), 1);
}

/**
 * The fewest ingesters, at least `from`, whose worst-case spread keeps writes going with a zone down; undefined
 * when no number of ingesters can (the replication factor is below 3, or above what the zones allow).
 */
export function fewestSurvivingIngesters(replicationFactor: number, zones: readonly string[], maxSkew: number, from: number): number | undefined {
  // Beyond (zones - 1) * maxSkew every zone holds an ingester: more ingesters change nothing.
  const enough = (zones.length - 1) * maxSkew + 1;
  for (let n = Math.max(from, 1); n <= Math.max(from, enough); n++) {
    if (writeSurvival(replicationFactor, zones, fewestZonesWithIngesters(n, zones.length, maxSkew)).survives) return n;
  }
  return undefined;
}
