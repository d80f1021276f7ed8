/**
 * The Karpenter NodePool rule of a zonal shift: the shifted zones left out while shifts are in force, the NodePool
 * given back exactly what it had after, whatever its own requirements and whatever the order of the shifts.
 */
import * as fc from 'fast-check';
import {
  NODE_POOL_SHIFT_ANNOTATION, NodePoolFields, NodePoolRequirement, nodePoolShiftPatch, shiftRequirementOf,
} from '../../src/contract/zone-shift-node-pools';

const ZONE_KEY = 'topology.kubernetes.io/zone';

/** `pool` with `patch` applied as the API server applies a merge patch to these fields. */
function applied(pool: NodePoolFields, patch: ReturnType<typeof nodePoolShiftPatch>): NodePoolFields {
  if (patch === undefined) return pool;
  const annotations: Record<string, string> = { ...pool.metadata.annotations };
  for (const [k, v] of Object.entries(patch.metadata.annotations)) {
    if (v === null) delete annotations[k];
    else annotations[k] = v;
  }
  return {
    metadata: { name: pool.metadata.name, annotations },
    spec: { template: { spec: { requirements: patch.spec.template.spec.requirements } } },
  };
}

const pool = (
  requirements: NodePoolRequirement[], annotations: Record<string, string> = { team: 'a' },
): NodePoolFields => ({ metadata: { name: 'default', annotations }, spec: { template: { spec: { requirements } } } });

test('a shift of zone-a: one NotIn requirement, recorded; its end: exactly what the NodePool had', () => {
  const before = pool([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }, { key: ZONE_KEY, operator: 'In', values: ['zone-a', 'zone-b'] }]);
  const during = applied(before, nodePoolShiftPatch(before, ['zone-a'], ZONE_KEY));
  expect(during.spec!.template!.spec!.requirements).toEqual([
    ...before.spec!.template!.spec!.requirements!, { key: ZONE_KEY, operator: 'NotIn', values: ['zone-a'] },
  ]);
  expect(during.metadata.annotations).toEqual({ team: 'a', [NODE_POOL_SHIFT_ANNOTATION]: '{"key":"topology.kubernetes.io/zone","operator":"NotIn","values":["zone-a"]}' });
  expect(nodePoolShiftPatch(during, ['zone-a'], ZONE_KEY)).toBeUndefined();
  expect(applied(during, nodePoolShiftPatch(during, [], ZONE_KEY))).toEqual(before);
  expect(nodePoolShiftPatch(before, [], ZONE_KEY)).toBeUndefined();
});

test('a recorded annotation that is not a requirement is nobody\'s: the NodePool is left as it is', () => {
  expect(shiftRequirementOf(pool([], { [NODE_POOL_SHIFT_ANNOTATION]: 'not json' }))).toBeUndefined();
});

test('property: any NodePool, any sequence of shifted zones: always the shifted zones left out, and after, exactly as before', () => {
  const requirement = fc.record({
    key: fc.constantFrom(ZONE_KEY, 'karpenter.sh/capacity-type', 'kubernetes.io/arch'),
    operator: fc.constantFrom('In', 'NotIn', 'Exists'),
    values: fc.array(fc.constantFrom('zone-a', 'zone-b', 'zone-c', 'spot', 'amd64'), { maxLength: 3 }),
  });
  const zones = fc.uniqueArray(fc.constantFrom('zone-a', 'zone-b', 'zone-c'), { maxLength: 2 });
  const pools = fc.array(requirement, { maxLength: 5 });
  fc.assert(fc.property(pools, fc.array(zones, { maxLength: 5 }), (requirements, steps) => {
    const before = pool(requirements);
    let now = before;
    for (const shifted of steps) {
      now = applied(now, nodePoolShiftPatch(now, shifted, ZONE_KEY));
      expect(nodePoolShiftPatch(now, shifted, ZONE_KEY)).toBeUndefined(); // as it should be: nothing more to do
      const reqs = now.spec!.template!.spec!.requirements!;
      if (shifted.length === 0) {
        expect(reqs).toEqual(requirements);
      } else {
        expect(reqs.slice(0, -1)).toEqual(requirements);
        expect(reqs[reqs.length - 1]).toEqual({ key: ZONE_KEY, operator: 'NotIn', values: [...shifted].sort() });
      }
    }
    expect(applied(now, nodePoolShiftPatch(now, [], ZONE_KEY))).toEqual(before);
  }), { numRuns: 500 });
});
