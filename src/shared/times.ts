/** Times as the Kubernetes API writes them (RFC 3339), one rule for every prop, spec field and flag that takes one. */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** An example for messages. */
export const RFC3339_EXAMPLE = '2026-11-27T10:00:00Z';

/** The instant an RFC 3339 time names (ms since the epoch), or undefined when `text` is not one. */
export function rfc3339Ms(text: unknown): number | undefined {
  if (typeof text !== 'string' || !RFC3339.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
