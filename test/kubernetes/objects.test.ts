import { arrayOf, asObject, asResource, elementsOf, isList, listItems } from '../../src/kubernetes/objects';

test('asObject: a JSON object only (not null, an array or a scalar)', () => {
  expect(asObject({ a: 1 })).toEqual({ a: 1 });
  for (const v of [null, undefined, [], 'x', 3, true]) expect(asObject(v)).toBeUndefined();
});

test('asResource: an object whose kind is a string', () => {
  expect(asResource({ kind: 'Pod', metadata: { name: 'p' } })?.metadata?.name).toBe('p');
  for (const v of [{ kind: 3 }, {}, [{ kind: 'Pod' }], 'Pod', null]) expect(asResource(v)).toBeUndefined();
});

test('arrayOf, isList, elementsOf: a list field that is no list reads as empty', () => {
  const wrong = 'a string where a list belongs' as unknown as readonly number[];
  expect(arrayOf([1, 2])).toEqual([1, 2]);
  expect(arrayOf(undefined)).toEqual([]);
  expect(arrayOf(wrong)).toEqual([]);
  expect(isList([1])).toBe(true);
  expect(isList(wrong)).toBe(false);
  expect(elementsOf({ 0: 'a' })).toEqual([]);
  expect(elementsOf(['a'])).toEqual(['a']);
});

test('listItems: the items of any kind ending in List, undefined for anything else', () => {
  expect(listItems({ kind: 'List', items: [1] })).toEqual([1]);
  expect(listItems({ kind: 'NodeList', items: [] })).toEqual([]);
  expect(listItems({ kind: 'List', items: 'x' })).toBeUndefined();
  expect(listItems({ kind: 'Pod', items: [1] })).toBeUndefined();
  expect(listItems([{ kind: 'List', items: [] }])).toBeUndefined();
});
