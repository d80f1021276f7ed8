/**
 * The traffic report (pure): for every Service of a set of manifests (or of a live cluster), where the zone check
 * may place its endpoints, the rule that routes its requests, and, with its clients spread as the nodes are (or as
 * a named workload is placed), the share of requests that cross zones and the busiest endpoint's load, at worst
 * and now. The routing arithmetic is src/traffic; this file ties it to the check's placement.
 */
import { figure, round, SHARE_DIGITS } from './figures';
import { scrapeTraffic } from './scrape-traffic';
import { podLayout, ServiceEndpoints, serviceEndpoints, PlacedWorkload } from './service-endpoints';
import { monthlyCost } from './traffic-costs';
import { RoutingJudged, trafficFindings } from './traffic-findings';
import {
  EndpointCount, ObjectRef, ServiceTrafficReport, TrafficFigure, TrafficReportData, LayoutReport,
} from './traffic-model';
import { TrafficClients, TrafficOptions, WorkloadRef } from './traffic-options';
import { CLIENTS_OUTSIDE, TRAFFIC_CLIENTS_ANNOTATION } from '../../contract/traffic';
import { UsageError } from '../../shared/errors';
import { exactLayout, LayoutBounds } from '../../traffic/layouts';
import { keepsTrafficInZone, TrafficPolicy, trafficPolicy } from '../../traffic/policy';
import { RoutingCluster } from '../../traffic/routing';
import { fewestHintedEndpoints } from '../../traffic/topology-hints';
import { WorstTraffic, worstTraffic } from '../../traffic/worst-case';
import { analyzeInput } from '../analyze';
import { CheckInput, CheckService } from '../check-input';
import { workloadId } from '../format-common';
import { ZoneInventory } from '../inventory';
import { FindingSeverity, ZoneFinding } from '../model';
import { zoneLocalTrafficFindings } from '../zone-local-traffic';

/** The zone label the EndpointSlice controller reads a node's zone from. */
const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** Nodes the EndpointSlice controller leaves out of the CPU per zone. */
const EXCLUDED_NODE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];
/** The taints the node lifecycle controller puts on a node that is not Ready (which the controller leaves out too). */
const NOT_READY_TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

export const SERVICE_WITHOUT_SELECTOR = 'service-without-selector';
export const EXTERNAL_NAME_SERVICE = 'external-name-service';

/** The traffic report of `input` (manifests read, or a live cluster) on `inventory`. */
export function analyzeTraffic(
  input: CheckInput,
  inventory: ZoneInventory,
  options: TrafficOptions = {},
): TrafficReportData {
  const zones = inventory.zones;
  const check = analyzeInput(input, inventory);
  const reportOf = new Map(check.workloads.map((r) => [workloadId(r), r]));
  const placed: PlacedWorkload[] = input.workloads.flatMap((w) => {
    const report = reportOf.get(workloadId(w));
    return report === undefined ? [] : [{ workload: w, report }];
  });
  const byNamespace = new Map<string, PlacedWorkload[]>();
  for (const p of placed) {
    const namespace = p.workload.namespace ?? '';
    byNamespace.set(namespace, [...byNamespace.get(namespace) ?? [], p]);
  }
  const context: Context = { zones, placed, byNamespace, cluster: routingCluster(inventory), options };
  checkClientsNamed(options.clients ?? [], input.services, placed);
  const findings: ZoneFinding[] = [];
  const services: ServiceTrafficReport[] = [];
  for (const s of input.services) {
    const skipped = skippedService(s);
    if (skipped !== undefined) findings.push(skipped);
    else services.push(serviceTraffic(s, context));
  }
  const costs = services.flatMap((s) => (s.monthlyCost !== undefined ? [s.monthlyCost] : []));
  return {
    zones: [...zones],
    services,
    scrapes: scrapeTraffic(placed, zones),
    findings,
    ...(options.costs !== undefined ? { pricePerGb: options.costs.pricePerGb, monthlyCost: totalOf(costs) } : {}),
  };
}

interface Context {
  readonly zones: readonly string[];
  readonly placed: readonly PlacedWorkload[];
  /** The placed workloads by namespace (`''`: none set), where a Service's selector looks. */
  readonly byNamespace: ReadonlyMap<string, readonly PlacedWorkload[]>;
  readonly cluster: RoutingCluster;
  readonly options: TrafficOptions;
}

function serviceTraffic(s: CheckService, c: Context): ServiceTrafficReport {
  const policy = trafficPolicy(s);
  const endpoints = serviceEndpoints(s, c.byNamespace.get(s.namespace ?? '') ?? [], c.zones);
  const clients = clientsOf(s, c);
  // no endpoint: nothing to route (its finding says why)
  const worst = endpoints.bounds.placed > 0
    ? worstTraffic(policy, endpoints.bounds, clients.bounds, c.cluster)
    : undefined;
  const now = endpoints.now !== undefined && clients.now !== undefined
    ? worstTraffic(policy, exactLayout(endpoints.now), clients.now, c.cluster) : undefined;
  const findings = [...endpoints.findings, ...zoneLocalTrafficFindings([s], endpoints.serving.map((p) => p.workload),
    endpoints.serving.map((p) => p.report), c.zones)];
  if (worst !== undefined) findings.push(...trafficFindings(judged(policy, endpoints, worst, clients, c)));
  const crossZoneShare = worst && figure(worst.crossZoneShare, now?.crossZoneShare, SHARE_DIGITS);
  const gbCost = worst && monthlyCost(s, { worst: worst.crossZoneShare, now: now?.crossZoneShare }, c.options.costs);
  const cost = gbCost && figure(gbCost.worst, gbCost.now, 2);
  return {
    ...(s.namespace !== undefined ? { namespace: s.namespace } : {}),
    name: s.name,
    policy,
    workloads: endpoints.serving.map((p) => workloadId(p.workload)),
    clients: clients.label,
    endpointsPerZone: endpointCounts(endpoints, c.zones),
    ...(crossZoneShare !== undefined && worst !== undefined ? {
      crossZoneShare,
      maxLoadRatio: round(Math.max(worst.maxLoadRatio, now?.maxLoadRatio ?? 0), 2),
      worstLayout: layoutReport(worst, c.zones),
      ...(now !== undefined ? { nowLayout: layoutReport(now, c.zones) } : {}),
    } : {}),
    ...(cost !== undefined ? { monthlyCost: cost } : {}),
    findings,
  };
}

function judged(
  policy: TrafficPolicy, endpoints: ServiceEndpoints, worst: WorstTraffic, clients: Clients, c: Context,
): RoutingJudged {
  const sameZone = keepsTrafficInZone(policy) ? undefined
    : worstTraffic(TrafficPolicy.PREFER_SAME_ZONE, endpoints.bounds, clients.bounds, c.cluster);
  const fewestHinted = policy === TrafficPolicy.TOPOLOGY_AUTO
    ? fewestHintedEndpoints(endpoints.bounds.placed, c.cluster.cpuShares) : undefined;
  const nodes = c.cluster.nodesPerZone.reduce((a, b) => a + b, 0);
  const onEveryNode = endpoints.serving.some((p) => p.workload.perNode === true && p.report.replicas >= nodes);
  return { policy, zones: c.zones, endpoints: endpoints.bounds, worst, sameZone, fewestHinted, onEveryNode };
}

/** The clients of a Service: their label, their pods (or nodes) per zone, and now (`--live`). */
interface Clients {
  readonly label: string;
  readonly bounds: LayoutBounds;
  readonly now?: LayoutBounds;
}

function clientsOf(s: CheckService, c: Context): Clients {
  const options = c.options.clients ?? [];
  const option = options.find((o) => o.service !== undefined && sameRef(o.service, s))
    ?? options.find((o) => o.service === undefined);
  if (option === undefined && s.annotations[TRAFFIC_CLIENTS_ANNOTATION] === CLIENTS_OUTSIDE) {
    return { label: 'outside the zones', bounds: exactLayout(c.zones.map(() => 0)) };
  }
  if (option === undefined) {
    const nodes = exactLayout(c.cluster.nodesPerZone);
    return { label: 'nodes', bounds: nodes, now: nodes };
  }
  const client = c.placed.find((p) => sameWorkload(option.workload, p))!;
  const { bounds, now } = podLayout([client], c.zones);
  return { label: workloadId(client.workload), bounds, ...(now !== undefined ? { now: exactLayout(now) } : {}) };
}

/** `--clients` naming no Service or no workload of the input is bad usage. */
function checkClientsNamed(
  options: readonly TrafficClients[],
  services: readonly CheckService[],
  placed: readonly PlacedWorkload[],
): void {
  for (const o of options) {
    if (o.service !== undefined && !services.some((s) => sameRef(o.service!, s))) {
      throw new UsageError(`--clients ${refText(o.service)}=...: the input has no Service ${refText(o.service)}`);
    }
    if (!placed.some((p) => sameWorkload(o.workload, p))) {
      throw new UsageError(`--clients ${refText(o.workload)}: the input has no workload ${refText(o.workload)} ` +
        '(NAMESPACE/KIND/NAME, the namespace - when the manifest sets none)');
    }
  }
}

/** A Service the report cannot route: ExternalName (a DNS alias), or one without a selector (endpoints by hand). */
function skippedService(s: CheckService): ZoneFinding | undefined {
  const name = `Service ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;
  if (s.type === 'ExternalName') {
    return {
      rule: EXTERNAL_NAME_SERVICE,
      severity: FindingSeverity.INFO,
      message: `${name} is an ExternalName Service (a DNS alias): it has no endpoints to route, so it is not reported`,
      fix: 'Nothing to fix; report the Service it names, if it is in the input.',
    };
  }
  if (s.selector !== undefined) return undefined;
  return {
    rule: SERVICE_WITHOUT_SELECTOR,
    severity: FindingSeverity.INFO,
    message: `${name} has no selector: its EndpointSlices are made by someone else, so where its endpoints are is not known`,
    fix: 'Nothing to fix; check it live if its endpoints are pods of the cluster.',
  };
}

/** The nodes as routing sees them: clients' nodes per zone, and each zone's share of the ready nodes' CPU. */
export function routingCluster(inventory: ZoneInventory): RoutingCluster {
  const nodes = inventory._nodes;
  const nodesPerZone = inventory.zones.map((z) => nodes.filter((n) => n.zone === z).length);
  const counted = nodes.filter((n) => !EXCLUDED_NODE_LABELS.some((l) => l in n.labels)
    && !n.taints.some((t) => NOT_READY_TAINTS.includes(t.key)));
  const zoneOf = (n: typeof nodes[number]) =>
    n.labels[ZONE_LABEL] ?? (inventory.topologyKey === ZONE_LABEL ? n.zone : undefined);
  const unzoned = counted.find((n) => !zoneOf(n) || n.cpu <= 0);
  if (unzoned !== undefined) {
    return { nodesPerZone, cpuShares: `node ${unzoned.name} has no ${ZONE_LABEL} label or no allocatable CPU` };
  }
  // nodes of unlimited CPU (an inventory that gives none) count as equal
  const milli = (cpu: number) => Math.round((cpu === Infinity ? 1 : cpu) * 1000);
  const total = counted.reduce((sum, n) => sum + milli(n.cpu), 0);
  const cpuShares = inventory.zones.map((z) => counted.filter((n) => zoneOf(n) === z)
    .reduce((sum, n) => sum + milli(n.cpu), 0) / total);
  return { nodesPerZone, cpuShares };
}

function endpointCounts(e: ServiceEndpoints, zones: readonly string[]): { [zone: string]: EndpointCount } {
  return Object.fromEntries(zones.map((z, i) => [z, {
    guaranteed: e.bounds.lo[i], worstCase: e.bounds.hi[i], ...(e.now !== undefined ? { now: e.now[i] } : {}),
  }]));
}

function layoutReport(w: WorstTraffic, zones: readonly string[]): LayoutReport {
  return {
    endpointsPerZone: Object.fromEntries(zones.map((z, i) => [z, w.layout[i]])),
    clientsPerZone: Object.fromEntries(zones.map((z, i) => [z, round(w.clients[i], SHARE_DIGITS)])),
    routes: Object.fromEntries(zones.map((z, i) => {
      const { endpoints, local, clusterWide } = w.routes[i];
      return [z, { endpoints, local, clusterWide }];
    })),
  };
}

function totalOf(costs: readonly TrafficFigure[]): TrafficFigure {
  const worst = costs.reduce((a, c) => a + c.worst, 0);
  const now = costs.every((c) => c.now !== undefined) && costs.length > 0
    ? costs.reduce((a, c) => a + c.now!, 0)
    : undefined;
  return figure(worst, now, 2);
}


function sameRef(ref: ObjectRef, o: { readonly namespace?: string; readonly name: string }): boolean {
  return (ref.namespace ?? '') === (o.namespace ?? '') && ref.name === o.name;
}

function sameWorkload(ref: WorkloadRef, p: PlacedWorkload): boolean {
  return ref.kind.toLowerCase() === p.workload.kind.toLowerCase() && sameRef(ref, p.workload);
}

function refText(ref: ObjectRef & { readonly kind?: string }): string {
  return [ref.namespace ?? '-', ...(ref.kind !== undefined ? [ref.kind] : []), ref.name].join('/');
}
