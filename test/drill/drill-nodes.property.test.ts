/**
 * A drill's node patches: the record goes on with the change, and the restore gives back the node exactly (any node).
 */
import * as fc from 'fast-check';
import { DRILL_OUTAGE_TAINT_KEY, DRILL_RECORD_ANNOTATION, DrillMode, drillOnNode } from '../../src/contract/drill';
import { drillPatch, drillRecordOf, restorePatch } from '../../src/drill/drill-nodes';
import { mergePatch } from '../memory-kube-api';

const taint = fc.record({
  key: fc.constantFrom('dedicated', 'gpu', 'node.kubernetes.io/unschedulable', 'cdk8s-zones.dev/zone-shift'),
  value: fc.option(fc.constantFrom('a', 'infra'), { nil: undefined }),
  effect: fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute'),
}).map((t) => (t.value === undefined ? { key: t.key, effect: t.effect } : t));

const node = fc.record({
  annotations: fc.option(fc.dictionary(fc.constantFrom('a', 'b/c'), fc.string()), { nil: undefined }),
  taints: fc.option(fc.array(taint, { minLength: 1, maxLength: 4 }), { nil: undefined }),
  unschedulable: fc.option(fc.boolean(), { nil: undefined }),
}).map(({ annotations, taints, unschedulable }) => ({
  metadata: { name: 'n1', resourceVersion: '7', labels: { 'topology.kubernetes.io/zone': 'zone-a' }, ...(annotations ? { annotations } : {}) },
  spec: { ...(taints ? { taints } : {}), ...(unschedulable !== undefined ? { unschedulable } : {}) },
}));

/** As the API server stores it: no empty annotations map (the merge patch's delete of the last one leaves none). */
function normal(n: any): any {
  const copy = structuredClone(n);
  delete copy.metadata.resourceVersion;
  const noAnnotations = copy.metadata.annotations && Object.keys(copy.metadata.annotations).length === 0;
  if (noAnnotations) delete copy.metadata.annotations;
  return copy;
}

test.each(['outage', 'drain'] as DrillMode[])('%s: drill then restore leaves any node exactly as it was; the drill is on the record and read back', (mode) => {
  fc.assert(fc.property(node, (before) => {
    const during = mergePatch(before, drillPatch(before, 'zone-a', mode, '2026-11-27T10:00:00Z'));
    const record = drillRecordOf(during)!;
    expect(record).toEqual({ zone: 'zone-a', mode, startedAt: '2026-11-27T10:00:00Z', unschedulableBefore: before.spec.unschedulable ?? null });
    if (mode === 'outage') {
      const outageTaint = { key: DRILL_OUTAGE_TAINT_KEY, value: 'zone-a', effect: 'NoExecute' };
      expect(during.spec.taints).toEqual([...before.spec.taints ?? [], outageTaint]);
      expect(during.spec.unschedulable).toBe(before.spec.unschedulable);
    } else {
      expect(during.spec.unschedulable).toBe(true);
      expect(during.spec.taints).toEqual(before.spec.taints);
    }
    // what the controller's autoshift reads of it (contract/drill.ts): the drill, then none
    expect(drillOnNode(before)).toBeUndefined();
    expect(drillOnNode(during)).toBe(mode);
    const after = mergePatch(during, restorePatch(during, record));
    expect(normal(after)).toEqual(normal(before));
    expect(drillOnNode(after)).toBeUndefined();
  }));
});

test('a restore keeps what others changed meanwhile (a taint added during the drill stays)', () => {
  const before = { metadata: { name: 'n1' }, spec: {} };
  const during = mergePatch(before, drillPatch(before, 'zone-a', 'outage', 'now'));
  during.spec.taints.push({ key: 'other', effect: 'NoSchedule' });
  const restored = mergePatch(during, restorePatch(during, drillRecordOf(during)!));
  expect(restored.spec.taints).toEqual([{ key: 'other', effect: 'NoSchedule' }]);
});

test('both patches are conditional on the node\'s resourceVersion; a record that is not one is an error naming the node', () => {
  const n = { metadata: { name: 'n1', resourceVersion: '42' }, spec: {} };
  expect(drillPatch(n, 'z', 'drain', 't')).toMatchObject({ metadata: { resourceVersion: '42' } });
  expect(() => drillRecordOf({ metadata: { name: 'n9', annotations: { [DRILL_RECORD_ANNOTATION]: '{"zone":1}' } } }))
    .toThrow('node n9: annotation cdk8s-zones.dev/drill is not a drill record');
});
