/**
 * `wait-for-zone`: blocks until a file (a downward-API projection of the zone annotation) is non-empty.
 * Runs as the init container of zone-aware pods, so the main container starts with its zone known; it
 * ships in the controller image because application images may have no shell (grafana/loki#24143).
 */
import { promises as fs } from 'fs';
import { parseArgs } from 'util';
import { Command, parseOrUsageError } from '../cli';
import { Logger } from '../log';

export interface WaitForZoneOptions {
  readonly file: string;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

const HELP = `usage: cdk8s-zones-controller wait-for-zone --file PATH [--timeout SECONDS] [--interval SECONDS]

Waits until PATH exists and is non-empty, prints its content, and exits 0; exits 1 after --timeout.
  --file PATH          the file to watch, e.g. a downward API volume item of the zone annotation (required)
  --timeout SECONDS    give up after this many seconds (default 600)
  --interval SECONDS   check this often, in seconds (default 1)
  -h, --help           print this help and exit
`;

export const WAIT_FOR_ZONE_FLAGS = {
  file: { type: 'string' },
  timeout: { type: 'string', default: '600' },
  interval: { type: 'string', default: '1' },
} as const;

export function parseWaitForZone(args: string[]): WaitForZoneOptions {
  const { values } = parseArgs({ args, options: WAIT_FOR_ZONE_FLAGS, strict: true });
  if (!values.file) throw new Error('wait-for-zone: --file is required');
  const seconds = (flag: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`wait-for-zone: --${flag}=${JSON.stringify(raw)} must be a number of seconds > 0`);
    return n * 1000;
  };
  return { file: values.file, timeoutMs: seconds('timeout', values.timeout), intervalMs: seconds('interval', values.interval) };
}

/** Resolves to the file's trimmed content once it is non-empty, or undefined after the timeout. */
export async function waitForNonEmptyFile(opts: WaitForZoneOptions, now = Date.now): Promise<string | undefined> {
  const deadline = now() + opts.timeoutMs;
  for (;;) {
    const content = await fs.readFile(opts.file, 'utf8').then((c) => c.trim(), () => '');
    if (content !== '') return content;
    if (now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(opts.intervalMs, Math.max(0, deadline - now()))));
  }
}

export const waitForZone: Command = {
  name: 'wait-for-zone',
  summary: 'wait until a file (the downward-API zone annotation) is non-empty, then exit 0',
  help: HELP,
  flags: WAIT_FOR_ZONE_FLAGS,
  async run(args: string[], log: Logger): Promise<number> {
    const opts = parseOrUsageError('wait-for-zone', () => parseWaitForZone(args));
    log.info('waiting for the zone', { file: opts.file, timeoutSeconds: opts.timeoutMs / 1000 });
    const zone = await waitForNonEmptyFile(opts);
    if (zone === undefined) {
      log.error('the zone never arrived: is the zone annotator running, and does the node have the topology label?',
        { file: opts.file, timeoutSeconds: opts.timeoutMs / 1000 });
      return 1;
    }
    log.info('zone known', { file: opts.file, zone });
    process.stdout.write(zone + '\n');
    return 0;
  },
};
