/** What a zone-aware-update action tells (pure): a decision counted, a log line, an Event, and a recheck. */
import { statusHolds } from './status';
import { ZauAction } from './zone-aware-update-decision';

/** What an action tells: a decision counted, a log line, an Event on the ZoneAwareUpdate, and whether to look again. */
export interface ZauReport {
  /** The `decision` label of `cdk8s_zones_decisions_total`. */
  readonly decision?: string;
  readonly log?: { readonly level: 'info' | 'warn'; readonly msg: string; readonly fields: Record<string, unknown> };
  readonly event?: { readonly type: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };
  /** Look again after the recheck period: no watch reports the end of a pause (Prometheus) or of a dry run. */
  readonly recheck: boolean;
}

type ActionOf<K extends ZauAction['kind']> = Extract<ZauAction, { kind: K }>;

/** The report of `action`; `current` is the status stored (a pause or an error is told once, when it starts). */
export function reportOf(action: ZauAction, current: Record<string, unknown> | undefined): ZauReport {
  switch (action.kind) {
    case 'delete': return deleteReport(action);
    case 'create-replicaset': return createReport(action);
    case 'scale': return scaleReport(action);
    case 'dry-run': return dryRunReport(action);
    case 'status': return statusReport(action, current);
  }
}

/** The zone as told: `<unknown>` when the pods' zone is not known. */
const zoneOf = (action: { readonly zone: string }) => action.zone || '<unknown>';

function deleteReport(action: ActionOf<'delete'>): ZauReport {
  const fields = { zone: action.zone, pods: action.pods, step: action.status.step - 1 };
  const message = `zone ${zoneOf(action)}: deleted ${action.pods.join(', ')} (${action.status.message})`;
  return {
    decision: 'delete-batch',
    log: { level: 'info', msg: 'deleted a batch', fields },
    event: { type: 'Normal', reason: 'DeletedBatch', message },
    recheck: false,
  };
}

function createReport(action: ActionOf<'create-replicaset'>): ZauReport {
  return {
    log: { level: 'info', msg: 'created the new ReplicaSet', fields: { replicaSet: action.replicaSet.metadata.name } },
    event: { type: 'Normal', reason: 'CreatedReplicaSet', message: action.status.message },
    recheck: false,
  };
}

function scaleReport(action: ActionOf<'scale'>): ZauReport {
  if (action.pods.length === 0) {
    const resized = { scaling: action.scaling };
    return { log: { level: 'info', msg: 'resized the ReplicaSets', fields: resized }, recheck: false };
  }
  const fields = { zone: action.zone, pods: action.pods, step: action.status.step - 1, scaling: action.scaling };
  const message = `zone ${zoneOf(action)}: replacing ${action.pods.join(', ')} (${action.status.message})`;
  return {
    decision: 'scale-batch',
    log: { level: 'info', msg: 'deleted a batch', fields },
    event: { type: 'Normal', reason: 'ReplacedBatch', message },
    recheck: false,
  };
}

function dryRunReport(action: ActionOf<'dry-run'>): ZauReport {
  return {
    decision: 'dry-run',
    log: { level: 'info', msg: 'dry run: would delete a batch', fields: { zone: action.zone, pods: action.pods } },
    event: { type: 'Normal', reason: 'DryRun', message: action.status.message },
    recheck: true,
  };
}

/** A pause or an error: counted each time, told once (when it starts); looked at again while paused. */
function statusReport(action: ActionOf<'status'>, current: Record<string, unknown> | undefined): ZauReport {
  const { phase, message } = action.status;
  if (phase !== 'Paused' && phase !== 'Error') return { recheck: false };
  const paused = phase === 'Paused';
  const news = !statusHolds(current, action.status);
  return {
    decision: phase.toLowerCase(),
    ...(news ? {
      log: { level: 'warn', msg: paused ? 'rollout paused' : 'cannot roll', fields: { message } },
      event: { type: 'Warning', reason: paused ? 'Paused' : 'InvalidTarget', message },
    } as const : {}),
    recheck: paused,
  };
}
