/**
 * Manifest text to objects for the zone check (pure): multi-document YAML or JSON, each object with the line its
 * document starts at (for SARIF and messages). Parsed with js-yaml (the fastest YAML parser measured for this:
 * bench/check.ts) as kubectl reads manifests (sigs.k8s.io/yaml on go-yaml v2, YAML 1.1): `yes`, `on` and `y`
 * are booleans, `0755` is octal, `<<` merges; timestamps stay strings.
 *
 * Hostile input is bad input, never a crash: binary data, a syntax error, nesting deeper than any manifest and
 * aliases that expand past the size of the text (an "alias bomb") each throw a `ManifestTextError` naming the
 * file, the line and what is wrong, in bounded time and memory.
 */
import { loadAll, Schema, YAML11_SCHEMA } from 'js-yaml';
import { listItems } from '../kubernetes/objects';

/** One object of the input and where it came from. */
export interface ManifestObject {
  readonly value: unknown;
  readonly file: string;
  /** The line its document starts at (1-based). */
  readonly line: number;
}

/** YAML 1.1's types without `!!timestamp`: Kubernetes keeps an unquoted date a string. */
const KUBERNETES_SCHEMA = new Schema(YAML11_SCHEMA.tags.filter((t) => t.tagName !== 'tag:yaml.org,2002:timestamp'));

/** Text the check cannot read: `file:line[:column]: what is wrong`. */
export class ManifestTextError extends Error {}

/** Deeper than any Kubernetes object; the analysis walks objects recursively. */
export const MAX_DEPTH = 256;

/**
 * The objects of a multi-document YAML (or JSON) text, with the line each starts at: empty documents are
 * dropped (Helm leaves them), a List's items expanded.
 */
export function parseManifests(file: string, text: string): ManifestObject[] {
  rejectBinary(file, text);
  const objects: ManifestObject[] = [];
  for (const doc of documents(text)) {
    for (const value of parseDocuments(file, doc.text, doc.firstLine, doc.contentLine)) {
      const expand = (v: unknown) => {
        if (v === null || v === undefined) return;
        const items = listItems(v);
        if (items !== undefined) items.forEach(expand);
        else objects.push({ value: v, file, line: doc.contentLine });
      };
      expand(value);
    }
  }
  return objects;
}

/** One YAML or JSON document (an inventory, a kubeconfig): its value, or a `ManifestTextError`. */
export function parseSingleDocument(file: string, text: string): unknown {
  rejectBinary(file, text);
  const values = parseDocuments(file, text, 1, 1);
  if (values.length > 1) throw new ManifestTextError(`${file}: holds ${values.length} YAML documents, where one is expected`);
  return values[0];
}

/**
 * The documents of a text: split before each `---` at the start of a line (a document marker in any context),
 * unless what comes before it is only comments and directives (then the marker starts that same document).
 */
function documents(text: string): { text: string; firstLine: number; contentLine: number }[] {
  // line by line through the text, without splitting it into lines: a chunk is a slice of the text
  const docs: { text: string; firstLine: number; contentLine: number }[] = [];
  let start = 0; // the chunk's first line: its offset and index
  let startLine = 0;
  let content = -1; // the chunk's first line of content
  const push = (end: number) => { // end: the offset of the line after the chunk (one past its newline)
    if (content < 0) return;
    docs.push({ text: text.slice(start, end - 1), firstLine: startLine + 1, contentLine: content + 1 });
  };
  for (let at = 0, i = 0; at <= text.length; i++) {
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    const marker = text.startsWith('---', at) && (end - at === 3 || ' \t\r'.includes(text[at + 3]));
    if (marker && content >= 0) {
      push(at);
      start = at;
      startLine = i;
      content = -1;
    }
    if (content < 0) {
      const line = text.slice(at, end);
      const rest = marker ? line.slice(3) : line;
      if (!/^\s*(#.*)?$/.test(rest) && !(line.startsWith('%') && !marker)) content = i;
    }
    at = end + 1;
  }
  push(text.length + 1);
  return docs;
}

/** The values of one chunk of text (usually one document), checked for depth and alias expansion. */
function parseDocuments(file: string, text: string, firstLine: number, contentLine: number): unknown[] {
  const tooDeep = `nested deeper than ${MAX_DEPTH} levels, which no Kubernetes object is: not checked`;
  let values: unknown[];
  try {
    values = [];
    loadAll(text, (v) => values.push(v), { schema: KUBERNETES_SCHEMA, filename: file, maxDepth: MAX_DEPTH });
  } catch (e) {
    if (e instanceof RangeError) throw new ManifestTextError(`${file}:${contentLine}: ${tooDeep}`);
    // js-yaml's YAMLException: the reason and where (line and column from 0)
    const yamlError = e as {
      readonly mark?: { readonly line: number; readonly column: number };
      readonly reason?: unknown;
    };
    const mark = yamlError?.mark;
    const reason = String(yamlError?.reason ?? (e as Error).message);
    if (/nesting exceeded maxDepth/.test(reason)) throw new ManifestTextError(`${file}:${contentLine}: ${tooDeep}`);
    const where = mark && Number.isInteger(mark.line) ? `${firstLine + mark.line}:${mark.column + 1}` : `${firstLine}`;
    throw new ManifestTextError(`${file}:${where}: not valid YAML (${reason})`);
  }
  // Without an alias (`*name`) a text's values are no more than its characters and no deeper than the parser's
  // maxDepth: only a text that holds a `*` can be oversized (most do not: walking every value was a measurable part
  // of the check's time, bench/check.ts)
  if (!text.includes('*')) return values;
  for (const v of values) {
    const problem = oversized(v, text.length * 4 + 10_000);
    if (problem) throw new ManifestTextError(`${file}:${contentLine}: ${problem}`);
  }
  return values;
}

/**
 * Why a parsed value is too big to check (undefined: it is not): nested deeper than `MAX_DEPTH`, or more nodes
 * than `limit` once aliases are expanded (shared references counted each time). Stops at the first excess, so
 * its time is bounded by `limit`.
 */
function oversized(value: unknown, limit: number): string | undefined {
  let nodes = 0;
  // a stack of values and one of their depths (not of pairs: an array for each value the check reads was a
  // measurable part of its time)
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (++nodes > limit) return `expands to more than ${limit} values through YAML aliases (an alias bomb?): not checked`;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels, which no Kubernetes object is: not checked`;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

/** Binary data (a NUL byte, which no YAML or JSON text holds) is refused at its line. */
function rejectBinary(file: string, text: string): void {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw new ManifestTextError(`${file}:${lineAt(text, nul)}: holds binary data (a NUL byte), not YAML or JSON text`);
}

/** The 1-based line of offset `at` in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
