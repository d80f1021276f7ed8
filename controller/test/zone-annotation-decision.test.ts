// fast-check is a dev dependency of the workspace root, whose jest runs these tests
// eslint-disable-next-line import/no-extraneous-dependencies
import * as fc from 'fast-check';
import { ZoneAnnotation } from '../../src/contract/zone-annotation';
import { KubeObject } from '../src/kube/api';
import { slimPod } from '../src/kube/transforms';
import { ANNOTATOR_POD_SHAPE, boundAt, decideZoneAnnotation, decisionInputsChanged, topologyKeysOf } from '../src/reconcilers/zone-annotation-decision';

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const KEYS = [ZONE];

interface PodOptions {
  readonly node?: string;
  readonly optIn?: boolean;
  readonly annotations?: Record<string, string>;
  readonly deleting?: boolean;
}

function pod(opts: PodOptions = {}): KubeObject {
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
    const annotated = pod({ node: 'n1', annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: 'zone-a' } });
    expect(decideZoneAnnotation(annotated, n, KEYS)).toEqual({ kind: 'skip', why: 'annotated' });
  });

  test('a wrong value is corrected, and says what it was', () => {
    const p = pod({ node: 'n1', annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: 'zone-x' } });
    expect(decideZoneAnnotation(p, node({ [ZONE]: 'zone-a' }), KEYS)).toEqual({ kind: 'annotate', value: 'zone-a', previous: 'zone-x' });
  });

  test('a node missing a label (or with it empty) names the missing keys; an unknown node is waited for', () => {
    const p = pod({ node: 'n1', annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: `${REGION},${ZONE}` } });
    expect(decideZoneAnnotation(p, node({ [REGION]: 'r1', [ZONE]: '' }), KEYS))
      .toEqual({ kind: 'missing-label', node: 'n1', missing: [ZONE] });
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
    const keysArb = fc.uniqueArray(label, { minLength: 1, maxLength: 3 });
    const valuesArb = fc.array(label, { minLength: 3, maxLength: 3 });
    fc.assert(fc.property(keysArb, valuesArb, (keys, values) => {
      const labels = Object.fromEntries(keys.map((k, i) => [`example.com/${k}`, values[i]]));
      const keyNames = keys.map((k) => `example.com/${k}`);
      const first = decideZoneAnnotation(pod({ node: 'n1' }), node(labels), keyNames);
      expect(first).toEqual({ kind: 'annotate', value: keyNames.map((k) => labels[k]).join('_') });
      const value = (first as { value: string }).value;
      const annotated = pod({ node: 'n1', annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: value } });
      expect(decideZoneAnnotation(annotated, node(labels), keyNames)).toEqual({ kind: 'skip', why: 'annotated' });
    }));
  });
});

test('boundAt reads the PodScheduled condition', () => {
  const p: KubeObject = {
    metadata: { name: 'p' },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:09Z' },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
      ],
    },
  };
  expect(boundAt(p)).toBe(Date.parse('2026-01-01T00:00:05Z'));
  expect(boundAt({ metadata: { name: 'p' }, status: { conditions: [{ type: 'PodScheduled', status: 'False' }] } })).toBeUndefined();
});

describe('which watch events need a reconcile', () => {
  const VALUE = ZoneAnnotation.VALUE_ANNOTATION;
  const status = (p: KubeObject, phase: string): KubeObject => ({ ...p, status: { phase } });

  test('binding, deletion, the keys or value annotations and the opt-in label do; status churn does not', () => {
    const unbound = pod();
    const bound = pod({ node: 'n1' });
    expect(decisionInputsChanged(unbound, bound)).toBe(true);
    expect(decisionInputsChanged(bound, pod({ node: 'n1', deleting: true }))).toBe(true);
    const keysChanged = pod({ node: 'n1', annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: 'k' } });
    expect(decisionInputsChanged(bound, keysChanged)).toBe(true);
    expect(decisionInputsChanged(bound, pod({ node: 'n1', annotations: { [VALUE]: 'zone-a' } }))).toBe(true);
    expect(decisionInputsChanged(bound, pod({ node: 'n1', optIn: false }))).toBe(true);
    expect(decisionInputsChanged(bound, status(bound, 'Running'))).toBe(false);
  });

  test('the echo of the annotator\'s own patch does not; a status change before the echo arrives still does not', () => {
    const bound = pod({ node: 'n1' });
    const echo = pod({ node: 'n1', annotations: { [VALUE]: 'zone-a' } });
    expect(decisionInputsChanged(bound, echo, 'zone-a')).toBe(false);
    expect(decisionInputsChanged(bound, status(bound, 'Running'), 'zone-a')).toBe(false);
    // someone else wrote another value meanwhile: decided again (and corrected)
    expect(decisionInputsChanged(bound, pod({ node: 'n1', annotations: { [VALUE]: 'zone-b' } }), 'zone-a')).toBe(true);
  });

  test('the cache keeps only what the decision and the readiness gauges read, and the decision is the same on it', () => {
    const full: KubeObject = {
      metadata: {
        name: 'p',
        namespace: 'ns',
        uid: 'u',
        resourceVersion: '7',
        labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE, app: 'web' },
        annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: ZONE, 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(4000) },
      },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'web' }] },
      status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }, { type: 'Ready', status: 'True' }] },
    };
    const slim = slimPod(full, ANNOTATOR_POD_SHAPE);
    expect(slim).toEqual({
      metadata: {
        name: 'p',
        namespace: 'ns',
        uid: 'u',
        resourceVersion: '7',
        labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE },
        annotations: { [ZoneAnnotation.KEYS_ANNOTATION]: ZONE },
      },
      spec: { nodeName: 'n1' },
      status: {
        conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }, { type: 'Ready', status: 'True' }],
        phase: 'Running',
      },
    });
    const n = node({ [ZONE]: 'zone-a' });
    expect(decideZoneAnnotation(slim, n, KEYS)).toEqual(decideZoneAnnotation(full, n, KEYS));
    expect(boundAt(slim)).toBe(boundAt(full));
  });
});
