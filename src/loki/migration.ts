/**
 * Moving a running Loki whose ring is not zone-aware to zone-aware replication (direct output), in the order
 * the Loki zone-aware replication design asks for, the write path before the read path:
 *
 * 1. the ingesters restart with their zones, one pod at a time; nothing else changes (a zone-aware distributor
 *    facing ingesters without zones would place each stream in the one zone it sees: a single replica);
 * 2. the distributors place each stream's replicas one per zone; queriers and rulers still read as before;
 * 3. once the longest query lookback (`querier.query_ingesters_within`) has passed since step 2 rolled out, the
 *    queriers and rulers read zone-aware. Before that, queriers ask ingesters for data placed without zones, whose
 *    replicas may all sit in one zone, and a zone-aware read leaves a whole zone out (the slowest, or any with a
 *    failing ingester): it would miss that data. Pure.
 */
import { Duration } from 'cdk8s';
import { docsUrl } from '../contract/docs';
import { invalidProp } from '../shared/errors';
import { Props, PropSpec } from '../shared/props';
import { rfc3339Ms, RFC3339_EXAMPLE } from '../shared/times';
import { ZoneSource, ZoneSourceKind } from '../zone-source/zone-source';

/**
 * A running Loki, not yet zone-aware, being moved to zone-aware replication (the direct output's
 * `zoneAwarenessMigration`).
 */
export interface LokiZoneAwarenessMigration {
  /**
   * When every ingester had restarted with its zone (step 1 rolled out), an RFC 3339 time such as
   * '2026-11-27T10:00:00Z'. Unset: step 1, the ingesters told their zones and nothing else changed. Set: step 2,
   * the distributors zone-aware too.
   *
   * @default - step 1
   */
  readonly ingestersRolledOutAt?: string;

  /**
   * When the distributors were zone-aware (step 2 rolled out), an RFC 3339 time. Set: step 3, the queriers and
   * rulers zone-aware too, which synthesis refuses before this time plus the query lookback
   * (`querier.query_ingesters_within` of the Loki configuration the construct writes: 3h). Needs
   * `ingestersRolledOutAt`.
   *
   * @default - not yet: the read path reads as before
   */
  readonly writePathRolledOutAt?: string;
}

/** Where a migration stands: which components read the zone-aware configuration. */
export enum MigrationStep {
  /** The ingesters only (they register their zones). */
  INGESTERS = 1,
  /** The ingesters and the distributors. */
  WRITE_PATH = 2,
  /** Every component: the objects of a stack without a migration. */
  READ_PATH = 3,
}

const TIME = Props.optional(Props.string((t) => (rfc3339Ms(t) !== undefined ? undefined
  : `must be an RFC 3339 time such as '${RFC3339_EXAMPLE}'`), 'an RFC 3339 time'));

export const MIGRATION_PROPS: PropSpec<LokiZoneAwarenessMigration> = {
  ingestersRolledOutAt: TIME,
  writePathRolledOutAt: TIME,
};

const PROP = 'direct.zoneAwarenessMigration';

/**
 * The step a migration renders at `nowMs`; throws on a zone source that would replace the running ingesters, a
 * time in the future or out of order, and a read path declared before the lookback has passed since the write path
 * rolled out.
 */
export function migrationStep(
  where: string, migration: LokiZoneAwarenessMigration, zoneSource: ZoneSource, lookback: Duration, nowMs: number,
): MigrationStep {
  if (zoneSource.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS) {
    throw invalidProp(where, PROP, migration,
      'needs the running ingesters to stay (one StatefulSet, <name>-ingester, told its zone at run time): with ' +
      'ZoneSource.perZoneStatefulSets() new ingesters would replace them and the data they hold. Set direct.zoneSource to ' +
      'ZoneSource.podTopologyLabels() (Kubernetes 1.35+) or ZoneSource.controller(...)');
  }
  const ingesters = timeOf(where, 'ingestersRolledOutAt', migration.ingestersRolledOutAt, nowMs);
  const writePath = timeOf(where, 'writePathRolledOutAt', migration.writePathRolledOutAt, nowMs);
  if (writePath === undefined) return ingesters === undefined ? MigrationStep.INGESTERS : MigrationStep.WRITE_PATH;
  if (ingesters === undefined || writePath < ingesters) {
    throw invalidProp(where, `${PROP}.writePathRolledOutAt`, migration.writePathRolledOutAt,
      `must follow ${PROP}.ingestersRolledOutAt (${migration.ingestersRolledOutAt ?? 'unset'}): the distributors turn zone-aware once every ingester has its zone`);
  }
  const from = writePath + lookback.toMilliseconds();
  if (nowMs < from) {
    throw invalidProp(where, `${PROP}.writePathRolledOutAt`, migration.writePathRolledOutAt,
      `makes the read path zone-aware too early: not before ${new Date(from).toISOString()} (the query lookback, query_ingesters_within ` +
      `${lookback.toHumanString()}, after the write path rolled out). Until then queriers ask ingesters for data placed without zones, ` +
      'whose replicas may share a zone, and a zone-aware query may miss it: leave it unset until then');
  }
  return MigrationStep.READ_PATH;
}

function timeOf(where: string, prop: string, value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (ms > nowMs) {
    throw invalidProp(where, `${PROP}.${prop}`, value, `is in the future (now ${new Date(nowMs).toISOString()}): set it once that step has rolled out`);
  }
  return ms;
}

/**
 * What the synth says at each step: what it renders and what to do next (`byController`: step 2 is the controller's).
 */
export function migrationNotice(step: MigrationStep, lookback: Duration, byController: boolean): string {
  const doc = docsUrl('loki.md', 'Moving a running Loki to zone awareness');
  switch (step) {
    case MigrationStep.INGESTERS:
      return 'zone-awareness migration, step 1 of 3: the ingesters restart with their zones, one pod at a time; nothing else changes. ' +
        `Once every ingester has rolled out, set ${PROP}.ingestersRolledOutAt to that time (${doc})`;
    case MigrationStep.WRITE_PATH:
      if (byController) {
        return 'zone-awareness migration, step 2 of 3, carried out by the controller: it rolls the distributors to zone awareness ' +
          `(ZoneAwareUpdate <name>-distributor), then ${lookback.toHumanString()} (query_ingesters_within) after they are done the queriers and rulers ` +
          '(ZoneAwareUpdates <name>-querier and <name>-ruler: their status says when they start). Once every one is Done, remove ' +
          `${PROP}: the objects then stay the same, but for those Deployments' strategy (${doc})`;
      }
      return 'zone-awareness migration, step 2 of 3: the distributors place each stream\'s replicas one per zone; queriers and rulers read ' +
        `as before. Once the distributors have rolled out, set ${PROP}.writePathRolledOutAt to that time: the read path may switch ` +
        `${lookback.toHumanString()} (query_ingesters_within) later, and synthesis refuses it before (${doc})`;
    default:
      return 'zone-awareness migration, step 3 of 3: queriers and rulers zone-aware too. Once this has rolled out, remove ' +
        `${PROP}: the objects stay the same`;
  }
}
