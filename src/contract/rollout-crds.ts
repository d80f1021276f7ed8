/**
 * The CustomResourceDefinitions of ZoneAwareUpdate and ZoneDisruptionBudget: the shape of the resources the
 * constructs emit and the runtime controller reads, as plain manifests (schema fragments in our own words).
 */
import { docsUrl } from './docs';
import { CONTROLLER_APP_NAME } from './labels';
import {
  MAX_GROUP_SIZE, ROLLOUT_GROUP, ROLLOUT_VERSION, ZONE_AWARE_UPDATE_KIND, ZONE_AWARE_UPDATE_PLURAL,
  ZONE_DISRUPTION_BUDGET_KIND, ZONE_DISRUPTION_BUDGET_PLURAL,
} from './rollout';
import {
  JsonSchema, PauseConditionSpec, ReadyCheckSpec, SchemaProperties, StartAfterSpec, ZoneAwareUpdateSpec,
  ZoneAwareUpdateStatus, ZoneBudgetStatus, ZoneDisruptionBudgetSpec, ZoneDisruptionBudgetStatus, ZoneOldReplicas,
} from './rollout-resources';
import { Selector, SelectorRequirement } from '../kubernetes/label-selector';
import { standardLabels } from '../kubernetes/standard-labels';

/** A CustomResourceDefinition manifest (an `ApiObject`'s props). */
export interface CrdManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels: { [key: string]: string } };
  readonly spec: object;
}

const MAX_UNAVAILABLE = {
  'x-kubernetes-int-or-string': true,
  'description': "The most pods unavailable at once: a whole number >= 1 or a percentage of the total pods ('1%'..'100%').",
  'x-kubernetes-validations': [{
    rule: "type(self) == int ? self >= 1 : self.matches('^([1-9][0-9]?|100)%$')",
    message: "must be a whole number >= 1 or a percentage between '1%' and '100%'",
  }],
};
const DRY_RUN = { type: 'boolean', description: 'Decide and report (log, Event, metric) without acting.', default: false };
const NAME = { type: 'string', minLength: 1, maxLength: 253 };

const SELECTOR_REQUIREMENT: SchemaProperties<SelectorRequirement> = {
  key: { type: 'string' },
  operator: { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
  values: { type: 'array', items: { type: 'string' } },
};
const SELECTOR: SchemaProperties<Selector> = {
  matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
  matchExpressions: { type: 'array', items: { type: 'object', required: ['key', 'operator'], properties: SELECTOR_REQUIREMENT } },
};
const LABEL_SELECTOR = {
  'type': 'object',
  'description': 'Selects the pods (same form as a Deployment selector).',
  'x-kubernetes-map-type': 'atomic',
  'properties': SELECTOR,
  'x-kubernetes-validations': [{
    rule: '(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)',
    message: 'an empty selector would select every pod of the namespace',
  }],
};

/** A CustomResourceDefinition of the library's group: one served and stored version, a status subresource. */
export function crd(
  kind: string,
  plural: string,
  shortName: string,
  spec: JsonSchema,
  status: JsonSchema,
  columns: object[],
  scope: 'Namespaced' | 'Cluster' = 'Namespaced',
): CrdManifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${ROLLOUT_GROUP}`,
      labels: standardLabels(CONTROLLER_APP_NAME, 'cdk8s-zones', 'crd'),
    },
    spec: {
      group: ROLLOUT_GROUP,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        shortNames: [shortName],
        categories: ['cdk8s-zones'],
      },
      scope,
      versions: [{
        name: ROLLOUT_VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [...columns, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec,
              status,
            },
          },
        },
      }],
    },
  };
}

/** A ZoneAwareUpdate's readyCheck. */
const READY_CHECK: SchemaProperties<ReadyCheckSpec> = {
  path: { type: 'string', pattern: '^/[\\x21-\\x7e]*$', maxLength: 1024 },
  port: { type: 'integer', minimum: 1, maximum: 65535 },
};
/** What pauses a ZoneAwareUpdate. */
const PAUSE_CONDITION: SchemaProperties<PauseConditionSpec> = {
  label: { type: 'string', minLength: 1, description: "A label on the workload, 'key' (present) or 'key=value'." },
  annotation: { type: 'string', minLength: 1, description: "An annotation on the workload, 'key' (present) or 'key=value'." },
  prometheusQueryUrl: {
    type: 'string',
    pattern: '^https?://',
    description: 'A Prometheus instant-query URL (…/api/v1/query?query=…); pauses while the result is non-empty or the query fails.',
  },
};

/** When a ZoneAwareUpdate may start rolling a new revision. */
const START_AFTER: SchemaProperties<StartAfterSpec> = {
  zoneAwareUpdate: { ...NAME, description: 'The ZoneAwareUpdate (same namespace) that must be Done first.' },
  delaySeconds: { type: 'integer', minimum: 0, description: 'Seconds to wait after it was Done.' },
};

/** The schema of a ZoneAwareUpdate's spec. */
function zoneAwareUpdateSpecSchema() {
  const properties: SchemaProperties<ZoneAwareUpdateSpec> = {
    statefulset: { ...NAME, description: 'The StatefulSet in the same namespace (its updateStrategy must be OnDelete).' },
    statefulsets: {
      'type': 'array',
      'minItems': 1,
      'maxItems': MAX_GROUP_SIZE,
      'x-kubernetes-list-type': 'set',
      'items': NAME,
      'description': 'OnDelete StatefulSets in the same namespace rolled as one group: zone after zone across all of them, a zone only while every pod of the others is Ready.',
    },
    deployment: { ...NAME, description: `The Deployment in the same namespace (the strategy it needs: ${docsUrl('rollouts.md', 'Deployments')}).` },
    readyCheck: {
      type: 'object',
      required: ['path', 'port'],
      description: 'An HTTP GET every pod must answer with 2xx, besides its Ready condition, before the next batch.',
      properties: READY_CHECK,
    },
    maxUnavailable: MAX_UNAVAILABLE,
    exponentialFactor: {
      type: 'number',
      default: 2,
      minimum: 0,
      description: 'Batch i deletes min(factor^i, maxUnavailable) pods; 0 turns the ramp off (batches of maxUnavailable).',
    },
    dryRun: DRY_RUN,
    pauseCondition: { type: 'object', description: 'The rollout pauses while any of these holds.', properties: PAUSE_CONDITION },
    startAfter: {
      type: 'object',
      required: ['zoneAwareUpdate'],
      description: 'A new revision is rolled only once this ZoneAwareUpdate of the namespace is Done, and delaySeconds after that.',
      properties: START_AFTER,
    },
  };
  return {
    'type': 'object',
    'description': 'Rolls the pods of one OnDelete StatefulSet, a group of them, or a Deployment, zone by zone in growing batches.',
    'required': ['maxUnavailable'],
    properties,
    'x-kubernetes-validations': [{
      rule: '(has(self.statefulset) ? 1 : 0) + (has(self.statefulsets) ? 1 : 0) + (has(self.deployment) ? 1 : 0) == 1',
      message: 'set exactly one of statefulset, statefulsets and deployment',
    }, {
      rule: '!has(self.exponentialFactor) || self.exponentialFactor == 0.0 || self.exponentialFactor >= 1.0',
      message: 'exponentialFactor must be 0 (off) or >= 1 (a factor below 1 would shrink the batches)',
    }],
  };
}

/** The schema of a ZoneAwareUpdate's status. */
function zoneAwareUpdateStatusSchema() {
  const zone: SchemaProperties<ZoneOldReplicas> = { zone: { type: 'string' }, oldReplicas: { type: 'integer', minimum: 0 } };
  const statusProperties: SchemaProperties<ZoneAwareUpdateStatus> = {
    observedGeneration: { type: 'integer', format: 'int64' },
    currentRevision: { type: 'string', description: 'The revision the old pods run (the first one found).' },
    updateRevision: { type: 'string', description: 'The revision every pod should run.' },
    step: { type: 'integer', minimum: 0, description: 'Batches deleted for updateRevision; the next batch is min(factor^step, maxUnavailable).' },
    oldReplicas: { type: 'integer', minimum: 0, description: 'Pods not yet on updateRevision.' },
    zones: {
      type: 'array',
      description: 'Old pods per zone (zone "" = node without the zone label, or unscheduled).',
      items: { type: 'object', required: ['zone', 'oldReplicas'], properties: zone },
    },
    paused: { type: 'boolean' },
    phase: { type: 'string', enum: ['Rolling', 'Waiting', 'Paused', 'Done', 'Error'] },
    message: { type: 'string' },
    lastDeleted: { type: 'array', items: { type: 'string' }, description: 'The pods of the last batch.' },
    doneAt: { type: 'string', format: 'date-time', description: 'When the rollout of updateRevision was found Done.' },
    startsAt: { type: 'string', format: 'date-time', description: 'When a rollout held by spec.startAfter may start.' },
  };
  return { type: 'object', properties: statusProperties };
}

/** The CustomResourceDefinition of ZoneAwareUpdate (emitted by ZoneController). */
export function zoneAwareUpdateCrd(): CrdManifest {
  const spec = zoneAwareUpdateSpecSchema();
  const status = zoneAwareUpdateStatusSchema();
  return crd(ZONE_AWARE_UPDATE_KIND, ZONE_AWARE_UPDATE_PLURAL, 'zau', spec, status, [
    { name: 'StatefulSet', type: 'string', jsonPath: '.spec.statefulset' },
    { name: 'StatefulSets', type: 'string', jsonPath: '.spec.statefulsets', priority: 1 },
    { name: 'Deployment', type: 'string', jsonPath: '.spec.deployment', priority: 1 },
    { name: 'Max-Unavailable', type: 'string', jsonPath: '.spec.maxUnavailable' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Step', type: 'integer', jsonPath: '.status.step' },
    { name: 'Old', type: 'integer', jsonPath: '.status.oldReplicas' },
    { name: 'Paused', type: 'boolean', jsonPath: '.status.paused' },
    { name: 'Starts-At', type: 'string', jsonPath: '.status.startsAt', priority: 1 },
  ]);
}

/** The CustomResourceDefinition of ZoneDisruptionBudget (emitted by ZoneController). */
export function zoneDisruptionBudgetCrd(): CrdManifest {
  const properties: SchemaProperties<ZoneDisruptionBudgetSpec> = {
    selector: LABEL_SELECTOR,
    maxUnavailable: MAX_UNAVAILABLE,
    dryRun: DRY_RUN,
  };
  const spec = {
    type: 'object',
    description: 'Evictions of the selected pods may proceed in one zone at a time, up to maxUnavailable pods per zone.',
    required: ['selector', 'maxUnavailable'],
    properties,
  };
  const zone: SchemaProperties<ZoneBudgetStatus> = {
    zone: { type: 'string' },
    expected: { type: 'integer', minimum: 0 },
    healthy: { type: 'integer', minimum: 0 },
    disruptionsAllowed: { type: 'integer', minimum: 0 },
    shifted: { type: 'boolean', description: 'Under a zonal shift: its unavailable pods hold no other zone back.' },
    outByShift: { type: 'integer', minimum: 0, description: 'Pods the zonal shift took out of service (not counted as unavailable).' },
  };
  const statusProperties: SchemaProperties<ZoneDisruptionBudgetStatus> = {
    observedGeneration: { type: 'integer', format: 'int64' },
    expectedPods: { type: 'integer', minimum: 0, description: 'Pods the owners want, existing or missing.' },
    healthyPods: { type: 'integer', minimum: 0 },
    maxUnavailable: { type: 'integer', minimum: 0, description: 'maxUnavailable as a number of pods per zone.' },
    zones: {
      type: 'array',
      description: 'Per zone ("<unknown>" = missing pods of unknown zone, or nodes without the zone label).',
      items: { type: 'object', required: ['zone', 'expected', 'healthy', 'disruptionsAllowed'], properties: zone },
    },
  };
  const status = { type: 'object', properties: statusProperties };
  return crd(ZONE_DISRUPTION_BUDGET_KIND, ZONE_DISRUPTION_BUDGET_PLURAL, 'zdb', spec, status, [
    { name: 'Max-Unavailable', type: 'string', jsonPath: '.spec.maxUnavailable' },
    { name: 'Expected', type: 'integer', jsonPath: '.status.expectedPods' },
    { name: 'Healthy', type: 'integer', jsonPath: '.status.healthyPods' },
  ]);
}

