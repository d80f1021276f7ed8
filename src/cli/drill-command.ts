/**
 * `cdk8s-zones drill --zone Z`: without --yes, the plan (nothing changes); with it, the drill and its report.
 * `drill --restore` undoes a drill cut short. Exit 0: every workload held and agreed with the prediction; 1: one
 * broke or contradicted it (or the restore left something); 2: bad input or a drill refused.
 */
import * as fs from 'fs';
import { parseDuration, parseFlags } from './flags';
import { LiveIo, withApi } from './live-io';
import { DRILL_MODES, DrillMode } from '../drill/drill-nodes';
import { DrillRefused } from '../drill/drill-plan';
import { formatDrillReport, planJson, planText, REPORT_FORMATS, ReportFormat } from '../drill/drill-report';
import { planLiveDrill, restoreDrill, runDrill } from '../drill/drill-run';
import { drillFailed } from '../drill/drill-verdict';
import { UsageError } from '../shared/errors';

export const DRILL_USAGE = 'Usage: cdk8s-zones drill --zone ZONE [--mode outage|drain] [--yes] [--timeout DURATION] [--settle DURATION] ' +
  '[--format text|json|html] [--output FILE] [--kubeconfig FILE]\n' +
  '       cdk8s-zones drill --restore [--kubeconfig FILE]';

export const DEFAULT_DRILL_TIMEOUT = '5m';
export const DEFAULT_DRILL_SETTLE = '15s';
const POLL_MS = 500;
/** A drill cut short by Ctrl-C (restored, reported), as shells count SIGINT. */
export const INTERRUPTED_EXIT = 130;

/** Runs `drill ...` (argv after `drill`). */
export async function drillCommand(argv: readonly string[], io: LiveIo): Promise<number> {
  const f = parseFlags(argv, {
    kubeconfig: 'value', zone: 'value', mode: 'value', yes: 'switch', restore: 'switch', timeout: 'value', settle: 'value', format: 'value', output: 'value',
  });
  if (f.positional.length > 0) throw new UsageError(`drill takes no argument (${JSON.stringify(f.positional[0])}): name the zone with --zone`);
  if (f.switches.has('restore')) {
    const others = Object.keys(f.values).filter((k) => k !== 'kubeconfig');
    if (others.length > 0 || f.switches.has('yes')) throw new UsageError(`--restore undoes every drill recorded on the nodes: it takes only --kubeconfig (not --${others[0] ?? 'yes'})`);
    return withApi(io, f.values.kubeconfig, async (api) => {
      const restored = await restoreDrill(api);
      io.stdout(restored.length === 0 ? 'no node holds a drill record: nothing to restore\n'
        : restored.map((r) => `node ${r.node}: restored (${r.record.mode} drill of zone ${r.record.zone}, started ${r.record.startedAt})\n`).join(''));
      return 0;
    });
  }
  const zone = f.values.zone;
  if (zone === undefined) throw new UsageError('drill needs --zone: the zone to drill (or --restore)');
  const mode = (f.values.mode ?? 'outage') as DrillMode;
  if (!DRILL_MODES.includes(mode)) throw new UsageError(`--mode=${JSON.stringify(mode)} must be ${DRILL_MODES.join(' or ')}`);
  const format = (f.values.format ?? 'text') as ReportFormat;
  if (!REPORT_FORMATS.includes(format)) throw new UsageError(`--format=${JSON.stringify(format)} must be one of ${REPORT_FORMATS.join(', ')}`);
  const timeoutMs = parseDuration('timeout', f.values.timeout ?? DEFAULT_DRILL_TIMEOUT) * 1000;
  const settleMs = parseDuration('settle', f.values.settle ?? DEFAULT_DRILL_SETTLE) * 1000;
  const write = (text: string) => (f.values.output === undefined ? io.stdout(text) : fs.writeFileSync(f.values.output, text));
  return withApi(io, f.values.kubeconfig, async (api) => {
    let plan;
    try {
      plan = await planLiveDrill(api, zone, mode);
    } catch (e) {
      throw e instanceof DrillRefused ? new UsageError(e.message) : e;
    }
    if (!f.switches.has('yes')) {
      io.stdout(format === 'json' ? planJson(plan) : planText(plan));
      return 0;
    }
    const result = await runDrill(api, plan, {
      timeoutMs, settleMs, pollMs: POLL_MS, now: io.now, sleep: io.sleep, aborted: io.interrupted, progress: (line) => io.stderr(`drill: ${line}\n`),
    });
    write(formatDrillReport(result, format));
    if (result.cutShort) return INTERRUPTED_EXIT;
    return drillFailed(result.verdicts) || result.settledAfterMs === undefined ? 1 : 0;
  });
}
