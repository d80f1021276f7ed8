/**
 * The rollout custom resources have one contract (src/contract/rollout-resources.ts): the CRD schemas are keyed
 * by its types (a field in one and not the other does not compile), and here every field of a fully filled
 * spec and status is checked against the schema, level by level: the same fields, each of a type the schema
 * accepts. The constructs write specs of these types; the controller reads and writes them.
 */
import Ajv from 'ajv';
import { zoneAwareUpdateCrd, zoneDisruptionBudgetCrd } from '../../src/contract/rollout-crds';
import {
  ZoneAwareUpdateSpec, ZoneAwareUpdateStatus, ZoneDisruptionBudgetSpec, ZoneDisruptionBudgetStatus,
} from '../../src/contract/rollout-resources';

/** Every field set: `Required` makes the compiler ask for each optional field too. */
const ZAU_SPEC: Required<ZoneAwareUpdateSpec> = {
  statefulset: 'db',
  statefulsets: ['db-a', 'db-b'],
  deployment: 'web',
  readyCheck: { path: '/ready', port: 3100 },
  maxUnavailable: '25%',
  exponentialFactor: 2,
  dryRun: false,
  pauseCondition: { label: 'example.com/hold', annotation: 'example.com/hold=true', prometheusQueryUrl: 'http://prometheus:9090/api/v1/query?query=up' },
  startAfter: { zoneAwareUpdate: 'db-write-path', delaySeconds: 10800 },
};
const ZAU_STATUS: Required<ZoneAwareUpdateStatus> = {
  observedGeneration: 3,
  currentRevision: 'db-1',
  updateRevision: 'db-2',
  step: 1,
  oldReplicas: 4,
  zones: [{ zone: 'zone-a', oldReplicas: 2 }],
  paused: false,
  phase: 'Rolling',
  message: 'rolling zone-a',
  lastDeleted: ['db-3'],
  doneAt: '2026-11-27T10:00:00Z',
  startsAt: '2026-11-27T13:00:00Z',
};
const ZDB_SPEC: Required<ZoneDisruptionBudgetSpec> = {
  selector: { matchLabels: { app: 'db' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['data'] }] },
  maxUnavailable: 1,
  dryRun: true,
};
const ZDB_STATUS: Required<ZoneDisruptionBudgetStatus> = {
  observedGeneration: 2,
  expectedPods: 6,
  healthyPods: 6,
  maxUnavailable: 1,
  zones: [{ zone: 'zone-a', expected: 2, healthy: 2, disruptionsAllowed: 1, shifted: true, outByShift: 2 }],
};

/** Where the fields of `value` and the properties of `schema` differ, at every level of objects and lists. */
function differences(schema: any, value: unknown, path: string): string[] {
  if (schema.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const declared = Object.keys(schema.properties).sort();
    const typed = Object.keys(value).sort();
    const here = JSON.stringify(declared) === JSON.stringify(typed)
      ? []
      : [`${path}: the schema has ${declared.join(', ')}; the type has ${typed.join(', ')}`];
    const below = declared
      .filter((k) => k in (value as object))
      .flatMap((k) => differences(schema.properties[k], (value as any)[k], `${path}.${k}`));
    return [...here, ...below];
  }
  if (schema.items && Array.isArray(value) && value.length > 0) return differences(schema.items, value[0], `${path}[0]`);
  return [];
}

const CASES = [
  ['ZoneAwareUpdate', zoneAwareUpdateCrd(), ZAU_SPEC, ZAU_STATUS],
  ['ZoneDisruptionBudget', zoneDisruptionBudgetCrd(), ZDB_SPEC, ZDB_STATUS],
] as const;

describe.each(CASES)('%s: the CRD and the TypeScript contract agree', (kind, crd, spec, status) => {
  const schema = (crd.spec as any).versions[0].schema.openAPIV3Schema;

  test('the same fields at every level, in spec and status', () => {
    expect(differences(schema.properties.spec, spec, 'spec')).toEqual([]);
    expect(differences(schema.properties.status, status, 'status')).toEqual([]);
  });

  test('a resource with every field filled is valid under the schema (types, bounds, patterns)', () => {
    const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
    expect(validate({ apiVersion: 'cdk8s-zones.dev/v1alpha1', kind, metadata: {}, spec, status }) ? [] : validate.errors).toEqual([]);
  });

  test('the comparison sees a field the schema has and the type has not, and the other way round', () => {
    const extraInSchema = {
      ...schema.properties.spec,
      properties: { ...schema.properties.spec.properties, surplus: { type: 'string' } },
    };
    expect(differences(extraInSchema, spec, 'spec')).toEqual([expect.stringContaining('spec: the schema has')]);
    expect(differences(schema.properties.spec, { ...spec, surplus: 'x' }, 'spec')).toEqual([expect.stringContaining('the type has')]);
  });
});
