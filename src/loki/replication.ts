import { invalidProp } from '../shared/errors';

/** The outcome of `checkReplication`: warnings for layouts that work but lose writes in a zone outage. */
export interface ReplicationCheck {
  readonly warnings: string[];
}

/**
 * Checks a zone-aware replication layout that Loki (dskit) accepts silently and then runs degraded
 * (pure). Throws on:
 * - replicationFactor < 1 or not an integer;
 * - replicationFactor > zones: dskit shrinks each stream's replica set to the number of zones while the
 *   write quorum stays floor(RF/2)+1, so losing a single instance stops writes;
 * - a single zone with replicationFactor > 1 (zone awareness puts at most one replica in each zone);
 * - a zone without ingesters, or fewer zones with ingesters than replicationFactor.
 * Warns on replicationFactor 2 with 2 zones: the quorum is 2, so one zone down blocks every write.
 *
 * @param ingestersPerZone ingesters in each zone of the topology, by zone name
 */
export function checkReplication(where: string, replicationFactor: number, ingestersPerZone: { [zone: string]: number }): ReplicationCheck {
  const zones = Object.keys(ingestersPerZone);
  if (!Number.isInteger(replicationFactor) || replicationFactor < 1) {
    throw invalidProp(where, 'replicationFactor', replicationFactor, 'must be an integer >= 1');
  }
  if (zones.length === 1 && replicationFactor > 1) {
    throw invalidProp(where, 'replicationFactor', replicationFactor,
      `needs as many zones, but the topology has 1 zone (${zones[0]}): zone-aware replication puts at most one replica of a ` +
      'stream in a zone. Add zones to the topology, or use replicationFactor 1');
  }
  if (replicationFactor > zones.length) {
    throw invalidProp(where, 'replicationFactor', replicationFactor,
      `exceeds the ${zones.length} zones of the topology: Loki silently shrinks each stream's replicas to ${zones.length} ` +
      `while the write quorum stays ${quorum(replicationFactor)}, so a single lost ingester stops writes. ` +
      `Use replicationFactor <= ${zones.length}, or add zones`);
  }
  for (const zone of zones) {
    const n = ingestersPerZone[zone];
    if (!Number.isInteger(n) || n < 1) {
      throw invalidProp(where, `ingesterReplicasPerZone[${JSON.stringify(zone)}]`, n,
        'must be an integer >= 1: a zone without ingesters cannot hold its replica of each stream');
    }
  }
  const warnings: string[] = [];
  if (replicationFactor === 2 && zones.length === 2) {
    warnings.push('replicationFactor 2 over 2 zones: the write quorum is 2, so one zone down blocks every write ' +
      '(reads still work). Use 3 zones with replicationFactor 3 to survive a zone outage');
  }
  return { warnings };
}

/** The number of replicas a write must reach: floor(RF/2)+1 (dskit). */
export function quorum(replicationFactor: number): number {
  return Math.floor(replicationFactor / 2) + 1;
}
