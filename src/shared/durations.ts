import { Duration } from 'cdk8s';
import { invalidProp } from './errors';

const UNITS: [suffix: string, ms: number][] = [['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]];

/**
 * A positive Duration of whole milliseconds as the compound text Go's time.ParseDuration and Prometheus both
 * read ('30s', '24h', '1h30m'): hours at most, since Go has no day unit. Refuses zero, negative and fractional
 * milliseconds rather than round them.
 */
export function durationText(where: string, prop: string, duration: Duration): string {
  const ms = duration.toMilliseconds({ integral: false });
  if (!Number.isInteger(ms) || ms <= 0) {
    throw invalidProp(where, prop, `${ms}ms`, 'must be a positive whole number of milliseconds');
  }
  let rest = ms;
  let text = '';
  for (const [suffix, unit] of UNITS) {
    if (rest >= unit) {
      text += `${Math.floor(rest / unit)}${suffix}`;
      rest %= unit;
    }
  }
  return text;
}
