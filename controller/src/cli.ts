/**
 * One process, one CLI: `cdk8s-zones-controller <command> [options]`. A command is a file in commands/
 * plus one line in commands/index.ts.
 */
import { Logger } from './log';

export interface Command {
  /** The word on the command line. */
  readonly name: string;
  /** One line for the usage text. */
  readonly summary: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[], log: Logger): Promise<number>;
}

export function usage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: cdk8s-zones-controller <command> [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "run 'cdk8s-zones-controller <command> --help' for a command's options",
  ].join('\n');
}

/** Dispatches argv (without node and the script) to a command; unknown commands are a usage error (2). */
export async function dispatch(argv: string[], commands: readonly Command[], log: Logger, out = process.stdout): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out.write(usage(commands) + '\n');
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    log.error('unknown command', { command: name, commands: commands.map((c) => c.name) });
    out.write(usage(commands) + '\n');
    return 2;
  }
  return command.run(args, log.with({ command: name }));
}
