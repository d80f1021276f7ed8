/**
 * Literals of Prometheus's languages, for the queries, rules and relabeling the library writes: a string as PromQL
 * spells it, and text as an RE2 regex that matches only itself (Prometheus's regexes are Go's RE2).
 */

/** `text` as a PromQL string literal. */
export function promQlString(text: string): string {
  return JSON.stringify(text);
}

/** Escapes RE2 metacharacters (Go's regexp.QuoteMeta), so a zone or a name matches only itself. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}
