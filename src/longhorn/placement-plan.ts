/**
 * What a Longhorn placement is asked (the volume's scheduling options, size and existing replicas) and what it
 * answers (where each replica goes, which levels it relaxed, and why one cannot be placed).
 */
import { Size } from 'cdk8s';
import { AntiAffinityLevel, LonghornReplicaScheduling, REPLICA_SCHEDULING_PROPS } from './options';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { Props, PropSpec } from '../shared/props';

/** Where a replica of the volume already is. */
export interface LonghornReplicaLocation {
  /** The node's name in the inventory. */
  readonly node: string;
  /** The disk's name on that node. */
  readonly disk: string;
}

/** What to place: a volume's scheduling options, its size, and the replicas it already has. */
export interface LonghornPlacementRequest extends LonghornReplicaScheduling {
  /**
   * The volume size. Longhorn rounds it up to a multiple of 2 MiB, and so does the planner.
   *
   * @default - none: only placement rules and disks already out of room are checked, not this volume's size
   */
  readonly size?: Size;

  /**
   * Replicas the volume already has. They count as using their zone, node and disk, and toward
   * `numberOfReplicas`; their sizes must already be in their disks' `scheduled`.
   *
   * @default - none (a new volume)
   */
  readonly existingReplicas?: LonghornReplicaLocation[];
}

export const PLACEMENT_REQUEST_PROPS: PropSpec<LonghornPlacementRequest> = {
  ...REPLICA_SCHEDULING_PROPS,
  size: Props.optional(KubeProps.size()),
  existingReplicas: Props.optional(Props.arrayOf(Props.struct<LonghornReplicaLocation>({
    node: Props.nonEmptyString(), disk: Props.nonEmptyString(),
  }, 'LonghornReplicaLocation'))),
};

/** Where one replica goes, or why it cannot go anywhere. */
export interface LonghornReplicaPlacement {
  /** The replica's number, from 1. */
  readonly replica: number;
  /** True when the replica has a disk. */
  readonly scheduled: boolean;
  /** True for a replica given in `existingReplicas`. */
  readonly existing: boolean;
  /**
   * The node.
   *
   * @default - none (unscheduled)
   */
  readonly node?: string;
  /**
   * The node's zone ('' for a node without a zone label).
   *
   * @default - none (unscheduled)
   */
  readonly zone?: string;
  /**
   * The disk on the node.
   *
   * @default - none (unscheduled)
   */
  readonly disk?: string;
  /** The levels whose soft anti-affinity this replica needed: it shares them with an earlier replica. */
  readonly relaxed: AntiAffinityLevel[];
  /** Why the replica went there, or why it could not be scheduled. */
  readonly reason: string;
}

/** The planner's answer. */
export interface LonghornPlacementPlan {
  /** Every replica of the volume in order: existing ones first, then new ones. */
  readonly replicas: LonghornReplicaPlacement[];
  /** True when every replica is scheduled. */
  readonly complete: boolean;
  /**
   * Why the first unscheduled replica fits nowhere, naming the level that could not be honoured.
   *
   * @default - none (complete)
   */
  readonly failure?: string;
  /** Degraded placement and upstream Longhorn bugs that apply: worth a synth-time warning. */
  readonly warnings: string[];
  /** Facts about the placement that need no action (e.g. nodes without a zone label form one zone). */
  readonly notes: string[];
  /** The replica size: the volume's size rounded up to a multiple of 2 MiB (zero when the request gave none). */
  readonly replicaSize: Size;
}
