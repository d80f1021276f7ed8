/**
 * What the zone check reads from a set of manifests, as typed objects: the workloads it places with their pod
 * templates, the disruption budgets, the storage and the Services that prefer same-zone endpoints. `workloads.ts`
 * reads built-in objects into them and `operators.ts` operators' resources; the analysis reads only these.
 */
import { ZoneFinding } from './model';
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

/**
 * A Service that asks for same-zone endpoints (`spec.trafficDistribution` PreferSameZone or its older name
 * PreferClose).
 */
export interface CheckZoneLocalService {
  readonly namespace?: string;
  readonly name: string;
  readonly selector: { readonly [key: string]: string };
  readonly trafficDistribution: string;
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
  readonly zoneLocalServices: CheckZoneLocalService[];
  readonly findings: ZoneFinding[];
}
