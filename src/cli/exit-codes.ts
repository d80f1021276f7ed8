/**
 * The exit codes of every `cdk8s-zones` command, one table (docs/cli.md, "Exit codes", says the same, and
 * test/cli/exit-codes.test.ts holds the page to it): a pipeline tells "your workload breaks" (1) from "the
 * API server was unreachable" (2).
 */
import { docsUrl } from '../contract/docs';

export enum ExitCode {
  /** Every workload survives, held, or the command did what it was asked. */
  OK = 0,
  /** The system failed the test: a workload would not survive, broke, or contradicted its prediction. */
  FAILED = 1,
  /** Bad input, or it could not run: cluster unreachable, access denied, a drill refused, timed out before it began. */
  CANNOT_RUN = 2,
  /** A bug of cdk8s-zones (with the stack on stderr). */
  BUG = 3,
  /** Interrupted (Ctrl-C), as shells count SIGINT; a drill restores the nodes first. */
  INTERRUPTED = 130,
}

/** Each code and what it means, in order, as the help and docs/cli.md list them. */
export const EXIT_CODES: ReadonlyArray<readonly [ExitCode, string]> = [
  [ExitCode.OK, 'ok'],
  [ExitCode.FAILED, 'the system failed the test: a workload would not survive, broke, or contradicted its prediction'],
  [ExitCode.CANNOT_RUN, 'bad input or could not run: cluster unreachable, access denied, a drill refused, timed out before it began'],
  [ExitCode.BUG, 'a bug of cdk8s-zones'],
  [ExitCode.INTERRUPTED, 'interrupted'],
];

/** The help's lines on the exit codes, with where the table is. */
export function exitCodesHelp(): string[] {
  return [
    'Exit codes (the same for every command):',
    ...EXIT_CODES.map(([code, meaning]) => `${String(code).padStart(3)} ${meaning}`),
    `  ${docsUrl('cli.md', 'Exit codes')}`,
  ];
}
