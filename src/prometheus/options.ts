import { k8s } from 'cdk8s-plus-28';
import { RelabelRule, ZoneSources } from './relabel';
import { ShardAssignment } from './shard-plan';
import { NetworkPolicyOptions } from '../kubernetes/network-policy';
import { ZonalStorage, ZoneStorageClasses } from '../topology/zonal-storage';
import { ZoneTopology } from '../topology/zone-topology';

/** How targets are divided between shards. */
export enum ShardingMode {
  /** Each shard runs in one zone and scrapes only that zone's targets, hashed by address inside the zone. */
  TOPOLOGY = 'Topology',
  /** Classic sharding: targets hashed by address over all shards, wherever they run (no zone awareness). */
  ADDRESS = 'Address',
}

/** What the construct synthesizes. */
export enum PrometheusOutput {
  /** prometheus-operator custom resources (`Prometheus`), plus the ServiceAccount and RBAC they run with. */
  OPERATOR = 'operator',
  /** Plain Kubernetes objects, no operator: a StatefulSet and a prometheus.yml ConfigMap per shard. */
  STANDALONE = 'standalone',
  /**
   * prometheus-operator `PrometheusAgent` resources (`monitoring.coreos.com/v1alpha1`), sharded as
   * `OPERATOR` is: Prometheus in agent mode scrapes and forwards every sample by remote write (`remoteWrite`
   * is required), with no local queries, rules or retention.
   */
  AGENT = 'agent',
}

/** A key of a Secret (created outside the app) in the Prometheus namespace. */
export interface PrometheusSecretKey {
  /** The Secret's name. */
  readonly name: string;
  /** The key in the Secret. */
  readonly key: string;
}

/** Where the shards send their samples (prometheus-operator `remoteWrite`). */
export interface PrometheusRemoteWrite {
  /** The endpoint, an http:// or https:// URL, e.g. `https://mimir.example.com/api/v1/push`. */
  readonly url: string;

  /**
   * A name for the queue, unique among the endpoints (in metrics and logs).
   *
   * @default - Prometheus names it from a hash of the configuration
   */
  readonly name?: string;

  /**
   * A bearer token sent as `Authorization: Bearer <token>`, read by prometheus-operator from this Secret
   * key (never written into the app).
   *
   * @default - no Authorization header
   */
  readonly bearerTokenSecret?: PrometheusSecretKey;
}

/** How the operator output expresses topology sharding. */
export enum OperatorSharding {
  /**
   * One `Prometheus` per zone, pinned to it by nodeSelector, with the zone's shard count as `shards`
   * and a zone keep rule in a default scrape class. Works on any operator with scrape classes and gives
   * every shard work.
   */
  PER_ZONE = 'per-zone',
  /**
   * One `Prometheus` with `spec.shardingStrategy` (prometheus-operator >= 0.91, feature gate
   * PrometheusTopologySharding). Upstream's formula leaves shards idle when `shards` is not a multiple
   * of the zone count; the construct warns which.
   */
  SHARDING_STRATEGY = 'sharding-strategy',
}

/**
 * A prometheus-operator scrape class of the user's. With `OperatorSharding.PER_ZONE` the construct
 * appends its zone rules to every class (so no monitor escapes them) and adds its own default class when
 * none of these is the default.
 */
export interface PrometheusScrapeClass {
  /** The class name, referenced by monitors' `scrapeClass`. */
  readonly name: string;

  /**
   * Whether monitors without an explicit scrape class use this one (at most one default).
   *
   * @default false
   */
  readonly isDefault?: boolean;

  /**
   * Target relabel rules, applied before the monitors' own (and before the construct's zone rules, so
   * they may set `__tmp_topology`, `__tmp_hash` or `__tmp_disable_sharding`).
   *
   * @default - none
   */
  readonly relabelings?: RelabelRule[];

  /**
   * Metric relabel rules.
   *
   * @default - none
   */
  readonly metricRelabelings?: RelabelRule[];

  /**
   * Attach node metadata to discovered targets. Must not be false when the zone is read from node
   * labels (Kubernetes < 1.35 or a custom topology key).
   *
   * @default - true when the zone is read from node labels, otherwise unset
   */
  readonly attachNodeMetadata?: boolean;
}

/** Validated, defaulted settings the outputs render (internal). */
export interface ResolvedPrometheus {
  readonly where: string;
  readonly topology: ZoneTopology;
  readonly mode: ShardingMode;
  readonly operatorSharding: OperatorSharding;
  /** Base of every object name. */
  readonly name: string;
  /** The namespace of the ServiceAccount (for the ClusterRoleBinding). */
  readonly namespace: string;
  /** The namespace to set on namespaced objects (undefined: the chart's). */
  readonly metadataNamespace?: string;
  readonly shards: number;
  readonly replicas: number;
  /** The shard plan (topology mode). */
  readonly plan: ShardAssignment[];
  /** DNS-safe zone names, by zone index. */
  readonly zoneNames: string[];
  /** Where a target's zone is read from (topology mode). */
  readonly sources: ZoneSources;
  readonly externalLabelName: string;
  readonly externalLabels: { [name: string]: string };
  readonly nodeSelector?: { [key: string]: string };
  readonly image?: string;
  readonly scrapeInterval: string;
  /** Undefined for the agent output (no local storage of samples to keep). */
  readonly retention?: string;
  readonly remoteWrite: PrometheusRemoteWrite[];
  readonly resources: k8s.ResourceRequirements;
  readonly storage?: ZonalStorage;
  /** The storage class of each zone's claims. */
  readonly storageClasses: ZoneStorageClasses;
  readonly scrapeClasses: PrometheusScrapeClass[];
  readonly monitorSelector: k8s.LabelSelector;
  /** The namespaces it looks in (undefined: every namespace). */
  readonly monitorNamespaces?: readonly string[];
  readonly networkPolicy?: NetworkPolicyOptions;
}
