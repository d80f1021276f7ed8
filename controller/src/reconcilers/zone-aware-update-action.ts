/**
 * What the zone-aware-update decision (zone-aware-update-decision.ts) reads of the caches, and what it decides to do
 * with one ZoneAwareUpdate.
 */
import { Scaling } from './zone-aware-update-deployment';
import { ZoneAwareUpdateStatus } from '../../../src/contract/rollout-resources';
import { KubeObject } from '../kube/api';

export type ZauAction =
  /** Delete these pods (namespace of the ZoneAwareUpdate), then write `status`. */
  | { readonly kind: 'delete'; readonly pods: string[]; readonly zone: string; readonly status: ZoneAwareUpdateStatus }
  /**
   * Deployment: mark `pods` cheapest to delete, scale the new ReplicaSet up and the old ones down, then write
   * `status`.
   */
  | {
    readonly kind: 'scale';
    readonly pods: string[];
    readonly zone: string;
    readonly scaling: Scaling;
    readonly status: ZoneAwareUpdateStatus;
  }
  /** Deployment: create its new ReplicaSet (0 replicas), then write `status`. */
  | { readonly kind: 'create-replicaset'; readonly replicaSet: KubeObject; readonly status: ZoneAwareUpdateStatus }
  /** Dry run: the pods that would be deleted; write `status` (the step does not advance). */
  | { readonly kind: 'dry-run'; readonly pods: string[]; readonly zone: string; readonly status: ZoneAwareUpdateStatus }
  /** Only write `status` (waiting, paused, done, or an error in the spec or the workload). */
  | { readonly kind: 'status'; readonly status: ZoneAwareUpdateStatus };

export interface ZauInput {
  readonly zau: KubeObject;
  /** The StatefulSet `spec.statefulset` names, if the cache has it. */
  readonly statefulSet?: KubeObject;
  /** The StatefulSets of the group `spec.statefulsets` names that the cache has. */
  readonly statefulSets?: readonly KubeObject[];
  /** The Deployment `spec.deployment` names, if the cache has it. */
  readonly deployment?: KubeObject;
  /** ReplicaSets, at least those the Deployment controls (the decision keeps those). */
  readonly replicaSets?: readonly KubeObject[];
  /** Pods, at least those the workload's StatefulSet or ReplicaSets control (the decision keeps those). */
  readonly pods: readonly KubeObject[];
  /** Node labels by node name. */
  readonly nodeLabels: (node: string) => Record<string, string> | undefined;
  /** The node label keys a zone is made of. */
  readonly topologyKeys: readonly string[];
  /** Why the Prometheus pause condition holds (query non-empty or failing), if it does. */
  readonly prometheusPause?: string;
  /** Pods (by name) that failed the spec's `readyCheck`, and why: they count as not Ready. */
  readonly readyCheckFailures?: ReadonlyMap<string, string>;
  /** The ZoneAwareUpdate `spec.startAfter` names, as the caches show it (unset: none, or not found). */
  readonly predecessor?: Predecessor;
  /** Now, in milliseconds since the epoch (the time `doneAt` and `startsAt` are measured in). */
  readonly nowMs: number;
  /** The zones out of service for the namespace (ZoneShifts in force): no batch there. @default none */
  readonly outOfServiceZones?: readonly string[];
}

/** The ZoneAwareUpdate a rollout starts after, and the update revision of its workload now. */
export interface Predecessor {
  readonly zau: KubeObject;
  /** What its own decision would take as its update revision now; undefined while it cannot tell. */
  readonly updateRevision?: string;
}
