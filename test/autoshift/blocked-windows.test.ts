/** Blocked windows and dates (src/contract/blocked-windows.ts): their form, overlaps past Sunday, when they block. */
import { blockedBy, blockedWindowsProblem } from '../../src/contract/blocked-windows';

test.each([
  [['Mon:09:00-Mon:17:00', 'Tue:09:00-Tue:17:00'], [], undefined],
  [['Fri:22:00-Mon:06:00', 'Mon:06:00-Mon:07:00'], [], undefined],
  [['Mon:09:00-Mon:17:00', 'Mon:16:59-Mon:18:00'], [], 'blockedWindows[1] "Mon:16:59-Mon:18:00" overlaps "Mon:09:00-Mon:17:00"'],
  [['Sat:00:00-Mon:01:00', 'Mon:00:30-Mon:02:00'], [], 'blockedWindows[1] "Mon:00:30-Mon:02:00" overlaps "Sat:00:00-Mon:01:00"'],
  [['Mon:00:30-Mon:02:00', 'Sun:23:00-Mon:01:00'], [], 'blockedWindows[1] "Sun:23:00-Mon:01:00" overlaps "Mon:00:30-Mon:02:00"'],
  [['Mon:09:00-Mon:09:00'], [], 'blockedWindows[0] "Mon:09:00-Mon:09:00" must not be empty'],
  [['Mon:9:00-Mon:17:00'], [], 'blockedWindows[0] "Mon:9:00-Mon:17:00" must be a weekly window in UTC such as Mon:09:00-Mon:17:00'],
  [['Mon:24:00-Tue:01:00'], [], 'must be a weekly window'],
  [['Monday:09:00-Monday:17:00'], [], 'must be a weekly window'],
  [[], ['2026-12-24', '2026-02-30'], 'blockedDates[1] "2026-02-30" must be a UTC date such as 2026-12-24'],
  [[], ['2026-12-24', '2026-12-24'], 'blockedDates[1] "2026-12-24" is listed twice'],
])('windows %j, dates %j: %s', (windows, dates, expected) => {
  const problem = blockedWindowsProblem(windows, dates);
  const text = problem && `${problem.field} ${JSON.stringify(problem.value)} ${problem.rule}`;
  if (expected === undefined) expect(text).toBeUndefined(); else expect(text).toContain(expected);
});

test('what blocks a time: a window (wrapping past Sunday too, end excluded) or a date', () => {
  const windows = ['Fri:22:00-Mon:06:00', 'Wed:12:00-Wed:13:00'];
  const at = (iso: string) => blockedBy(windows, ['2026-12-24'], Date.parse(iso));
  expect(at('2026-11-30T05:59:00Z')).toBe('blocked window Fri:22:00-Mon:06:00 (UTC)'); // a Monday
  expect(at('2026-11-30T06:00:00Z')).toBeUndefined();
  expect(at('2026-12-04T22:00:00Z')).toBe('blocked window Fri:22:00-Mon:06:00 (UTC)'); // a Friday
  expect(at('2026-12-06T12:00:00Z')).toBe('blocked window Fri:22:00-Mon:06:00 (UTC)'); // a Sunday
  expect(at('2026-12-02T12:30:00Z')).toBe('blocked window Wed:12:00-Wed:13:00 (UTC)');
  expect(at('2026-12-02T13:00:00Z')).toBeUndefined();
  expect(at('2026-12-24T18:00:00Z')).toBe('blocked date 2026-12-24');
});
