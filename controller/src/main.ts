#!/usr/bin/env -S node --max-semi-space-size=1
// A young generation of 1 MiB semi-spaces (V8's default grows to 16 MiB): a burst of watch events would
// otherwise grow it and the process keep the pages (RSS with 5,000 pods watched: bench/results.md).
import { dispatch, failed, processOutput } from './cli';
import { COMMANDS } from './commands';
import { createLogger, Level } from './log';

const log = createLogger({ level: (process.env.LOG_LEVEL as Level | undefined) ?? 'info' });
const output = processOutput();

dispatch(process.argv.slice(2), COMMANDS, log, output).then(
  (code) => { process.exitCode = code; },
  (err) => { process.exitCode = failed(err, undefined, log, output); },
);
