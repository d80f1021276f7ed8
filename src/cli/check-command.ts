/**
 * `cdk8s-zones check`: reads manifests (files, directories, stdin), checks them against a zone inventory and
 * prints the report (the analysis is src/check's). Exit 0: every workload survives losing any one zone; 1: some
 * do not; 2: bad input (docs/cli.md, "Exit codes").
 */
import * as fs from 'fs';
import { CHECK_FLAGS, CHECK_FORMATS } from './check-help';
import { clusterInventory, InventoryArgs, loadInventory, readInput } from './check-inputs';
import { analyzeInput, analyzeManifests } from '../check/analyze';
import { survivesAnyZone } from '../check/format-common';
import { formatHtml } from '../check/format-html';
import { formatSarif, SarifInput } from '../check/format-sarif';
import { formatText } from '../check/format-text';
import { InventoryTaint } from '../check/inventory';
import { readLiveCluster } from '../check/live/live-read';
import { ManifestObject } from '../check/manifest-text';
import { ZoneReportData } from '../check/model';
import { ExitCode } from '../contract/exit-codes';
import { KubeRequestApi } from '../kubernetes/kube-api';
import { asResource } from '../kubernetes/objects';
import { parseCommandLine } from '../shared/command-line';
import { UsageError } from '../shared/errors';

/** What `check` reads from and writes to (the process's, or a test's). */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Reads a file as UTF-8 text. @default fs.readFileSync */
  readonly readFile?: (file: string) => string;
  /** The API of a kubeconfig, for `--live`. @default none: `--live` cannot run */
  readonly connect?: (kubeconfig: string | undefined) => KubeRequestApi;
}

type Format = typeof CHECK_FORMATS[number];

/** The parsed command line of `check`. */
interface CheckArgs extends InventoryArgs {
  readonly kubeconfig?: string;
  readonly format: Format;
  readonly color: boolean;
  /** Exit 0 on an input without workloads (else it is bad input: a failed render upstream in a pipe). */
  readonly allowEmpty: boolean;
  /** What the cluster of `kubeconfig` runs, instead of manifests. */
  readonly live: boolean;
  readonly namespaces?: readonly string[];
  readonly timeoutMs: number;
  readonly inputs: readonly string[];
}

/** Runs `check ...` (argv after `check`); bad input throws a UsageError. */
export async function checkCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseCheckArgs(argv);
  if (args.live) return checkLive(args, io);
  const readFile = io.readFile ?? ((file: string) => fs.readFileSync(file, 'utf8'));
  const inventory = args.kubeconfig === undefined
    ? loadInventory(args, readFile)
    : await clusterInventory(args.kubeconfig, args.zones);
  const objects: ManifestObject[] = [];
  for (const input of args.inputs) objects.push(...await readInput(input, io.stdin, readFile));
  const data = analyzeManifests(objects.map((o) => o.value), inventory);
  if (data.workloads.length === 0 && !args.allowEmpty) {
    throw new UsageError(`no workload in ${args.inputs.map((i) => (i === '-' ? 'stdin' : i)).join(', ')}` +
      `${objects.length === 0 ? ' (it is empty: a render that failed earlier in a pipe?)' : ` (${objects.length} objects, none of them a workload)`}: ` +
      'nothing was checked; --allow-empty accepts that');
  }
  io.stdout(render(data, args, objects));
  return data.workloads.every(survivesAnyZone) ? ExitCode.OK : ExitCode.FAILED;
}

/** `check --live`: what the cluster runs, judged by the worse of now and its specs' worst case. */
async function checkLive(args: CheckArgs, io: CliIo): Promise<number> {
  if (io.connect === undefined) throw new Error('check --live needs a connection to the cluster');
  const api = io.connect(args.kubeconfig);
  try {
    const { input, inventory } = await readLiveCluster(api, args.namespaces, args.timeoutMs, args.zones);
    const data = analyzeInput(input, inventory);
    io.stdout(render(data, args, []));
    return data.workloads.every(survivesAnyZone) ? ExitCode.OK : ExitCode.FAILED;
  } finally {
    api.close();
  }
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
function sarifInputs(objects: readonly ManifestObject[]): SarifInput[] {
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

/** Parses the flags and inputs of `check` against its table (check-help.ts). */
function parseCheckArgs(argv: readonly string[]): CheckArgs {
  const f = parseCommandLine(argv, CHECK_FLAGS);
  const zones = f.list('zones');
  const labels = f.list('node-labels');
  const taints = f.list('node-taints');
  const a: CheckArgs = {
    zones,
    nodesPerZone: f.count('nodes-per-zone'),
    nodeLabels: labels && Object.assign({}, ...labels.map(parseNodeLabels)),
    nodeTaints: taints?.flatMap(parseNodeTaints),
    inventory: f.text('inventory'),
    kubeconfig: f.text('kubeconfig'),
    format: f.text('format') as Format,
    color: f.on('color'),
    allowEmpty: f.on('allow-empty'),
    live: f.on('live'),
    namespaces: f.list('namespace'),
    timeoutMs: f.ms('timeout')!,
    inputs: f.positional,
  };
  checkCombination(a);
  return a;
}

/** The flags that go together, and the inputs. */
function checkCombination(a: CheckArgs): void {
  if (a.live) {
    if (a.kubeconfig === undefined) throw new UsageError('--live reads a cluster: give its --kubeconfig FILE');
    if (a.inputs.length > 0) throw new UsageError(`--live reads the cluster, not manifests: drop ${a.inputs.join(' ')}`);
    if (a.inventory !== undefined || a.nodesPerZone !== undefined) throw new UsageError('--live places pods on the cluster\'s own nodes: drop --inventory and --nodes-per-zone');
    return;
  }
  if (a.namespaces !== undefined) throw new UsageError('--namespace chooses what --live reads: give --live, or drop it');
  if ([a.nodesPerZone, a.inventory, a.kubeconfig].filter((v) => v !== undefined).length > 1) {
    throw new UsageError('set one of --nodes-per-zone, --inventory and --kubeconfig');
  }
  if (a.zones === undefined && a.inventory === undefined && a.kubeconfig === undefined) {
    throw new UsageError('--zones is required (or --inventory or --kubeconfig, whose nodes name the zones)');
  }
  const describesGeneratedNodes = a.nodeLabels !== undefined || a.nodeTaints !== undefined;
  const namesItsNodes = a.inventory !== undefined || a.kubeconfig !== undefined;
  if (describesGeneratedNodes && namesItsNodes) {
    throw new UsageError('--node-labels and --node-taints describe the --nodes-per-zone nodes: an --inventory or --kubeconfig names its nodes\' own');
  }
  if (a.inputs.length === 0) throw new UsageError('no input: name manifest files, directories, or - for stdin');
  if (a.inputs.filter((i) => i === '-').length > 1) throw new UsageError('- (stdin) is named twice');
}

/** `--node-labels key=value,key=value`. */
function parseNodeLabels(text: string): { [key: string]: string } {
  return Object.fromEntries(text.split(',').map((pair) => {
    const m = /^([^=\s]+)=([^=\s]*)$/.exec(pair.trim());
    if (!m) throw new UsageError(`--node-labels=${JSON.stringify(text)}: ${JSON.stringify(pair)} is not key=value`);
    return [m[1], m[2]];
  }));
}

/** `--node-taints key[=value]:Effect,...`, as kubectl taint writes them. */
function parseNodeTaints(text: string): InventoryTaint[] {
  return text.split(',').map((item) => {
    const m = /^([^=:\s]+)(?:=([^=:\s]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(item.trim());
    if (!m) throw new UsageError(`--node-taints=${JSON.stringify(text)}: ${JSON.stringify(item)} is not key[=value]:NoSchedule|PreferNoSchedule|NoExecute`);
    return { key: m[1], ...(m[2] !== undefined && m[2] !== '' ? { value: m[2] } : {}), effect: m[3] };
  });
}
