/**
 * The scrapes of zone-local Prometheus shards (pure): a shard that scrapes one zone's targets
 * (SCRAPES_ZONE_ANNOTATION) keeps its scrapes in the zone as long as its pods run there; each of its replicas
 * scrapes every target, so the share that crosses is the share of its replicas that may run in another zone. The
 * shards that also scrape targets of no known zone cannot keep those local, and say so.
 */
import { figure, SHARE_DIGITS } from './figures';
import { PlacedWorkload } from './service-endpoints';
import { ScrapeTrafficReport } from './traffic-model';
import { SCRAPES_UNZONED_ANNOTATION, SCRAPES_ZONE_ANNOTATION } from '../../contract/traffic';
import { FindingSeverity, ZoneFinding } from '../model';

/** The rule ids (docs/traffic.md, "Findings"). */
export const SCRAPE_CROSSES_ZONES = 'scrape-crosses-zones';
export const UNZONED_TARGETS_SCRAPED = 'unzoned-targets-scraped';

/** The scrapes of every zone-local shard among `placed`. */
export function scrapeTraffic(placed: readonly PlacedWorkload[], zones: readonly string[]): ScrapeTrafficReport[] {
  return placed.flatMap((p) => {
    const zone = p.workload.annotations[SCRAPES_ZONE_ANNOTATION];
    return zone === undefined ? [] : [shardScrapes(p, zone, zones)];
  });
}

function shardScrapes(
  { workload: w, report: r }: PlacedWorkload, zone: string, zones: readonly string[],
): ScrapeTrafficReport {
  const unzoned = w.annotations[SCRAPES_UNZONED_ANNOTATION] === 'true';
  const placed = r.replicas - r.pendingWorstCase;
  const inZone = r.perZone[zone]?.guaranteed ?? 0;
  const worst = placed === 0 ? 0 : (placed - inZone) / placed;
  const running = w.running;
  const runningTotal = running === undefined ? 0 : Object.values(running).reduce((a, b) => a + b, 0);
  const now = running === undefined || runningTotal === 0 ? undefined
    : (runningTotal - (running[zone] ?? 0)) / runningTotal;
  const findings: ZoneFinding[] = [];
  if (worst > 0) {
    findings.push({
      rule: SCRAPE_CROSSES_ZONES,
      severity: FindingSeverity.WARNING,
      message: `it scrapes the targets of zone ${zone}, but ${placed - inZone} of its ${placed} replicas may run ` +
        `${zones.includes(zone) ? 'in another zone' : `elsewhere (zone ${zone} has no nodes)`}: their scrapes cross zones`,
      fix: `Pin its pods to zone ${zone} (a required node affinity on its zone label), as TopologyShardedPrometheus does.`,
    });
  }
  if (unzoned) {
    findings.push({
      rule: UNZONED_TARGETS_SCRAPED,
      severity: FindingSeverity.INFO,
      message: 'it also scrapes the targets of no known zone (no zone label, or a zone outside the topology), wherever ' +
        'they run: those scrapes may cross zones (the report does not see the targets)',
      fix: 'Nothing to fix if few; otherwise give the targets\' nodes (or endpoints) their topology.kubernetes.io/zone label.',
    });
  }
  return {
    kind: w.kind,
    ...(w.namespace !== undefined ? { namespace: w.namespace } : {}),
    name: w.name,
    zone,
    unzonedTargets: unzoned,
    replicasPerZone: Object.fromEntries(zones.map((z) => [z, {
      guaranteed: r.perZone[z]?.guaranteed ?? 0,
      worstCase: r.perZone[z]?.worstCase ?? 0,
      ...(running !== undefined ? { now: running[z] ?? 0 } : {}),
    }])),
    crossZoneShare: figure(worst, now, SHARE_DIGITS),
    findings,
  };
}
