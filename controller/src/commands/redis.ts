/**
 * `redis <operation>`: the Redis cluster manager's operations on a static inventory (a JSON file naming
 * the planned layout and where each node runs). Prints the cluster state as JSON on stdout.
 *   state                       observe and print the state and the steps reconcile would take
 *   reconcile                   drive the cluster to the planned layout (bootstrap, heal, reshard, rebalance)
 *   fix                         reconcile, and serve slots whose master and replicas are all lost (their keys are gone)
 *   rebalance                   only fail masters back to their planned nodes (no zone holds a majority)
 *   forget-lost-nodes           forget every failed node, including unanswering nodes of the inventory
 *   reset --yes-destroy-data    FLUSHALL and CLUSTER RESET HARD on every node, then bootstrap an empty cluster
 */
import { promises as fs } from 'fs';
import { docsUrl } from '../../../src/contract/docs';
import { ExitCode } from '../../../src/contract/exit-codes';
import { FlagSpec, HELP_FLAG, parseCommandLine, usageText } from '../../../src/shared/command-line';
import { Command, commandHelp, parseOrUsageError } from '../cli';
import { Logger } from '../log';
import { Mode } from '../redis/decide';
import { parseInventory } from '../redis/inventory';
import { passwordFromBytes } from '../redis/password';

const OPERATIONS = ['state', 'reconcile', 'fix', 'rebalance', 'forget-lost-nodes', 'reset'] as const;
type Operation = typeof OPERATIONS[number];

export const REDIS_FLAGS: readonly FlagSpec[] = [
  {
    name: 'inventory',
    type: 'text',
    value: 'FILE',
    required: true,
    meaning: '{"layout": <layout.json>, "nodes": [{"name","zone","address"}]}',
  },
  {
    name: 'password-file',
    type: 'text',
    value: 'FILE',
    defaultText: 'none, no AUTH',
    meaning: 'the password: every byte of the file, a trailing newline included, as the pods read their Secret key ' +
      '(e.g. kubectl get secret NAME -o jsonpath=\'{.data.KEY}\' | base64 -d); never on the command line nor in the environment',
  },
  { name: 'timeout', type: 'duration', default: '60s', meaning: 'give up after this long' },
  {
    name: 'takeover',
    type: 'switch',
    meaning: 'rebalance with CLUSTER FAILOVER TAKEOVER (only when a master cannot agree)',
  },
  {
    name: 'zone-loss-failover-after',
    type: 'duration',
    defaultText: 'none, Redis fails them over by itself',
    meaning: 'reconcile, fix: when no node of a zone answers and every surviving master has heard nothing from them for ' +
      'this long, fail the zone\'s masters over (CLUSTER FAILOVER FORCE, still elected by a majority of masters); below ' +
      'cluster-node-timeout, like the cluster\'s zoneLossFailoverAfter',
  },
  { name: 'yes-destroy-data', type: 'switch', meaning: 'confirm \'reset\'' },
  HELP_FLAG,
];

const HELP = commandHelp(
  usageText([{ command: `cdk8s-zones-controller redis <${OPERATIONS.join('|')}>`, flags: REDIS_FLAGS }], 'usage:')
    .split('\n'),
  [
    '  state               print the cluster state (JSON) and the steps reconcile would take',
    '  reconcile           drive the cluster to the planned layout: bootstrap, meet, replicate, reshard, rebalance',
    '  fix                 reconcile, and also serve slots whose master and all replicas are lost (keys lost)',
    '  rebalance           fail masters back to their planned nodes so no zone holds a majority of masters',
    '  forget-lost-nodes   CLUSTER FORGET every failed node',
    '  reset               destroy every key and the cluster, then bootstrap again (needs --yes-destroy-data)',
  ],
  REDIS_FLAGS,
  [
    '',
    'Exit code 0 when the cluster ends healthy, 1 if not; 2 for bad input (flags, a file missing or invalid);',
    `3 for a bug: ${docsUrl('cli.md', 'Exit codes')}`,
  ],
);

export interface RedisOptions {
  readonly operation: Operation;
  readonly inventory: string;
  readonly passwordFile?: string;
  readonly timeoutMs: number;
  readonly takeover: boolean;
  readonly zoneLossFailoverAfterMs?: number;
}

export function parseRedis(args: string[]): RedisOptions {
  const f = parseCommandLine(args, REDIS_FLAGS);
  const [operation, ...extra] = f.positional;
  if (!OPERATIONS.includes(operation as Operation) || extra.length > 0) {
    throw new Error(`redis: operation ${JSON.stringify(f.positional.join(' '))} must be one of ${OPERATIONS.join(', ')}`);
  }
  if (operation === 'reset' && !f.on('yes-destroy-data')) {
    throw new Error('redis: reset destroys every key of the cluster; confirm with --yes-destroy-data');
  }
  const inventory = f.text('inventory');
  if (!inventory) throw new Error('redis: --inventory is required');
  return {
    operation: operation as Operation,
    inventory,
    passwordFile: f.text('password-file'),
    timeoutMs: f.ms('timeout')!,
    takeover: f.on('takeover'),
    zoneLossFailoverAfterMs: f.ms('zone-loss-failover-after'),
  };
}

export const redis: Command = {
  name: 'redis',
  summary: 'Redis Cluster manager on a static inventory: state, reconcile, fix, rebalance, forget-lost-nodes, reset',
  help: HELP,
  flags: REDIS_FLAGS,
  async run(args: string[], log: Logger): Promise<number> {
    const opts = parseOrUsageError('redis', () => parseRedis(args));
    const inventory = await fs.readFile(opts.inventory, 'utf8');
    const { layout, nodes } = parseOrUsageError('redis', () => parseInventory(inventory));
    const file = opts.passwordFile;
    const bytes = file === undefined ? undefined : await fs.readFile(file);
    const password = bytes && parseOrUsageError('redis', () => passwordFromBytes(bytes, `--password-file ${file}`));
    // Loaded here, not at the top: every command of the CLI (`run` too) loads this file, and the Redis client is large.
    const { RedisClusterManager } = await import('../redis/manager.js');
    const manager = new RedisClusterManager(layout, nodes, {
      password,
      timeoutMs: opts.timeoutMs,
      takeover: opts.takeover,
      zoneLossFailoverAfterMs: opts.zoneLossFailoverAfterMs,
      log,
    });
    try {
      const state = opts.operation === 'state' ? await manager.state()
        : opts.operation === 'reset' ? await manager.resetDestroyingData()
          : await manager.converge({ mode: opts.operation as Mode });
      process.stdout.write(JSON.stringify(state, undefined, 2) + '\n');
      return state.healthy ? ExitCode.OK : ExitCode.FAILED;
    } finally {
      manager.close();
    }
  },
};
