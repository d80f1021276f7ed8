/**
 * What `cdk8s-zones --help` and `cdk8s-zones check --help` print: the usage, and every flag with its default
 * and what it does, made from one table (test/check/cli.test.ts holds the parser to it).
 */
import { docsUrl } from '../contract/docs';

/** The program's name, as its messages start. */
export const PROGRAM = 'cdk8s-zones';

/** The one-line usage, and where the options are described. Bad usage prints it under the message. */
export const USAGE = `Usage: ${PROGRAM} check --zones ZONE,ZONE,... [--nodes-per-zone N] [--node-labels K=V,...] [--node-taints K[=V]:EFFECT,...] ` +
  '[--inventory FILE | --kubeconfig FILE] [--format text|json|sarif|html] [--color] [--allow-empty] FILE|DIR|- ...\n' +
  `Run '${PROGRAM} check --help' for what each option does and its default.`;

/** Nodes per zone when neither `--nodes-per-zone` nor an inventory says. */
export const DEFAULT_NODES_PER_ZONE = 3;

/** One flag of the help: how it is written, what it does, and its default (or that it is required). */
export interface FlagHelp {
  /** The flag (long form first) and its value, e.g. `--zones ZONE,...`. */
  readonly flag: string;
  readonly text: string;
  /** Its value when not given; `undefined` for the flags that only print something, and the required ones. */
  readonly default?: string;
  /** When it is required (`unless ...`). */
  readonly required?: string;
}

/** The flags of `check`, in the groups the help shows them in. */
export const FLAG_GROUPS: ReadonlyArray<{ readonly title: string; readonly flags: readonly FlagHelp[] }> = [
  {
    title: 'The nodes (equal nodes per zone, or one of --inventory and --kubeconfig)',
    flags: [
      { flag: '--zones ZONE,...', text: 'the zones, by their topology.kubernetes.io/zone value', required: 'unless --inventory or --kubeconfig names them' },
      { flag: '--nodes-per-zone N', text: 'N equal nodes in each zone, untainted, unlimited in CPU and memory', default: String(DEFAULT_NODES_PER_ZONE) },
      { flag: '--node-labels K=V,...', text: 'more labels on every one of those nodes (a node pool the manifests select); repeatable', default: 'zone, region, hostname, os and arch only' },
      { flag: '--node-taints K[=V]:EFFECT,...', text: 'taints on every one of those nodes, as kubectl taint writes them; repeatable', default: 'none' },
      { flag: '--inventory FILE', text: 'the nodes from a JSON or YAML file: ZoneInventoryProps, or the output of kubectl get nodes -o json', default: 'none' },
      { flag: '--kubeconfig FILE', text: 'the nodes of a live cluster (read-only), through the current context of FILE', default: 'none' },
    ],
  },
  {
    title: 'The report',
    flags: [
      { flag: '--format FORMAT', text: 'text, json, sarif (code scanning) or html', default: 'text' },
      { flag: '--color', text: 'ANSI colours in the text format', default: 'off' },
      { flag: '--allow-empty', text: 'exit 0, not 2, when the input holds no workload (nothing was checked)', default: 'off' },
    ],
  },
  {
    title: 'Other',
    flags: [
      { flag: '-h, --help', text: 'print this help and exit' },
      { flag: '-V, --version', text: 'print the version and exit' },
    ],
  },
];

/** The width of the flag column. */
const FLAG_WIDTH = 30;
/** Where the text of a flag wraps. */
const LINE_WIDTH = 110;

/** The full help of the CLI at `version`. */
export function helpText(version: string): string {
  const lines = [
    `${PROGRAM} ${version}: will these manifests survive losing a zone?`,
    '',
    `Usage: ${PROGRAM} check (--zones ZONE,... | --inventory FILE | --kubeconfig FILE) [options] FILE|DIR|- ...`,
    `       ${PROGRAM} shift start|status|cancel ...  (an impaired zone out of service; shift --help)`,
    `       ${PROGRAM} drill --zone ZONE ...          (a zone-outage drill on a live cluster; drill --help)`,
    `       ${PROGRAM} --version`,
    '',
    'Reads Kubernetes manifests (files; directories: their .yaml, .yml and .json files, recursively; - for stdin),',
    'places the pods of each workload on the nodes the options describe as the scheduler may, and reports what',
    'is left of each workload when a zone is lost.',
  ];
  for (const group of FLAG_GROUPS) {
    lines.push('', `${group.title}:`);
    for (const f of group.flags) lines.push(...flagLines(f));
  }
  lines.push(
    '',
    'Exit codes: 0 every workload survives losing any one zone; 1 some do not; 2 bad input or usage.',
    `Guide: ${docsUrl('check.md')}`,
    '',
  );
  return lines.join('\n');
}

/** One flag: its name, then its text and default wrapped beside it. */
function flagLines(f: FlagHelp): string[] {
  const suffix = f.required !== undefined ? ` (required ${f.required})` : f.default !== undefined ? ` (default: ${f.default})` : '';
  const words = `${f.text}${suffix}`.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && FLAG_WIDTH + 4 + line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  const name = `  ${f.flag}`;
  const first = name.length + 2 <= FLAG_WIDTH + 4 ? [`${name.padEnd(FLAG_WIDTH + 4)}${lines.shift()}`] : [name];
  return [...first, ...lines.map((l) => `${' '.repeat(FLAG_WIDTH + 4)}${l}`)];
}
