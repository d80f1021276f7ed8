/**
 * What `check` and `traffic` share on their command lines: the nodes (equal nodes per zone, an inventory file, or a
 * cluster's nodes), the manifests or `--live`, and the report's format; parsed with the one grammar, checked
 * together, and read into the check's typed input.
 */
import * as fs from 'fs';
import { CHECK_FORMATS } from './check-help';
import { clusterInventory, InventoryArgs, loadInventory, readInput } from './check-inputs';
import { CheckInput } from '../check/check-input';
import { InventoryTaint, ZoneInventory } from '../check/inventory';
import { readLiveCluster } from '../check/live/live-read';
import { ManifestObject } from '../check/manifest-text';
import { readManifests } from '../check/workloads';
import { KubeRequestApi } from '../kubernetes/kube-api';
import { ParsedFlags } from '../shared/command-line';
import { UsageError } from '../shared/errors';

/** What the commands that read manifests read from and write to (the process's, or a test's). */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Reads a file as UTF-8 text. @default fs.readFileSync */
  readonly readFile?: (file: string) => string;
  /** The API of a kubeconfig, for `--live`. @default none: `--live` cannot run */
  readonly connect?: (kubeconfig: string | undefined) => KubeRequestApi;
}

/** A report format of `--format`. */
export type Format = typeof CHECK_FORMATS[number];

/** The parsed command line shared by `check` and `traffic`. */
export interface CheckArgs extends InventoryArgs {
  readonly kubeconfig?: string;
  readonly format: Format;
  readonly color: boolean;
  /** Exit 0 on an input without anything to report (else it is bad input: a failed render upstream in a pipe). */
  readonly allowEmpty: boolean;
  /** What the cluster of `kubeconfig` runs, instead of manifests. */
  readonly live: boolean;
  readonly namespaces?: readonly string[];
  readonly timeoutMs: number;
  readonly inputs: readonly string[];
}

/** What was read: the check's input, the nodes, and the manifests' objects (none with `--live`). */
export interface CheckRead {
  readonly input: CheckInput;
  readonly inventory: ZoneInventory;
  readonly objects: readonly ManifestObject[];
}

/** The shared flags and inputs of `f` (parsed against a table that holds the check's flags), checked together. */
export function checkArgsOf(f: ParsedFlags): CheckArgs {
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

/** Reads the nodes and the manifests (or, `--live`, the cluster) the arguments name. */
export async function readChecked(args: CheckArgs, io: CliIo): Promise<CheckRead> {
  if (args.live) {
    if (io.connect === undefined) throw new Error('--live needs a connection to the cluster');
    const api = io.connect(args.kubeconfig);
    try {
      return { ...await readLiveCluster(api, args.namespaces, args.timeoutMs, args.zones), objects: [] };
    } finally {
      api.close();
    }
  }
  const readFile = io.readFile ?? ((file: string) => fs.readFileSync(file, 'utf8'));
  const inventory = args.kubeconfig === undefined
    ? loadInventory(args, readFile)
    : await clusterInventory(args.kubeconfig, args.zones);
  const objects: ManifestObject[] = [];
  for (const input of args.inputs) objects.push(...await readInput(input, io.stdin, readFile));
  return { input: readManifests(objects.map((o) => o.value), inventory.topologyKey), inventory, objects };
}

/** The usage error for an input with nothing to report (`what`: "workload", "Service"), unless allowed. */
export function refuseEmpty(args: CheckArgs, objects: readonly ManifestObject[], what: string): void {
  if (args.allowEmpty) return;
  throw new UsageError(`no ${what} in ${args.inputs.map((i) => (i === '-' ? 'stdin' : i)).join(', ')}` +
    `${objects.length === 0 ? ' (it is empty: a render that failed earlier in a pipe?)' : ` (${objects.length} objects, none of them a ${what})`}: ` +
    'nothing was checked; --allow-empty accepts that');
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
