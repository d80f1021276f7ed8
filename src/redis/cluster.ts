import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { layoutConfigMapData, nodeTimeoutMs, redisConf } from './cluster-config';
import { ZONAL_REDIS_CLUSTER_PROPS, ZonalRedisClusterProps } from './cluster-props';
import { EXPORTER_PORT_NAME } from './exporter';
import { RedisShardLayout } from './layout';
import { redisPodSpec, shardPeers } from './pod-spec';
import { CONFIG_HASH_ANNOTATION, ZONE_LABEL } from '../contract/labels';
import { redisClusterRules } from '../contract/reconcilers';
import {
  layoutConfigMapName, REDIS_BUS_PORT, REDIS_CLUSTER_LABEL, REDIS_PORT, redisPodName, redisStatefulSetName,
} from '../contract/redis';
import { ZoneAnnotation } from '../contract/zone-annotation';
import { quorumAnnotations, REPLICAS_ANNOTATION, ZONE_MAJORITY } from '../contract/zone-check';
import { MAX_STATEFULSET_NAME, NAME_MAX } from '../kubernetes/kubernetes-names';
import { clientPeers, emitNetworkPolicy } from '../kubernetes/network-policy';
import { derivedName, resolveNamespace } from '../kubernetes/object-names';
import { sizeQuantity } from '../kubernetes/quantity';
import { KubeServiceWithTraffic } from '../kubernetes/service';
import { standardLabels } from '../kubernetes/standard-labels';
import { zoneSlugs } from '../kubernetes/zone-slug';
import { MonitoredComponent, monitoredNamespace, ScraperPeers } from '../monitoring/monitored';
import { escapeRegex } from '../monitoring/promql';
import { redisAlertGroup, redisDashboardSection } from '../monitoring/redis-rules';
import { ZoneDisruptionBudget } from '../rollout/zone-disruption-budget';
import { configHash } from '../shared/config-hash';
import { invalidProp } from '../shared/errors';
import { checkProps } from '../shared/props';
import { ZoneStorageClasses } from '../topology/zonal-storage';
import { ZoneTopology } from '../topology/zone-topology';
import { exactLayout } from '../traffic/layouts';
import { zoneLocalTraffic } from '../traffic/zone-local-safety';
import { controllerPeer, IZoneController } from '../zone-controller/controller-reference';
import { LOST_ZONE_RECOVERY_FEATURE, REDIS_MANAGER_FEATURE, ZONE_ANNOTATOR_FEATURE } from '../zone-controller/features';
import { recoverFromLostZone } from '../zone-controller/lost-zone-recovery';
import { guardsEvictionsIn, serveWith } from '../zone-controller/requirements';

/**
 * A Redis Cluster laid out to survive losing a zone: one StatefulSet per zone (pinned to it, pods of one
 * shard never on one host), a headless Service for the cluster bus, a client Service, redis.conf, the
 * planned shard layout as a ConfigMap that the runtime controller (`cdk8s-zones-controller redis`) reads
 * to bootstrap and heal the cluster, and a disruption budget that never lets a master and its replica be
 * evicted together: a ZoneDisruptionBudget (evictions in one zone at a time) when the app's ZoneController
 * enforces them, else a PodDisruptionBudget of one pod at a time.
 */
export class ZonalRedisCluster extends Construct {
  /** The planned layout (which pod is which shard's master or replica). */
  public readonly layout: RedisShardLayout;
  /** The name of the client Service. */
  public readonly serviceName: string;
  /**
   * The name of the ConfigMap that holds the planned layout (key `layout.json`) and the failover policy
   * (key `failover.json`).
   */
  public readonly layoutConfigMapName: string;

  /** The cluster's name, namespace and pod labels, for a Prometheus that monitors it. */
  private readonly monitored: { name: string; namespace?: string; selector: { [key: string]: string } };
  /** The pods that may scrape the exporters (`TopologyShardedPrometheus.monitor`). */
  private readonly scrapers = new ScraperPeers();

  constructor(scope: Construct, id: string, props: ZonalRedisClusterProps) {
    super(scope, id);
    const where = `ZonalRedisCluster '${this.node.path}'`;
    checkProps(where, props, ZONAL_REDIS_CLUSTER_PROPS, 'ZonalRedisClusterProps');
    const zones = props.topology.zones;
    const storageClasses = ZoneStorageClasses.of(where, 'storage', props.topology, props.storage);
    const slugs = zoneSlugs(zones);
    const name = clusterName(where, this, id, props.name, slugs);
    const namespace = resolveNamespace(where, this, props.namespace);
    this.layout = RedisShardLayout._plan(where, {
      zones, masters: props.masters, replicasPerMaster: props.replicasPerMaster ?? 1,
    });
    const controller = this.manager(where, props, name, namespace, slugs);
    const timeout = nodeTimeoutMs(where, props);
    const layoutData = layoutConfigMapData(where, props, this.layout, timeout);

    const labels = (component: string) => ({
      ...standardLabels('redis', name, component), [REDIS_CLUSTER_LABEL]: name,
    });
    const selector = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': name };
    this.monitored = { name, namespace, selector };

    const conf = redisConf(timeout, props.requireFullCoverage ?? false);
    const config = new k8s.KubeConfigMap(this, 'config', {
      metadata: { name: `${name}-config`, namespace, labels: labels('config') },
      data: { 'redis.conf': conf },
    });
    this.layoutConfigMapName = layoutConfigMapName(name);
    new k8s.KubeConfigMap(this, 'layout', {
      metadata: { name: this.layoutConfigMapName, namespace, labels: labels('layout') },
      data: layoutData,
    });
    const headless = this.services(name, namespace, labels, selector, props.topology);
    this.serviceName = name;

    this.zoneStatefulSets(where, props, storageClasses, {
      name, namespace, slugs, labels, selector, hash: configHash(conf), configName: config.name, serviceName: headless,
    });
    this.networkPolicy(where, props, { name, namespace, labels, selector, controller });
    this.disruptionBudget(name, namespace, selector, labels('node'), controller);
  }

  /**
   * Asks the ZoneController for the Redis manager: it may read this cluster's layout, status and password
   * Secret, scale its StatefulSets and delete its planned pods, by name, in its namespace only.
   */
  private manager(
    where: string, props: ZonalRedisClusterProps, name: string, namespace: string | undefined, slugs: readonly string[],
  ): IZoneController {
    return serveWith(where, props.controller, REDIS_MANAGER_FEATURE, {
      namespace,
      rules: redisClusterRules({
        cluster: name,
        passwordSecret: props.password.name,
        statefulSets: slugs.map((slug) => redisStatefulSetName(name, slug)),
        pods: this.layout.nodes.map((n) => redisPodName(name, n.name)),
      }),
    });
  }

  /**
   * With lostZoneRecovery the controller brings a lost zone's pods back on the other zones' nodes, and the manager
   * reads where each pod runs from its zone annotation (the zone annotator's, from its node): the pod template's
   * labels and annotations that ask for it.
   */
  private standInSupport(
    where: string, props: ZonalRedisClusterProps, namespace: string | undefined, storageClasses: ZoneStorageClasses,
  ): PodMetadata {
    const problem = storageClasses.standInProblem();
    if (problem) throw invalidProp(where, 'lostZoneRecovery', true, `with storage.storageClassNamePerZone ${problem}`);
    serveWith(where, props.controller, LOST_ZONE_RECOVERY_FEATURE, { namespace });
    serveWith(where, props.controller, ZONE_ANNOTATOR_FEATURE, { namespace });
    return {
      labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE },
      annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: props.topology.topologyKey },
    };
  }

  /**
   * Opts each zone's StatefulSet in to the lost-zone recovery, all its pods at once: the lost zone's copy is gone
   * anyway, and the layout keeps another copy of every shard outside each zone.
   */
  private recoverFromLostZone(
    statefulSets: readonly k8s.KubeStatefulSet[], controller: IZoneController, zones: readonly string[],
  ): void {
    statefulSets.forEach((statefulSet, z) => recoverFromLostZone(
      statefulSet, controller, this.layout.nodesInZone(zones[z]).length, zones[z]));
  }

  /**
   * One StatefulSet per zone, each annotated so the zone check judges them together as one cluster; with
   * lostZoneRecovery, each opted in to it.
   */
  private zoneStatefulSets(
    where: string, props: ZonalRedisClusterProps, storageClasses: ZoneStorageClasses, o: ClusterObjects,
  ): void {
    const zones = props.topology.zones;
    const peers = shardPeers(this.layout, o.name);
    const zoneCheck = quorumAnnotations(ZONE_MAJORITY,
      'its layout keeps every shard and a majority of masters when one zone is lost (checked at synth)', o.name);
    const zoneAnnotation = props.lostZoneRecovery ? this.standInSupport(where, props, o.namespace, storageClasses)
      : undefined;
    const statefulSets = zones.map((zone, z) => this.zoneStatefulSet(props, {
      ...o,
      zone,
      slug: o.slugs[z],
      peers: peers.get(zone)!,
      // the manager sizes the StatefulSet; the check counts the planned nodes
      annotations: { ...zoneCheck, [REPLICAS_ANNOTATION]: String(this.layout.nodesInZone(zone).length) },
      storageClass: storageClasses.forZone(zone),
      zoneAnnotation,
    }));
    if (zoneAnnotation) this.recoverFromLostZone(statefulSets, props.controller, zones);
  }

  /**
   * Redis and the cluster bus from the cluster's own pods; Redis from the clients and the manager; the exporter's
   * metrics from the Prometheus that monitors the cluster.
   */
  private networkPolicy(where: string, props: ZonalRedisClusterProps, o: NetworkPolicyOptions): void {
    emitNetworkPolicy(this, 'network-policy', where, props.networkPolicy, {
      name: o.name,
      namespace: o.namespace,
      labels: o.labels('network-policy'),
      podSelector: o.selector,
      ingress: [
        { ports: ['redis', 'bus'], from: [{ podLabels: o.selector }] },
        { ports: ['redis'], from: clientPeers(props.networkPolicy) },
        { ports: ['redis'], from: [controllerPeer(o.controller)] },
        { ports: [EXPORTER_PORT_NAME], from: this.scrapers.list },
      ],
    });
  }

  /**
   * What a Prometheus that monitors the cluster scrapes (each node's exporter) and alerts on (the Redis manager's view
   * of it, src/monitoring/redis-rules.ts).
   *
   * @internal
   */
  public _monitoring(): MonitoredComponent {
    const where = `ZonalRedisCluster '${this.node.path}'`;
    const namespace = monitoredNamespace(where, this.monitored.namespace, 'the cluster');
    return {
      what: where,
      kind: 'redis',
      name: this.monitored.name,
      namespace,
      podLabels: this.monitored.selector,
      endpoints: [{ port: EXPORTER_PORT_NAME, path: '/metrics' }],
      alertGroups: [redisAlertGroup(namespace, this.monitored.name)],
      dashboard: redisDashboardSection(namespace, this.monitored.name),
      podPattern: `${escapeRegex(this.monitored.name)}-.+`,
      admitScrapers: this.scrapers.admit,
    };
  }

  /**
   * The headless Service that names the pods (and carries the cluster bus), and the client Service; returns
   * the first's name.
   */
  private services(
    name: string, namespace: string | undefined, labels: (component: string) => { [key: string]: string },
    selector: { [key: string]: string },
    topology: ZoneTopology,
  ): string {
    const headless = new k8s.KubeService(this, 'nodes', {
      metadata: { name: `${name}-nodes`, namespace, labels: labels('node') },
      spec: {
        clusterIp: 'None',
        publishNotReadyAddresses: true, // the cluster bus must reach nodes that are not Ready yet
        selector,
        ports: [
          { name: 'redis', port: REDIS_PORT, targetPort: k8s.IntOrString.fromString('redis') },
          { name: 'bus', port: REDIS_BUS_PORT, targetPort: k8s.IntOrString.fromString('bus') },
        ],
      },
    });
    // A client's first connection (before the cluster's redirects) stays in its zone.
    new KubeServiceWithTraffic(this, 'client', {
      metadata: { name, namespace, labels: labels('client') },
      spec: { selector, ports: [{ name: 'redis', port: REDIS_PORT, targetPort: k8s.IntOrString.fromString('redis') }] },
    }, zoneLocalTraffic(topology, exactLayout(topology.zones.map((z) => this.layout.nodesInZone(z).length))));
    return headless.name;
  }

  /** A zone's StatefulSet: its pods pinned to the zone, sized by the manager, replaced by it (OnDelete). */
  private zoneStatefulSet(props: ZonalRedisClusterProps, o: ZoneStatefulSetOptions): k8s.KubeStatefulSet {
    const zoneLabels = { ...o.labels('node'), [ZONE_LABEL]: o.zone };
    const zoneSelector = { ...o.selector, [ZONE_LABEL]: o.zone };
    return new k8s.KubeStatefulSet(this, o.slug, {
      metadata: {
        name: redisStatefulSetName(o.name, o.slug),
        namespace: o.namespace,
        labels: zoneLabels,
        annotations: o.annotations,
      },
      spec: {
        // No `replicas`: the manager owns it (as an HPA would). It scales a zone up to the layout at once, and down
        // only once the nodes the layout no longer has are drained of slots and forgotten: applied as-is, a
        // scale-down would delete a shard's master and replica before their slots moved.
        serviceName: o.serviceName,
        podManagementPolicy: 'Parallel',
        // The manager replaces out-of-date pods itself (replicas first, masters after a failover, a zone at a time).
        updateStrategy: { type: 'OnDelete' },
        selector: { matchLabels: zoneSelector },
        template: {
          metadata: {
            labels: { ...zoneLabels, ...o.zoneAnnotation?.labels },
            annotations: { [CONFIG_HASH_ANNOTATION]: o.hash, ...o.zoneAnnotation?.annotations },
          },
          spec: redisPodSpec(props, { zone: o.zone, configMap: o.configName, selector: o.selector, peers: o.peers }),
        },
        volumeClaimTemplates: props.storage && [{
          metadata: { name: 'data' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: o.storageClass,
            resources: { requests: { storage: k8s.Quantity.fromString(sizeQuantity(props.storage.size)) } },
          },
        }],
      },
    });
  }

  /**
   * No eviction may take a master and its replica down together, nor a majority of the masters. A zone holds
   * neither (the layout keeps every replica out of its master's zone and a minority of masters per zone), so
   * evictions in one zone at a time are safe: a ZoneDisruptionBudget, when `controller` enforces
   * them for this namespace (its webhook fails closed). Otherwise one pod at a time: a PodDisruptionBudget.
   */
  private disruptionBudget(name: string, namespace: string | undefined, selector: { [key: string]: string },
    labels: { [key: string]: string }, controller: IZoneController): void {
    if (guardsEvictionsIn(controller, namespace)) {
      new ZoneDisruptionBudget(this, 'zone-disruption-budget', {
        controller, name, namespace, selector, maxUnavailable: Math.max(...Object.values(this.layout.nodesPerZone)),
      });
    } else {
      new k8s.KubePodDisruptionBudget(this, 'pdb', {
        metadata: { name, namespace, labels },
        spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
      });
    }
  }
}

/** What every zone's StatefulSet shares. */
interface ClusterObjects {
  readonly name: string;
  readonly namespace: string | undefined;
  /** The zones' short names, in the topology's order. */
  readonly slugs: readonly string[];
  readonly labels: (component: string) => { [key: string]: string };
  readonly selector: { [key: string]: string };
  /** The hash of redis.conf (a change rolls the pods). */
  readonly hash: string;
  readonly configName: string;
  /** The headless Service that names the pods. */
  readonly serviceName: string;
}

interface PodMetadata {
  readonly labels: { [key: string]: string };
  readonly annotations: { [key: string]: string };
}

/** What one zone's StatefulSet is made of. */
interface ZoneStatefulSetOptions extends ClusterObjects {
  readonly zone: string;
  readonly slug: string;
  /** The addresses of the pods' shard peers (their init container waits for them). */
  readonly peers: string[];
  readonly annotations: { [key: string]: string };
  readonly storageClass: string | undefined;
  /** The pods' opt-in to the zone annotator (with lostZoneRecovery). */
  readonly zoneAnnotation?: PodMetadata;
}

/** Who the cluster's NetworkPolicy names. */
interface NetworkPolicyOptions {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: (component: string) => { [key: string]: string };
  readonly selector: { [key: string]: string };
  readonly controller: IZoneController;
}

/** The cluster's name: `name`, or one derived from the construct path; short enough for every object named after it. */
function clusterName(
  where: string, scope: Construct, id: string, name: string | undefined, slugs: readonly string[],
): string {
  // StatefulSets are <name>-<zone slug> (at most 52 characters); Services <name> and <name>-nodes (63).
  const room = Math.min(MAX_STATEFULSET_NAME - 1 - Math.max(...slugs.map((z) => z.length)), NAME_MAX - '-nodes'.length);
  const chosen = name ?? derivedName(scope, room, id);
  if (chosen.length > room) {
    throw invalidProp(where, 'name', chosen, `is too long: at most ${room} characters leave room for the zone in ` +
      `the StatefulSet names (${redisStatefulSetName(chosen, slugs[0])}, ...)`);
  }
  return chosen;
}
