import { k8s } from 'cdk8s-plus-28';
import { LokiZoneAwarenessMigration, MIGRATION_PROPS } from './migration';
import { LokiS3Storage } from './options';
import { IngesterRollout } from './rollout';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { NETWORK_POLICY_PROPS, NetworkPolicyOptions } from '../kubernetes/network-policy';
import { Props, PropSpec } from '../shared/props';
import { ZONAL_STORAGE_PROPS, ZonalStorage } from '../topology/zonal-storage';
import { IZoneController, CONTROLLER_PROP } from '../zone-controller/controller-reference';
import { ZoneSource } from '../zone-source/zone-source';

/** What only the direct output (Loki in microservices mode as plain Kubernetes objects) takes. */
export interface LokiDirectOptions {
  /**
   * How each pod learns its zone. `ZoneSource.podTopologyLabels()` needs the topology's `kubernetesVersion`
   * to be 1.35 or newer when it is given.
   *
   * @default ZoneSource.perZoneStatefulSets()
   */
  readonly zoneSource?: ZoneSource;

  /**
   * Ingesters in each zone.
   *
   * @default 1
   */
  readonly ingesterReplicasPerZone?: number;

  /**
   * Replicas of each stateless component (distributor, querier, query-frontend, index-gateway, ruler,
   * gateway). The compactor always has one.
   *
   * @default - the number of zones
   */
  readonly replicas?: number;

  /**
   * S3-compatible object storage for chunks and index.
   *
   * @default - the filesystem of each pod: only for tests, since pods do not share it
   */
  readonly objectStorage?: LokiS3Storage;

  /**
   * The ingesters' volume claims (their WAL): size and StorageClass, one per zone with per-zone StatefulSets.
   *
   * @default - Size.gibibytes(10) in the cluster's default StorageClass
   */
  readonly ingesterStorage?: ZonalStorage;

  /**
   * Run the ruler.
   *
   * @default false
   */
  readonly ruler?: boolean;

  /**
   * Run an nginx gateway in front: pushes to the distributors, queries to the query-frontends.
   *
   * @default false
   */
  readonly gateway?: boolean;

  /**
   * The Loki image.
   *
   * @default 'docker.io/grafana/loki:3.7.8'
   */
  readonly image?: string;

  /**
   * The gateway image (with `gateway`).
   *
   * @default 'docker.io/nginxinc/nginx-unprivileged:1.29-alpine'
   */
  readonly gatewayImage?: string;

  /**
   * Resources of every component but the ingesters.
   *
   * @default - requests cpu 100m, memory 256Mi; limits memory 512Mi
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * Resources of the ingesters.
   *
   * @default - requests cpu 500m, memory 1Gi; limits memory 2Gi
   */
  readonly ingesterResources?: k8s.ResourceRequirements;

  /**
   * NetworkPolicies: the components accept HTTP, gRPC and memberlist from one another, HTTP and gRPC
   * (pushes, queries, /metrics) from `clients` and the gateway; the gateway accepts HTTP from `clients`.
   * (With the operator output the Loki operator owns the pods and their policies.)
   *
   * @default - policies that admit clients from the stack's own namespace
   */
  readonly networkPolicy?: NetworkPolicyOptions;

  /**
   * How the ingesters take a new revision: zone by zone by the runtime controller (a ZoneAwareUpdate over
   * the ingester StatefulSets, waiting for each ingester's `/ready`), or a partitioned RollingUpdate you
   * step through zone by zone. See docs/loki.md, "Rolling out a change".
   *
   * @default IngesterRollout.AUTO: zone-aware when `controller` is set, else partitioned (with a synth warning)
   */
  readonly ingesterRollout?: IngesterRollout;

  /**
   * The runtime controller that rolls the ingesters zone by zone: a `ZoneController` of this app with
   * `zoneAwareUpdate`, or `ZoneController.fromInstalled(...)` for one another app installs (serving this
   * namespace). The ingesters admit its pods to their HTTP port (it asks their `/ready`). With
   * `lostZoneRecovery`, also the controller that brings them back from a lost zone (then it may roll none:
   * `ingesterRollout: IngesterRollout.PARTITIONED`).
   *
   * @default - none: the ingesters roll by a partitioned RollingUpdate (see `ingesterRollout`)
   */
  readonly controller?: IZoneController;

  /**
   * Brings the ingesters of a zone declared lost back in the surviving zones (docs/controller.md, "Lost-zone
   * recovery"): `controller` (which must run `lostZoneRecovery`) deletes their claims there and them, a zone's worth
   * at most at once, and they come back empty while the other zones' replicas keep every stream. Per-zone
   * StatefulSets keep their ring zone and names, and stand in on the other zones' nodes.
   *
   * @default false
   */
  readonly lostZoneRecovery?: boolean;

  /**
   * Moves a running Loki whose ring is not zone-aware (same names) to zone-aware replication in two phases, so
   * that no query misses data: the write path first, the read path once the query lookback has passed. See
   * docs/loki.md, "Moving a running Loki to zone awareness".
   *
   * @default - none: every component zone-aware from the start
   */
  readonly zoneAwarenessMigration?: LokiZoneAwarenessMigration;
}

const S3_PROPS: PropSpec<LokiS3Storage> = {
  bucket: KubeProps.dnsSubdomain(), // S3 bucket names: 3 to 63 lower-case letters, digits, '.' and '-'
  endpoint: Props.optional(Props.string((e) => (/^[^\s/]+(:\d+)?$/.test(e) ? undefined : "must be host[:port] without a scheme or path, e.g. 'minio:9000'"), 'host[:port]')),
  region: Props.optional(Props.nonEmptyString()),
  credentialsSecretName: Props.optional(KubeProps.dnsSubdomain()),
  insecure: Props.optional(Props.boolean()),
  forcePathStyle: Props.optional(Props.boolean()),
};

export const LOKI_DIRECT_PROPS: PropSpec<LokiDirectOptions> = {
  zoneSource: Props.optional(Props.instanceOf(ZoneSource)),
  ingesterReplicasPerZone: Props.optional(Props.integer(1, undefined, 'a zone without ingesters cannot hold its replica of each stream')),
  replicas: Props.optional(Props.integer(1)),
  objectStorage: Props.optional(Props.struct(S3_PROPS, 'LokiS3Storage')),
  ingesterStorage: Props.optional(Props.struct(ZONAL_STORAGE_PROPS, 'ZonalStorage')),
  ruler: Props.optional(Props.boolean()),
  gateway: Props.optional(Props.boolean()),
  image: Props.optional(KubeProps.image()),
  gatewayImage: Props.optional(KubeProps.image()),
  resources: Props.optional(KubeProps.resources()),
  ingesterResources: Props.optional(KubeProps.resources()),
  networkPolicy: Props.optional(Props.struct(NETWORK_POLICY_PROPS, 'NetworkPolicyOptions')),
  ingesterRollout: Props.optional(Props.enumOf(IngesterRollout, 'IngesterRollout')),
  controller: Props.optional(CONTROLLER_PROP),
  lostZoneRecovery: Props.optional(Props.boolean()),
  zoneAwarenessMigration: Props.optional(Props.struct(MIGRATION_PROPS, 'LokiZoneAwarenessMigration')),
};
