/**
 * Formats the one error style the library uses for bad input: who (construct or builder), which prop,
 * the offending value, and the rule it breaks. Never silently fix a user's input; say what is wrong.
 */
export function invalidProp(where: string, prop: string, value: unknown, rule: string): Error {
  return new Error(`${where}: ${prop}=${describe(value)} ${rule}`);
}

/** Bad input on the program's command line: it prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {}

/** The longest rendering of a value in a message; longer ones are cut with an ellipsis. */
const MAX_DESCRIBED = 200;

/**
 * Renders a value for an error message the way a reader must see it: strings quoted, objects as compact
 * JSON, and what JSON cannot spell (NaN, Infinity, undefined, bigint, functions, symbols, cycles) as
 * itself rather than `null`. Long values are cut, so a huge input never makes a huge message.
 */
export function describe(value: unknown): string {
  const text = render(value, new Set());
  return text.length > MAX_DESCRIBED ? `${text.slice(0, MAX_DESCRIBED)}…` : text;
}

function render(value: unknown, seen: Set<object>): string {
  switch (typeof value) {
    case 'string': return JSON.stringify(value.length > MAX_DESCRIBED ? value.slice(0, MAX_DESCRIBED) : value);
    case 'number': return Object.is(value, -0) ? '-0' : String(value); // NaN, Infinity as themselves
    case 'bigint': return `${value}n`;
    case 'undefined': return 'undefined';
    case 'function': return `[function ${value.name || 'anonymous'}]`;
    case 'symbol': return value.toString();
    case 'boolean': return String(value);
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (seen.has(obj)) return '[circular]';
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return `[${shortList(obj.map((v) => render(v, seen)))}]`;
    const named = obj.constructor?.name;
    // a Size says its value; a class instance with toJSON is described by what it renders
    const methods = obj as { readonly asString?: unknown; readonly toJSON?: unknown };
    if (named === 'Size' && typeof methods.asString === 'function') return `[Size ${methods.asString()}]`;
    if (named && named !== 'Object' && typeof methods.toJSON !== 'function') {
      // A class instance (ZoneTopology, Duration, ...): its class says more than its fields.
      return `[${named}]`;
    }
    const fields = Object.entries(typeof methods.toJSON === 'function' ? methods.toJSON() : obj)
      .filter(([, v]) => v !== undefined) // as JSON does: an unset field is no field
      .map(([k, v]) => `${JSON.stringify(k)}:${render(v, seen)}`);
    return `{${shortList(fields)}}`;
  } finally {
    seen.delete(obj);
  }
}

/** Joins rendered items, stopping once the text is long enough to be cut anyway. */
function shortList(items: string[]): string {
  let text = '';
  for (const [i, item] of items.entries()) {
    text += (i > 0 ? ',' : '') + item;
    if (text.length > MAX_DESCRIBED) return `${text},…`;
  }
  return text;
}
