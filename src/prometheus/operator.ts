import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { OperatorSharding, PrometheusScrapeClass, ResolvedPrometheus, ShardingMode } from './options';
import { podSpread, regionNodeSelector, zoneExternalLabels, zoneNodeSelector } from './placement';
import { keepsUnzonedTargets, RelabelRule, toOperatorSpelling, zoneSelectionRules } from './relabel';
import { INSTANCE_LABEL, ZONE_LABEL } from '../contract/labels';
import { scrapeZoneAnnotations } from '../contract/traffic';
import { quorumAnnotations } from '../contract/zone-check';
import { JsonObject } from '../kubernetes/objects';
import { NOBODY_UID, restrictedPodSecurity } from '../kubernetes/pod-security';
import { sizeQuantity } from '../kubernetes/quantity';
import { NAMESPACE_NAME_LABEL, standardLabels } from '../kubernetes/standard-labels';

/** The name of the default scrape class the construct adds when the user's classes have no default. */
export const ZONE_SCRAPE_CLASS = 'zone-sharding';
/** prometheus-operator's kinds the operator outputs emit: a Prometheus server, or Prometheus in agent mode. */
export interface OperatorKind {
  readonly apiVersion: string;
  readonly kind: 'Prometheus' | 'PrometheusAgent';
}
export const PROMETHEUS_KIND: OperatorKind = { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus' };
export const AGENT_KIND: OperatorKind = { apiVersion: 'monitoring.coreos.com/v1alpha1', kind: 'PrometheusAgent' };

/** The external labels prometheus-operator sets itself on every Prometheus (and PrometheusAgent). */
export const OPERATOR_EXTERNAL_LABELS = ['prometheus', 'prometheus_replica'];

/**
 * prometheus-operator `Prometheus` (or `PrometheusAgent`) resources: one per zone (topology mode, PER_ZONE),
 * one with `spec.shardingStrategy` (topology mode, SHARDING_STRATEGY) or one with classic address sharding
 * (address mode). Returns them in zone order. Both kinds share the scraping, sharding and placement fields.
 */
export function operatorPrometheuses(
  scope: Construct,
  p: ResolvedPrometheus,
  serviceAccount: string,
  kind: OperatorKind,
): ApiObject[] {
  if (p.mode === ShardingMode.ADDRESS || p.operatorSharding === OperatorSharding.SHARDING_STRATEGY) {
    const topology = p.mode === ShardingMode.TOPOLOGY;
    return [prometheus(scope, p, kind, p.name, undefined, {
      ...common(p, kind, serviceAccount),
      shards: p.shards,
      // With shardingStrategy the operator sets the zone key of each shard's StatefulSet itself.
      nodeSelector: nonEmpty(regionNodeSelector(p)),
      externalLabels: nonEmpty(p.externalLabels),
      scrapeClasses: nonEmpty(p.scrapeClasses.map((c) => scrapeClass(c, [], c.attachNodeMetadata))),
      shardingStrategy: topology ? {
        mode: 'Topology',
        topology: { values: [...p.topology.zones], externalLabelName: p.externalLabelName },
      } : undefined,
      topologySpreadConstraints: spread(p, operatorInstanceLabels(p), !topology),
    })];
  }
  return p.topology.zones.map((zone, zoneIndex) => {
    const zoneShards = p.plan.filter((s) => s.zone === zone).length;
    const podLabels = { ...operatorInstanceLabels(p), [ZONE_LABEL]: zone };
    const rules = zoneSelectionRules(p.topology, p.sources, zone);
    const node = p.sources.nodeLabel ? true : undefined;
    const classes = p.scrapeClasses.map((c) => scrapeClass(c, rules, node ?? c.attachNodeMetadata));
    if (!p.scrapeClasses.some((c) => c.isDefault)) {
      classes.unshift(scrapeClass({ name: ZONE_SCRAPE_CLASS, isDefault: true }, rules, node));
    }
    return prometheus(scope, p, kind, `${p.name}-${p.zoneNames[zoneIndex]}`, zone, {
      ...common(p, kind, serviceAccount, zone),
      shards: zoneShards,
      nodeSelector: zoneNodeSelector(p, zone),
      externalLabels: nonEmpty(zoneExternalLabels(p, zone)),
      scrapeClasses: classes,
      podMetadata: { labels: podLabels },
      topologySpreadConstraints: spread(p, podLabels, false),
    });
  });
}

function prometheus(
  scope: Construct, p: ResolvedPrometheus, kind: OperatorKind, name: string, zone: string | undefined, spec: JsonObject,
): ApiObject {
  const labels = { ...standardLabels('prometheus', p.name, 'prometheus'), ...(zone !== undefined ? { [ZONE_LABEL]: zone } : {}) };
  // for the zone check: a zone's Prometheus scrapes only that zone's targets, which go down with it; for the traffic
  // report: which zone it scrapes
  const annotations = zone === undefined ? undefined : {
    ...quorumAnnotations('0', `zone-local shards: scrape only the targets of zone ${zone}, lost with them`),
    ...scrapeZoneAnnotations(zone, keepsUnzonedTargets(p.topology, zone)),
  };
  return new ApiObject(scope, name, {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name, namespace: p.metadataNamespace, labels, annotations },
    spec: { podMetadata: { labels: operatorInstanceLabels(p) }, ...spec },
  });
}

/** The fields every Prometheus of the construct shares (`zone`: the zone of a per-zone resource). */
function common(p: ResolvedPrometheus, kind: OperatorKind, serviceAccount: string, zone?: string): JsonObject {
  const selector = k8s.toJson_LabelSelector(p.monitorSelector);
  const namespaces = p.monitorNamespaces === undefined ? {}
    : { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [...p.monitorNamespaces] }] };
  // an agent evaluates no rules (its resource has no rule selectors)
  // rules read the series at the rate they are scraped, as the standalone output's
  const rules = kind === PROMETHEUS_KIND
    ? { ruleSelector: selector, ruleNamespaceSelector: namespaces, evaluationInterval: p.scrapeInterval }
    : {};
  return {
    replicas: p.replicas,
    image: p.image,
    serviceAccountName: serviceAccount,
    // EndpointSlices carry each endpoint's zone; the operator's default (Endpoints) does not.
    serviceDiscoveryRole: 'EndpointSlice',
    serviceMonitorSelector: selector,
    serviceMonitorNamespaceSelector: namespaces,
    podMonitorSelector: selector,
    podMonitorNamespaceSelector: namespaces,
    probeSelector: selector,
    probeNamespaceSelector: namespaces,
    scrapeConfigSelector: selector,
    scrapeConfigNamespaceSelector: namespaces,
    ...rules,
    scrapeInterval: p.scrapeInterval,
    retention: p.retention,
    remoteWrite: nonEmpty(p.remoteWrite.map((r) => ({
      url: r.url,
      name: r.name,
      authorization: r.bearerTokenSecret && {
        type: 'Bearer',
        credentials: { name: r.bearerTokenSecret.name, key: r.bearerTokenSecret.key },
      },
    }))),
    resources: k8s.toJson_ResourceRequirements(p.resources),
    securityContext: restrictedPodSecurity(NOBODY_UID, NOBODY_UID),
    storage: p.storage && {
      volumeClaimTemplate: {
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: p.storageClasses.forZone(zone),
          resources: { requests: { storage: sizeQuantity(p.storage.size) } },
        },
      },
    },
  };
}

/** A scrape class of a Prometheus resource, as prometheus-operator reads it. */
interface OperatorScrapeClass {
  readonly name: string;
  readonly default?: boolean;
  readonly attachMetadata?: { readonly node: boolean };
  readonly relabelings?: RelabelRule[];
  readonly metricRelabelings?: RelabelRule[];
}

function scrapeClass(
  c: PrometheusScrapeClass, appended: RelabelRule[], attachNodeMetadata: boolean | undefined,
): OperatorScrapeClass {
  const relabelings = [...(c.relabelings ?? []), ...appended].map(toOperatorSpelling);
  return {
    name: c.name,
    default: c.isDefault,
    attachMetadata: attachNodeMetadata === undefined ? undefined : { node: attachNodeMetadata },
    relabelings: nonEmpty(relabelings),
    metricRelabelings: nonEmpty((c.metricRelabelings ?? []).map(toOperatorSpelling)),
  };
}

/** The labels prometheus-operator gives every pod of this Prometheus (`podMetadata`). */
export function operatorInstanceLabels(p: ResolvedPrometheus): { [key: string]: string } {
  return { [INSTANCE_LABEL]: p.name };
}

function spread(p: ResolvedPrometheus, podLabels: { [key: string]: string }, acrossZones: boolean): unknown[] {
  return podSpread(p, podLabels, acrossZones).map((c) => k8s.toJson_TopologySpreadConstraint(c));
}

/** `value` when it has an element or a field, else undefined (left out of the resource). */
export function nonEmpty<V extends readonly unknown[] | { readonly [key: string]: unknown }>(value: V): V | undefined {
  return (Array.isArray(value) ? value.length : Object.keys(value).length) > 0 ? value : undefined;
}
