/**
 * What `cdk8s-zones traffic` reports (`TrafficReportData`): per Service, where its endpoints are, the rule that
 * routes its requests, the share that crosses zones and the busiest endpoint's load; plain data, the same for the
 * JSON and every format rendered from it (text, SARIF, HTML).
 */
import { TrafficPolicy } from '../../traffic/policy';
import { ZoneFinding } from '../model';

/** An object by namespace and name. */
export interface ObjectRef {
  /** @default - none set */
  readonly namespace?: string;
  readonly name: string;
}

/** A Service's endpoints in one zone. */
export interface EndpointCount {
  /** The fewest the zone is sure to hold. */
  readonly guaranteed: number;
  /** The most it may hold. */
  readonly worstCase: number;
  /** Its pods running there now (`--live`). @default - not known: manifests */
  readonly now?: number;
}

/** A share (or a cost): at worst over every layout the manifests allow, and now (`--live`). */
export interface TrafficFigure {
  readonly worst: number;
  /** @default - not known: manifests */
  readonly now?: number;
}

/** Where one zone's clients send their requests. */
export interface ZoneRouteReport {
  /** The endpoints its requests spread over. */
  readonly endpoints: number;
  /** Of them, in the clients' zone. */
  readonly local: number;
  /** Every ready endpoint (no policy, or a fall-back). */
  readonly clusterWide: boolean;
}

/** A layout of the endpoints and the clients, and where each zone's requests go on it. */
export interface LayoutReport {
  /** Endpoints per zone. */
  readonly endpointsPerZone: { [zone: string]: number };
  /** The clients' share of the requests per zone. */
  readonly clientsPerZone: { [zone: string]: number };
  /** Per client zone, the endpoints its requests go to. */
  readonly routes: { [zone: string]: ZoneRouteReport };
}

/** The traffic of one Service. */
export interface ServiceTrafficReport {
  /** @default - none: the namespace it is applied to */
  readonly namespace?: string;
  readonly name: string;
  /** The rule that routes its requests. */
  readonly policy: TrafficPolicy;
  /** The workloads whose pods are its endpoints, as `Kind/namespace/name`. */
  readonly workloads: string[];
  /** Where its clients are: `nodes` (spread as the nodes are) or a workload, as `Kind/namespace/name`. */
  readonly clients: string;
  /** Per zone, its endpoints. */
  readonly endpointsPerZone: { [zone: string]: EndpointCount };
  /** The share of its requests that cross zones. @default - none: no endpoint or no client */
  readonly crossZoneShare?: TrafficFigure;
  /** The busiest endpoint's requests over an even split over all endpoints, at worst. @default - none */
  readonly maxLoadRatio?: number;
  /** Where the most requests cross. @default - none */
  readonly worstLayout?: LayoutReport;
  /** The layout running now and its routes (`--live`). @default - not known: manifests */
  readonly nowLayout?: LayoutReport;
  /**
   * The monthly cost of its cross-zone traffic, both directions (`--gb-per-month`, `--price-per-gb`).
   * @default - none
   */
  readonly monthlyCost?: TrafficFigure;
  readonly findings: ZoneFinding[];
}

/** The scrapes of one zone-local Prometheus shard (a pod set that scrapes one zone's targets). */
export interface ScrapeTrafficReport {
  /** The shard's workload: its kind (a Prometheus's pod set, or a StatefulSet), namespace and name. */
  readonly kind: string;
  /** @default - none set */
  readonly namespace?: string;
  readonly name: string;
  /** The zone whose targets it scrapes. */
  readonly zone: string;
  /** Whether it also scrapes the targets of no known zone (which may be in any zone). */
  readonly unzonedTargets: boolean;
  /** Per zone, its replicas. */
  readonly replicasPerZone: { [zone: string]: EndpointCount };
  /**
   * The share of its scrapes that cross zones (its replicas that may run outside the zone), not counting the
   * targets of no known zone.
   */
  readonly crossZoneShare: TrafficFigure;
  readonly findings: ZoneFinding[];
}

/** A whole traffic report. */
export interface TrafficReportData {
  readonly zones: string[];
  readonly services: ServiceTrafficReport[];
  /** The zone-local Prometheus shards' scrapes. */
  readonly scrapes: ScrapeTrafficReport[];
  /** Findings about the input as a whole (Services skipped, and why). */
  readonly findings: ZoneFinding[];
  /** The price per GB each direction bills. @default - no costs */
  readonly pricePerGb?: number;
  /** Every Service's monthly cross-zone cost, added up. @default - no costs */
  readonly monthlyCost?: TrafficFigure;
}
