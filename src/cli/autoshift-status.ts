/**
 * What `cdk8s-zones shift status` shows of the autoshift: each ZoneAutoshift's phase, its zones and their signals,
 * the run in progress, the next practice run and the last runs with their outcomes and reasons, as the controller
 * wrote them in its status (src/contract/zone-autoshift.ts).
 */
import { ROLLOUT_API_VERSION } from '../contract/rollout';
import {
  AutoshiftRun, ZONE_AUTOSHIFT_PLURAL, ZoneAutoshiftSpec, ZoneAutoshiftStatus,
} from '../contract/zone-autoshift';
import { isStatus, KubeObject, KubeRequestApi, listAll } from '../kubernetes/kube-api';

/** A ZoneAutoshift as read back. */
export interface AutoshiftObject extends KubeObject {
  readonly metadata: { readonly name: string };
  readonly spec: ZoneAutoshiftSpec;
  readonly status?: ZoneAutoshiftStatus;
}

/** How many finished runs the text shows (the status keeps more; `--format json` shows them all). */
const RUNS_SHOWN = 5;

/** Every ZoneAutoshift; none where its CRD is not installed (no controller runs the autoshift). */
export async function listAutoshifts(api: KubeRequestApi): Promise<AutoshiftObject[]> {
  try {
    return await listAll<AutoshiftObject>(api, `/apis/${ROLLOUT_API_VERSION}/${ZONE_AUTOSHIFT_PLURAL}`);
  } catch (e) {
    if (isStatus(e, 404)) return [];
    throw e;
  }
}

/** One run in a line: what, which zone, when, why, and how it ended. */
function describeRun(run: AutoshiftRun): string {
  const what = `${run.dryRun ? 'dry run of ' : ''}${run.cause} of zone ${run.zone}`;
  const ended = run.endedAt ? ` to ${run.endedAt}: ${run.outcome}${run.message ? `, ${run.message}` : ''}` : ' (in progress)';
  return `${what} from ${run.startedAt}${ended}; started because ${run.reason}`;
}

/** A policy in a few lines: phase and message, each zone, the run in progress, the next practice run, the last runs. */
export function describeAutoshift(policy: AutoshiftObject): string {
  const status = policy.status;
  const mode = policy.spec?.dryRun ? ' (dry run: reports, starts nothing)' : '';
  const lines = [`zoneautoshift/${policy.metadata.name}${mode}: ${status?.phase ?? 'Pending (no controller has answered)'}`];
  if (status?.message) lines.push(`  ${status.message}`);
  for (const zone of status?.zones ?? []) {
    lines.push(`  zone ${zone.zone}: ${zone.impaired ? `impaired since ${zone.since}: ${zone.signals.join('; ')}` : `healthy since ${zone.since}`}`);
  }
  if (status?.active) lines.push(`  now: ${describeRun(status.active)}`);
  const next = status?.nextPractice;
  if (next) lines.push(`  next practice run: zone ${next.zone} at ${next.at}${next.waiting ? ` (${next.waiting})` : ''}`);
  for (const run of (status?.history ?? []).slice(0, RUNS_SHOWN)) lines.push(`  ended: ${describeRun(run)}`);
  return lines.join('\n') + '\n';
}
