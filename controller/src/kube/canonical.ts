/**
 * JSON with sorted keys and no undefined fields: two objects compare equal whatever the order of their fields. The API
 * server stores custom resources as Go maps, so what it sends back has its keys sorted, whatever order they were
 * written in.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().filter((k) => (value as any)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as any)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
