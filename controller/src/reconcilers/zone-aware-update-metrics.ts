/**
 * The ZoneAwareUpdate gauges: each update's phase, its pods still on the old revision per zone, and when it last
 * progressed (a pod fewer on the old revision, or a new revision to roll out) with the zone it rolls now. The alert
 * "no progress for N minutes" reads the last (src/monitoring/controller-rules.ts). Progress is seen by this process:
 * after a restart the clock starts again, which delays that alert and never raises it early.
 */
import { ZoneAwareUpdatePhase, ZoneAwareUpdateStatus } from '../../../src/contract/rollout-resources';
import { Metrics } from '../metrics';

const PHASES: readonly ZoneAwareUpdatePhase[] = ['Rolling', 'Waiting', 'Paused', 'Done', 'Error'];

interface Seen {
  readonly namespace: string;
  readonly name: string;
  readonly revision?: string;
  readonly oldReplicas: number;
  readonly progressMs: number;
  readonly zones: readonly string[];
  readonly rollingZone: string;
}

type UpdateGauges = Pick<Metrics, 'updatePhase' | 'updateOldReplicas' | 'updateProgress'>;

export class ZoneAwareUpdateGauges {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly metrics: UpdateGauges) {}

  /** Shows the update `namespace/name` with the status it has now. */
  show(namespace: string, name: string, status: ZoneAwareUpdateStatus, nowMs: number): void {
    const key = `${namespace}/${name}`;
    const before = this.seen.get(key);
    const progressed = before === undefined || before.revision !== status.updateRevision
      || status.oldReplicas < before.oldReplicas;
    const rollingZone = status.zones.find((z) => z.oldReplicas > 0)?.zone ?? '';
    const now: Seen = {
      namespace,
      name,
      revision: status.updateRevision,
      oldReplicas: status.oldReplicas,
      progressMs: progressed ? nowMs : before.progressMs,
      zones: status.zones.map((z) => z.zone),
      rollingZone,
    };
    if (before) this.removeZones(namespace, name, before, now);
    for (const phase of PHASES) {
      this.metrics.updatePhase.set({ namespace, name, phase }, phase === status.phase ? 1 : 0);
    }
    for (const z of status.zones) this.metrics.updateOldReplicas.set({ namespace, name, zone: z.zone }, z.oldReplicas);
    this.metrics.updateProgress.set({ namespace, name, zone: rollingZone }, now.progressMs / 1000);
    this.seen.set(key, now);
  }

  /** Removes every series of the update of `key` (`namespace/name`: deleted). */
  forget(key: string): void {
    const before = this.seen.get(key);
    if (!before) return;
    const { namespace, name } = before;
    for (const phase of PHASES) this.metrics.updatePhase.remove({ namespace, name, phase });
    for (const zone of before.zones) this.metrics.updateOldReplicas.remove({ namespace, name, zone });
    this.metrics.updateProgress.remove({ namespace, name, zone: before.rollingZone });
    this.seen.delete(key);
  }

  /** Removes the series of zones the update no longer lists, and the progress series of the zone it no longer rolls. */
  private removeZones(namespace: string, name: string, before: Seen, now: Seen): void {
    for (const zone of before.zones.filter((z) => !now.zones.includes(z))) {
      this.metrics.updateOldReplicas.remove({ namespace, name, zone });
    }
    if (before.rollingZone !== now.rollingZone) {
      this.metrics.updateProgress.remove({ namespace, name, zone: before.rollingZone });
    }
  }
}
