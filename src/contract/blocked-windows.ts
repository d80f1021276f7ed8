/**
 * Blocked windows of the autoshift and its practice runs (pure): weekly windows in UTC written as AWS's zonal
 * autoshift writes them (`Mon:09:00-Mon:17:00`, `Fri:22:00-Mon:06:00`), and whole UTC dates (`2026-12-24`).
 * One home for the rule: the construct checks them at synth time, the controller before each start.
 */

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MINUTES_PER_WEEK = 7 * 24 * 60;
const WINDOW = /^([A-Z][a-z]{2}):(\d{2}):(\d{2})-([A-Z][a-z]{2}):(\d{2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** An example for messages. */
export const BLOCKED_WINDOW_EXAMPLE = 'Mon:09:00-Mon:17:00';

/** A weekly window as minutes from Monday 00:00 UTC: [start, end), `end` past a week when it wraps to Monday. */
interface WeeklyWindow {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

function minuteOfWeek(day: string, hour: string, minute: string): number | undefined {
  const d = DAYS.indexOf(day);
  const h = Number(hour);
  const m = Number(minute);
  return d < 0 || h > 23 || m > 59 ? undefined : (d * 24 + h) * 60 + m;
}

/** The window `text` names, or why it names none. */
function parseWindow(text: string): WeeklyWindow | string {
  const match = WINDOW.exec(text);
  const start = match ? minuteOfWeek(match[1], match[2], match[3]) : undefined;
  const end = match ? minuteOfWeek(match[4], match[5], match[6]) : undefined;
  if (start === undefined || end === undefined) {
    return `must be a weekly window in UTC such as ${BLOCKED_WINDOW_EXAMPLE} (days ${DAYS.join(', ')}; hours 00-23)`;
  }
  if (start === end) return 'must not be empty (its start and end are the same minute)';
  return { text, start, end: end > start ? end : end + MINUTES_PER_WEEK };
}

/** Whether two windows share a minute, either of them possibly wrapping past Sunday. */
function overlap(a: WeeklyWindow, b: WeeklyWindow): boolean {
  return [-MINUTES_PER_WEEK, 0, MINUTES_PER_WEEK].some((shift) => a.start < b.end + shift && b.start + shift < a.end);
}

/** Whether `text` is a real UTC date in the form 2026-12-24. */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** The first rule the windows and dates break: the field, its value and the rule; undefined when none. */
export function blockedWindowsProblem(
  windows: readonly unknown[] = [], dates: readonly unknown[] = [],
): { field: string; value: unknown; rule: string } | undefined {
  const parsed: WeeklyWindow[] = [];
  for (const [i, w] of windows.entries()) {
    const window = typeof w === 'string' ? parseWindow(w) : 'must be a string';
    if (typeof window === 'string') return { field: `blockedWindows[${i}]`, value: w, rule: window };
    const clash = parsed.find((p) => overlap(p, window));
    if (clash) return { field: `blockedWindows[${i}]`, value: w, rule: `overlaps ${JSON.stringify(clash.text)}: merge them into one window` };
    parsed.push(window);
  }
  for (const [i, d] of dates.entries()) {
    if (typeof d !== 'string' || !isDate(d)) return { field: `blockedDates[${i}]`, value: d, rule: 'must be a UTC date such as 2026-12-24' };
    if (dates.indexOf(d) !== i) return { field: `blockedDates[${i}]`, value: d, rule: 'is listed twice' };
  }
  return undefined;
}

/** The window or date that blocks `nowMs`, as written; undefined when none does. Assumes valid input. */
export function blockedBy(
  windows: readonly string[] = [], dates: readonly string[] = [], nowMs: number,
): string | undefined {
  const now = new Date(nowMs);
  const date = now.toISOString().slice(0, 10);
  if (dates.includes(date)) return `blocked date ${date}`;
  const minute = ((now.getUTCDay() + 6) % 7) * 24 * 60 + now.getUTCHours() * 60 + now.getUTCMinutes();
  const window = windows.map(parseWindow).find((w) => typeof w !== 'string'
    && (minute >= w.start && minute < w.end || minute + MINUTES_PER_WEEK < w.end)) as WeeklyWindow | undefined;
  return window ? `blocked window ${window.text} (UTC)` : undefined;
}
