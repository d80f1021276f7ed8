/**
 * What the zone check reads from a set of manifests, as typed objects: the workloads it places with their pod
 * templates, the disruption budgets, the storage and the Services. `workloads.ts`
 * reads built-in objects into them and `operators.ts` operators' resources; the analysis reads only these.
 */
import { ZoneFinding } from './model';
import { RecognisedQuorum } from './quorum-software/recognisers';
import { NodeSelectorTerm, PodSpec } from '../kubernetes/objects';

/** A workload the check places. */
export interface CheckWorkload {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /**
   * Replicas asked for (an autoscaler's minimum where one owns the count); undefined for a DaemonSet (one per eligible
   * node).
   */
  readonly replicas?: number;
  /** Where `replicas` comes from when not the manifest's own field (an autoscaler), for messages. */
  readonly replicasFrom?: string;
  /** `spec.replicas` as the manifest sets it (undefined: unset). */
  readonly replicasInManifest?: number;
  /** A Job or a CronJob's Job: its pods run to completion, so it is no availability workload unless it says so. */
  readonly runToCompletion?: boolean;
  /** Made by this library (its managed-by label): fixes may name the library's constructs. */
  readonly fromLibrary?: boolean;
  /** One pod on every node it admits (a DaemonSet, an operator's per-node mode); `replicas` is then unset. */
  readonly perNode?: boolean;
  /** The pod template's `metadata.labels`. */
  readonly podLabels: { readonly [key: string]: string };
  /** The pod template's `spec`. */
  readonly pod: PodSpec;
  /** The StatefulSet's volumeClaimTemplates' storage class names (undefined: the default class). */
  readonly claimClasses: readonly (string | undefined)[];
  /** The StatefulSet's volumeClaimTemplates' names (its pod i's claims are `<template>-<name>-<i>`). */
  readonly claimTemplates: readonly string[];
  /** The claims its pod template mounts (`persistentVolumeClaim.claimName`). */
  readonly podClaims: readonly string[];
  readonly annotations: { readonly [key: string]: string };
  /** The workload's own `metadata.labels` (rollout-operator groups StatefulSets by one). */
  readonly labels: { readonly [key: string]: string };
  /**
   * A Loki ring's replication factor (a LokiStack's ingesters): what a write needs is a quorum of each stream's
   * replicas.
   */
  readonly ringReplicationFactor?: number;
  /**
   * Its pods running now, per zone (`check --live`): judged by the worse of now and its spec's worst case.
   *
   * @default - not known: manifests, judged by the spec alone
   */
  readonly running?: Readonly<Record<string, number>>;
  /** The consensus software its pods run, recognised from their image and configuration (quorum-software/). */
  readonly quorum?: RecognisedQuorum;
  /**
   * The system it is judged with (`CheckSystem.name`: an operator's resource it was made from, or a zone group),
   * instead of alone.
   */
  readonly partOf?: string;
}

/** At least `count` of the members' pods left (a replica to promote, a sentinel quorum). */
export interface PodsNeed {
  readonly rule: 'pods';
  /** The pod sets it counts (`CheckWorkload.name`); none: all of the system's. */
  readonly members?: readonly string[];
  readonly count: number;
  readonly because: string;
}

/**
 * A majority of `voters` configured voters left (Raft, a KRaft controller quorum, a replica set's votes). It forms only
 * when a majority of them (`formsWith` all: every one, as Consul's bootstrap-expect) can be placed.
 */
export interface VotersNeed {
  readonly rule: 'voters';
  readonly members?: readonly string[];
  readonly voters: number;
  readonly formsWith: 'majority' | 'all';
  readonly because: string;
}

/** Pods left in a majority of the zones it runs in (a zone group). */
export interface ZonesNeed {
  readonly rule: 'zones';
  readonly because: string;
}

/**
 * `need` of the `factor` copies of every item (a partition, a shard, a token range) left. The copies are on distinct
 * zones (`spread` zones: rack awareness by zone), on distinct members (members: one rack each), or anywhere among the
 * members' pods (none).
 */
export interface CopiesNeed {
  readonly rule: 'copies';
  readonly members?: readonly string[];
  readonly factor: number;
  readonly need: number;
  readonly spread: 'zones' | 'members' | 'none';
  readonly because: string;
}

/** One thing a system of several pod sets needs to keep serving through a zone loss (systems.ts judges it). */
export type SystemNeed = PodsNeed | VotersNeed | ZonesNeed | CopiesNeed;

/** Workloads judged together: an operator's resource and the pod sets it makes, or a zone group. */
export interface CheckSystem {
  /** `ZoneGroup`, or the resource's kind. */
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** Its members' names (`CheckWorkload.name`, whose `partOf` is this system's name). */
  readonly members: readonly string[];
  readonly needs: readonly SystemNeed[];
  /** What makes them one system (an operator's model and its version, a label), for the report. */
  readonly evidence: string;
  /** What reading it found (a quorum that members disagree on, a value of the wrong type). */
  readonly findings: readonly ZoneFinding[];
  /** Its members keep their own needs (an operator the check has no model of); it survives a zone when they all do. */
  readonly membersJudgedAlone?: boolean;
}

/**
 * A PodDisruptionBudget, or a ZoneDisruptionBudget (its maxUnavailable paces a drain of one zone as a
 * PodDisruptionBudget's would).
 */
export interface CheckBudget {
  readonly kind: 'PodDisruptionBudget' | 'ZoneDisruptionBudget';
  readonly namespace?: string;
  readonly name: string;
  /** As the manifest gives it (a malformed one selects nothing: eligibility.ts's `selects`). */
  readonly selector: unknown;
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
}

/** One port of a Service. */
export interface CheckServicePort {
  readonly name?: string;
  readonly port?: number;
  /** The pods' port: a number, or the name of a container port (undefined: the same as `port`). */
  readonly targetPort?: number | string;
}

/** A Service: which pods it selects and how its requests are routed (traffic/, and the check's zone-local notes). */
export interface CheckService {
  readonly namespace?: string;
  readonly name: string;
  /** `spec.type` (ClusterIP unless set). */
  readonly type: string;
  /** `spec.selector` (undefined: none; its endpoints are managed by someone else). */
  readonly selector?: { readonly [key: string]: string };
  /** `spec.clusterIP: None`. */
  readonly headless: boolean;
  /** `spec.trafficDistribution`, as written. */
  readonly trafficDistribution?: string;
  /** `spec.internalTrafficPolicy`, as written (Cluster unless set). */
  readonly internalTrafficPolicy?: string;
  readonly annotations: { readonly [key: string]: string };
  readonly ports: readonly CheckServicePort[];
}

/** A StorageClass, as far as placement goes. */
export interface CheckStorageClass {
  readonly name: string;
  readonly immediate: boolean;
  readonly isDefault: boolean;
  /** Zones its volumes may be provisioned in (allowedTopologies on the zone key); undefined: any. */
  readonly zones?: readonly string[];
}

/** A PersistentVolume with node affinity: the claim bound to it (claimRef) runs its pods only on those nodes. */
export interface CheckVolume {
  readonly name: string;
  /** `spec.nodeAffinity.required.nodeSelectorTerms`. */
  readonly nodeTerms: readonly NodeSelectorTerm[];
  readonly claim?: { readonly namespace?: string; readonly name: string };
}

/** Everything the check reads from the manifests, and the findings on what it skipped. */
export interface CheckInput {
  readonly workloads: CheckWorkload[];
  readonly budgets: CheckBudget[];
  readonly storageClasses: CheckStorageClass[];
  readonly volumes: CheckVolume[];
  /** PersistentVolumeClaims bound by name (`spec.volumeName`), by `namespace/name`. */
  readonly claimVolumes: Map<string, string>;
  readonly services: CheckService[];
  /** The text of the ConfigMaps and Secrets, by `namespace/Kind/name` (quorum-software/pod-config.ts). */
  readonly configTexts: Map<string, readonly string[]>;
  /** Operators' resources judged as one system over the pod sets they make. */
  readonly systems: CheckSystem[];
  readonly findings: ZoneFinding[];
}
