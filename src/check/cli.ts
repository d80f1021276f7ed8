/**
 * `cdk8s-zones check`: reads manifests (files, directories, stdin), checks them against a zone inventory and
 * prints the report. Exit 0: every workload survives losing any one zone; 1: some do not; 2: bad input.
 */
import * as fs from 'fs';
import * as path from 'path';
import { analyzeManifests } from './analyze';
import { DEFAULT_NODES_PER_ZONE, helpText, PROGRAM, USAGE } from './cli-help';
import { clusterConnection, inventoryProps, listNodes } from './cluster-nodes';
import { survivesAnyZone } from './format-common';
import { formatHtml } from './format-html';
import { formatSarif, SarifInput } from './format-sarif';
import { formatText } from './format-text';
import { InventoryTaint, ZoneInventory } from './inventory';
import { ManifestObject, ManifestTextError, parseManifests, parseSingleDocument } from './manifest-text';
import { ZoneReportData } from './model';
import { UsageError } from '../shared/errors';
import { packageVersion } from '../shared/package-version';

/** What `main` reads from and writes to (the process's, or a test's). */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Reads a file as UTF-8 text. @default fs.readFileSync */
  readonly readFile?: (file: string) => string;
}

const FORMATS = ['text', 'json', 'sarif', 'html'] as const;
type Format = typeof FORMATS[number];
const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** The parsed command line of `check`. */
interface CheckArgs {
  readonly zones?: string[];
  readonly nodesPerZone?: number;
  readonly nodeLabels?: { [key: string]: string };
  readonly nodeTaints?: InventoryTaint[];
  readonly inventory?: string;
  readonly kubeconfig?: string;
  readonly format: Format;
  readonly color: boolean;
  /** Exit 0 on an input without workloads (else it is bad input: a failed render upstream in a pipe). */
  readonly allowEmpty: boolean;
  readonly inputs: string[];
}

/** Runs the CLI on `argv` (the arguments after the program name) and returns the exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    const answered = helpOrVersion(argv, io);
    if (answered !== undefined) return answered;
    if (argv[0] !== 'check') throw new UsageError(`unknown command ${JSON.stringify(argv[0])}: the commands are check, shift and drill`);
    const args = parseCheckArgs(argv.slice(1));
    const readFile = io.readFile ?? ((file: string) => fs.readFileSync(file, 'utf8'));
    const inventory = args.kubeconfig === undefined ? loadInventory(args, readFile) : await clusterInventory(args.kubeconfig, args.zones);
    const objects: ManifestObject[] = [];
    for (const input of args.inputs) objects.push(...await readInput(input, io.stdin, readFile));
    const data = analyzeManifests(objects.map((o) => o.value), inventory);
    if (data.workloads.length === 0 && !args.allowEmpty) {
      throw new UsageError(`no workload in ${args.inputs.map((i) => (i === '-' ? 'stdin' : i)).join(', ')}` +
        `${objects.length === 0 ? ' (it is empty: a render that failed earlier in a pipe?)' : ` (${objects.length} objects, none of them a workload)`}: ` +
        'nothing was checked; --allow-empty accepts that');
    }
    io.stdout(render(data, args, objects));
    return data.workloads.every(survivesAnyZone) ? 0 : 1;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${PROGRAM}: ${e.message}\n${USAGE}\n`);
    return 2;
  }
}

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version', '-V'];

/**
 * The exit code when `argv` asks for the help or the version (before anything else on the line, or among the
 * arguments of `check`) or names no command; undefined when it is a check to run.
 */
function helpOrVersion(argv: string[], io: CliIo): number | undefined {
  if (argv.length === 0) {
    io.stderr(helpText(packageVersion()));
    return 2;
  }
  const asked = argv[0] === 'check' ? argv.slice(1, argv.includes('--') ? argv.indexOf('--') : undefined) : [argv[0]];
  if (asked.some((a) => HELP_FLAGS.includes(a)) || argv[0] === 'help') {
    io.stdout(helpText(packageVersion()));
    return 0;
  }
  if (asked.some((a) => VERSION_FLAGS.includes(a)) || argv[0] === 'version') {
    io.stdout(`${PROGRAM} ${packageVersion()}\n`);
    return 0;
  }
  return undefined;
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
    const v = o.value as any;
    if (typeof v?.kind !== 'string' || typeof v?.metadata?.name !== 'string') continue;
    const namespace = typeof v.metadata.namespace === 'string' ? v.metadata.namespace : undefined;
    inputs.push({ file: o.file, line: o.line, object: { kind: v.kind, namespace, name: v.metadata.name } });
  }
  return inputs;
}

/** Parses the flags and inputs of `check` (`--flag value` or `--flag=value`). */
function parseCheckArgs(argv: string[]): CheckArgs {
  const a: { -readonly [K in keyof CheckArgs]: CheckArgs[K] } = { format: 'text', color: false, allowEmpty: false, inputs: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-' || !arg.startsWith('-')) {
      a.inputs.push(arg);
      continue;
    }
    if (arg === '--') {
      a.inputs.push(...argv.slice(i + 1));
      break;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const next = argv[++i];
      if (next === undefined || (next.startsWith('-') && next !== '-')) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    applyFlag(a, flag, value, eq > 0);
  }
  checkCombination(a);
  return a;
}

/** One flag into `a`; `value()` reads its value (a switch with `=value` is refused). */
function applyFlag(a: { -readonly [K in keyof CheckArgs]: CheckArgs[K] }, flag: string, value: () => string, hasValue: boolean): void {
  const noValue = () => {
    if (hasValue) throw new UsageError(`${flag} takes no value`);
    return true;
  };
  switch (flag) {
    case '--zones':
      a.zones = value().split(',').map((z) => z.trim());
      if (a.zones.some((z) => z === '')) throw new UsageError(`--zones=${JSON.stringify(a.zones.join(','))} holds an empty zone name`);
      break;
    case '--nodes-per-zone': {
      const v = value();
      a.nodesPerZone = /^[0-9]+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(a.nodesPerZone) || a.nodesPerZone < 1) throw new UsageError(`--nodes-per-zone=${JSON.stringify(v)} must be a whole number >= 1`);
      break;
    }
    case '--node-labels': a.nodeLabels = { ...a.nodeLabels, ...parseNodeLabels(value()) }; break;
    case '--node-taints': a.nodeTaints = [...a.nodeTaints ?? [], ...parseNodeTaints(value())]; break;
    case '--inventory': a.inventory = value(); break;
    case '--format': {
      const v = value();
      if (!(FORMATS as readonly string[]).includes(v)) throw new UsageError(`--format=${JSON.stringify(v)} must be one of ${FORMATS.join(', ')}`);
      a.format = v as Format;
      break;
    }
    case '--color': a.color = noValue(); break;
    case '--kubeconfig': a.kubeconfig = value(); break;
    case '--allow-empty': a.allowEmpty = noValue(); break;
    default: throw new UsageError(`unknown flag ${JSON.stringify(flag)}`);
  }
}

/** The flags that go together, and the inputs. */
function checkCombination(a: CheckArgs): void {
  if ([a.nodesPerZone, a.inventory, a.kubeconfig].filter((v) => v !== undefined).length > 1) {
    throw new UsageError('set one of --nodes-per-zone, --inventory and --kubeconfig');
  }
  if (a.zones === undefined && a.inventory === undefined && a.kubeconfig === undefined) {
    throw new UsageError('--zones is required (or --inventory or --kubeconfig, whose nodes name the zones)');
  }
  if ((a.nodeLabels !== undefined || a.nodeTaints !== undefined) && (a.inventory !== undefined || a.kubeconfig !== undefined)) {
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

/** The nodes of the cluster `--kubeconfig FILE` reaches (its current context), as an inventory. */
async function clusterInventory(file: string, zones: string[] | undefined): Promise<ZoneInventory> {
  try {
    return new ZoneInventory(inventoryProps(await listNodes(clusterConnection(file)), zones));
  } catch (e) {
    throw new UsageError(`--kubeconfig ${file}: ${(e as Error).message}`);
  }
}

/** The inventory the flags describe: `--inventory FILE`, or N equal nodes per zone (3 unless told). */
function loadInventory(args: CheckArgs, readFile: (file: string) => string): ZoneInventory {
  const where = args.inventory === undefined ? '--zones' : `--inventory ${args.inventory}`;
  try {
    if (args.inventory === undefined) {
      const { zones, nodesPerZone = DEFAULT_NODES_PER_ZONE, nodeLabels, nodeTaints } = args;
      return new ZoneInventory({ zones: zones!, nodesPerZone, nodeLabels, nodeTaints });
    }
    const value = readDocument(args.inventory, readText(args.inventory, readFile));
    return new ZoneInventory(inventoryProps(value, args.zones));
  } catch (e) {
    if (e instanceof UsageError) throw e; // unreadable or not YAML: the message names the file
    throw new UsageError(`${where}: ${(e as Error).message}`);
  }
}

/** The objects of one input: a file, a directory (its manifest files, recursively, sorted), or `-` (stdin). */
async function readInput(input: string, stdin: NodeJS.ReadableStream, readFile: (file: string) => string): Promise<ManifestObject[]> {
  if (input === '-') return readManifests('stdin', await readStream(stdin));
  let stat: fs.Stats;
  try {
    stat = fs.statSync(input);
  } catch (e) {
    throw new UsageError(`cannot read ${input}: ${(e as Error).message}`);
  }
  const files = stat.isDirectory() ? manifestFiles(input) : [input];
  return files.flatMap((file) => readManifests(file, readText(file, readFile)));
}

/** The manifest files under `dir`, recursively, in sorted order (the same on every machine). */
function manifestFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (MANIFEST_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) found.push(p);
    }
  };
  walk(dir);
  return found;
}

/** The objects of a manifest text; text it cannot read is bad input (exit 2), with the file and line. */
function readManifests(file: string, text: string): ManifestObject[] {
  try {
    return parseManifests(file, text);
  } catch (e) {
    throw e instanceof ManifestTextError ? new UsageError(e.message) : e;
  }
}

function readDocument(file: string, text: string): unknown {
  try {
    return parseSingleDocument(file, text);
  } catch (e) {
    throw e instanceof ManifestTextError ? new UsageError(e.message) : e;
  }
}

function readText(file: string, readFile: (file: string) => string): string {
  try {
    return readFile(file);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c) => chunks.push(typeof c === 'string' ? Buffer.from(c) : c));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', (e) => reject(new UsageError(`cannot read stdin: ${e.message}`)));
  });
}
