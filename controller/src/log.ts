/**
 * Structured logs: one JSON object per line on stderr (time, level, msg, then fields), so log collectors
 * parse them without guessing.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line (e.g. the reconciler's name). */
  with(fields: Record<string, unknown>): Logger;
}

const ORDER: Level[] = ['debug', 'info', 'warn', 'error'];

export function createLogger(
  opts: { level?: Level; write?: (line: string) => void; now?: () => Date; fields?: Record<string, unknown> } = {},
): Logger {
  const min = ORDER.indexOf(opts.level ?? 'info');
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  const now = opts.now ?? (() => new Date());
  const base = opts.fields ?? {};
  const log = (level: Level) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER.indexOf(level) < min) return;
    write(JSON.stringify({ time: now().toISOString(), level, msg, ...base, ...fields }, errorsAsText) + '\n');
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    with: (fields) => createLogger({ ...opts, fields: { ...base, ...fields } }),
  };
}

/** Errors have no enumerable fields: log their message instead of `{}`. */
function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}
