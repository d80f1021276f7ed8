import { invalidProp } from '../shared/errors';
import { Props } from '../shared/props';

/**
 * `maxUnavailable` of a ZoneAwareUpdate or ZoneDisruptionBudget: an absolute number of pods (>= 1) or a
 * percentage of the total ('1%'..'100%'). Shared by the constructs (synth-time checks) and the controller
 * (which receives the value from the custom resource).
 */
export type MaxUnavailableValue = number | string;

const PERCENT = /^([0-9]+)%$/;

/** The run-time type check of a `maxUnavailable` prop (its value is checked by `checkMaxUnavailable`). */
export const MAX_UNAVAILABLE_PROP = Props.custom("a whole number of pods or a percentage such as '25%'",
  (v) => (typeof v === 'number' || typeof v === 'string' ? undefined : "must be a whole number of pods or a percentage such as '25%'"));

/** Throws when `value` is not an integer >= 1 or a percentage in 1%..100%. */
export function checkMaxUnavailable(where: string, prop: string, value: MaxUnavailableValue): void {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1) {
      throw invalidProp(where, prop, value, "must be a whole number of pods >= 1 or a percentage such as '25%' " +
        '(0 would block every update and every eviction)');
    }
    return;
  }
  const m = PERCENT.exec(value);
  if (!m) {
    throw invalidProp(where, prop, value, "must be a whole number of pods >= 1 or a percentage such as '25%'");
  }
  const percent = Number(m[1]);
  if (percent < 1 || percent > 100) {
    throw invalidProp(where, prop, value, "must be a percentage between '1%' and '100%' (0% would block every " +
      'update and every eviction; more than 100% of the pods cannot be unavailable)');
  }
}

/**
 * The absolute number of pods `value` allows out of `total`. A percentage is rounded as `round` says,
 * and never below 1 (a positive percentage of a small workload still lets one pod go), unless total is 0.
 * ZoneAwareUpdate rounds down (like a Deployment's maxUnavailable), ZoneDisruptionBudget rounds up (like a
 * PodDisruptionBudget's maxUnavailable).
 */
export function scaleMaxUnavailable(value: MaxUnavailableValue, total: number, round: 'down' | 'up'): number {
  checkMaxUnavailable('maxUnavailable', 'value', value);
  if (typeof value === 'number') return value;
  if (total === 0) return 0;
  const exact = (Number(PERCENT.exec(value)![1]) * total) / 100;
  return Math.max(1, round === 'down' ? Math.floor(exact) : Math.ceil(exact));
}
