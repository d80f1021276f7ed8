import { Yaml } from 'cdk8s';
import {
  ConfigRelabelRule, RelabelAction, RelabelRule, sanitizeLabelName, toConfigSpelling,
} from './relabel';
import { writeYaml } from './yaml-writer';
import { escapeRegex } from '../monitoring/promql';

/** The `global` section of a shard's prometheus.yml. */
export interface GlobalConfig {
  readonly scrapeInterval: string;
  /** External labels, literal values (a `$` is escaped, since Prometheus 3 expands `${VAR}` in them). */
  readonly externalLabels: { [name: string]: string };
  /** The external label set to the pod's name (`${POD_NAME}`, expanded by Prometheus 3), so replicas differ. */
  readonly replicaLabel?: string;
}

/** A scrape job of a prometheus.yml: its name, and how its targets are found and relabeled (not modelled here). */
export interface ScrapeConfig {
  readonly job_name: string;
  readonly [field: string]: unknown;
}

/** A scrape job whose targets are discovered through the Kubernetes API. */
export interface KubernetesScrapeConfig extends ScrapeConfig {
  readonly kubernetes_sd_configs: readonly KubernetesDiscovery[];
  readonly relabel_configs: readonly ConfigRelabelRule[];
}

/** A `kubernetes_sd_configs` entry: the role of the objects discovered, where, with their node's metadata or not. */
export interface KubernetesDiscovery {
  readonly role: string;
  /** The namespaces discovered (none: every namespace). */
  readonly namespaces?: { readonly names: readonly string[] };
  readonly attach_metadata?: { readonly node: boolean };
}

/** What discovery needs of the shard: whether to attach the node's metadata, and which namespaces (none: all). */
export interface DiscoveryScope {
  readonly nodeMetadata: boolean;
  readonly namespaces?: readonly string[];
}

/** A monitored component's pods, as a standalone scrape job of its own selects them. */
export interface PodSelection {
  readonly jobName: string;
  readonly namespace: string;
  readonly podLabels: { readonly [key: string]: string };
  /** The container port's name. */
  readonly port: string;
  readonly path: string;
  /** Its series' own labels win over the target's (`MetricsEndpoint.honorLabels`). */
  readonly honorLabels?: boolean;
}

/** A whole prometheus.yml, as an object. */
export interface PrometheusConfig {
  readonly global: {
    readonly scrape_interval: string;
    readonly evaluation_interval?: string;
    readonly external_labels?: { readonly [name: string]: string };
  };
  readonly rule_files?: readonly string[];
  readonly scrape_configs: readonly ScrapeConfig[];
}

/** A whole prometheus.yml as an object, with its rule files if any; `renderConfig` turns it into YAML. */
export function prometheusConfig(
  global: GlobalConfig, scrapeConfigs: readonly ScrapeConfig[], ruleFiles: readonly string[] = [],
): PrometheusConfig {
  const externalLabels: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(global.externalLabels)) externalLabels[name] = value.replace(/\$/g, '$$$$');
  if (global.replicaLabel !== undefined) externalLabels[global.replicaLabel] = '${POD_NAME}';
  return {
    global: {
      scrape_interval: global.scrapeInterval,
      // rules read the series at the rate they are scraped (Prometheus alone would evaluate them every minute)
      ...(ruleFiles.length > 0 ? { evaluation_interval: global.scrapeInterval } : {}),
      ...(Object.keys(externalLabels).length > 0 ? { external_labels: externalLabels } : {}),
    },
    ...(ruleFiles.length > 0 ? { rule_files: ruleFiles } : {}),
    scrape_configs: scrapeConfigs,
  };
}

/**
 * The YAML text of a prometheus.yml object, as cdk8s's YAML writes it: by the small writer of
 * yaml-writer.ts; by the yaml library only for what that leaves to it (a line break in a user's
 * external label value, say).
 */
export function renderConfig(config: object): string {
  return writeYaml(config) ?? Yaml.stringify(config);
}

/**
 * The standalone output's scrape jobs, both discovered through the Kubernetes API in every namespace and
 * opted in with the `prometheus.io/scrape: "true"` annotation (`prometheus.io/port`, `/path`, `/scheme`
 * refine them): `kubernetes-pods` (annotated pods) and `kubernetes-service-endpoints` (the endpoints of
 * annotated Services, from EndpointSlices). `sharding` is appended to each job's relabel rules, after the
 * address is final, so a target hashes the same way wherever it is discovered.
 */
export function kubernetesScrapeConfigs(sharding: RelabelRule[], scope: DiscoveryScope): KubernetesScrapeConfig[] {
  const sd = (role: string) => discovery(role, scope);
  // Fresh objects per job: shared ones would be rendered as YAML anchors and aliases.
  const shardingRules = () => sharding.map(toConfigSpelling);
  return [
    {
      job_name: 'kubernetes-pods',
      kubernetes_sd_configs: sd('pod'),
      relabel_configs: [
        ...optIn('pod'),
        rule({ sourceLabels: ['__meta_kubernetes_pod_phase'], regex: 'Pending|Succeeded|Failed', action: RelabelAction.DROP }),
        // The annotated port replaces the discovered one; IPv6 addresses need brackets.
        rule({
          sourceLabels: ['__meta_kubernetes_pod_annotation_prometheus_io_port', '__meta_kubernetes_pod_ip'],
          regex: '(\\d+);([0-9.]+)',
          targetLabel: '__address__',
          replacement: '$2:$1',
        }),
        rule({
          sourceLabels: ['__meta_kubernetes_pod_annotation_prometheus_io_port', '__meta_kubernetes_pod_ip'],
          regex: '(\\d+);([0-9A-Fa-f]*:[0-9A-Fa-f:]*)',
          targetLabel: '__address__',
          replacement: '[$2]:$1',
        }),
        rule({ sourceLabels: ['__meta_kubernetes_namespace'], targetLabel: 'namespace' }),
        rule({ sourceLabels: ['__meta_kubernetes_pod_name'], targetLabel: 'pod' }),
        rule({ sourceLabels: ['__meta_kubernetes_pod_container_name'], targetLabel: 'container' }),
        ...shardingRules(),
      ],
    },
    {
      job_name: 'kubernetes-service-endpoints',
      kubernetes_sd_configs: sd('endpointslice'),
      relabel_configs: [
        ...optIn('service'),
        rule({
          sourceLabels: ['__address__', '__meta_kubernetes_service_annotation_prometheus_io_port'],
          regex: '(.+):\\d+;(\\d+)',
          targetLabel: '__address__',
          replacement: '$1:$2',
        }),
        rule({ sourceLabels: ['__meta_kubernetes_namespace'], targetLabel: 'namespace' }),
        rule({ sourceLabels: ['__meta_kubernetes_service_name'], targetLabel: 'service' }),
        rule({ sourceLabels: ['__meta_kubernetes_pod_name'], targetLabel: 'pod' }),
        ...shardingRules(),
      ],
    },
  ];
}

/**
 * A scrape job per monitored component's metrics port (`TopologyShardedPrometheus.monitor`): its pods by their labels
 * in their namespace, the port by its name, each series labelled with its pod's zone (`zoneRules`), sharded as every
 * other job.
 */
export function monitoredScrapeConfigs(
  selections: readonly PodSelection[], zoneRules: RelabelRule[], sharding: RelabelRule[], scope: DiscoveryScope,
): KubernetesScrapeConfig[] {
  return selections.map((s) => ({
    job_name: s.jobName,
    metrics_path: s.path,
    ...(s.honorLabels ? { honor_labels: true } : {}),
    kubernetes_sd_configs: discovery('pod', { ...scope, namespaces: [s.namespace] }),
    relabel_configs: [
      ...Object.entries(s.podLabels).map(([key, value]) => rule({
        sourceLabels: [`__meta_kubernetes_pod_label_${sanitizeLabelName(key)}`, `__meta_kubernetes_pod_labelpresent_${sanitizeLabelName(key)}`],
        regex: `${escapeRegex(value)};true`,
        action: RelabelAction.KEEP,
      })),
      rule({ sourceLabels: ['__meta_kubernetes_pod_container_port_name'], regex: escapeRegex(s.port), action: RelabelAction.KEEP }),
      rule({ sourceLabels: ['__meta_kubernetes_pod_phase'], regex: 'Pending|Succeeded|Failed', action: RelabelAction.DROP }),
      rule({ sourceLabels: ['__meta_kubernetes_namespace'], targetLabel: 'namespace' }),
      rule({ sourceLabels: ['__meta_kubernetes_pod_name'], targetLabel: 'pod' }),
      rule({ sourceLabels: ['__meta_kubernetes_pod_container_name'], targetLabel: 'container' }),
      ...zoneRules.map(toConfigSpelling),
      ...sharding.map(toConfigSpelling),
    ],
  }));
}

/** One `kubernetes_sd_configs` list: `role` objects in the scope's namespaces, with their node's metadata or not. */
function discovery(role: string, scope: DiscoveryScope): KubernetesDiscovery[] {
  return [{
    role,
    ...(scope.namespaces !== undefined ? { namespaces: { names: [...scope.namespaces] } } : {}),
    ...(scope.nodeMetadata ? { attach_metadata: { node: true } } : {}),
  }];
}

/** Keep only objects annotated `prometheus.io/scrape: "true"`; honour their path and scheme annotations. */
function optIn(object: 'pod' | 'service'): ConfigRelabelRule[] {
  const annotation = (name: string) => `__meta_kubernetes_${object}_annotation_prometheus_io_${name}`;
  return [
    rule({ sourceLabels: [annotation('scrape')], regex: 'true', action: RelabelAction.KEEP }),
    rule({ sourceLabels: [annotation('path')], regex: '(.+)', targetLabel: '__metrics_path__' }),
    rule({ sourceLabels: [annotation('scheme')], regex: '(https?)', targetLabel: '__scheme__' }),
  ];
}

function rule(r: RelabelRule): ConfigRelabelRule {
  return toConfigSpelling(r);
}
