/**
 * The CustomResourceDefinition of ZoneShift (cluster-scoped): what the CLI writes and the controller reads and
 * reports on. The schema checks the shape; the rules that need the creation time (the expiry's bound) are the
 * controller's and the CLI's (`zoneShiftProblem`).
 */
import { LostZoneRecoveryStatus, RecoveredPod } from './lost-zone';
import { crd, CrdManifest } from './rollout-crds';
import { JsonSchema, SchemaProperties } from './rollout-resources';
import { MAX_SHIFT_SECONDS, ShiftChange, ZONE_SHIFT_KIND, ZONE_SHIFT_PLURAL, ZoneShiftSpec, ZoneShiftStatus } from './zone-shift';

/** The CustomResourceDefinition of ZoneShift (emitted by ZoneController with zoneShift). */
export function zoneShiftCrd(): CrdManifest {
  return crd(ZONE_SHIFT_KIND, ZONE_SHIFT_PLURAL, 'zs', specSchema(), statusSchema(), [
    { name: 'Zone', type: 'string', jsonPath: '.spec.zone' },
    { name: 'Expires-At', type: 'string', jsonPath: '.spec.expiresAt' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Lost', type: 'boolean', jsonPath: '.spec.lost', priority: 1 },
    { name: 'Recovery', type: 'string', jsonPath: '.status.recovery.phase', priority: 1 },
    { name: 'Namespaces', type: 'string', jsonPath: '.spec.namespaces', priority: 1 },
  ], 'Cluster');
}

function specSchema(): JsonSchema {
  const specProperties: SchemaProperties<ZoneShiftSpec> = {
    zone: { type: 'string', minLength: 1, maxLength: 253, description: "The zone out of service: a node's zone label value." },
    expiresAt: {
      type: 'string',
      format: 'date-time',
      description: `When the shift ends by itself: at most ${MAX_SHIFT_SECONDS / 3600} hours after its creation.`,
    },
    namespaces: {
      'type': 'array',
      'x-kubernetes-list-type': 'set',
      'items': { type: 'string', minLength: 1, maxLength: 63 },
      'description': "Only these namespaces' pods, Redis clusters and rollouts (nodes are then not tainted). Unset: the whole cluster.",
    },
    reason: { type: 'string', maxLength: 1024, description: 'Why, for whoever reads it later.' },
    lost: {
      type: 'boolean',
      description: "The zone is lost for good: once none of its nodes answers, opted-in StatefulSets' pods there come back elsewhere.",
    },
  };
  return {
    'type': 'object',
    'description': 'Takes a zone out of service until expiresAt or deletion: traffic, new pods, Redis masters, rollout waves.',
    'required': ['zone', 'expiresAt'],
    'properties': specProperties,
    'x-kubernetes-validations': [{ rule: 'self.zone == oldSelf.zone', message: 'zone is immutable: end this shift and start another' }],
  };
}

function statusSchema(): JsonSchema {
  const change: SchemaProperties<ShiftChange> = {
    kind: { type: 'string', enum: ['Node', 'NodePool', 'Pod', 'RedisCluster'] },
    namespace: { type: 'string' },
    name: { type: 'string' },
    change: { type: 'string' },
  };
  const statusProperties: SchemaProperties<ZoneShiftStatus> = {
    observedGeneration: { type: 'integer', format: 'int64' },
    phase: { type: 'string', enum: ['Active', 'Ended', 'Invalid'] },
    message: { type: 'string' },
    changed: {
      type: 'array',
      description: 'Every object the shift changes now (undone when it ends).',
      items: { type: 'object', required: ['kind', 'name', 'change'], properties: change },
    },
    endedAt: { type: 'string', format: 'date-time' },
    recovery: lostZoneRecoverySchema(),
  };
  return { type: 'object', properties: statusProperties };
}

/** The schema of `status.recovery`. */
function lostZoneRecoverySchema(): JsonSchema {
  const pod: SchemaProperties<RecoveredPod> = {
    namespace: { type: 'string' },
    statefulSet: { type: 'string' },
    pod: { type: 'string' },
    uid: { type: 'string' },
    claims: { type: 'array', items: { type: 'string' } },
    at: { type: 'string', format: 'date-time' },
  };
  const properties: SchemaProperties<LostZoneRecoveryStatus> = {
    phase: { type: 'string', enum: ['Waiting', 'Recovering', 'Recovered', 'Invalid'] },
    message: { type: 'string' },
    recovered: {
      type: 'array',
      description: 'Every pod of the lost zone deleted (with its claims there) so that it comes back elsewhere.',
      items: { type: 'object', required: ['namespace', 'statefulSet', 'pod', 'uid', 'claims', 'at'], properties: pod },
    },
    held: { type: 'array', items: { type: 'string' }, description: 'The opted-in StatefulSets held back (left alone, or waiting their turn), and why.' },
  };
  return { type: 'object', required: ['phase', 'message', 'recovered', 'held'], properties };
}
