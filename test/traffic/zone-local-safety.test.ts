/** When a library Service may keep clients in their zone (src/traffic/zone-local-safety.ts), clients spread evenly. */
import { zoneLocalIsSafe } from '../../src/traffic/zone-local-safety';

const exactly = (counts: number[]) => ({ lo: counts, hi: counts, placed: counts.reduce((a, b) => a + b, 0) });

test.each([
  ['one per zone', exactly([1, 1, 1]), true],
  ['a zone that may hold none', { lo: [0, 1, 1], hi: [1, 1, 1], placed: 2 }, false],
  ['4, 1, 1: the lone ones take 6/3 = 2x an even share, still within the limit', exactly([4, 1, 1]), true],
  ['5, 1, 1: 7/3 of an even share', exactly([5, 1, 1]), false],
  ['7 under maxSkew 2 (1 to 3 per zone): a zone may hold one of them, 7/3', { lo: [1, 1, 1], hi: [3, 3, 3], placed: 7 }, false],
  ['no endpoint', exactly([0, 0, 0]), false],
])('%s', (_, bounds, safe) => {
  expect(zoneLocalIsSafe(bounds)).toBe(safe);
});
