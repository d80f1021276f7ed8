/**
 * Formats the one error style the library uses for bad input: who (construct or builder), which prop,
 * the offending value, and the rule it breaks. Never silently fix a user's input; say what is wrong.
 */
export function invalidProp(where: string, prop: string, value: unknown, rule: string): Error {
  return new Error(`${where}: ${prop}=${describe(value)} ${rule}`);
}

/** Renders a value for an error message: strings quoted, objects as compact JSON. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'undefined';
  return JSON.stringify(value);
}
