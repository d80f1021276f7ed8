/**
 * `cdk8s-zones check`: reads manifests (files, directories, stdin), checks them against a zone inventory and
 * prints the report (the analysis is src/check's). Exit 0: every workload survives losing any one zone; 1: some
 * do not; 2: bad input (docs/cli.md, "Exit codes").
 */
import { CheckArgs, checkArgsOf, CliIo, readChecked, refuseEmpty } from './check-args';
import { CHECK_FLAGS } from './check-help';
import { analyzeInput } from '../check/analyze';
import { survivesAnyZone } from '../check/format-common';
import { formatHtml } from '../check/format-html';
import { formatSarif, SarifInput } from '../check/format-sarif';
import { formatText } from '../check/format-text';
import { ManifestObject } from '../check/manifest-text';
import { ZoneReportData } from '../check/model';
import { ExitCode } from '../contract/exit-codes';
import { asResource } from '../kubernetes/objects';
import { parseCommandLine } from '../shared/command-line';

/**
 * Runs `check ...` (argv after `check`); bad input throws a UsageError. With `--live`, what the cluster runs,
 * judged by the worse of now and its specs' worst case.
 */
export async function checkCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = checkArgsOf(parseCommandLine(argv, CHECK_FLAGS));
  const { input, inventory, objects } = await readChecked(args, io);
  const data = analyzeInput(input, inventory);
  if (data.workloads.length === 0 && !args.live) refuseEmpty(args, objects, 'workload');
  io.stdout(render(data, args, objects));
  return data.workloads.every(survivesAnyZone) ? ExitCode.OK : ExitCode.FAILED;
}

function render(data: ZoneReportData, args: CheckArgs, objects: readonly ManifestObject[]): string {
  switch (args.format) {
    case 'json': return JSON.stringify(data, undefined, 2) + '\n';
    case 'sarif': return formatSarif(data, sarifInputs(objects)) + '\n';
    case 'html': return formatHtml(data);
    case 'text': return formatText(data, { color: args.color });
  }
}

/** Where each named object came from, for SARIF locations. */
export function sarifInputs(objects: readonly ManifestObject[]): SarifInput[] {
  const inputs: SarifInput[] = [];
  for (const o of objects) {
    const v = asResource(o.value);
    const name = v?.metadata?.name;
    if (v === undefined || typeof name !== 'string') continue;
    const namespace = typeof v.metadata?.namespace === 'string' ? v.metadata.namespace : undefined;
    inputs.push({ file: o.file, line: o.line, object: { kind: v.kind, namespace, name } });
  }
  return inputs;
}
