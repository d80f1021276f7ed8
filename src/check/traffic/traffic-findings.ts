/**
 * What the traffic report finds about a Service's routing (pure), each with a fix in the terms of the manifests:
 * most requests crossing zones where a zone-local policy would keep them in, a zone-local policy that overloads an
 * endpoint, topology-aware hints that fall back, endpoints that all sit in one zone.
 */
import { EVERY_LAYOUT_LIMIT, LayoutBounds } from '../../traffic/layouts';
import { keepsTrafficInZone, TOPOLOGY_MODE_ANNOTATION, TrafficPolicy } from '../../traffic/policy';
import { WorstTraffic } from '../../traffic/worst-case';
import { LOAD_LIMIT } from '../../traffic/zone-local-safety';
import { FindingSeverity, ZoneFinding } from '../model';

/** The rule ids (docs/traffic.md, "Findings"). */
export const TRAFFIC_CROSSES_ZONES = 'traffic-crosses-zones';
export const ZONE_LOCAL_OVERLOAD = 'zone-local-overload';
export const TOPOLOGY_HINTS_FALL_BACK = 'topology-hints-fall-back';
export const ENDPOINTS_IN_ONE_ZONE = 'endpoints-in-one-zone';
export const HEADLESS_SERVICE = 'headless-service';
export const NODE_LOCAL_DROPS = 'node-local-drops';
export const WORST_CASE_NOT_EXACT = 'worst-case-not-exact';

/** Above this share of requests crossing zones, a Service is reported. */
export const CROSSING_LIMIT = 0.5;

/** What the findings are judged from. */
export interface RoutingJudged {
  readonly policy: TrafficPolicy;
  readonly zones: readonly string[];
  readonly endpoints: LayoutBounds;
  readonly worst: WorstTraffic;
  /** The same endpoints and clients under PreferSameZone (for a Service that has no zone-local policy). */
  readonly sameZone?: WorstTraffic;
  /** The fewest ready endpoints topology-aware hints are given for (undefined: none). */
  readonly fewestHinted?: number;
  /** Some of its endpoints are one per node on every node (a DaemonSet). */
  readonly onEveryNode?: boolean;
}

/** The findings about a Service's routing. */
export function trafficFindings(j: RoutingJudged): ZoneFinding[] {
  return [
    ...oneZone(j), ...crossing(j), ...overload(j), ...fallBack(j),
    ...(j.policy === TrafficPolicy.HEADLESS ? [headless()] : []),
    ...(j.policy === TrafficPolicy.NODE_LOCAL && !j.onEveryNode ? [nodeLocalDrops()] : []),
    ...(j.worst.exact ? [] : [notExact()]),
  ];
}

function oneZone(j: RoutingJudged): ZoneFinding[] {
  const { hi, placed } = j.endpoints;
  const zonesUsable = hi.filter((h) => h > 0).length;
  if (placed === 0 || (placed > 1 && zonesUsable > 1)) return [];
  const where = zonesUsable === 1 ? `zone ${j.zones[hi.findIndex((h) => h > 0)]}` : 'one zone';
  return [{
    rule: ENDPOINTS_IN_ONE_ZONE,
    severity: FindingSeverity.WARNING,
    message: `its ${placed === 1 ? 'one endpoint is' : `${placed} endpoints are all`} in ${where}: every request from the other ` +
      'zones crosses, whatever the policy',
    fix: 'Run more replicas with a hard zone spread (topologySpreadConstraints on topology.kubernetes.io/zone, ' +
      'DoNotSchedule), on nodes in every zone.',
  }];
}

function crossing(j: RoutingJudged): ZoneFinding[] {
  // a headless Service's clients pick addresses themselves: no policy applies (its own note says so)
  if (keepsTrafficInZone(j.policy)
    || j.policy === TrafficPolicy.HEADLESS
    || j.worst.crossZoneShare <= CROSSING_LIMIT) return [];
  const local = j.sameZone;
  // as the library's own Services decide (zone-local-safety.ts): every zone sure of an endpoint, none overloaded
  const policyHelps = local !== undefined && j.endpoints.lo.every((n) => n > 0) && local.maxLoadRatio <= LOAD_LIMIT;
  const spread = 'spread its pods with a hard zone spread (maxSkew 1, DoNotSchedule) and at least one replica per zone';
  return [{
    rule: TRAFFIC_CROSSES_ZONES,
    severity: FindingSeverity.WARNING,
    message: `${percent(j.worst.crossZoneShare)} of its requests may cross zones (${j.policy === TrafficPolicy.TOPOLOGY_AUTO
      ? 'topology-aware hints that fall back' : 'no zone-local policy'})` + (local === undefined ? ''
      : `; with trafficDistribution: PreferSameZone, ${percent(local.crossZoneShare)} at worst, busiest endpoint ${ratio(local.maxLoadRatio)}`),
    fix: policyHelps ? 'Set spec.trafficDistribution: PreferSameZone on the Service.'
      : `First ${spread}, then set spec.trafficDistribution: PreferSameZone on the Service.`,
  }];
}

function overload(j: RoutingJudged): ZoneFinding[] {
  if (!keepsTrafficInZone(j.policy) || j.worst.maxLoadRatio <= LOAD_LIMIT) return [];
  return [{
    rule: ZONE_LOCAL_OVERLOAD,
    severity: FindingSeverity.WARNING,
    message: `${j.policy} has no overload guard: its busiest endpoint may take ${ratio(j.worst.maxLoadRatio)} an even share ` +
      'of the requests (a zone with few endpoints and many clients sends them all its clients\' requests)',
    fix: 'Keep the endpoints in proportion to the clients in every zone (a hard zone spread with maxSkew 1 and replicas ' +
      `a multiple of the zones), or use ${TOPOLOGY_MODE_ANNOTATION}: Auto, whose allotment keeps each endpoint within 20%.`,
  }];
}

function fallBack(j: RoutingJudged): ZoneFinding[] {
  if (j.policy !== TrafficPolicy.TOPOLOGY_AUTO || j.worst.fellBack === undefined) return [];
  return [{
    rule: TOPOLOGY_HINTS_FALL_BACK,
    severity: FindingSeverity.WARNING,
    message: `topology-aware hints may fall back to cluster-wide routing: ${j.worst.fellBack}`,
    fix: j.fewestHinted === undefined
      ? 'Topology-aware hints need ready nodes with a zone label and allocatable CPU in at least two zones.'
      : `Keep at least ${j.fewestHinted} endpoints ready (replicas, and a zone spread so a zone loss leaves them), ` +
        'or use spec.trafficDistribution: PreferSameZone.',
  }];
}

function notExact(): ZoneFinding {
  return {
    rule: WORST_CASE_NOT_EXACT,
    severity: FindingSeverity.INFO,
    message: `its endpoints may take more than ${EVERY_LAYOUT_LIMIT.toLocaleString('en-US')} layouts over the zones: ` +
      'the worst case shown is over the extreme ones (each zone at its fewest, its most or 1), and topology-aware ' +
      'hints may route another layout worse',
    fix: 'Nothing to fix; a hard zone spread narrows the layouts (and makes the report exact).',
  };
}

function nodeLocalDrops(): ZoneFinding {
  return {
    rule: NODE_LOCAL_DROPS,
    severity: FindingSeverity.WARNING,
    message: 'internalTrafficPolicy: Local sends a client only to the pods on its own node, with no fall-back: a ' +
      'client on a node without one gets no answer (nothing crosses zones, and nothing is balanced)',
    fix: 'Run its pods on every node its clients use (a DaemonSet), or drop internalTrafficPolicy: Local for ' +
      'trafficDistribution: PreferSameNode, which falls back to the zone, then to every endpoint.',
  };
}

function headless(): ZoneFinding {
  return {
    rule: HEADLESS_SERVICE,
    severity: FindingSeverity.INFO,
    message: 'it is headless (clusterIP: None): clients pick among its pods\' addresses from DNS, not kube-proxy; ' +
      'the report assumes they pick evenly, and no routing policy applies',
    fix: 'Nothing to fix; zone-local routing needs a client that prefers its zone\'s addresses, or a ClusterIP Service.',
  };
}

/** A share as a percentage, e.g. `67%`. */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** A load ratio, e.g. `2.3x`. */
export function ratio(value: number): string {
  return `${value.toFixed(2)}x`;
}
