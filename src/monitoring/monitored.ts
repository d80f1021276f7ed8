/**
 * What a Prometheus needs to know of a component it monitors, and what the component gives it: the component's
 * pods (namespace and labels that select exactly them), the ports and paths of its metrics, the zone alert rules that
 * come with it, and a way to open its NetworkPolicy to the scrapers on exactly those ports. The library's components
 * describe themselves (`_monitoring()`, internal); `TopologyShardedPrometheus.monitor(target)` asks the one it is
 * given, and nothing searches the construct tree.
 */
import { AlertGroup } from './alert-rule';
import { DashboardSection } from './dashboard';
import { NetworkPeer } from '../kubernetes/network-policy';
import { invalidProp } from '../shared/errors';

/** One metrics endpoint of a component's pods. */
export interface MetricsEndpoint {
  /** The container port's name. */
  readonly port: string;
  readonly path: string;
  /**
   * Whether its series' own labels win over the target's (`honor_labels`): series that describe other objects by their
   * namespace, pod and zone (the controller's, of the shifts, updates and Redis nodes it manages) keep them, where
   * Prometheus would rename them `exported_*`. @default false
   */
  readonly honorLabels?: boolean;
}

export interface MonitoredComponent {
  /** The component in messages: `ZoneController 'app/controller'`. */
  readonly what: string;
  /** The kind of component, in the names of its monitor objects and scrape jobs: `zone-controller`, `redis`. */
  readonly kind: string;
  /** The component's own name, unique among the components of its kind in its namespace. */
  readonly name: string;
  readonly namespace: string;
  /** Labels that select exactly the component's pods that serve metrics. */
  readonly podLabels: { readonly [key: string]: string };
  readonly endpoints: readonly MetricsEndpoint[];
  /** The zone alert rules that come with the component. */
  readonly alertGroups: readonly AlertGroup[];
  /** Its panels of the zone dashboard, over the same metrics as its rules. */
  readonly dashboard: DashboardSection;
  /** A PromQL regex that matches the names of its pods that serve metrics (for the panel of its pods up by zone). */
  readonly podPattern: string;
  /** Lets `scrapers` through the component's NetworkPolicy on its metrics ports (none: no policy to open). */
  admitScrapers(scrapers: NetworkPeer): void;
}

/**
 * The scrapers a component's NetworkPolicy admits on its metrics ports: known only once every `monitor()` has run, so
 * the policy's rule reads them lazily (`from: scrapers.list`).
 */
export class ScraperPeers {
  private readonly peers: NetworkPeer[] = [];

  /** Every scraper admitted so far. */
  readonly list = (): readonly NetworkPeer[] => this.peers;

  /** Admits `peer` (a `MonitoredComponent.admitScrapers`). */
  readonly admit = (peer: NetworkPeer): void => {
    this.peers.push(peer);
  };
}

/** The namespace of a component a Prometheus monitors: its objects must name one, for the monitor to look there. */
export function monitoredNamespace(where: string, namespace: string | undefined, what: string): string {
  if (namespace === undefined) {
    throw invalidProp(where, 'namespace', undefined, `must be set (or the chart's namespace) for a Prometheus to monitor ${what}`);
  }
  return namespace;
}

/** A component of the library that can be monitored. */
export interface Monitorable {
  _monitoring(): MonitoredComponent;
}

/** The components `monitor()` takes, as its error message lists them. */
export const MONITORABLE_KINDS = 'a ZoneController, ZonalRedisCluster, ZoneAwareLokiStack or TopologyShardedPrometheus';

/** `target` as a monitored component; a clear error for anything else. */
export function monitoredOf(where: string, target: unknown): MonitoredComponent {
  const describe = (target as Partial<Monitorable> | undefined)?._monitoring;
  if (typeof describe !== 'function') {
    const path = (target as { node?: { path?: unknown } } | undefined)?.node?.path;
    throw invalidProp(where, 'target', typeof path === 'string' ? path : target,
      `is not a component the library can monitor: pass ${MONITORABLE_KINDS} (to scrape another workload, write its ` +
      'ServiceMonitor or PodMonitor, or annotate its pods prometheus.io/scrape)');
  }
  return describe.call(target);
}
