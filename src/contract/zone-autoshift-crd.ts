/**
 * The CustomResourceDefinition of ZoneAutoshift (cluster-scoped): what `ZoneController`'s `autoshift` prop writes and
 * the controller reads and reports on. The schema checks each field's shape and bounds; the rules across fields
 * (minimum below maximum, a schedule longer than its runs, windows that do not overlap) are `zoneAutoshiftProblem`'s,
 * which the construct applies at synth time and the controller reports as the Invalid phase.
 */
import { crd, CrdManifest } from './rollout-crds';
import { JsonSchema, SchemaProperties } from './rollout-resources';
import {
  AutoshiftRun, NodeSignalSpec, PodSignalSpec, PracticeRunsSpec, PrometheusSignalSpec, ZONE_AUTOSHIFT_KIND,
  ZONE_AUTOSHIFT_PLURAL, ZoneAutoshiftSpec, ZoneAutoshiftStatus, ZoneWatch,
} from './zone-autoshift';
import { MAX_SHIFT_SECONDS } from './zone-shift';

const share = (description: string): JsonSchema =>
  ({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, description });
const secondsField = (description: string, minimum = 0, maximum = MAX_SHIFT_SECONDS): JsonSchema =>
  ({ type: 'integer', minimum, maximum, description });
const time: JsonSchema = { type: 'string', format: 'date-time' };

function specSchema(): JsonSchema {
  const nodes: SchemaProperties<NodeSignalSpec> = {
    unhealthyShare: share('A zone is impaired when at least this share of its nodes is NotReady or has a stale Lease.'),
    leaseStaleSeconds: secondsField("A node's Lease is stale when not renewed for longer than this.", 20),
  };
  const pods: SchemaProperties<PodSignalSpec> = {
    failingShare: share('A zone is impaired when this share of its pods fails readiness while their workloads serve elsewhere.'),
    minPods: { type: 'integer', minimum: 1, description: '... and at least this many of them.' },
    startupSeconds: secondsField('A pod that never restarted is starting, not failing, this long after its creation.'),
  };
  const prometheus: SchemaProperties<PrometheusSignalSpec> = {
    url: { type: 'string', pattern: '^https?://[^\\s/]+', description: "The Prometheus HTTP API's base URL." },
    query: { type: 'string', minLength: 1, description: 'An instant query returning one sample per zone (unset: no signal).' },
    zoneLabel: { type: 'string', minLength: 1, description: "The label naming each sample's zone." },
    threshold: { type: 'number', description: 'A zone whose sample is above this is impaired.' },
  };
  const practiceRuns: SchemaProperties<PracticeRunsSpec> = {
    everySeconds: { type: 'integer', minimum: 2, description: 'From the start of one practice run to the next.' },
    durationSeconds: secondsField('How long each run holds its zone out of service.', 1),
    outcomeQuery: { type: 'string', minLength: 1, description: 'A run ends early when a sample of this query exceeds outcomeThreshold.' },
    outcomeThreshold: { type: 'number' },
  };
  const properties: SchemaProperties<ZoneAutoshiftSpec> = {
    dryRun: { type: 'boolean', description: 'Only report what it would do; start no shift.' },
    nodes: { type: 'object', required: ['unhealthyShare', 'leaseStaleSeconds'], properties: nodes },
    pods: { type: 'object', required: ['failingShare', 'minPods', 'startupSeconds'], properties: pods },
    prometheus: { type: 'object', required: ['url', 'zoneLabel'], properties: prometheus },
    impairedForSeconds: secondsField('A zone is shifted once its signals have held this long.'),
    recoveredForSeconds: secondsField('A shift ends once its zone has been healthy this long ...'),
    minDurationSeconds: secondsField('... and not before it has lasted this long.'),
    maxDurationSeconds: secondsField('A shift ends by itself after this long.', 1),
    lostAfterSeconds: secondsField('A zone with none of its nodes answering this long into its autoshift is declared lost.', 300),
    blockedWindows: { type: 'array', items: { type: 'string', pattern: '^[A-Z][a-z]{2}:\\d{2}:\\d{2}-[A-Z][a-z]{2}:\\d{2}:\\d{2}$' }, description: 'Weekly UTC windows in which nothing starts.' },
    blockedDates: { type: 'array', items: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, description: 'UTC dates on which nothing starts.' },
    practiceRuns: { type: 'object', required: ['everySeconds', 'durationSeconds'], properties: practiceRuns },
  };
  return {
    type: 'object',
    description: 'Starts a ZoneShift when a zone is impaired, ends it once the zone recovers, and practises on a schedule.',
    required: ['dryRun', 'nodes', 'impairedForSeconds', 'recoveredForSeconds', 'minDurationSeconds', 'maxDurationSeconds'],
    properties,
  };
}

function statusSchema(): JsonSchema {
  const run: SchemaProperties<AutoshiftRun> = {
    cause: { type: 'string', enum: ['autoshift', 'practice'] },
    zone: { type: 'string' },
    shift: { type: 'string' },
    startedAt: time,
    reason: { type: 'string' },
    dryRun: { type: 'boolean' },
    endedAt: time,
    outcome: { type: 'string', enum: ['Recovered', 'Succeeded', 'Failed', 'MaxDuration', 'Interrupted', 'Cancelled', 'DeclaredLost'] },
    message: { type: 'string' },
  };
  const runSchema = { type: 'object', required: ['cause', 'zone', 'startedAt', 'reason'], properties: run };
  const zone: SchemaProperties<ZoneWatch> = {
    zone: { type: 'string' },
    impaired: { type: 'boolean' },
    since: time,
    signals: { type: 'array', items: { type: 'string' } },
  };
  const properties: SchemaProperties<ZoneAutoshiftStatus> = {
    observedGeneration: { type: 'integer', format: 'int64' },
    phase: { type: 'string', enum: ['Watching', 'Shifted', 'Practising', 'Invalid'] },
    message: { type: 'string' },
    zones: { type: 'array', items: { type: 'object', required: ['zone', 'impaired', 'since', 'signals'], properties: zone } },
    active: runSchema,
    nextPractice: {
      type: 'object',
      required: ['at', 'zone'],
      properties: { at: time, zone: { type: 'string' }, waiting: { type: 'string' } },
    },
    history: { type: 'array', items: runSchema, description: 'The last runs, newest first.' },
  };
  return { type: 'object', properties };
}

/** The CustomResourceDefinition of ZoneAutoshift (emitted by ZoneController with autoshift). */
export function zoneAutoshiftCrd(): CrdManifest {
  return crd(ZONE_AUTOSHIFT_KIND, ZONE_AUTOSHIFT_PLURAL, 'zas', specSchema(), statusSchema(), [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Dry-Run', type: 'boolean', jsonPath: '.spec.dryRun' },
    { name: 'Zone', type: 'string', jsonPath: '.status.active.zone' },
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
  ], 'Cluster');
}
