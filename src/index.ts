// Failure-domain core: topology, placement builders, survival math, and spreading for cdk8s-plus.
export { ZoneTopology, ZoneTopologyProps } from './topology/zone-topology';
export {
  TopologySpread, SpreadOptions, SpreadConstraintProps, WhenUnsatisfiable, NodeInclusionPolicy, RevisionLabel,
} from './topology/spread';
export { ZoneAffinity, PodAntiAffinityProps, FailureDomain } from './topology/affinity';
export { Quorum, Survival, SurvivalVerdict } from './topology/survival';
export { Zonal, ZonalPinOptions, ZonalSpreadOptions } from './topology/zonal';
export { ZonalStorage } from './topology/zonal-storage';

// Longhorn: replica anti-affinity at zone, node and disk level, and the synth-time placement planner.
export {
  AntiAffinity, AntiAffinityLevel, LonghornDataEngine, LonghornDataLocality, LonghornReplicaAutoBalance,
  LonghornReplicaScheduling, LonghornSchedulingSettings,
} from './longhorn/options';
export {
  LonghornInventory, LonghornInventoryProps, LonghornNodeInventory, LonghornDiskInventory, LonghornDiskType,
} from './longhorn/inventory';
export { LonghornPlacement } from './longhorn/planner';
export { LonghornPlacementRequest, LonghornPlacementPlan, LonghornReplicaPlacement, LonghornReplicaLocation } from './longhorn/placement-plan';
export { LonghornStorageClass, LonghornStorageClassProps, VolumeBindingMode } from './longhorn/storage-class';
export { LonghornVolume, LonghornVolumeProps } from './longhorn/volume';
export { LonghornSettings, LonghornSettingsProps } from './longhorn/settings';

// Zone-local Prometheus shards.
export { TopologyShardedPrometheus } from './prometheus/prometheus';
export { TopologyShardedPrometheusProps } from './prometheus/prometheus-props';
export {
  ShardingMode, PrometheusOutput, OperatorSharding, PrometheusScrapeClass, PrometheusRemoteWrite, PrometheusSecretKey,
} from './prometheus/options';
export { ShardPlan, ShardPlanProps, ShardAssignment } from './prometheus/shard-plan';
export { ShardRelabeling, ShardRelabelingProps, RelabelRule, RelabelAction } from './prometheus/relabel';
export { Hashmod } from './prometheus/hashmod';

// Who may connect to the pods of each construct (the NetworkPolicies they emit).
export { NetworkPolicyOptions, NetworkPeer } from './kubernetes/network-policy';

// The runtime controller's contracts shared with synth time.
export { ZoneAnnotation } from './contract/zone-annotation';
export { ZoneController } from './zone-controller/zone-controller';
export { ZoneControllerProps } from './zone-controller/zone-controller-props';
export { ZoneAutoshiftOptions } from './zone-controller/autoshift';
export { IZoneController, InstalledZoneControllerProps } from './zone-controller/controller-reference';
export {
  WebhookTls, WebhookTlsMode, WebhookFailurePolicy, CertManagerTlsOptions, CertManagerIssuerKind,
} from './zone-controller/webhook-tls';

// Zone-aware rollouts and disruption budgets (custom resources the runtime controller acts on).
export {
  ZoneAwareUpdate,
  ZoneAwareUpdateProps,
  ZoneAwareUpdatePauseCondition,
  ZoneAwareUpdateReadyCheck,
  RolloutTarget,
} from './rollout/zone-aware-update';
export { ZoneDisruptionBudget, ZoneDisruptionBudgetProps } from './rollout/zone-disruption-budget';

// How a pod learns its zone (shared by zone-aware constructs).
export { ZoneSource, ZoneSourceKind } from './zone-source/zone-source';

// Loki replication across zones.
export { ZoneAwareLokiStack, ZoneAwareLokiStackProps } from './loki/loki-stack';
export { LokiOperatorOptions } from './loki/operator-options';
export { LokiDirectOptions } from './loki/direct-options';
export { LokiZoneAwarenessMigration } from './loki/migration';
export { IngesterRollout } from './loki/rollout';
export {
  LokiStackSize, LokiObjectStorageType, LokiOperatorStorage, LokiS3Storage, LokiComponent,
} from './loki/options';

// Redis Cluster laid out to survive a zone loss.
export {
  RedisShardLayout, RedisShardLayoutProps, RedisNodePlan, RedisShardPlan, RedisRole,
} from './redis/layout';
export { ZonalRedisCluster } from './redis/cluster';
export { ZonalRedisClusterProps, RedisPasswordSecret } from './redis/cluster-props';

// The zone check: will these manifests survive losing a zone? (docs/check.md)
export { ZoneInventory, ZoneInventoryProps, InventoryNode, InventoryTaint } from './check/inventory';
export { FindingSeverity, ZoneFinding, ZoneCount, ZoneLoss, WorkloadReport, ZoneReportData } from './check/model';
export { ZoneCheckValidation, ZoneCheckValidationProps, ZoneCheckFailOn } from './check/validation-plugin';
export { ZoneReport } from './check/zone-report';
