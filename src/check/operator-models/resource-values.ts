/**
 * Reading an operator's resource by the paths, templates, conditions and counts of its model (model.ts); pure. A
 * value of the wrong type reads as a clear reason, never an exception.
 */
import { Condition, Count, Path, Template } from './model';
import { asObject, JsonObject } from '../../kubernetes/objects';

/** Where paths are read: the resource, and the element (and its position) a pod set is made for. */
export interface Scope {
  readonly resource: JsonObject;
  readonly item?: unknown;
  readonly index?: number;
  /** How messages name the element (`spec.nodeSets[1]`, `KafkaNodePool brokers:`), for paths that start at `item`. */
  readonly itemIs?: string;
  /** How many pod sets the `forEach` makes (a `split` count divides among them). */
  readonly items?: number;
  /** The pods of the pod sets with these roles (all, when none): for budgets. */
  readonly podsOf?: (roles: readonly string[] | undefined) => number;
}

/** A count's value, and where it came from (for the report). */
export interface CountValue {
  readonly value: number;
  readonly from: string;
  /** The operator's default (nothing set it). */
  readonly isDefault?: boolean;
}

/** `path`'s segments: `spec.config["a.b"][0]` is spec, config, a.b, 0; `[*]` is every element. */
export function segments(path: Path): string[] {
  const out: string[] = [];
  const re = /([^.[\]]+)|\["([^"]*)"\]|\[(\d+|\*)\]/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/**
 * The value at `path` (undefined when any step is missing or not an object); after a `[*]`, the list of the values
 * set in every element (undefined when none is).
 */
export function read(scope: Scope, path: Path): unknown {
  const [head, ...rest] = segments(path);
  if (head === 'index') return scope.index;
  return readFrom(head === 'item' ? scope.item : scope.resource[head], rest);
}

function readFrom(start: unknown, keys: readonly string[]): unknown {
  let value = start;
  for (const [i, key] of keys.entries()) {
    if (key === '*') {
      const found = (Array.isArray(value) ? value : []).map((v) => readFrom(v, keys.slice(i + 1)))
        .filter((v) => v !== undefined);
      return found.length > 0 ? found : undefined;
    }
    value = Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : asObject(value)?.[key];
  }
  return value;
}

/**
 * `template` with each `{path}` replaced by its value ('' when unset or not text or a number); `{a,b}` by the first of
 * them that is set; `{path|filter}` by the value as an operator writes it into a name (`FILTERS`).
 */
export function fill(scope: Scope, template: Template): string {
  return template.replace(/\{([^}]+)\}/g, (_, alternatives: string) => {
    for (const alternative of alternatives.split(',')) {
      const [path, filter] = alternative.trim().split('|');
      const value = read(scope, path);
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      return filter === undefined ? String(value) : FILTERS[filter]?.(String(value)) ?? String(value);
    }
    return '';
  });
}

const DNS_1123_LABEL = /[a-z0-9]([-a-z0-9]*[a-z0-9])?/g;
const DNS_1035_LABEL = /[a-z]([-a-z0-9]*[a-z0-9])?/g;
const DNS_1123_SUBDOMAIN = /[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/g;

/** A name kept when it matches `re` whole, else lower-cased, `_` as `-`, and its matching parts joined. */
function cleaned(re: RegExp, lower: boolean): (text: string) => string {
  return (text) => {
    if ((text.match(re) ?? []).join('') === text && text.length <= 63) return text;
    const input = lower ? text.toLowerCase().replace(/_/g, '-') : text;
    return (input.match(re) ?? []).join('');
  };
}

/**
 * How operators write values into names: cass-operator's CleanLabelValue, CleanupForKubernetes and CleanupSubdomain;
 * a number in two digits at least (Crunchy PGO's `%02d` instance set names).
 */
const FILTERS: { readonly [name: string]: (text: string) => string } = {
  'two-digits': (text) => text.padStart(2, '0'),
  'label': (text) => (text.replace(/ /g, '').match(DNS_1123_LABEL) ?? []).join(''),
  'dns-label': cleaned(DNS_1035_LABEL, true),
  'subdomain': cleaned(DNS_1123_SUBDOMAIN, true),
};

/** Whether `condition` holds. */
export function holds(scope: Scope, condition: Condition): boolean {
  if ('set' in condition) return read(scope, condition.set) !== undefined && read(scope, condition.set) !== null;
  if ('all' in condition) return condition.all.every((c) => holds(scope, c));
  if ('any' in condition) return condition.any.some((c) => holds(scope, c));
  if ('not' in condition) return !holds(scope, condition.not);
  if ('atMost' in condition) {
    const n = wholeNumber(read(scope, condition.path));
    return n === undefined ? condition.ifUnset ?? false : n <= condition.atMost;
  }
  const value = read(scope, condition.path);
  if (value === undefined || value === null) return condition.ifUnset ?? false;
  return Array.isArray(value) ? value.some((v) => condition.is.includes(v)) : condition.is.includes(value);
}

/** The largest count Kubernetes takes (an int32): the API server refuses a larger one. */
const MAX_COUNT = 2_147_483_647;

/**
 * A whole number from 0 to an int32's most, from a number or a numeric string (operators' config values are often
 * text).
 */
function wholeNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= MAX_COUNT ? n as number : undefined;
}

/** A value as a message shows it: its JSON, cut short (a manifest's value may be huge, or cyclic through aliases). */
export function shownValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? '[...]' : '{...}';
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `path` as a message names it: an `item` path from the element's own place. */
export function shown(scope: Scope, path: Path): string {
  if (!path.startsWith('item') || scope.itemIs === undefined) return path;
  const rest = path.slice('item'.length);
  return scope.itemIs.endsWith(':') ? `${scope.itemIs} ${rest.replace(/^\./, '')}` : `${scope.itemIs}${rest}`;
}

/** A count's value, or why it cannot be read (unset with no default: the resource lacks a field it must set). */
export function count(scope: Scope, c: Count): CountValue | string {
  const value = countOrUnset(scope, c);
  if (value !== undefined) return value;
  const unset = (x: Count): string => (typeof x === 'object' && 'firstOf' in x ? unset(x.firstOf[x.firstOf.length - 1])
    : typeof x === 'object' && ('path' in x || 'split' in x) ? ('path' in x ? x.path : x.split) : 'a count');
  return `sets no ${shown(scope, unset(c))}`;
}

function countOrUnset(scope: Scope, c: Count): CountValue | string | undefined {
  if (typeof c === 'number') return { value: c, from: '' };
  if ('firstOf' in c) {
    const values = c.firstOf.map((x) => countOrUnset(scope, x));
    const set = values.find((x) => typeof x === 'string' || (x !== undefined && !x.isDefault));
    return set ?? values.find((x) => x !== undefined);
  }
  if ('when' in c) return countOrUnset(scope, holds(scope, c.when) ? c.then : c.else);
  if ('split' in c || 'path' in c) {
    const path = 'split' in c ? c.split : c.path;
    const raw = read(scope, path);
    if (raw === undefined || raw === null) {
      return c.default === undefined ? undefined
        : { value: share(c, c.default, scope), from: `${shown(scope, path)} unset: ${c.default}`, isDefault: true };
    }
    const total = wholeNumber(raw);
    if (total === undefined) return `has ${shown(scope, path)} ${shownValue(raw)}, not a whole number from 0 to ${MAX_COUNT}`;
    return { value: share(c, total, scope), from: `${shown(scope, path)} ${total}` };
  }
  const minus = c.minus === undefined ? { value: 0, from: '' } : count(scope, c.minus);
  if (typeof minus === 'string') return minus;
  const pods = scope.podsOf?.(c.podsOf) ?? 0;
  return { value: Math.max(0, pods - minus.value), from: `${pods} pods${minus.value ? ` less ${minus.from}` : ''}` };
}

/** A split count's share for the scope's pod set (the first `total % items` take one more); else the total. */
function share(c: Count, total: number, scope: Scope): number {
  if (typeof c !== 'object' || !('split' in c) || scope.items === undefined || scope.items === 0) return total;
  const base = Math.floor(total / scope.items);
  return base + ((scope.index ?? 0) < total % scope.items ? 1 : 0);
}
