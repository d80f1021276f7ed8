/**
 * The props of TopologyShardedPrometheus and their run-time checks.
 */
import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import {
  OperatorSharding, PrometheusOutput, PrometheusRemoteWrite, PrometheusScrapeClass, PrometheusSecretKey, ShardingMode,
} from './options';
import { RELABEL_RULE_PROPS } from './relabel';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { NETWORK_POLICY_PROPS, NetworkPolicyOptions } from '../kubernetes/network-policy';
import { invalidProp } from '../shared/errors';
import { Props, PropSpec, RequiredCheck } from '../shared/props';
import { ZONAL_STORAGE_PROPS, ZonalStorage } from '../topology/zonal-storage';
import { ZoneTopology } from '../topology/zone-topology';

/**
 * Props of `TopologyShardedPrometheus`.
 */
export interface TopologyShardedPrometheusProps {
  /** The zones to shard over. Shard `i` runs in zone `i % zones` (without `shardsPerZone`). */
  readonly topology: ZoneTopology;

  /**
   * The number of shards (each is `replicas` identical Prometheus pods). In topology mode at least one
   * per zone; every shard scrapes, whether or not `shards` is a multiple of the zone count.
   */
  readonly shards: number;

  /**
   * How many of the shards each zone gets, for zones with more targets (topology mode). Must list every
   * zone, each with at least one shard, and sum to `shards`.
   *
   * @default - round-robin: zone `i % zones` gets shard `i`
   */
  readonly shardsPerZone?: { [zone: string]: number };

  /**
   * Identical Prometheus pods per shard (they scrape the same targets, for high availability).
   *
   * @default 1
   */
  readonly replicas?: number;

  /**
   * How targets are divided between shards.
   *
   * @default ShardingMode.TOPOLOGY
   */
  readonly mode?: ShardingMode;

  /**
   * What to synthesize: prometheus-operator `Prometheus` or `PrometheusAgent` resources, or plain
   * Kubernetes objects.
   *
   * @default PrometheusOutput.OPERATOR
   */
  readonly output?: PrometheusOutput;

  /**
   * How the operator output expresses topology sharding (topology mode, operator output only).
   *
   * @default OperatorSharding.PER_ZONE
   */
  readonly operatorSharding?: OperatorSharding;

  /**
   * The external label that carries each shard's zone (topology mode). An empty string adds none.
   *
   * @default 'zone'
   */
  readonly externalLabelName?: string;

  /**
   * Further external labels of every shard (e.g. `cluster`).
   *
   * @default - none
   */
  readonly externalLabels?: { [name: string]: string };

  /**
   * Your node selector for the Prometheus pods. In topology mode the zone key (and the region key, when
   * the topology has a region) is set to each shard's zone; your other keys are kept.
   *
   * @default - none
   */
  readonly nodeSelector?: { [key: string]: string };

  /**
   * The base of every object name.
   *
   * @default - derived from the construct path
   */
  readonly name?: string;

  /**
   * The namespace of the namespaced objects, and of the ServiceAccount the ClusterRoleBinding names.
   *
   * @default - the chart's namespace (one of the two must be set)
   */
  readonly namespace?: string;

  /**
   * The Prometheus image.
   *
   * @default - standalone: 'quay.io/prometheus/prometheus:v3.5.0'; operator: the operator's default
   */
  readonly image?: string;

  /**
   * How often targets are scraped, and alert rules evaluated (not with `PrometheusOutput.AGENT`, which has no rules).
   *
   * @default Duration.seconds(30)
   */
  readonly scrapeInterval?: Duration;

  /**
   * How long samples are kept (not with `PrometheusOutput.AGENT`, which keeps samples only until they are
   * sent).
   *
   * @default Duration.hours(24)
   */
  readonly retention?: Duration;

  /**
   * Where every shard sends its samples (operator outputs). Required with `PrometheusOutput.AGENT`,
   * whose samples are only forwarded; optional with `PrometheusOutput.OPERATOR`.
   *
   * @default - none
   */
  readonly remoteWrite?: PrometheusRemoteWrite[];

  /**
   * Resources of each Prometheus container.
   *
   * @default - requests cpu 100m, memory 512Mi; limits memory 2Gi
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * A persistent volume per Prometheus pod.
   *
   * @default - an emptyDir (data is lost when a pod is deleted)
   */
  readonly storage?: ZonalStorage;

  /**
   * Your scrape classes (operator output only). With `OperatorSharding.PER_ZONE` the zone rules are
   * appended to each, and a default class `zone-sharding` is added when none of yours is the default.
   *
   * @default - none
   */
  readonly scrapeClasses?: PrometheusScrapeClass[];

  /**
   * Which ServiceMonitors, PodMonitors, Probes, ScrapeConfigs and PrometheusRules the Prometheus resources
   * select (operator outputs).
   *
   * An agent selects no rules: it evaluates none. The monitors and rules `monitor()` writes carry its matchLabels.
   *
   * @default - all of them
   */
  readonly monitorSelector?: k8s.LabelSelector;

  /**
   * The namespaces the Prometheus looks in: where the monitors and rules it selects may be (operator outputs), and
   * whose pods and Services it discovers (standalone output). `monitor()` refuses a target in another namespace.
   *
   * @default - every namespace
   */
  readonly monitorNamespaces?: string[];

  /**
   * The NetworkPolicy of the shards (standalone output): `clients` may reach the web port (9090: queries,
   * federation, /metrics); egress stays open, as a shard scrapes targets anywhere.
   *
   * @default - a NetworkPolicy; the web port from pods of the shards' namespace
   */
  readonly networkPolicy?: NetworkPolicyOptions;
}

const SCRAPE_CLASS_PROPS: PropSpec<PrometheusScrapeClass> = {
  name: Props.string(),
  isDefault: Props.optional(Props.boolean()),
  relabelings: Props.optional(Props.arrayOf(Props.struct(RELABEL_RULE_PROPS, 'RelabelRule'))),
  metricRelabelings: Props.optional(Props.arrayOf(Props.struct(RELABEL_RULE_PROPS, 'RelabelRule'))),
  attachNodeMetadata: Props.optional(Props.boolean()),
};

const SECRET_KEY_PROPS: PropSpec<PrometheusSecretKey> = {
  name: KubeProps.dnsSubdomain(),
  key: Props.string((k) => (/^[-._a-zA-Z0-9]+$/.test(k) ? undefined : 'must be a Secret key: letters, digits, -, _ and .'), 'a Secret key'),
};

/**
 * An http(s) URL Prometheus can send to. A URL refused for holding credentials is shown with them masked:
 * the message ends up in CI logs.
 */
const HTTP_URL: RequiredCheck = {
  optional: false,
  expected: 'an http:// or https:// URL',
  check(where, path, value) {
    Props.string().check(where, path, value);
    const problem = httpUrlProblem(value as string);
    if (problem !== undefined) throw invalidProp(where, path, maskCredentials(value as string), problem);
  },
};

/** `url` with any user information before `@` replaced by `<credentials>`. */
function maskCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@]+@/i, '$1<credentials>@');
}

const REMOTE_WRITE_PROPS: PropSpec<PrometheusRemoteWrite> = {
  url: HTTP_URL,
  name: Props.optional(Props.nonEmptyString()),
  bearerTokenSecret: Props.optional(Props.struct(SECRET_KEY_PROPS, 'PrometheusSecretKey')),
};

/** Why `url` is not an http(s) URL Prometheus can send to; undefined when it is. */
function httpUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not hold credentials: give bearerTokenSecret';
  return undefined;
}

export const TOPOLOGY_SHARDED_PROMETHEUS_PROPS: PropSpec<TopologyShardedPrometheusProps> = {
  topology: Props.instanceOf(ZoneTopology),
  shards: Props.integer(1),
  shardsPerZone: Props.optional(Props.mapOf(Props.integer(1, undefined, 'a zone without a shard is not scraped'))),
  replicas: Props.optional(Props.integer(1)),
  mode: Props.optional(Props.enumOf(ShardingMode, 'ShardingMode')),
  output: Props.optional(Props.enumOf(PrometheusOutput, 'PrometheusOutput')),
  operatorSharding: Props.optional(Props.enumOf(OperatorSharding, 'OperatorSharding')),
  externalLabelName: Props.optional(Props.string()),
  externalLabels: Props.optional(Props.mapOf(Props.string())),
  nodeSelector: Props.optional(KubeProps.labels()),
  name: Props.optional(KubeProps.serviceName()),
  namespace: Props.optional(KubeProps.dnsLabel()),
  image: Props.optional(KubeProps.image()),
  scrapeInterval: Props.optional(KubeProps.duration()),
  retention: Props.optional(KubeProps.duration()),
  remoteWrite: Props.optional(Props.arrayOf(Props.struct(REMOTE_WRITE_PROPS, 'PrometheusRemoteWrite'))),
  resources: Props.optional(KubeProps.resources()),
  storage: Props.optional(Props.struct(ZONAL_STORAGE_PROPS, 'ZonalStorage')),
  scrapeClasses: Props.optional(Props.arrayOf(Props.struct(SCRAPE_CLASS_PROPS, 'PrometheusScrapeClass'))),
  monitorSelector: Props.optional(KubeProps.labelSelector()),
  monitorNamespaces: Props.optional(Props.arrayOf(KubeProps.dnsLabel())),
  networkPolicy: Props.optional(Props.struct(NETWORK_POLICY_PROPS, 'NetworkPolicyOptions')),
};
