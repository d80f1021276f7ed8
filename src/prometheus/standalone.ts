import { Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { DiscoveryScope, kubernetesScrapeConfigs, monitoredScrapeConfigs, prometheusConfig, renderConfig } from './config';
import { PrometheusMonitors, RULES_DIR, RULES_FILE } from './monitors';
import { ResolvedPrometheus, ShardingMode } from './options';
import { podSpread, regionNodeSelector, zoneExternalLabels, zoneNodeSelector } from './placement';
import { hashShardRules, keepsUnzonedTargets, RelabelRule, zoneSelectionRules } from './relabel';
import { CONFIG_HASH_ANNOTATION, SHARD_LABEL, ZONE_LABEL } from '../contract/labels';
import { scrapeZoneAnnotations } from '../contract/traffic';
import { quorumAnnotations } from '../contract/zone-check';
import { clientPeers, emitNetworkPolicy, NetworkPeer } from '../kubernetes/network-policy';
import { NOBODY_UID, restrictedContainerSecurity, restrictedPodSecurity } from '../kubernetes/pod-security';
import { sizeQuantity } from '../kubernetes/quantity';
import { standardLabels } from '../kubernetes/standard-labels';
import { configHash } from '../shared/config-hash';

const PORT = 9090;
const CONFIG_DIR = '/etc/prometheus';
const DATA_DIR = '/prometheus';
/** The external label that tells the replicas of a shard apart (as prometheus-operator names it). */
export const REPLICA_EXTERNAL_LABEL = 'prometheus_replica';

/** One standalone shard: its name, what it scrapes and where it runs. */
interface StandaloneShard {
  readonly id: string;
  readonly zone?: string;
  readonly rules: RelabelRule[];
  readonly nodeSelector: { [key: string]: string };
  readonly externalLabels: { [name: string]: string };
}

/**
 * Plain Kubernetes objects for every shard, no operator: per shard a ConfigMap with its prometheus.yml,
 * a StatefulSet (pinned to the shard's zone in topology mode) and a PodDisruptionBudget; one headless
 * Service for all of them.
 */
export function standaloneShards(
  scope: Construct, p: ResolvedPrometheus, serviceAccount: string, monitors: PrometheusMonitors,
  scrapers: () => readonly NetworkPeer[],
): k8s.KubeStatefulSet[] {
  const instance = standaloneInstanceLabels(p);
  const service = new k8s.KubeService(scope, 'headless', {
    metadata: { name: p.name, namespace: p.metadataNamespace, labels: standardLabels('prometheus', p.name, 'shard') },
    spec: {
      clusterIp: 'None', selector: instance, ports: [{ name: 'web', port: PORT, targetPort: k8s.IntOrString.fromString('web') }],
    },
  });
  const statefulSets = shards(p).map((shard) => standaloneShard(scope, p, shard, {
    serviceAccount, serviceName: service.name, instance, monitors,
  }));
  emitNetworkPolicy(scope, 'network-policy', p.where, p.networkPolicy, {
    name: p.name,
    namespace: p.metadataNamespace,
    labels: standardLabels('prometheus', p.name, 'network-policy'),
    podSelector: instance,
    // and the Prometheus that monitors these shards (known when the app is synthesized)
    ingress: [{ ports: ['web'], from: clientPeers(p.networkPolicy) }, { ports: ['web'], from: scrapers }],
  });
  return statefulSets;
}

/** The labels of every pod of the standalone output's shards. */
export function standaloneInstanceLabels(p: ResolvedPrometheus): { [key: string]: string } {
  return { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': p.name };
}

/** What every shard's objects share. */
interface ShardContext {
  readonly serviceAccount: string;
  /** The headless Service that names every shard's pods. */
  readonly serviceName: string;
  /** The labels of every pod of this Prometheus. */
  readonly instance: { [key: string]: string };
  /** The components `monitor()` added: scrape jobs and rule files, known when the app is synthesized. */
  readonly monitors: PrometheusMonitors;
}

/** One shard: its prometheus.yml in a ConfigMap, its StatefulSet (returned) and its PodDisruptionBudget. */
function standaloneShard(
  scope: Construct, p: ResolvedPrometheus, shard: StandaloneShard, ctx: ShardContext,
): k8s.KubeStatefulSet {
  const name = `${p.name}-${shard.id}`;
  const config = () => shardConfig(p, shard, ctx.monitors);
  const zoneLabel: { [key: string]: string } = shard.zone === undefined ? {} : { [ZONE_LABEL]: shard.zone };
  const labels = { ...standardLabels('prometheus', p.name, 'shard'), [SHARD_LABEL]: shard.id, ...zoneLabel };
  const selector = { ...ctx.instance, [SHARD_LABEL]: shard.id };

  new k8s.KubeConfigMap(scope, `${shard.id}-config`, {
    metadata: { name, namespace: p.metadataNamespace, labels },
    data: { 'prometheus.yml': Lazy.any({ produce: config }) },
  });
  // for the zone check: a zone's shard scrapes only that zone's targets, which go down with it; for the traffic
  // report: which zone it scrapes
  const annotations = shard.zone === undefined ? undefined : {
    ...quorumAnnotations('0', `zone-local shard: scrapes only the targets of zone ${shard.zone}, lost with them`),
    ...scrapeZoneAnnotations(shard.zone, keepsUnzonedTargets(p.topology, shard.zone)),
  };
  const statefulSet = new k8s.KubeStatefulSet(scope, shard.id, {
    metadata: { name, namespace: p.metadataNamespace, labels, annotations },
    spec: {
      replicas: p.replicas,
      serviceName: ctx.serviceName,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selector },
      template: {
        metadata: {
          labels,
          // A new prometheus.yml or new rules roll the pods (Prometheus reads both at start).
          annotations: {
            [CONFIG_HASH_ANNOTATION]: Lazy.any({ produce: () => configHash(config() + ctx.monitors.ruleFile()) }),
          },
        },
        spec: podSpec(p, shard, { ...ctx, configMap: name }, { ...ctx.instance, ...zoneLabel }),
      },
      volumeClaimTemplates: dataClaims(p, shard),
    },
  });
  new k8s.KubePodDisruptionBudget(scope, `${shard.id}-pdb`, {
    metadata: { name, namespace: p.metadataNamespace, labels },
    spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
  });
  return statefulSet;
}

/**
 * The shard's prometheus.yml: the Kubernetes scrape configurations and a job per monitored component, each with the
 * shard's relabeling rules, and the monitored components' rule file.
 */
function shardConfig(p: ResolvedPrometheus, shard: StandaloneShard, monitors: PrometheusMonitors): string {
  const scope: DiscoveryScope = {
    nodeMetadata: p.mode === ShardingMode.TOPOLOGY && p.sources.nodeLabel,
    namespaces: p.monitorNamespaces,
  };
  const ruleFiles = monitors.ruleGroups().length === 0 ? [] : [`${RULES_DIR}/${RULES_FILE}`];
  return renderConfig(prometheusConfig(
    { scrapeInterval: p.scrapeInterval, externalLabels: shard.externalLabels, replicaLabel: REPLICA_EXTERNAL_LABEL },
    [
      ...kubernetesScrapeConfigs(shard.rules, scope),
      ...monitoredScrapeConfigs(monitors.podSelections(), monitors.zoneRules(), shard.rules, scope),
    ],
    ruleFiles,
  ));
}

/** The data claim of a shard's pods, in the shard's zone's storage class; none without `storage`. */
function dataClaims(p: ResolvedPrometheus, shard: StandaloneShard): k8s.KubePersistentVolumeClaimProps[] | undefined {
  return p.storage && [{
    metadata: { name: 'data' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: p.storageClasses.forZone(shard.zone),
      resources: { requests: { storage: k8s.Quantity.fromString(sizeQuantity(p.storage.size)) } },
    },
  }];
}

function shards(p: ResolvedPrometheus): StandaloneShard[] {
  if (p.mode === ShardingMode.ADDRESS) {
    return Array.from({ length: p.shards }, (_, index) => ({
      id: `${index}`,
      rules: hashShardRules(index, p.shards, '__address__'),
      nodeSelector: regionNodeSelector(p),
      externalLabels: p.externalLabels,
    }));
  }
  return p.plan.map((s) => ({
    id: `${p.zoneNames[s.zoneIndex]}-${s.inZoneIndex}`,
    zone: s.zone,
    rules: [...zoneSelectionRules(p.topology, p.sources, s.zone), ...hashShardRules(s.inZoneIndex, s.zoneShards, '__address__')],
    nodeSelector: zoneNodeSelector(p, s.zone),
    externalLabels: zoneExternalLabels(p, s.zone),
  }));
}

function podSpec(
  p: ResolvedPrometheus,
  shard: StandaloneShard,
  ctx: ShardContext & { readonly configMap: string },
  spreadLabels: { [key: string]: string },
): k8s.PodSpec {
  const rules = () => ctx.monitors.rulesConfigMap();
  const probe = (path: string, extra: Partial<k8s.Probe> = {}): k8s.Probe => ({
    httpGet: { path, port: k8s.IntOrString.fromString('web') }, periodSeconds: 10, timeoutSeconds: 5, ...extra,
  });
  return {
    serviceAccountName: ctx.serviceAccount,
    automountServiceAccountToken: true, // Kubernetes service discovery reads the API with it
    nodeSelector: Object.keys(shard.nodeSelector).length > 0 ? shard.nodeSelector : undefined,
    topologySpreadConstraints: podSpread(p, spreadLabels, shard.zone === undefined),
    securityContext: restrictedPodSecurity(NOBODY_UID, NOBODY_UID),
    containers: [{
      name: 'prometheus',
      image: p.image!,
      args: [
        `--config.file=${CONFIG_DIR}/prometheus.yml`,
        `--storage.tsdb.path=${DATA_DIR}`,
        `--storage.tsdb.retention.time=${p.retention}`,
        `--web.listen-address=:${PORT}`,
      ],
      env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      ports: [{ name: 'web', containerPort: PORT }],
      // WAL replay after a restart can take minutes: the startup probe holds the others off meanwhile.
      startupProbe: probe('/-/ready', { failureThreshold: 60, periodSeconds: 15 }),
      readinessProbe: probe('/-/ready', { failureThreshold: 3 }),
      livenessProbe: probe('/-/healthy', { failureThreshold: 6 }),
      resources: p.resources,
      securityContext: restrictedContainerSecurity(),
      volumeMounts: Lazy.any({
        produce: () => [
          { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
          { name: 'data', mountPath: DATA_DIR },
          ...(rules() !== undefined ? [{ name: 'rules', mountPath: RULES_DIR, readOnly: true }] : []),
        ],
      }),
    }],
    volumes: Lazy.any({
      produce: () => [
        { name: 'config', configMap: { name: ctx.configMap } },
        ...(p.storage ? [] : [{ name: 'data', emptyDir: {} }]),
        ...(rules() !== undefined ? [{ name: 'rules', configMap: { name: rules() } }] : []),
      ],
    }),
  };
}
