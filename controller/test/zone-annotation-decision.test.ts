// fast-check is a dev dependency of the workspace root, whose jest runs these tests
// eslint-disable-next-line import/no-extraneous-dependencies
import * as fc from 'fast-check';
import { ZoneAnnotation } from '../../src/contract/zone-annotation';
import { KubeObject } from '../src/kube/api';
import { boundAt, decideZoneAnnotation, topologyKeysOf } from '../src/reconcilers/zone-annotation-decision';

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const KEYS = [ZONE];

function pod(opts: { node?: string; optIn?: boolean; annotations?: Record<string, string>; deleting?: boolean } = {}): KubeObject {
  return {
    metadata: {
      name: 'p',
      namespace: 'ns',
      labels: opts.optIn === false ? {} : { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE },
      annotations: opts.annotations,
      deletionTimestamp: opts.deleting ? '2026-01-01T00:00:00Z' : undefined,
    },
    spec: { nodeName: opts.node },
  };
}
const node = (labels: Record<string, string>): KubeObject => ({ metadata: { name: 'n1', labels } });

describe('decideZoneAnnotation', () => {
  test('a bound, opted-in pod gets its node\'s zone', () => {
    expect(decideZoneAnnotation(pod({ node: 'n1' }), node({ [ZONE]: 'zone-b' }), KEYS)).toEqual({ kind: 'annotate', value: 'zone-b' });
  });

  test('the pod\'s own keys annotation wins over the controller\'s keys, values joined with _ in its order', () => {
    const p = pod({ node: 'n1', annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: ` ${REGION}, ${ZONE} ` } });
    expect(decideZoneAnnotation(p, node({ [ZONE]: 'zone-b', [REGION]: 'r1' }), KEYS)).toEqual({ kind: 'annotate', value: 'r1_zone-b' });
  });

  test('nothing to do before binding, when not opted in, while terminating, or when already right', () => {
    const n = node({ [ZONE]: 'zone-a' });
    expect(decideZoneAnnotation(pod(), n, KEYS)).toEqual({ kind: 'skip', why: 'not-bound' });
    expect(decideZoneAnnotation(pod({ node: 'n1', optIn: false }), n, KEYS)).toEqual({ kind: 'skip', why: 'not-opted-in' });
    expect(decideZoneAnnotation(pod({ node: 'n1', deleting: true }), n, KEYS)).toEqual({ kind: 'skip', why: 'terminating' });
    expect(decideZoneAnnotation(pod({ node: 'n1', annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: 'zone-a' } }), n, KEYS)).toEqual({ kind: 'skip', why: 'annotated' });
  });

  test('a wrong value is corrected, and says what it was', () => {
    const p = pod({ node: 'n1', annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: 'zone-x' } });
    expect(decideZoneAnnotation(p, node({ [ZONE]: 'zone-a' }), KEYS)).toEqual({ kind: 'annotate', value: 'zone-a', previous: 'zone-x' });
  });

  test('a node missing a label (or with it empty) names the missing keys; an unknown node is waited for', () => {
    const p = pod({ node: 'n1', annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: `${REGION},${ZONE}` } });
    expect(decideZoneAnnotation(p, node({ [REGION]: 'r1', [ZONE]: '' }), KEYS)).toEqual({ kind: 'missing-label', node: 'n1', missing: [ZONE] });
    expect(decideZoneAnnotation(p, node({}), KEYS)).toEqual({ kind: 'missing-label', node: 'n1', missing: [REGION, ZONE] });
    expect(decideZoneAnnotation(p, undefined, KEYS)).toEqual({ kind: 'wait-for-node', node: 'n1' });
  });

  test('a keys annotation naming no key is reported, not replaced by the default', () => {
    const p = pod({ node: 'n1', annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: ' , ' } });
    expect(topologyKeysOf(p, KEYS)).toBeUndefined();
    expect(decideZoneAnnotation(p, node({ [ZONE]: 'a' }), KEYS)).toEqual({ kind: 'invalid-keys', raw: ' , ' });
  });

  test('property: annotating is idempotent (the annotated pod is skipped) and the value is the node\'s labels joined', () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(fc.property(fc.uniqueArray(label, { minLength: 1, maxLength: 3 }), fc.array(label, { minLength: 3, maxLength: 3 }), (keys, values) => {
      const labels = Object.fromEntries(keys.map((k, i) => [`example.com/${k}`, values[i]]));
      const keyNames = keys.map((k) => `example.com/${k}`);
      const first = decideZoneAnnotation(pod({ node: 'n1' }), node(labels), keyNames);
      expect(first).toEqual({ kind: 'annotate', value: keyNames.map((k) => labels[k]).join('_') });
      const value = (first as { value: string }).value;
      expect(decideZoneAnnotation(pod({ node: 'n1', annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: value } }), node(labels), keyNames))
        .toEqual({ kind: 'skip', why: 'annotated' });
    }));
  });
});

test('boundAt reads the PodScheduled condition', () => {
  const p: KubeObject = { metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:09Z' }, { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }] } };
  expect(boundAt(p)).toBe(Date.parse('2026-01-01T00:00:05Z'));
  expect(boundAt({ metadata: { name: 'p' }, status: { conditions: [{ type: 'PodScheduled', status: 'False' }] } })).toBeUndefined();
});
