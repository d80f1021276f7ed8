import { MARKS_SETTLE_MS, untilMarksSeen } from '../src/reconcilers/zone-aware-update';

/** A clock that only moves when slept on: the waits it was asked for, in order. */
function fakeSleep(): { sleep: (ms: number) => Promise<void>; slept: number[] } {
  const slept: number[] = [];
  return { slept, sleep: async (ms) => { slept.push(ms); } };
}

test('a batch is scaled only once every mark is in the cache, and the settle time after that', async () => {
  const seen = new Set<string>();
  const clock = fakeSleep();
  let polls = 0;
  const marked = (pod: string) => {
    polls += 1;
    if (polls === 3) seen.add('a'); // the cache catches up after a few polls
    if (polls === 5) seen.add('b');
    return seen.has(pod);
  };
  await untilMarksSeen(['a', 'b'], marked, clock.sleep);
  expect(seen).toEqual(new Set(['a', 'b']));
  // polled until both were seen, then the settle time for the ReplicaSet controller's own cache
  expect(clock.slept[clock.slept.length - 1]).toBe(MARKS_SETTLE_MS);
  expect(clock.slept.slice(0, -1).every((ms) => ms < MARKS_SETTLE_MS)).toBe(true);
  expect(clock.slept.length).toBeGreaterThan(1);
});

test('marks that never reach the cache: an error naming the pods, never a scale on a guess', async () => {
  const clock = fakeSleep();
  await expect(untilMarksSeen(['a', 'b'], () => false, clock.sleep)).rejects.toThrow(
    /the pods' deletion-cost marks did not reach the cache within 10000 ms: a, b/);
});
