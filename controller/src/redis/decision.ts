/** The shapes of the Redis cluster manager's decisions (see decide.ts): its modes, options and results. */
import { Step } from './steps';

export type IssueKind =
  | 'unreachable' | 'zone-silent' | 'zone-shifted' | 'zone-lost' | 'converging' | 'resharding' | 'replica-syncing'
  | 'failover-pending' | 'slots-lost' | 'slots-unassigned' | 'zone-majority' | 'no-master' | 'not-bootstrapped'
  | 'absent' | 'upgrade-blocked' | 'refusing-queries' | 'stand-in' | 'paused' | 'invalid-annotation';

/** Something not as planned that the steps do not (yet) fix. */
export interface Issue {
  readonly kind: IssueKind;
  readonly message: string;
}

export interface Decision {
  /** The steps to run now (one phase at a time; observe again afterwards). */
  readonly steps: Step[];
  /** What is wrong, whether or not a step fixes it. */
  readonly issues: Issue[];
  /** True when the cluster is expected to change by itself (gossip, an automatic failover): observe again later. */
  readonly waiting: boolean;
}

export type Mode =
  /** Every automatic phase; never loses data. */
  | 'reconcile'
  /** `reconcile`, and also gives slots nobody can serve any more to a master of their shard (their keys are lost). */
  | 'fix'
  /** Only the failovers that move masters back to their planned nodes. */
  | 'rebalance'
  /** Only forgets failed nodes, including ones of the inventory that do not answer. */
  | 'forget-lost-nodes';

export interface DecideOptions {
  readonly mode?: Mode;
  /** Rebalance with `CLUSTER FAILOVER TAKEOVER` (no agreement of the master; only when asked). */
  readonly takeover?: boolean;
  /**
   * In `reconcile` and `fix`: fail the masters of a lost zone over (`force-failover`) once no node of the zone
   * answers and every surviving master has heard nothing from any of them for this long (ms). Undefined: never;
   * Redis does it by itself, about 1.6 x cluster-node-timeout + 0.7 s after the loss.
   */
  readonly zoneLossFailoverAfterMs?: number;
  /**
   * Planned masters not to fail their shards back to (yet): ones an upgrade just failed over away from, to
   * replace their pods. A fail-back now would undo the upgrade's failover, and the upgrade's next one would
   * come while the masters still refuse a second vote for that shard, and hang with the shard's writes paused.
   */
  readonly holdFailBack?: ReadonlySet<string>;
  /**
   * Zones out of service (a ZoneShift): each master in one fails over gracefully (`CLUSTER FAILOVER`) to a replica
   * of it in sync in another zone, and no shard fails back into one.
   */
  readonly outOfServiceZones?: ReadonlySet<string>;
}
