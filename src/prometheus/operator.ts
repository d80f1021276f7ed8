import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { OperatorSharding, PrometheusScrapeClass, ResolvedPrometheus, ShardingMode } from './options';
import { podSpread, regionNodeSelector, zoneExternalLabels, zoneNodeSelector } from './placement';
import { RelabelRule, toOperatorSpelling, zoneSelectionRules } from './relabel';
import { INSTANCE_LABEL, ZONE_LABEL } from '../contract/labels';
import { NOBODY_UID, restrictedPodSecurity } from '../shared/pod-security';
import { standardLabels } from '../shared/standard-labels';

/** The name of the default scrape class the construct adds when the user's classes have no default. */
export const ZONE_SCRAPE_CLASS = 'zone-sharding';
/** The external labels prometheus-operator sets itself on every Prometheus. */
export const OPERATOR_EXTERNAL_LABELS = ['prometheus', 'prometheus_replica'];

/**
 * prometheus-operator `Prometheus` resources: one per zone (topology mode, PER_ZONE), one with
 * `spec.shardingStrategy` (topology mode, SHARDING_STRATEGY) or one with classic address sharding
 * (address mode). Returns them in zone order.
 */
export function operatorPrometheuses(scope: Construct, p: ResolvedPrometheus, serviceAccount: string): ApiObject[] {
  if (p.mode === ShardingMode.ADDRESS || p.operatorSharding === OperatorSharding.SHARDING_STRATEGY) {
    const topology = p.mode === ShardingMode.TOPOLOGY;
    return [prometheus(scope, p, p.name, undefined, {
      ...common(p, serviceAccount),
      shards: p.shards,
      // With shardingStrategy the operator sets the zone key of each shard's StatefulSet itself.
      nodeSelector: nonEmpty(regionNodeSelector(p)),
      externalLabels: nonEmpty(p.externalLabels),
      scrapeClasses: nonEmpty(p.scrapeClasses.map((c) => scrapeClass(c, [], c.attachNodeMetadata))),
      shardingStrategy: topology ? {
        mode: 'Topology',
        topology: { values: [...p.topology.zones], externalLabelName: p.externalLabelName },
      } : undefined,
      topologySpreadConstraints: spread(p, instanceLabels(p), !topology),
    })];
  }
  return p.topology.zones.map((zone, zoneIndex) => {
    const zoneShards = p.plan.filter((s) => s.zone === zone).length;
    const podLabels = { ...instanceLabels(p), [ZONE_LABEL]: zone };
    const rules = zoneSelectionRules(p.topology, p.sources, zone);
    const node = p.sources.nodeLabel ? true : undefined;
    const classes = p.scrapeClasses.map((c) => scrapeClass(c, rules, node ?? c.attachNodeMetadata));
    if (!p.scrapeClasses.some((c) => c.isDefault)) {
      classes.unshift(scrapeClass({ name: ZONE_SCRAPE_CLASS, isDefault: true }, rules, node));
    }
    return prometheus(scope, p, `${p.name}-${p.zoneNames[zoneIndex]}`, zone, {
      ...common(p, serviceAccount),
      shards: zoneShards,
      nodeSelector: zoneNodeSelector(p, zone),
      externalLabels: nonEmpty(zoneExternalLabels(p, zone)),
      scrapeClasses: classes,
      podMetadata: { labels: podLabels },
      topologySpreadConstraints: spread(p, podLabels, false),
    });
  });
}

function prometheus(scope: Construct, p: ResolvedPrometheus, name: string, zone: string | undefined, spec: any): ApiObject {
  const labels = { ...standardLabels('prometheus', p.name, 'prometheus'), ...(zone !== undefined ? { [ZONE_LABEL]: zone } : {}) };
  return new ApiObject(scope, name, {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'Prometheus',
    metadata: { name, namespace: p.metadataNamespace, labels },
    spec: { podMetadata: { labels: instanceLabels(p) }, ...spec },
  });
}

/** The fields every Prometheus of the construct shares. */
function common(p: ResolvedPrometheus, serviceAccount: string): any {
  const selector = k8s.toJson_LabelSelector(p.monitorSelector);
  return {
    replicas: p.replicas,
    image: p.image,
    serviceAccountName: serviceAccount,
    // EndpointSlices carry each endpoint's zone; the operator's default (Endpoints) does not.
    serviceDiscoveryRole: 'EndpointSlice',
    serviceMonitorSelector: selector,
    serviceMonitorNamespaceSelector: {},
    podMonitorSelector: selector,
    podMonitorNamespaceSelector: {},
    probeSelector: selector,
    probeNamespaceSelector: {},
    scrapeConfigSelector: selector,
    scrapeConfigNamespaceSelector: {},
    scrapeInterval: p.scrapeInterval,
    retention: p.retention,
    resources: k8s.toJson_ResourceRequirements(p.resources),
    securityContext: restrictedPodSecurity(NOBODY_UID, NOBODY_UID),
    storage: p.storage && {
      volumeClaimTemplate: {
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: p.storage.storageClassName,
          resources: { requests: { storage: p.storage.size } },
        },
      },
    },
  };
}

function scrapeClass(c: PrometheusScrapeClass, appended: RelabelRule[], attachNodeMetadata: boolean | undefined): any {
  const relabelings = [...(c.relabelings ?? []), ...appended].map(toOperatorSpelling);
  return {
    name: c.name,
    default: c.isDefault,
    attachMetadata: attachNodeMetadata === undefined ? undefined : { node: attachNodeMetadata },
    relabelings: nonEmpty(relabelings),
    metricRelabelings: nonEmpty((c.metricRelabelings ?? []).map(toOperatorSpelling)),
  };
}

function instanceLabels(p: ResolvedPrometheus): { [key: string]: string } {
  return { [INSTANCE_LABEL]: p.name };
}

function spread(p: ResolvedPrometheus, podLabels: { [key: string]: string }, acrossZones: boolean): any[] {
  return podSpread(p, podLabels, acrossZones).map((c) => k8s.toJson_TopologySpreadConstraint(c));
}

function nonEmpty<T>(value: T[] | { [key: string]: T }): any {
  return (Array.isArray(value) ? value.length : Object.keys(value).length) > 0 ? value : undefined;
}
