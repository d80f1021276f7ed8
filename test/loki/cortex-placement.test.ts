/** Cortex's series placement as test/integration/cortex/placement.ts works it out (the ring proofs rely on it). */
import { replicaSet, seriesToken } from '../integration/cortex/placement';

test('the series token is FNV-1 (32 bits) of the tenant, then each label name and value', () => {
  // FNV-1 test vectors: the offset basis for no input, 0x050c5d7e for "a" (FNV-1a would give 0xe40c292c).
  expect(seriesToken('', [])).toBe(0x811c9dc5);
  expect(seriesToken('a', [])).toBe(0x050c5d7e);
  expect(seriesToken('fake', [['__name__', 'up'], ['job', 'x']])).toBe(seriesToken('fake__name__upjobx', []));
  // A label with an empty value is left out, as Cortex does.
  expect(seriesToken('fake', [['__name__', 'up'], ['job', '']])).toBe(seriesToken('fake', [['__name__', 'up']]));
});

test('the replicas are the first distinct instances after the token, clockwise, wrapping around', () => {
  const shards = [
    { id: 'a', zone: 'z1', tokens: [10, 40] },
    { id: 'b', zone: 'z2', tokens: [20, 50] },
    { id: 'c', zone: 'z3', tokens: [30, 45] },
  ];
  expect(replicaSet(shards, 5, 2)).toEqual(['a', 'b']);
  expect(replicaSet(shards, 10, 2)).toEqual(['b', 'c']); // the first token strictly after the key
  expect(replicaSet(shards, 41, 3)).toEqual(['c', 'b', 'a']);
  expect(replicaSet(shards, 50, 2)).toEqual(['a', 'b']); // past the last token: from the first
  expect(replicaSet(shards, 5, 5)).toEqual(['a', 'b', 'c']); // never more than there are
});
