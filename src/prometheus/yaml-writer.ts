/**
 * A small YAML writer for prometheus.yml: the text cdk8s's `Yaml.stringify` writes (yaml 2, YAML 1.1
 * schema, no line folding), byte for byte, for the data a prometheus.yml of this library holds:
 * mappings with label-name keys, non-empty sequences of mappings or scalars, strings on one line,
 * integers and booleans. A shard's configuration is written once per shard; a generic YAML library is
 * most of the cost of synthesizing one. test/prometheus/yaml-writer.property.test.ts holds the proof.
 */

/** Thrown inside the writer for a value outside what it spells; `writeYaml` returns undefined then. */
class Unspelled extends Error {}

const STEP = '  ';

/** Keys the writer spells: label names and Prometheus's own keys. */
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** yaml writes a key spelled longer than this as an explicit `? key`. */
const MAX_IMPLICIT_KEY = 1024;

/** Characters yaml escapes, in double quotes (C0 and C1 controls but tab and line feed; lone surrogates). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;

/** yaml's test for strings that cannot be plain: indicators at the start, `: ` and ` #`, a space or `:` at the end. */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;

/**
 * Plain scalars a YAML 1.1 reader takes for something other than a string (yaml's yaml-1.1 schema): a
 * string that looks like one of these is quoted. Not the merge key `<<`: yaml takes the string "<<" for
 * one, and writes it plain.
 */
const NOT_STRING = [
  /^(?:~|[Nn]ull|NULL)?$/, // null, and the empty string
  /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON|N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  /^[-+]?(?:0b[0-1_]+|0[0-7_]+|[0-9][0-9_]*|0x[0-9a-fA-F_]+)$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/, // sexagesimal
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:t|T|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:[ \t]*(?:Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/,
];

/** The YAML escapes yaml prefers to JSON's `\u00XX`. */
const SHORT_ESCAPES: { [hex: string]: string } = { '00': '\\0', '07': '\\a', '0b': '\\v', '1b': '\\e' };

/**
 * The YAML text of `doc`, a mapping, or undefined when it holds anything the writer does not spell
 * (a line break in a string, an empty collection, null, a fraction, an object twice, which yaml would
 * write as an alias).
 */
export function writeYaml(doc: unknown): string | undefined {
  if (!isMapping(doc)) return undefined;
  try {
    return mapping(doc, '', new Set());
  } catch (e) {
    if (e instanceof Unspelled) return undefined;
    throw e;
  }
}

function isMapping(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A block mapping, every line at `indent`. */
function mapping(map: { [key: string]: unknown }, indent: string, seen: Set<object>): string {
  const entries = Object.entries(fresh(map, seen));
  if (entries.length === 0) throw new Unspelled();
  let out = '';
  for (const [name, value] of entries) out += `${indent}${key(name)}:${after(value, indent, seen)}`;
  return out;
}

function key(name: string): string {
  if (!KEY.test(name)) throw new Unspelled();
  const spelled = string(name);
  if (spelled.length > MAX_IMPLICIT_KEY) throw new Unspelled();
  return spelled;
}

/** A block sequence, its dashes at `indent`; a mapping item starts on its dash's line. */
function sequence(items: unknown[], indent: string, seen: Set<object>): string {
  if (fresh(items, seen).length === 0) throw new Unspelled();
  let out = '';
  for (const item of items) {
    if (Array.isArray(item)) throw new Unspelled();
    const text = isMapping(item)
      ? mapping(item, indent + STEP, seen).slice(indent.length + STEP.length)
      : `${scalar(item)}\n`;
    out += `${indent}- ${text}`;
  }
  return out;
}

/** What follows `key:`: a scalar on the same line, or a collection on the next lines, one step in. */
function after(value: unknown, indent: string, seen: Set<object>): string {
  if (Array.isArray(value)) return `\n${sequence(value, indent + STEP, seen)}`;
  if (isMapping(value)) return `\n${mapping(value, indent + STEP, seen)}`;
  return ` ${scalar(value)}\n`;
}

/** yaml writes an object met a second time as an alias of the first. */
function fresh<T extends object>(value: T, seen: Set<object>): T {
  if (seen.has(value)) throw new Unspelled();
  seen.add(value);
  return value;
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return string(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  throw new Unspelled();
}

/** Plain when a YAML 1.1 reader gets the same string back; quoted as yaml quotes otherwise. */
function string(s: string): string {
  if (s.includes('\n')) throw new Unspelled(); // yaml writes a block scalar
  if (CONTROL.test(s)) return doubleQuoted(s);
  if (NOT_PLAIN.test(s) || NOT_STRING.some((re) => re.test(s))) return quoted(s);
  return s;
}

/** Single quotes when that saves escaping a double quote, else double quotes. */
function quoted(s: string): string {
  return s.includes('"') && !s.includes("'") ? `'${s}'` : doubleQuoted(s);
}

/** JSON's spelling, with YAML's short escapes for the control characters JSON writes as `\u00XX`. */
function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(/\\(?:u00([0-9a-f]{2})|.)/g, (escape, hex?: string) =>
    hex === undefined ? escape : SHORT_ESCAPES[hex] ?? `\\x${hex}`);
}
