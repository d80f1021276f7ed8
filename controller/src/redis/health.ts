/**
 * How a Redis cluster has been doing over the manager's passes (pure): a phase word from one pass's state,
 * consecutive healthy and unhealthy passes, and `finalized` once it has been healthy for
 * FINALIZED_AFTER_PASSES passes in a row, the signal that a rollout or a recovery has settled. The
 * transitions are what the reconciler tells as Kubernetes Events.
 */
import { ClusterState } from './decide';

/** What the cluster is doing, from one pass. */
export type RedisPhase = 'initializing' | 'healthy' | 'recovering' | 'scaling' | 'upgrading';

/** What the reconciler knows besides the Redis state: its pods' revisions and its StatefulSets' replicas. */
export interface PassActivity {
  /** Pods run an out-of-date template revision (being replaced). */
  readonly upgrading?: boolean;
  /** A StatefulSet is not at the layout's size yet (scaled up and its pods not all there, or waiting to scale down). */
  readonly scaling?: boolean;
}

/** Healthy passes in a row after which the cluster is `finalized`. */
export const FINALIZED_AFTER_PASSES = 10;

export interface RedisHealth {
  readonly phase: RedisPhase;
  /** Healthy passes in a row (0 after an unhealthy one). */
  readonly healthyPasses: number;
  /** Unhealthy passes in a row (0 after a healthy one). */
  readonly unhealthyPasses: number;
  /** Healthy for FINALIZED_AFTER_PASSES passes in a row or more. */
  readonly finalized: boolean;
  /** When `phase` last changed (ISO time). */
  readonly phaseSince: string;
  /** When `finalized` last changed (ISO time). */
  readonly finalizedSince: string;
}

/** A change worth an Event. */
export interface HealthEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/**
 * The phase of one pass after `previous`: `initializing` until the cluster is first healthy (slots assigned,
 * replicas attached and in sync); `upgrading` while pods run an out-of-date revision (a replaced pod away or
 * syncing is part of it); `scaling` while slots move to other shards, nodes retire or a StatefulSet is not at
 * the layout's size; `healthy` when nothing is left to do; `recovering` for anything else (a node lost, a
 * failover, replicas syncing, masters to fail back).
 */
export function phaseOf(state: ClusterState, previous?: RedisPhase, activity: PassActivity = {}): RedisPhase {
  if (state.healthy && !activity.upgrading && !activity.scaling) return 'healthy';
  if (previous === 'initializing' && !state.healthy) return 'initializing';
  const kinds = new Set(state.issues.map((i) => i.kind));
  const steps = new Set(state.nextSteps.map((s) => s.kind));
  if (kinds.has('not-bootstrapped') || steps.has('add-slots') || (state.slotsServed === 0 && !kinds.has('slots-lost'))) return 'initializing';
  if (activity.upgrading) return 'upgrading';
  if (activity.scaling || kinds.has('resharding') || steps.has('migrate') || steps.has('retire')) return 'scaling';
  return 'recovering';
}

/** The health after one more pass whose state is `state`, at `now`. */
export function nextHealth(
  previous: RedisHealth | undefined,
  state: ClusterState,
  now: Date,
  activity: PassActivity = {},
): RedisHealth {
  const phase = phaseOf(state, previous?.phase, activity);
  const healthy = phase === 'healthy';
  const healthyPasses = healthy ? (previous?.healthyPasses ?? 0) + 1 : 0;
  const finalized = healthyPasses >= FINALIZED_AFTER_PASSES;
  const at = now.toISOString();
  return {
    phase,
    healthyPasses,
    unhealthyPasses: healthy ? 0 : (previous?.unhealthyPasses ?? 0) + 1,
    finalized,
    phaseSince: previous && previous.phase === phase ? previous.phaseSince : at,
    finalizedSince: previous && previous.finalized === finalized ? previous.finalizedSince : at,
  };
}

/** The Events of going from `previous` to `next` (none for a first pass that finds the cluster healthy). */
export function healthEvents(previous: RedisHealth | undefined, next: RedisHealth, state: ClusterState): HealthEvent[] {
  const events: HealthEvent[] = [];
  if (previous?.phase !== next.phase && !(previous === undefined && next.phase === 'healthy')) {
    const why = state.issues.map((i) => i.message).join('; ');
    events.push({
      type: next.phase === 'recovering' ? 'Warning' : 'Normal',
      reason: `Redis${next.phase[0].toUpperCase()}${next.phase.slice(1)}`,
      message: `phase ${next.phase}${previous ? ` (was ${previous.phase})` : ''}${why ? `: ${why}` : ''}`.slice(0, 1000),
    });
  }
  if (next.finalized && !previous?.finalized) {
    events.push({ type: 'Normal', reason: 'RedisFinalized', message: `healthy for ${next.healthyPasses} passes in a row` });
  }
  return events;
}
