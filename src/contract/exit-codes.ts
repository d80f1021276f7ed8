/**
 * The exit codes of every program of cdk8s-zones (the `cdk8s-zones` CLI and the `cdk8s-zones-controller`), one
 * table (docs/cli.md, "Exit codes", says the same, and test/cli/help.test.ts holds the page to it): a pipeline
 * tells "your workload breaks" (1) from "the API server was unreachable" (2). Pure (no package), so the runtime
 * controller may import it (test/architecture.test.ts).
 */
import { docsUrl } from './docs';
import { UsageError } from '../shared/errors';

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

/**
 * The code of what ended a command: bad input (a UsageError), and an API or a file that could not be reached,
 * read or refused us (an HTTP status, a system error such as ECONNREFUSED or ENOENT, a TLS failure), 2: the
 * command could not run. Anything else is a bug, 3.
 */
export function exitCodeOf(e: unknown): ExitCode {
  return e instanceof UsageError || isCannotRun(e) ? ExitCode.CANNOT_RUN : ExitCode.BUG;
}

/** An error of the API server or of reaching it, or of the system (a file missing): not a bug of ours. */
export function isCannotRun(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return (e as { status?: unknown } | undefined)?.status !== undefined ||
    (typeof code === 'string' && /^(E[A-Z]+|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) ||
    /no answer within/.test((e as { message?: unknown } | undefined)?.message as string ?? '');
}
