/**
 * When a Service of the library may keep clients in their zone (`trafficDistribution`): the same worst case the
 * traffic report computes (`cdk8s-zones traffic`), for clients spread evenly over the zones. PreferSameZone has no
 * overload guard, so it is set only where every zone is sure to hold an endpoint and no endpoint may take more than
 * LOAD_LIMIT times an even share. Pure.
 */
import { exactLayout, LayoutBounds } from './layouts';
import { TrafficPolicy } from './policy';
import { worstTraffic } from './worst-case';
import { ZoneTopology } from '../topology/zone-topology';

/** Above this load on the busiest endpoint (over an even split), a zone-local policy is not safe. */
export const LOAD_LIMIT = 2;

/**
 * Whether PreferSameZone is safe over endpoints laid out within `endpoints` (per zone the fewest and most, in
 * the topology's zone order), clients spread evenly over the zones: no zone without one, no endpoint over
 * LOAD_LIMIT.
 */
export function zoneLocalIsSafe(endpoints: LayoutBounds): boolean {
  if (endpoints.placed === 0 || endpoints.lo.some((n) => n === 0)) return false;
  const evenly = endpoints.lo.map(() => 1);
  const clients = exactLayout(evenly);
  const cluster = { nodesPerZone: evenly, cpuShares: 'not needed by PreferSameZone' };
  const worst = worstTraffic(TrafficPolicy.PREFER_SAME_ZONE, endpoints, clients, cluster);
  return worst !== undefined && worst.maxLoadRatio <= LOAD_LIMIT;
}

/**
 * The `trafficDistribution` a library Service sets over `endpoints`: the topology's zone-local one where the cluster
 * supports it and it is safe (zoneLocalIsSafe); else undefined (the Service is left to spread over every zone).
 */
export function zoneLocalTraffic(topology: ZoneTopology, endpoints: LayoutBounds): string | undefined {
  return zoneLocalIsSafe(endpoints) ? topology.zoneLocalTrafficDistribution : undefined;
}
