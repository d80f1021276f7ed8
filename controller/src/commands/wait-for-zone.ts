/**
 * `wait-for-zone`: blocks until a file (a downward-API projection of the zone annotation) is non-empty.
 * Runs as the init container of zone-aware pods, so the main container starts with its zone known; it
 * ships in the controller image because application images may have no shell (grafana/loki#24143).
 */
import { promises as fs } from 'fs';
import { FlagSpec, HELP_FLAG, parseCommandLine } from '../../../src/shared/command-line';
import { Command, commandHelp, parseOrUsageError } from '../cli';
import { Logger } from '../log';

export interface WaitForZoneOptions {
  readonly file: string;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

/** A bare number of seconds stays accepted: the init containers of manifests made by earlier versions pass one. */
const BARE = 'a duration, or a bare number of seconds';

export const WAIT_FOR_ZONE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'file',
    type: 'text',
    value: 'PATH',
    required: true,
    meaning: 'the file to watch, e.g. a downward API volume item of the zone annotation',
  },
  {
    name: 'timeout',
    type: 'duration',
    bareSeconds: true,
    default: '10m',
    meaning: `give up after this long (${BARE})`,
  },
  { name: 'interval', type: 'duration', bareSeconds: true, default: '1s', meaning: `check this often (${BARE})` },
  HELP_FLAG,
];

const HELP = commandHelp(
  ['usage: cdk8s-zones-controller wait-for-zone --file PATH [--timeout DURATION] [--interval DURATION]'],
  ['Waits until PATH exists and is non-empty, prints its content, and exits 0; exits 1 after --timeout.'],
  WAIT_FOR_ZONE_FLAGS,
);

export function parseWaitForZone(args: string[]): WaitForZoneOptions {
  const f = parseCommandLine(args, WAIT_FOR_ZONE_FLAGS);
  const file = f.text('file');
  if (!file) throw new Error('wait-for-zone: --file is required');
  if (f.positional.length > 0) throw new Error(`wait-for-zone takes no argument (${JSON.stringify(f.positional[0])})`);
  return { file, timeoutMs: f.ms('timeout')!, intervalMs: f.ms('interval')! };
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
