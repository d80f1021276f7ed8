/**
 * What the autoshift reconciler remembers of its own writes until its caches show them (zone-autoshift.ts
 * `OwnWrites`): a shift it ended stays ended while the cache still holds it in force, a shift it started is in force
 * before the cache has it, and both are forgotten once the cache agrees (or the started one expired). Without it, a
 * decision made on the cache's older copy ended the same run again (found on the Kubernetes tier).
 */
import { ShiftInForce } from '../../src/autoshift/autoshift-plan';
import { OwnWrites } from '../src/reconcilers/zone-autoshift';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const shift = (name: string, zone = 'zone-a'): ShiftInForce =>
  ({ name, zone, cause: 'autoshift', createdAt: new Date(NOW).toISOString() });

test('an ended shift is out of force at once, while the cache still holds it, then forgotten', () => {
  const own = new OwnWrites();
  own.end('s1');
  expect(own.inForce([shift('s1'), shift('person', 'zone-b')], NOW).map((s) => s.name)).toEqual(['person']);
  expect(own.inForce([], NOW)).toEqual([]); // the cache dropped it
  expect(own.inForce([shift('s1')], NOW).map((s) => s.name)).toEqual(['s1']); // forgotten: the cache decides again
});

test('a started shift is in force before the cache has it; forgotten once the cache has it, or once it expired', () => {
  const own = new OwnWrites();
  own.start(shift('s2'), NOW + 60_000);
  expect(own.inForce([], NOW).map((s) => s.name)).toEqual(['s2']);
  expect(own.inForce([shift('s2')], NOW).map((s) => s.name)).toEqual(['s2']);
  expect(own.inForce([], NOW)).toEqual([]); // the cache had it, then dropped it: gone
  own.start(shift('s3'), NOW + 1000);
  expect(own.inForce([], NOW + 1000)).toEqual([]);
});

test('a shift started, then ended before the cache saw either, is not in force', () => {
  const own = new OwnWrites();
  own.start(shift('s4'), NOW + 60_000);
  own.end('s4');
  expect(own.inForce([], NOW)).toEqual([]);
});

test('a shift whose zone it declared lost is a person\'s at once (in force, no cause), while the cache still shows its labels', () => {
  const own = new OwnWrites();
  own.handOver('s5');
  expect(own.inForce([shift('s5'), shift('s6', 'zone-b')], NOW)).toEqual([{ ...shift('s5'), cause: undefined }, shift('s6', 'zone-b')]);
  // the cache shows it without the policy's labels: remembered no more, the cache says the same
  const asPerson = { ...shift('s5'), cause: undefined };
  expect(own.inForce([asPerson], NOW)).toEqual([asPerson]);
  expect(own.inForce([shift('s5')], NOW)).toEqual([shift('s5')]);
});
