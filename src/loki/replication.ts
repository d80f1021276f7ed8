import { fewestZonesWithPods } from '../topology/spread';
import { ringWriteSurvival, SurvivalVerdict } from '../topology/survival';

/**
 * Whether Loki keeps taking writes with a zone down (pure): which zones hold ingesters for a spread, judged by
 * the ring's rule (ringWriteSurvival).
 */

/** The verdict on Loki's writes losing one zone when `zonesWithIngesters` of `zones` hold ingesters. */
export function writeSurvival(
  replicationFactor: number,
  zones: readonly string[],
  zonesWithIngesters: number,
): SurvivalVerdict {
  return ringWriteSurvival(replicationFactor, zones.slice(0, zonesWithIngesters));
}

/**
 * The fewest ingesters, at least `from`, whose worst-case spread keeps writes going with a zone down; undefined
 * when no number of ingesters can (the replication factor is below 3, or above what the zones allow).
 */
export function fewestSurvivingIngesters(
  replicationFactor: number,
  zones: readonly string[],
  maxSkew: number,
  from: number,
): number | undefined {
  // Beyond (zones - 1) * maxSkew every zone holds an ingester: more ingesters change nothing.
  const enough = (zones.length - 1) * maxSkew + 1;
  for (let n = Math.max(from, 1); n <= Math.max(from, enough); n++) {
    if (writeSurvival(replicationFactor, zones, fewestZonesWithPods(n, zones.length, maxSkew)).survives) return n;
  }
  return undefined;
}
