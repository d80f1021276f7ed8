/**
 * What the zone check reports (`ZoneReport`): plain data, the same for the library API, the CLI's JSON, and
 * every format rendered from it (text, SARIF, HTML).
 */

/** How bad a finding is. */
export enum FindingSeverity {
  /** The workload does not survive losing a zone, or cannot be placed as written. */
  ERROR = 'error',
  /** Works today, but is fragile or relies on something the check cannot see. */
  WARNING = 'warning',
  /** Worth knowing; nothing to fix. */
  INFO = 'info',
}

/** Adds a finding to the workload being checked: its rule, severity, message and fix. */
export type AddFinding = (rule: string, severity: FindingSeverity, message: string, fix: string) => void;

/** One finding about a workload, with a stable rule id (see docs/check.md for the list). */
export interface ZoneFinding {
  /** The rule's stable id, e.g. `spread-selector-mismatch`. */
  readonly rule: string;
  /** How bad it is. */
  readonly severity: FindingSeverity;
  /** What is wrong and why it matters, in one or two sentences. */
  readonly message: string;
  /** What to change. */
  readonly fix: string;
}

/** The replicas one zone holds, whatever order the scheduler places them in. */
export interface ZoneCount {
  /** The fewest pods the zone can end up with (its hard constraints guarantee at least this many). */
  readonly guaranteed: number;
  /** The most pods the zone can end up with (the worst case its hard constraints allow). */
  readonly worstCase: number;
}

/** What losing one zone does to a workload. */
export interface ZoneLoss {
  /** The zone lost. */
  readonly zone: string;
  /** Replicas left in the other zones in the worst case (before any replacement is scheduled). */
  readonly survivors: number;
  /**
   * Zones still sure to hold some of its pods (a zone group that needs pods in a majority of its zones).
   *
   * @default - not counted: the workload needs replicas, not zones
   */
  readonly zonesLeft?: number;
  /** Whether `survivors` meets what the workload needs (`WorkloadReport.needed`). */
  readonly survives: boolean;
  /**
   * Of the lost replicas, how many replacements stay Pending in the worst case (the rest pack into the other zones).
   */
  readonly replacementsPending: number;
  /**
   * Whether a PodDisruptionBudget would block draining this zone's nodes (evictions refused before the zone is empty).
   */
  readonly drainBlocked: boolean;
}

/** The check of one workload. */
export interface WorkloadReport {
  /** Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, or a custom resource the check knows. */
  readonly kind: string;
  /**
   * The namespace, when the manifest sets one.
   *
   * @default - none: the namespace it is applied to
   */
  readonly namespace?: string;
  /** Its name (a zone group's: the group's). */
  readonly name: string;
  /**
   * Replicas asked for (a DaemonSet: one per eligible node; an autoscaled workload: the fewest it is scaled down to).
   */
  readonly replicas: number;
  /**
   * Where `replicas` comes from when not from the manifest's own field (e.g. "HorizontalPodAutoscaler web:
   * minReplicas 3 (replicas unset)").
   *
   * @default - the manifest's replicas
   */
  readonly replicasFrom?: string;
  /** Per zone: the pods it can be guaranteed, and the most it may get. */
  readonly perZone: { [zone: string]: ZoneCount };
  /**
   * Replicas that may stay Pending with every zone up (no eligible capacity, or hard constraints that cannot all hold).
   */
  readonly pendingWorstCase: number;
  /** The replicas that must remain for the workload to work. */
  readonly needed: number;
  /**
   * Zones that must keep pods (a zone group that needs pods in a majority of its zones); `needed` is then 0.
   *
   * @default - it needs replicas (`needed`), not zones
   */
  readonly neededZones?: number;
  /** Why it needs that many (e.g. "PodDisruptionBudget web: minAvailable 4", "Raft majority of 5"). */
  readonly neededBecause: string;
  /**
   * The zone group it is judged with (the group's own row says what the group needs and whether it survives).
   *
   * @default - none: judged alone
   */
  readonly zoneGroup?: string;
  /**
   * A system's members (a zone group's, or the pod sets an operator makes of its resource), as `Kind/namespace/name`
   * (`-` for no namespace).
   *
   * @default - none: a workload, not a system
   */
  readonly members?: string[];
  /** Per zone lost. */
  readonly zoneLoss: ZoneLoss[];
  /** Per zone: whether the workload survives losing it. */
  readonly survives: { [zone: string]: boolean };
  /** What is wrong or worth knowing about it. */
  readonly findings: ZoneFinding[];
}

/** A whole check. */
export interface ZoneReportData {
  /** The zones of the inventory. */
  readonly zones: string[];
  /** Every workload checked, then every zone group. */
  readonly workloads: WorkloadReport[];
  /** Findings about the input as a whole (objects the check skipped, and why). */
  readonly findings: ZoneFinding[];
}
