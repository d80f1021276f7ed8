import { ZoneTopology } from './zone-topology';

/**
 * The `trafficDistribution` that keeps a Service's clients in their own zone (the topology's
 * `zoneLocalTrafficDistribution`) when the cluster supports it and every zone is sure to hold one of its pods
 * (`zonesWithPods` of the topology's zones in the worst case); else undefined: a zone without an endpoint sends
 * its clients across zones anyway, so the Service is left as it is.
 */
export function zoneLocalTraffic(topology: ZoneTopology, zonesWithPods: number): string | undefined {
  return zonesWithPods < topology.zoneCount ? undefined : topology.zoneLocalTrafficDistribution;
}
