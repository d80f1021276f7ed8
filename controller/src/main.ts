#!/usr/bin/env node
import { dispatch } from './cli';
import { COMMANDS } from './commands';
import { createLogger, Level } from './log';

const log = createLogger({ level: (process.env.LOG_LEVEL as Level | undefined) ?? 'info' });

dispatch(process.argv.slice(2), COMMANDS, log).then(
  (code) => { process.exitCode = code; },
  (err) => {
    log.error('fatal', { error: err, stack: err instanceof Error ? err.stack : undefined });
    process.exitCode = 1;
  },
);
