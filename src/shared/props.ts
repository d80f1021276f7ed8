/**
 * Run-time checks of the props every public construct and builder receives. TypeScript checks types at
 * compile time only: JavaScript callers (and TypeScript callers with `any`) can pass a string for a list,
 * `null`, NaN or an enum value that does not exist, which would otherwise crash with a TypeError deep in
 * a planner or synthesize invalid output. Each props interface has a spec with one check per prop; the
 * compiler makes the spec list every prop, with the same optionality. The specs check types, formats
 * and the bounds of what Kubernetes can store (int32); domain rules stay with the code that knows why.
 */
import { invalidProp } from './errors';

/** The largest value of a Kubernetes int32 field (replicas, maxSkew, ports, ...). */
export const INT32_MAX = 2147483647;

/** A check of one value. */
export interface Check {
  /** What the value must be, for messages ("an integer from 1 to 2147483647"). */
  readonly expected: string;
  /** Throws `invalidProp(where, path, value, ...)` when `value` breaks the check. */
  check(where: string, path: string, value: unknown): void;
}

/** A check of a prop that must be set. */
export interface RequiredCheck extends Check {
  readonly optional: false;
}

/** A check of a prop that may be left out (undefined; null is refused, since the code reads it as a value). */
export interface OptionalCheck extends Check {
  readonly optional: true;
}

/** One check per prop of `P`, optional exactly where the prop is. */
export type PropSpec<P> = {
  readonly [K in keyof P]-?: undefined extends P[K] ? OptionalCheck : RequiredCheck;
};

function required(expected: string, check: (where: string, path: string, value: unknown) => void): RequiredCheck {
  return { optional: false, expected, check };
}

const fail = (where: string, path: string, value: unknown, expected: string) =>
  invalidProp(where, path, value, `must be ${expected}`);

/** True for a plain object (`{...}`), not an array, class instance or null. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks `props` against `spec`: it must be an object whose every prop passes its check, with no prop the
 * spec does not know (a misspelt prop would otherwise be ignored without a word). Throws in the library's
 * error format, naming `where`, the prop (with its path for nested values), the value and the rule.
 */
export function checkProps<P>(
  where: string,
  props: P | undefined,
  spec: PropSpec<P>,
  typeName: string,
  argName = 'props',
): void {
  if (props === null) throw invalidProp(where, argName, props, `must be a ${typeName} (an object of props), or left out`);
  checkStruct(where, '', props ?? {}, spec as unknown as StructSpec, typeName, argName);
}

/** Checks one argument of a method (not a props object) the same way. */
export function checkArg(where: string, name: string, value: unknown, check: RequiredCheck | OptionalCheck): void {
  checkStruct(where, '', { [name]: value }, { [name]: check }, 'arguments');
}

/** A struct's props and their checks, whatever the props' type. */
type StructSpec = Record<string, Check & { optional: boolean }>;

function checkStruct(
  where: string,
  path: string,
  value: unknown,
  spec: StructSpec,
  typeName: string,
  argName = 'props',
): void {
  if (!isPlainObject(value)) throw invalidProp(where, path || argName, value, `must be a ${typeName} (an object of props)`);
  const prefix = path ? `${path}.` : '';
  for (const key of Object.keys(value)) {
    if (!Object.prototype.hasOwnProperty.call(spec, key)) {
      throw invalidProp(where, `${prefix}${key}`, value[key], `is not a prop of ${typeName}; its props are ${Object.keys(spec).join(', ')}`);
    }
  }
  for (const [key, check] of Object.entries(spec)) {
    const v = value[key];
    if (v === undefined && check.optional) continue;
    if (v === undefined || v === null) {
      throw invalidProp(where, `${prefix}${key}`, v, check.optional ? `must be ${check.expected}, or left out` : `is required: ${check.expected}`);
    }
    check.check(where, `${prefix}${key}`, v);
  }
}

/** The checks, by kind of value. */
export const Props = {
  /** The prop may be left out; when set, `check` applies. */
  optional(check: RequiredCheck): OptionalCheck {
    return { optional: true, expected: check.expected, check: check.check };
  },

  /** A string; `rule` returns why a given string is not acceptable (a Kubernetes name rule, ...). */
  string(rule?: (value: string) => string | undefined, expected = 'a string'): RequiredCheck {
    return required(expected, (where, path, value) => {
      if (typeof value !== 'string') throw fail(where, path, value, expected);
      const problem = rule?.(value);
      if (problem !== undefined) throw invalidProp(where, path, value, problem);
    });
  },

  /** A string that is not empty (nor only white space). */
  nonEmptyString(what = 'a non-empty string'): RequiredCheck {
    return Props.string((s) => (s.trim() === '' ? `must be ${what}` : undefined), what);
  },

  /**
   * An integer from `min` to `max` (default: the int32 maximum, what Kubernetes stores); `why` explains the
   * bounds in the message.
   */
  integer(min: number, max = INT32_MAX, why?: string): RequiredCheck {
    const expected = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    return required(expected, (where, path, value) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        throw fail(where, path, value, why ? `${expected}: ${why}` : expected);
      }
    });
  },

  /** Any finite number (the domain code checks its range and says why). */
  finiteNumber(): RequiredCheck {
    return required('a finite number', (where, path, value) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw fail(where, path, value, 'a finite number');
    });
  },

  boolean(): RequiredCheck {
    return required('true or false', (where, path, value) => {
      if (typeof value !== 'boolean') throw fail(where, path, value, 'true or false');
    });
  },

  /** One of the values of a jsii enum (JavaScript callers pass its strings). */
  enumOf(enumObject: Record<string, string>, enumName: string): RequiredCheck {
    const members = Object.entries(enumObject);
    const expected = `one of ${members.map(([k, v]) => `${enumName}.${k} (${JSON.stringify(v)})`).join(', ')}`;
    return required(expected, (where, path, value) => {
      if (!members.some(([, v]) => v === value)) throw fail(where, path, value, expected);
    });
  },

  /** A list whose every item passes `item`, with at least `minLength` items. */
  arrayOf(
    item: RequiredCheck,
    minLength = 0,
    expected = `a list${minLength > 0 ? ` of at least ${minLength}` : ''} (of ${item.expected})`,
  ): RequiredCheck {
    return required(expected, (where, path, value) => {
      if (!Array.isArray(value) || value.length < minLength) throw fail(where, path, value, expected);
      value.forEach((v, i) => {
        if (v === undefined || v === null) throw fail(where, `${path}[${i}]`, v, item.expected);
        item.check(where, `${path}[${i}]`, v);
      });
    });
  },

  /** An object of string keys (each passing `key`, when given) to values passing `item`. */
  mapOf(item: RequiredCheck, key?: (key: string) => string | undefined): RequiredCheck {
    const expected = `an object of ${item.expected}`;
    return required(expected, (where, path, value) => {
      if (!isPlainObject(value)) throw fail(where, path, value, expected);
      for (const [k, v] of Object.entries(value)) {
        const problem = key?.(k);
        if (problem !== undefined) throw invalidProp(where, `${path} key`, k, problem);
        if (v === undefined || v === null) throw fail(where, `${path}[${JSON.stringify(k)}]`, v, item.expected);
        item.check(where, `${path}[${JSON.stringify(k)}]`, v);
      }
    });
  },

  /** A nested struct, checked prop by prop. */
  struct<P>(spec: PropSpec<P>, typeName: string): RequiredCheck {
    return required(`a ${typeName}`, (where, path, value) =>
      checkStruct(where, path, value, spec as unknown as StructSpec, typeName));
  },

  /** An instance of a class (`ZoneTopology`, cdk8s `Duration`, ...). */
  instanceOf(type: Function, typeName = type.name): RequiredCheck {
    const article = /^[AEIOU]/.test(typeName) ? 'an' : 'a';
    const factory = /^[A-Z]/.test(typeName) ? ` (new ${typeName}(...) or a factory of it)` : '';
    const expected = `${article} ${typeName}${factory}`;
    return required(expected, (where, path, value) => {
      if (!(value instanceof type)) throw fail(where, path, value, expected);
    });
  },

  /** Any value (escape hatches whose content Kubernetes checks). */
  any(): RequiredCheck {
    return required('any value', () => undefined);
  },

  /** A value passing `test`, which returns why it does not. */
  custom(expected: string, test: (value: unknown) => string | undefined): RequiredCheck {
    return required(expected, (where, path, value) => {
      const problem = test(value);
      if (problem !== undefined) throw invalidProp(where, path, value, problem);
    });
  },
};
