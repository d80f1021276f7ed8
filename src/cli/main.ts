#!/usr/bin/env node
/**
 * The `cdk8s-zones` program: `check` (manifests, offline or against a cluster's nodes), and the live commands
 * `shift` (a zone out of service) and `drill` (a zone-outage drill). Exit 2: bad input; 1: the command's
 * failure (an API error too); 3: a bug.
 */
import { DRILL_USAGE, drillCommand } from './drill-command';
import { LiveIo } from './live-io';
import { SHIFT_USAGE, shiftCommand } from './shift-command';
import { CliIo, main as checkMain } from '../check/cli';
import { PROGRAM } from '../check/cli-help';
import { parseSingleDocument } from '../check/manifest-text';
import { docsUrl } from '../contract/docs';
import { KubeRequestApi } from '../kubernetes/kube-api';
import { loadClusterConfig } from '../kubernetes/kube-connection';
import { httpsKubeApi } from '../kubernetes/kube-request';
import { UsageError } from '../shared/errors';

/** What the live commands need besides the check's input and output. */
export interface MainIo extends CliIo {
  /** The API of a kubeconfig. @default the kubeconfig's current context (or as kubectl chooses without one) over HTTPS */
  readonly connect?: (kubeconfig: string | undefined) => KubeRequestApi;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly interrupted?: () => boolean;
}

const LIVE_COMMANDS: { [command: string]: { run: (argv: readonly string[], io: LiveIo) => Promise<number>; usage: string; guide: string } } = {
  shift: { run: shiftCommand, usage: SHIFT_USAGE, guide: 'runbooks/zone-impaired.md' },
  drill: { run: drillCommand, usage: DRILL_USAGE, guide: 'runbooks/prove-zone-survival.md' },
};

/** Runs the program on `argv` (the arguments after its name) and returns the exit code. */
export async function main(argv: string[], io: MainIo): Promise<number> {
  const live = Object.prototype.hasOwnProperty.call(LIVE_COMMANDS, argv[0]) ? LIVE_COMMANDS[argv[0]] : undefined;
  if (live === undefined) return checkMain(argv, io);
  if (argv.slice(1).some((a) => a === '--help' || a === '-h')) {
    io.stdout(`${live.usage}\nGuide: ${docsUrl(live.guide)}\n`);
    return 0;
  }
  const liveIo: LiveIo = {
    connect: io.connect ?? connect,
    stdout: io.stdout,
    stderr: io.stderr,
    now: io.now ?? Date.now,
    sleep: io.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    interrupted: io.interrupted ?? (() => false),
  };
  try {
    return await live.run(argv.slice(1), liveIo);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`${PROGRAM} ${argv[0]}: ${e.message}\n${live.usage}\n`);
      return 2;
    }
    if (isApiFailure(e)) {
      io.stderr(`${PROGRAM} ${argv[0]}: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
}

/** The HTTPS API of a kubeconfig; a kubeconfig it cannot use is bad input. */
function connect(kubeconfig: string | undefined): KubeRequestApi {
  try {
    return httpsKubeApi(loadClusterConfig({ kubeconfig }, parseSingleDocument));
  } catch (e) {
    throw new UsageError(`${kubeconfig === undefined ? 'the kubeconfig' : `--kubeconfig ${kubeconfig}`}: ${(e as Error).message}`);
  }
}

/** An error of the API or of reaching it (not a bug of ours): refused, timed out, unreachable, not 2xx. */
function isApiFailure(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return (e as { status?: unknown })?.status !== undefined || (typeof code === 'string' && /^(E[A-Z]+|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) ||
    /no answer within/.test((e as Error)?.message ?? '');
}

if (require.main === module) {
  let interrupts = 0;
  // the first Ctrl-C asks a drill to restore and report; a second one quits at once (drill --restore then undoes it)
  process.on('SIGINT', () => {
    if (++interrupts > 1) process.exit(130);
    process.stderr.write(`${PROGRAM}: interrupted: restoring (Ctrl-C again quits at once; then run ${PROGRAM} drill --restore)\n`);
  });
  main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    interrupted: () => interrupts > 0,
  }).then((code) => {
    process.exitCode = code;
  }, (e) => {
    process.stderr.write(`${PROGRAM}: internal error: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 3;
  });
}
