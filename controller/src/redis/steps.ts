/**
 * What the Redis cluster manager can do to a cluster, one step at a time: its decisions (decide.ts) choose
 * them, the executor (executor.ts) runs them.
 */
export type Step =
  /** `CLUSTER MEET` run on `on`, introducing the node at `address`. */
  | { readonly kind: 'meet'; readonly on: string; readonly address: string }
  /** `CLUSTER ADDSLOTSRANGE` on `on`. */
  | { readonly kind: 'add-slots'; readonly on: string; readonly ranges: [number, number][] }
  /** `CLUSTER REPLICATE masterId` on `on`. */
  | { readonly kind: 'replicate'; readonly on: string; readonly master: string; readonly masterId: string }
  /** `CLUSTER FAILOVER` (or `TAKEOVER`) on the replica `on`: it becomes its shard's master. */
  | { readonly kind: 'failover'; readonly on: string; readonly takeover: boolean }
  /**
   * `CLUSTER FAILOVER FORCE` on the replica `on` of `master`, a master of the lost `zone`: it takes over without
   * its master's agreement, but is still elected by a majority of the masters.
   */
  | { readonly kind: 'force-failover'; readonly on: string; readonly master: string; readonly zone: string }
  /** `CLUSTER FORGET id` on every node in `on`. */
  | { readonly kind: 'forget'; readonly id: string; readonly address: string; readonly on: string[] }
  /** `CLUSTER SETSLOT slot STABLE` on `on` for each of `slots`: an open slot with no node left to complete it with. */
  | { readonly kind: 'stable'; readonly on: string; readonly slots: number[] }
  /**
   * Move the slots `ranges` with their keys from `from` to `to` (SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT
   * NODE).
   */
  | {
    readonly kind: 'migrate';
    readonly from: string;
    readonly to: string;
    readonly toId: string;
    readonly ranges: [number, number][];
  }
  /**
   * A node holding no slots of its own, forgotten by the others, then `CLUSTER RESET HARD` (a new id, empty): a
   * node outside the plan, or a planned master adrift as another shard's replica.
   */
  | { readonly kind: 'retire'; readonly on: string; readonly id: string };
