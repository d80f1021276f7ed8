#!/usr/bin/env node
/**
 * The `cdk8s-zones` program: `check` (manifests, offline or against a cluster's nodes), `traffic` (what crosses
 * zones, per Service), and the live commands `shift` (a zone out of service) and `drill` (a zone-outage drill).
 * Every command parses its flags with the one grammar (shared/command-line.ts) and exits with the one table of
 * codes (exit-codes.ts, docs/cli.md).
 */
import { CliIo } from './check-args';
import { checkCommand } from './check-command';
import { helpText, PROGRAM, USAGE, VERSION_FLAG } from './check-help';
import { DRILL_FLAGS, DRILL_USAGE, drillCommand } from './drill-command';
import { LiveIo } from './live-io';
import { SHIFT_USAGE, shiftCommand, shiftFlagsHelp } from './shift-command';
import { trafficCommand } from './traffic-command';
import { trafficHelp, TRAFFIC_USAGE } from './traffic-help';
import { parseSingleDocument } from '../check/manifest-text';
import { docsUrl } from '../contract/docs';
import { ExitCode, exitCodeOf, exitCodesHelp } from '../contract/exit-codes';
import { KubeApi } from '../kubernetes/kube-api';
import { loadClusterConfig } from '../kubernetes/kube-connection';
import { httpsKubeApi } from '../kubernetes/kube-request';
import { asksForHelp, flagsHelp } from '../shared/command-line';
import { UsageError } from '../shared/errors';
import { packageVersion } from '../shared/package-version';

/** What the live commands need besides the check's input and output. */
export interface MainIo extends CliIo {
  /**
   * The API of a kubeconfig.
   *
   * @default the kubeconfig's current context (or as kubectl chooses without one) over HTTPS
   */
  readonly connect?: (kubeconfig: string | undefined) => KubeApi;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly interrupted?: () => boolean;
}

/** One command of the program: how it runs, its usage (printed under bad input) and its full help. */
interface ProgramCommand {
  readonly usage: string;
  /** How its error messages start. */
  readonly prefix: string;
  run(argv: readonly string[], io: MainIo): Promise<number>;
  help(): string;
}

const COMMANDS: { readonly [name: string]: ProgramCommand } = {
  check: {
    run: (argv, io) => checkCommand(argv, { ...io, connect: io.connect ?? connect }),
    usage: USAGE,
    help: () => helpText(packageVersion()),
    prefix: PROGRAM,
  },
  traffic: {
    run: (argv, io) => trafficCommand(argv, { ...io, connect: io.connect ?? connect }),
    usage: TRAFFIC_USAGE,
    help: trafficHelp,
    prefix: `${PROGRAM} traffic`,
  },
  shift: {
    run: (argv, io) => shiftCommand(argv, liveIo(io)),
    usage: SHIFT_USAGE,
    help: () => liveHelp(SHIFT_USAGE, 'Takes an impaired zone out of service (a ZoneShift the controller acts on), ' +
      'reports the shifts, and ends them.', shiftFlagsHelp(), 'runbooks/zone-impaired.md'),
    prefix: `${PROGRAM} shift`,
  },
  drill: {
    run: (argv, io) => drillCommand(argv, liveIo(io)),
    usage: DRILL_USAGE,
    help: () => liveHelp(
      DRILL_USAGE,
      'Drills the loss of one zone on a live cluster: predicts what each workload keeps, takes the zone\'s nodes out, ' +
      'watches, restores them and reports.',
      flagsHelp([{ title: 'Flags', flags: DRILL_FLAGS }]),
      'runbooks/prove-zone-survival.md',
    ),
    prefix: `${PROGRAM} drill`,
  },
};

/** Runs the program on `argv` (the arguments after its name) and returns the exit code. */
export async function main(argv: string[], io: MainIo): Promise<number> {
  const [name, ...rest] = argv;
  const answered = programHelpOrVersion(name, io);
  if (answered !== undefined) return answered;
  const command = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    const names = Object.keys(COMMANDS).join(', ').replace(/, (\w+)$/, ' and $1');
    io.stderr(`${PROGRAM}: unknown command ${JSON.stringify(name)}: the commands are ${names}\n${USAGE}\n`);
    return ExitCode.CANNOT_RUN;
  }
  if (asksForHelp(rest)) {
    io.stdout(command.help());
    return ExitCode.OK;
  }
  if (name === 'check' && asksForVersion(rest)) return printVersion(io);
  try {
    return await command.run(rest, io);
  } catch (e) {
    return failed(e, command, io);
  }
}

/** The exit code when `name` (the first argument) asks for the program's help or version, or is missing. */
function programHelpOrVersion(name: string | undefined, io: MainIo): number | undefined {
  if (name === undefined) {
    io.stderr(helpText(packageVersion()));
    return ExitCode.CANNOT_RUN;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(helpText(packageVersion()));
    return ExitCode.OK;
  }
  if (asksForVersion([name]) || name === 'version') return printVersion(io);
  return undefined;
}

function asksForVersion(argv: readonly string[]): boolean {
  const flags = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return flags.some((a) => a === `--${VERSION_FLAG.name}` || a === `-${VERSION_FLAG.short}`);
}

function printVersion(io: MainIo): number {
  io.stdout(`${PROGRAM} ${packageVersion()}\n`);
  return ExitCode.OK;
}

/**
 * What a command threw, as its exit code and message (exitCodeOf): bad input, with the usage, and an API that
 * could not be reached or refused, 2 (the command could not run); anything else is a bug, 3, with its stack.
 */
function failed(e: unknown, command: ProgramCommand, io: MainIo): number {
  const code = exitCodeOf(e);
  if (code === ExitCode.BUG) {
    io.stderr(`${PROGRAM}: internal error: ${(e as Error)?.stack ?? e}\n`);
  } else {
    io.stderr(`${command.prefix}: ${(e as Error).message}\n${e instanceof UsageError ? `${command.usage}\n` : ''}`);
  }
  return code;
}

/** A live command's help: usage, what it does, every flag with its meaning and default, the exit codes, the guide. */
function liveHelp(usage: string, about: string, flags: readonly string[], guide: string): string {
  return [usage, '', ...wrap(about), ...flags, '', ...exitCodesHelp(), '', `Guide: ${docsUrl(guide)}`, ''].join('\n');
}

/** Text in lines of at most 110 characters. */
function wrap(text: string): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= 110) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** The live commands' io: the process's API, clock and Ctrl-C unless the caller gives its own. */
function liveIo(io: MainIo): LiveIo {
  return {
    connect: io.connect ?? connect,
    stdout: io.stdout,
    stderr: io.stderr,
    now: io.now ?? Date.now,
    sleep: io.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    interrupted: io.interrupted ?? (() => false),
  };
}

/** The HTTPS API of a kubeconfig; a kubeconfig it cannot use is bad input. */
function connect(kubeconfig: string | undefined): KubeApi {
  try {
    return httpsKubeApi(loadClusterConfig({ kubeconfig }, parseSingleDocument));
  } catch (e) {
    throw new UsageError(`${kubeconfig === undefined ? 'the kubeconfig' : `--kubeconfig ${kubeconfig}`}: ${(e as Error).message}`);
  }
}

if (require.main === module) {
  let interrupts = 0;
  // the first Ctrl-C asks a drill to restore and report; a second one quits at once (drill --restore then undoes it)
  process.on('SIGINT', () => {
    if (++interrupts > 1) process.exit(ExitCode.INTERRUPTED);
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
    process.exitCode = ExitCode.BUG;
  });
}
