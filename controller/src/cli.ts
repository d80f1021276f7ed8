/**
 * One process, one CLI: `cdk8s-zones-controller <command> [options]`. A command is a file in commands/
 * plus one line in commands/index.ts. `dispatch` answers --help and --version itself, and turns what a
 * command throws into its exit code and one error: a readable line at a terminal, a JSON log line elsewhere
 * (a pod's log).
 */
import { Logger } from './log';
import { CONTROLLER_VERSION } from './version';
import { docsUrl } from '../../src/contract/docs';
import { ExitCode, exitCodeOf } from '../../src/contract/exit-codes';
import { asksForHelp, FlagSpec, flagsHelp } from '../../src/shared/command-line';
import { UsageError } from '../../src/shared/errors';

export const PROGRAM = 'cdk8s-zones-controller';

export interface Command {
  /** The word on the command line. */
  readonly name: string;
  /** One line for the usage text. */
  readonly summary: string;
  /** What `<command> --help` prints: the usage, and every flag with what it does and its default (`commandHelp`). */
  readonly help: string;
  /** Its flags, the one table (src/shared/command-line.ts) its parser and its help come from. */
  readonly flags: readonly FlagSpec[];
  /**
   * Runs the command; resolves to the process exit code (src/contract/exit-codes.ts). Bad arguments throw a
   * UsageError; what else it throws ends it as `failed` says.
   */
  run(args: string[], log: Logger): Promise<number>;
}

/** Bad input: exit 2, with a pointer at the command's --help (the one class of the CLI and the controller). */
export { UsageError };

/** A command's help: its usage lines, what it does, and every flag of its table with its meaning and default. */
export function commandHelp(
  usageLines: readonly string[], about: readonly string[], flags: readonly FlagSpec[], after: readonly string[] = [],
): string {
  return [...usageLines, '', ...about, ...flagsHelp([{ title: 'flags', flags }]), ...after, ''].join('\n');
}

/** Parses a command's arguments with `parse`: whatever it throws is bad arguments, named after the command. */
export function parseOrUsageError<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    const message = messageOf(err);
    throw new UsageError(message.startsWith(`${command}: `) ? message : `${command}: ${message}`);
  }
}

/** An error's message (also of an error from another realm, such as Node's own under jest), or what was thrown. */
function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(err);
}

/** Where the CLI writes, and how an error shows. */
export interface CliOutput {
  /** stderr is a terminal: an error is one readable line, not a JSON log line. */
  readonly tty: boolean;
  /** At a terminal, a fatal error shows its stack too (LOG_LEVEL=debug). */
  readonly debug: boolean;
  out(text: string): void;
  err(text: string): void;
}

/** The process's stdout and stderr. */
export function processOutput(env: NodeJS.ProcessEnv = process.env): CliOutput {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    tty: process.stderr.isTTY === true,
    debug: env.LOG_LEVEL === 'debug',
  };
}

export function usage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `${PROGRAM} ${CONTROLLER_VERSION}: the runtime controller of cdk8s-zones`,
    '',
    `usage: ${PROGRAM} <command> [options]`,
    `       ${PROGRAM} --version`,
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `run '${PROGRAM} <command> --help' for a command's options and their defaults`,
    '',
    'environment:',
    '  LOG_LEVEL  debug, info, warn or error (default info). Logs are JSON lines on stderr; at a terminal a',
    '             fatal error is one readable line, with its stack at debug',
    '',
    `guide: ${docsUrl('controller.md')}`,
  ].join('\n');
}

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version', '-V'];

/** Dispatches argv (without node and the script) to a command; unknown commands and bad arguments exit 2. */
export async function dispatch(
  argv: string[],
  commands: readonly Command[],
  log: Logger,
  output: CliOutput = processOutput(),
): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || HELP_FLAGS.includes(name) || name === 'help') {
    (name === undefined ? output.err : output.out)(usage(commands) + '\n');
    return name === undefined ? ExitCode.CANNOT_RUN : ExitCode.OK;
  }
  if (VERSION_FLAGS.includes(name) || name === 'version') {
    output.out(`${PROGRAM} ${CONTROLLER_VERSION}\n`);
    return ExitCode.OK;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const names = commands.map((c) => c.name);
    if (output.tty) output.err(`${PROGRAM}: unknown command ${JSON.stringify(name)}; the commands are ${names.join(', ')}\nrun '${PROGRAM} --help' for more\n`);
    else log.error('unknown command', { command: name, commands: names });
    return ExitCode.CANNOT_RUN;
  }
  if (asksForHelp(args)) {
    output.out(command.help);
    return ExitCode.OK;
  }
  const commandLog = log.with({ command: name });
  return command.run(args, commandLog).catch((err) => failed(err, name, commandLog, output));
}

/**
 * Reports what ended a command and returns the exit code of the one table (exitCodeOf): 2 for bad input (with
 * where the options are described), an API server or a file that could not be reached or read; else 3, a bug.
 * At a terminal, one readable line (and the stack at debug); elsewhere a JSON log line.
 */
export function failed(err: unknown, command: string | undefined, log: Logger, output: CliOutput): number {
  const usageError = err instanceof UsageError;
  const message = messageOf(err);
  const who = command === undefined ? PROGRAM : `${PROGRAM} ${command}`;
  if (output.tty) {
    const text = command !== undefined && message.startsWith(`${command}: `) ? message.slice(command.length + 2) : message;
    const stack = !usageError && output.debug && err instanceof Error && err.stack ? `\n${err.stack}` : '';
    output.err(`${who}: ${text}${stack}\n${usageError ? `run '${who} --help' for the options\n` : ''}`);
  } else if (usageError) {
    log.error('bad arguments', { error: message, help: `${who} --help` });
  } else {
    log.error('fatal', { error: message, stack: err instanceof Error ? err.stack : undefined });
  }
  return exitCodeOf(err);
}
