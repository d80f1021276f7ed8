/**
 * The props of ZoneController and their run-time checks (the same checks for a controller installed by another
 * app, `ZoneController.fromInstalled`).
 */
import { k8s } from 'cdk8s-plus-28';
import { AUTOSHIFT_PROPS, ZoneAutoshiftOptions } from './autoshift';
import { InstalledZoneControllerProps } from './controller-reference';
import { WebhookFailurePolicy, WebhookTls } from './webhook-tls';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { NETWORK_POLICY_PROPS, NetworkPolicyOptions } from '../kubernetes/network-policy';
import { Props, PropSpec } from '../shared/props';
import { ZoneTopology } from '../topology/zone-topology';

/**
 * Props of `ZoneController`.
 */
export interface ZoneControllerProps {
  /**
   * The namespace the controller runs in (its Deployment, ServiceAccount, Lease).
   *
   * @default 'cdk8s-zones-system'
   */
  readonly namespace?: string;

  /**
   * Whether to synthesize the Namespace. Turn it off when the namespace exists or is managed elsewhere.
   *
   * @default true
   */
  readonly createNamespace?: boolean;

  /**
   * The name of the Deployment, ServiceAccount, Service and Lease (and, prefixed by the namespace, of
   * the ClusterRole).
   *
   * @default 'cdk8s-zones-controller'
   */
  readonly name?: string;

  /**
   * The controller image, built from controller/Dockerfile of this repository (see docs/controller.md).
   *
   * @default ZoneController.DEFAULT_IMAGE
   */
  readonly image?: string;

  /**
   * Controller pods. With 2 or more, leader election makes one run the reconcilers while every replica
   * serves webhooks; they are spread over zones and nodes.
   *
   * @default 2
   */
  readonly replicas?: number;

  /**
   * The zones the controller's replicas spread over, and the node label the zone annotator copies.
   *
   * @default - spread over `topology.kubernetes.io/zone` and `kubernetes.io/hostname`, annotate with the zone label
   */
  readonly topology?: ZoneTopology;

  /**
   * Run the zone annotator: pods labelled `cdk8s-zones.dev/zone-annotation=enabled` get their node's
   * zone as the annotation `cdk8s-zones.dev/zone` (see `ZoneAnnotation`).
   *
   * @default true
   */
  readonly zoneAnnotator?: boolean;

  /**
   * Run the zone-aware-update reconciler, which rolls the workloads named by `ZoneAwareUpdate`
   * resources zone by zone, and emit the ZoneAwareUpdate CRD (unless `installCrds` is false).
   *
   * @default false
   */
  readonly zoneAwareUpdate?: boolean;

  /**
   * Run the zone-disruption-budget reconciler (status of `ZoneDisruptionBudget` resources) and serve
   * its validating webhook on `pods/eviction`; emits the ZoneDisruptionBudget CRD (unless `installCrds`
   * is false) and the webhook configuration. Needs `webhookTls`.
   *
   * @default false
   */
  readonly zoneDisruptionBudget?: boolean;

  /**
   * Run the Redis cluster manager: bootstraps and heals every `ZonalRedisCluster` (pods labelled
   * `cdk8s-zones.dev/redis-cluster`) to its planned layout and writes its state to the ConfigMap
   * `<cluster>-status`. Grants read access to pods, nodes and Secrets, and writes ConfigMaps.
   *
   * @default false
   */
  readonly redisManager?: boolean;

  /**
   * Run the zonal shift: a `ZoneShift` (cluster-scoped; `cdk8s-zones shift start`) takes its zone out of service
   * until it expires or is deleted. The zone's nodes are tainted NoSchedule. Pods that opted in lose readiness
   * there (`Zonal.spread`'s `zoneShiftReadinessGate`, with the zone annotator). Redis masters fail over out of the
   * zone, and ZoneAwareUpdate starts no wave in it. Emits the ZoneShift CRD (unless `installCrds` is false).
   * Grants cluster-wide: ZoneShifts, node taints, and pods' status.
   *
   * @default false
   */
  readonly zoneShift?: boolean;

  /**
   * With `zoneShift`: while a zone is shifted cluster-wide, every Karpenter NodePool (karpenter.sh/v1) gets the
   * requirement `<zone key> NotIn [the shifted zones]`, so Karpenter launches no node there; once no shift is in
   * force, exactly that requirement is removed again (the controller records it on the NodePool). Nodes that join a
   * shifted zone anyway (another autoscaler, a person) are tainted as they arrive, with or without this. Grants
   * cluster-wide: get, list, watch and patch on NodePools.
   *
   * @default false
   */
  readonly zoneShiftKarpenterNodePools?: boolean;

  /**
   * With `zoneShift`: the controller starts a ZoneShift by itself when a zone looks impaired (its nodes not
   * answering, its pods failing readiness while the same workloads serve elsewhere, an optional per-zone Prometheus
   * query), ends it once the zone has recovered, and, with `practiceEvery`, shifts each zone in turn on a schedule.
   * Never more than one zone at once, never a zone holding a workload's last serving pods. Emits a ZoneAutoshift (named
   * as the controller; its status shows every decision, `cdk8s-zones shift status` too) and its CRD. Grants
   * cluster-wide: create and delete ZoneShifts, read the ZoneAutoshift and write its status; list and watch the nodes'
   * Leases in kube-node-lease; Events in default (where a cluster-scoped object's go).
   *
   * @default - no autoshift: only a person shifts a zone
   */
  readonly autoshift?: ZoneAutoshiftOptions;

  /**
   * With `zoneShift`: bring replicated state back from a lost zone. On a ZoneShift with `spec.lost`
   * (`cdk8s-zones shift start <zone> --lost`), once none of the zone's nodes answers, the pods there of the
   * StatefulSets that opted in (`ZoneController.recoverFromLostZone`) are deleted with their claims in that zone, a
   * few at a time, so that they come back in the surviving zones; each is recorded on the shift's status. Grants
   * cluster-wide: read StatefulSets, pods, claims, volumes and nodes, write ZoneShifts' status; list and watch the
   * nodes' Leases in kube-node-lease; delete pods and claims only in the namespaces of the workloads it serves.
   *
   * @default false
   */
  readonly lostZoneRecovery?: boolean;

  /**
   * Emit the CRDs of the enabled features. Turn it off when the CRDs are installed apart from this
   * controller: they are cluster-scoped, so when two apps each install a ZoneController in one cluster, one
   * of them installs the CRDs.
   *
   * @default true
   */
  readonly installCrds?: boolean;

  /**
   * TLS of the admission webhooks: required when an enabled feature serves one, refused otherwise.
   *
   * @default - none (no enabled feature serves a webhook)
   */
  readonly webhookTls?: WebhookTls;

  /**
   * What the API server does when the webhook cannot be reached. `FAIL` never lets a request past the
   * controller's check; the webhook never applies to kube-system or the controller's own namespace, so
   * the cluster and the controller itself can always recover.
   *
   * @default WebhookFailurePolicy.FAIL
   */
  readonly webhookFailurePolicy?: WebhookFailurePolicy;

  /**
   * CPU and memory of each controller container (with a memory limit).
   *
   * @default - requests 50m CPU and 64Mi memory, limit 256Mi memory
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * Namespaces whose workloads the enabled features serve besides those of this app's constructs (which are
   * added on their own): ZoneAwareUpdates, ZoneDisruptionBudgets and ZonalRedisClusters made by other apps
   * or by hand. The controller writes only in the namespaces it serves (a Role in each), the eviction
   * webhook guards only those, and the Redis manager looks for clusters only there. In a namespace listed
   * here the Redis manager may read that namespace's Secrets and ConfigMaps, as it cannot know the
   * clusters' names; a cluster in this app gets rights on its own objects only.
   *
   * @default - only the namespaces of this app's constructs
   */
  readonly workloadNamespaces?: string[];

  /**
   * The controller's NetworkPolicy: the webhook port admits any source (the API server calling it has no
   * pod labels); `clients` may scrape /metrics.
   *
   * @default - a NetworkPolicy; /metrics from pods of the controller's namespace
   */
  readonly networkPolicy?: NetworkPolicyOptions;
}

export const ZONE_CONTROLLER_PROPS: PropSpec<ZoneControllerProps> = {
  namespace: Props.optional(KubeProps.dnsLabel()),
  createNamespace: Props.optional(Props.boolean()),
  name: Props.optional(KubeProps.serviceName()),
  image: Props.optional(KubeProps.image()),
  replicas: Props.optional(Props.integer(1)),
  topology: Props.optional(Props.instanceOf(ZoneTopology)),
  zoneAnnotator: Props.optional(Props.boolean()),
  zoneAwareUpdate: Props.optional(Props.boolean()),
  zoneDisruptionBudget: Props.optional(Props.boolean()),
  redisManager: Props.optional(Props.boolean()),
  zoneShift: Props.optional(Props.boolean()),
  zoneShiftKarpenterNodePools: Props.optional(Props.boolean()),
  autoshift: Props.optional(Props.struct(AUTOSHIFT_PROPS, 'ZoneAutoshiftOptions')),
  lostZoneRecovery: Props.optional(Props.boolean()),
  installCrds: Props.optional(Props.boolean()),
  webhookTls: Props.optional(Props.instanceOf(WebhookTls)),
  webhookFailurePolicy: Props.optional(Props.enumOf(WebhookFailurePolicy, 'WebhookFailurePolicy')),
  resources: Props.optional(KubeProps.resources()),
  workloadNamespaces: Props.optional(Props.arrayOf(KubeProps.dnsLabel())),
  networkPolicy: Props.optional(Props.struct(NETWORK_POLICY_PROPS, 'NetworkPolicyOptions')),
};

/** The same checks as the installing app's ZoneControllerProps; its workloadNamespaces are required here. */
export const INSTALLED_CONTROLLER_PROPS: PropSpec<InstalledZoneControllerProps> = {
  workloadNamespaces: Props.arrayOf(KubeProps.dnsLabel()),
  namespace: ZONE_CONTROLLER_PROPS.namespace,
  name: ZONE_CONTROLLER_PROPS.name,
  image: ZONE_CONTROLLER_PROPS.image,
  zoneAnnotator: ZONE_CONTROLLER_PROPS.zoneAnnotator,
  zoneAwareUpdate: ZONE_CONTROLLER_PROPS.zoneAwareUpdate,
  zoneDisruptionBudget: ZONE_CONTROLLER_PROPS.zoneDisruptionBudget,
  redisManager: ZONE_CONTROLLER_PROPS.redisManager,
  zoneShift: ZONE_CONTROLLER_PROPS.zoneShift,
  lostZoneRecovery: ZONE_CONTROLLER_PROPS.lostZoneRecovery,
  webhookFailurePolicy: ZONE_CONTROLLER_PROPS.webhookFailurePolicy,
};
