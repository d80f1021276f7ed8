import { Yaml } from 'cdk8s';
import { ConfigRelabelRule, RelabelAction, RelabelRule, toConfigSpelling } from './relabel';
import { writeYaml } from './yaml-writer';

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

/** A `kubernetes_sd_configs` entry: the role of the objects discovered, with their node's metadata or not. */
export interface KubernetesDiscovery {
  readonly role: string;
  readonly attach_metadata?: { readonly node: boolean };
}

/** A whole prometheus.yml, as an object. */
export interface PrometheusConfig {
  readonly global: { readonly scrape_interval: string; readonly external_labels?: { readonly [name: string]: string } };
  readonly scrape_configs: readonly ScrapeConfig[];
}

/** A whole prometheus.yml as an object; `renderConfig` turns it into YAML. */
export function prometheusConfig(global: GlobalConfig, scrapeConfigs: readonly ScrapeConfig[]): PrometheusConfig {
  const externalLabels: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(global.externalLabels)) externalLabels[name] = value.replace(/\$/g, '$$$$');
  if (global.replicaLabel !== undefined) externalLabels[global.replicaLabel] = '${POD_NAME}';
  return {
    global: {
      scrape_interval: global.scrapeInterval,
      ...(Object.keys(externalLabels).length > 0 ? { external_labels: externalLabels } : {}),
    },
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
export function kubernetesScrapeConfigs(sharding: RelabelRule[], nodeMetadata: boolean): KubernetesScrapeConfig[] {
  const sd = (role: string) => [{ role, ...(nodeMetadata ? { attach_metadata: { node: true } } : {}) }];
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
