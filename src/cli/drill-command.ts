/**
 * `cdk8s-zones drill --zone Z`: without --yes, the plan (nothing changes); with it, the drill and its report.
 * `drill --restore` undoes a drill cut short. Exit 0: every workload held and agreed with the prediction; 1: one
 * broke or contradicted it; 2: bad input, a drill refused, or the API unreachable; 130: Ctrl-C (docs/cli.md).
 */
import * as fs from 'fs';
import { LiveIo, withApi } from './live-io';
import { DRILL_MODES, DrillMode } from '../contract/drill';
import { ExitCode } from '../contract/exit-codes';
import { DrillRefused } from '../drill/drill-plan';
import { formatDrillReport, planJson, planText, REPORT_FORMATS, ReportFormat } from '../drill/drill-report';
import { planLiveDrill, restoreDrill, runDrill } from '../drill/drill-run';
import { drillFailed } from '../drill/drill-verdict';
import { FlagSpec, HELP_FLAG, parseCommandLine, usageText } from '../shared/command-line';
import { UsageError } from '../shared/errors';

export const DEFAULT_DRILL_TIMEOUT = '5m';
export const DEFAULT_DRILL_SETTLE = '15s';
const POLL_MS = 500;

/** `drill`'s flags: the parser's and the help's one table. */
export const DRILL_FLAGS: readonly FlagSpec[] = [
  {
    name: 'zone',
    type: 'text',
    value: 'ZONE',
    required: 'unless --restore',
    meaning: 'the zone to drill, as the nodes\' topology.kubernetes.io/zone says',
  },
  {
    name: 'mode',
    type: 'choice',
    choices: DRILL_MODES,
    default: 'outage',
    meaning: 'outage: a NoExecute taint on the zone\'s nodes, as a lost zone; drain: cordon them and evict through the Eviction API',
  },
  { name: 'yes', type: 'switch', meaning: 'run the drill; without it, print the plan and change nothing' },
  {
    name: 'timeout',
    type: 'duration',
    default: DEFAULT_DRILL_TIMEOUT,
    meaning: 'watch the workloads for at most this long',
  },
  {
    name: 'settle',
    type: 'duration',
    default: DEFAULT_DRILL_SETTLE,
    meaning: 'the watch ends once nothing has changed for this long',
  },
  {
    name: 'format',
    type: 'choice',
    choices: REPORT_FORMATS,
    default: 'text',
    meaning: 'the report\'s (the plan: text or json)',
  },
  { name: 'output', type: 'text', value: 'FILE', defaultText: 'stdout', meaning: 'write the report to FILE' },
  {
    name: 'restore',
    type: 'switch',
    meaning: 'undo every drill recorded on the nodes (one cut short); takes only --kubeconfig',
  },
  {
    name: 'kubeconfig',
    type: 'text',
    value: 'FILE',
    defaultText: 'as kubectl chooses',
    meaning: 'the cluster, through the current context of FILE',
  },
  HELP_FLAG,
];

/** The usage, from the table: a drill, or `--restore` (which takes only --kubeconfig). */
export const DRILL_USAGE = usageText([
  { command: 'cdk8s-zones drill', flags: DRILL_FLAGS.filter((f) => f.name !== 'restore') },
  { command: 'cdk8s-zones drill', flags: DRILL_FLAGS.filter((f) => ['restore', 'kubeconfig'].includes(f.name)), needs: ['restore'] },
]);

/** Runs `drill ...` (argv after `drill`). */
export async function drillCommand(argv: readonly string[], io: LiveIo): Promise<number> {
  const f = parseCommandLine(argv, DRILL_FLAGS);
  if (f.positional.length > 0) throw new UsageError(`drill takes no argument (${JSON.stringify(f.positional[0])}): name the zone with --zone`);
  const kubeconfig = f.text('kubeconfig');
  if (f.on('restore')) {
    const others = f.given.filter((k) => k !== 'kubeconfig' && k !== 'restore');
    if (others.length > 0) throw new UsageError(`--restore undoes every drill recorded on the nodes: it takes only --kubeconfig (not --${others[0]})`);
    return withApi(io, kubeconfig, async (api) => {
      const restored = await restoreDrill(api);
      io.stdout(restored.length === 0 ? 'no node holds a drill record: nothing to restore\n'
        : restored.map((r) => `node ${r.node}: restored (${r.record.mode} drill of zone ${r.record.zone}, started ${r.record.startedAt})\n`).join(''));
      return ExitCode.OK;
    });
  }
  const zone = f.text('zone');
  if (zone === undefined) throw new UsageError('drill needs --zone: the zone to drill (or --restore)');
  const mode = f.text('mode') as DrillMode;
  const format = f.text('format') as ReportFormat;
  const timeoutMs = f.ms('timeout')!;
  const settleMs = f.ms('settle')!;
  const output = f.text('output');
  const write = (text: string) => (output === undefined ? io.stdout(text) : fs.writeFileSync(output, text));
  return withApi(io, kubeconfig, async (api) => {
    let plan;
    try {
      plan = await planLiveDrill(api, zone, mode, io.now());
    } catch (e) {
      throw e instanceof DrillRefused ? new UsageError(e.message) : e;
    }
    if (!f.on('yes')) {
      io.stdout(format === 'json' ? planJson(plan) : planText(plan));
      return ExitCode.OK;
    }
    const result = await runDrill(api, plan, {
      timeoutMs,
      settleMs,
      pollMs: POLL_MS,
      now: io.now,
      sleep: io.sleep,
      aborted: io.interrupted,
      progress: (line) => io.stderr(`drill: ${line}\n`),
    });
    write(formatDrillReport(result, format));
    if (result.cutShort) return ExitCode.INTERRUPTED;
    return drillFailed(result.verdicts) || result.settledAfterMs === undefined ? ExitCode.FAILED : ExitCode.OK;
  });
}
