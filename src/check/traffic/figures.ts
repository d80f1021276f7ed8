/** How the traffic report rounds its figures (shares to 4 decimals, ratios and costs to 2). Pure. */
import { TrafficFigure } from './traffic-model';

/** The decimals of a share (0.6667: two in three). */
export const SHARE_DIGITS = 4;

/** `value` to `digits` decimals. */
export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A figure at worst and now (when known), each to `digits` decimals. */
export function figure(worst: number, now: number | undefined, digits: number): TrafficFigure {
  return { worst: round(worst, digits), ...(now !== undefined ? { now: round(now, digits) } : {}) };
}
