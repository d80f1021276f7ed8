/**
 * `cdk8s-zones check`'s flags, as one table (name, type, meaning, default) in the groups its help shows, and
 * what `cdk8s-zones --help` and `cdk8s-zones check --help` print, made from it.
 */
import { docsUrl } from '../contract/docs';
import { FlagGroup, FlagSpec, flagsHelp, HELP_FLAG, usageText } from '../shared/command-line';

/** The program's name, as its messages start. */
export const PROGRAM = 'cdk8s-zones';

/** Nodes per zone when neither `--nodes-per-zone` nor an inventory says. */
export const DEFAULT_NODES_PER_ZONE = 3;

/** How long `check --live` may take to read the cluster. */
export const DEFAULT_LIVE_TIMEOUT = '60s';

/** The report formats of `--format`. */
export const CHECK_FORMATS = ['text', 'json', 'sarif', 'html'] as const;

/** `-V, --version`, which the program and `check` take. */
export const VERSION_FLAG: FlagSpec = {
  name: 'version', short: 'V', type: 'switch', meaning: 'print the version and exit', informational: true,
};

/** The nodes the pods are placed on (check and traffic). */
export const NODE_FLAGS: FlagGroup = {
  title: 'The nodes (equal nodes per zone, or one of --inventory and --kubeconfig)',
  flags: [
    {
      name: 'zones',
      type: 'list',
      value: 'ZONE,...',
      item: 'zone name',
      meaning: 'the zones, by their topology.kubernetes.io/zone value',
      required: 'unless --inventory or --kubeconfig names them',
    },
    {
      name: 'nodes-per-zone',
      type: 'count',
      meaning: 'N equal nodes in each zone, untainted, unlimited in CPU and memory',
      defaultText: String(DEFAULT_NODES_PER_ZONE),
    },
    {
      name: 'node-labels',
      type: 'text',
      value: 'K=V,...',
      repeatable: true,
      meaning: 'more labels on every one of those nodes (a node pool the manifests select); repeatable',
      defaultText: 'zone, region, hostname, os and arch only',
    },
    {
      name: 'node-taints',
      type: 'text',
      value: 'K[=V]:EFFECT,...',
      repeatable: true,
      meaning: 'taints on every one of those nodes, as kubectl taint writes them; repeatable',
      defaultText: 'none',
    },
    {
      name: 'inventory',
      type: 'text',
      value: 'FILE',
      defaultText: 'none',
      meaning: 'the nodes from a JSON or YAML file: ZoneInventoryProps, or the output of kubectl get nodes -o json',
    },
    {
      name: 'kubeconfig',
      type: 'text',
      value: 'FILE',
      defaultText: 'none',
      meaning: 'the nodes of a live cluster (read-only), through the current context of FILE',
    },
  ],
};

/** A live cluster instead of manifests (check and traffic). */
export const LIVE_FLAGS: FlagGroup = {
  title: 'What runs (with --kubeconfig)',
  flags: [
    {
      name: 'live',
      type: 'switch',
      meaning: 'check what the cluster runs, read-only, instead of manifests: its workloads, the operators\' resources, '
        + 'the pods where they run now and their volumes; each judged by the worse of now and any reschedule its spec allows',
    },
    {
      name: 'namespace',
      type: 'list',
      value: 'NS,...',
      item: 'namespace',
      repeatable: true,
      meaning: 'with --live, only these namespaces; repeatable',
      defaultText: 'all namespaces',
    },
    {
      name: 'timeout',
      type: 'duration',
      default: DEFAULT_LIVE_TIMEOUT,
      meaning: 'with --live, read the cluster within this long, or exit 2',
    },
  ],
};

/** The report's format (check and traffic). */
export const REPORT_FLAGS: FlagGroup = {
  title: 'The report',
  flags: [
    {
      name: 'format',
      type: 'choice',
      choices: CHECK_FORMATS,
      value: 'FORMAT',
      default: 'text',
      meaning: 'text, json, sarif (code scanning) or html',
    },
    { name: 'color', type: 'switch', meaning: 'ANSI colours in the text format' },
    {
      name: 'allow-empty',
      type: 'switch',
      meaning: 'exit 0, not 2, when the input holds nothing to report (no workload; for traffic, no Service)',
    },
  ],
};

/** Help and version. */
export const OTHER_FLAGS: FlagGroup = { title: 'Other', flags: [HELP_FLAG, VERSION_FLAG] };

/** The flags of `check`, in the groups the help shows them in. */
export const CHECK_FLAG_GROUPS: readonly FlagGroup[] = [NODE_FLAGS, LIVE_FLAGS, REPORT_FLAGS, OTHER_FLAGS];

/** Every flag of `check`, as the parser takes them. */
export const CHECK_FLAGS: readonly FlagSpec[] = CHECK_FLAG_GROUPS.flatMap((g) => g.flags);

/** The usage, from the table, and where the options are described. Bad usage prints it under the message. */
export const USAGE = `${usageText([{ command: `${PROGRAM} check`, flags: CHECK_FLAGS, operands: 'FILE|DIR|- ...' }])}\n` +
  `Run '${PROGRAM} check --help' for what each option does and its default.`;

/** The full help of the CLI at `version`. */
export function helpText(version: string): string {
  const lines = [
    `${PROGRAM} ${version}: will these manifests survive losing a zone?`,
    '',
    `Usage: ${PROGRAM} check (--zones ZONE,... | --inventory FILE | --kubeconfig FILE) [options] FILE|DIR|- ...`,
    `       ${PROGRAM} check --kubeconfig FILE --live [--namespace NS,...] [options]  (what a cluster runs)`,
    `       ${PROGRAM} traffic (--zones ZONE,... | --inventory FILE | --kubeconfig FILE) [options] FILE|DIR|- ...`,
    '         (per Service, the requests that cross zones and the busiest endpoint; traffic --help)',
    `       ${PROGRAM} shift start|status|cancel ...  (an impaired zone out of service; shift --help)`,
    `       ${PROGRAM} drill --zone ZONE ...          (a zone-outage drill on a live cluster; drill --help)`,
    `       ${PROGRAM} --version`,
    '',
    'Reads Kubernetes manifests (files; directories: their .yaml, .yml and .json files, recursively; - for stdin),',
    'places the pods of each workload on the nodes the options describe as the scheduler may, and reports what',
    'is left of each workload when a zone is lost.',
    ...flagsHelp(CHECK_FLAG_GROUPS),
    '',
    'Exit codes: 0 every workload survives losing any one zone; 1 some do not; 2 bad input or usage.',
    `3 a bug; 130 interrupted: ${docsUrl('cli.md', 'Exit codes')}`,
    `Guide: ${docsUrl('check.md')}`,
    '',
  ];
  return lines.join('\n');
}
