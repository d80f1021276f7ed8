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

/** `path`'s segments: `spec.config["a.b"][0]` is spec, config, a.b, 0. */
export function segments(path: Path): string[] {
  const out: string[] = [];
  const re = /([^.[\]]+)|\["([^"]*)"\]|\[(\d+)\]/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/** The value at `path` (undefined when any step is missing or not an object). */
export function read(scope: Scope, path: Path): unknown {
  const [head, ...rest] = segments(path);
  if (head === 'index') return scope.index;
  let value: unknown = head === 'item' ? scope.item : scope.resource[head];
  for (const key of rest) {
    value = Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : asObject(value)?.[key];
  }
  return value;
}

/**
 * `template` with each `{path}` replaced by its value ('' when unset or not text or a number), `{path|filter}` by the
 * value as an operator cleans it into a Kubernetes name (`FILTERS`).
 */
export function fill(scope: Scope, template: Template): string {
  return template.replace(/\{([^}|]+)(?:\|([a-z-]+))?\}/g, (_, path: string, filter: string | undefined) => {
    const value = read(scope, path);
    const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    return filter === undefined ? text : FILTERS[filter]?.(text) ?? text;
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

/** How operators clean values into names: cass-operator's CleanLabelValue, CleanupForKubernetes, CleanupSubdomain. */
const FILTERS: { readonly [name: string]: (text: string) => string } = {
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
  const value = read(scope, condition.path);
  if (value === undefined || value === null) return condition.ifUnset ?? false;
  return Array.isArray(value) ? value.some((v) => condition.is.includes(v)) : condition.is.includes(value);
}

/** A whole number of at least 0, from a number or a numeric string (operators' config values are often text). */
function wholeNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return Number.isSafeInteger(n) && (n as number) >= 0 ? n as number : undefined;
}

/** A count's value, or why it cannot be read (unset with no default: the resource lacks a field it must set). */
export function count(scope: Scope, c: Count): CountValue | string {
  const value = countOrUnset(scope, c);
  if (value !== undefined) return value;
  const unset = (x: Count): string => (typeof x === 'object' && 'firstOf' in x ? unset(x.firstOf[x.firstOf.length - 1])
    : typeof x === 'object' && ('path' in x || 'split' in x) ? ('path' in x ? x.path : x.split) : 'a count');
  return `sets no ${unset(c)}`;
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
        : { value: share(c, c.default, scope), from: `${path} unset: ${c.default}`, isDefault: true };
    }
    const total = wholeNumber(raw);
    if (total === undefined) return `has ${path} ${JSON.stringify(raw)}, not a whole number`;
    return { value: share(c, total, scope), from: `${path} ${total}` };
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
