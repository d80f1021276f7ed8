/**
 * `run`: the controller process. Every replica serves /metrics, /healthz, /readyz and the admission
 * webhooks of the chosen reconcilers; with `--leader-elect` only the replica holding the Lease runs the
 * reconcilers (the other one takes over when the Lease expires or is released). SIGTERM/SIGINT stop the
 * watches, release the Lease and close the servers (SIGTERM exits 0, SIGINT 130); losing the Lease exits 2 (it could
 * not renew it) so the pod restarts clean. The exit codes are the one table of src/contract/exit-codes.ts.
 */
import { promises as fs } from 'fs';
import { isIP } from 'net';
import * as os from 'os';
import * as path from 'path';
import { WELL_KNOWN_ZONE_KEY } from '../../../src/contract/labels';
import { ZONE_ANNOTATOR, ZONE_AUTOSHIFT, ZONE_SHIFT } from '../../../src/contract/reconcilers';
import { serviceAccountDir } from '../../../src/kubernetes/kube-connection';
import { FlagSpec, HELP_FLAG, ParsedFlags, parseCommandLine, usageText } from '../../../src/shared/command-line';
import { Command, commandHelp, parseOrUsageError } from '../cli';
import type { RunOptions, TlsMode } from '../controller';
import { Logger } from '../log';
import { DEFAULT_API_CONCURRENCY, Reconciler } from '../reconciler';
import { RECONCILERS } from '../reconcilers';
import { DEFAULT_REDIS_INTERVAL_MS } from '../reconcilers/redis';
import { DEFAULT_REPLACED_PER_PASS } from '../redis/upgrade';
import { serviceHosts } from '../tls/hosts';

function ip(flag: string, raw: string): string {
  if (isIP(raw) === 0) throw new Error(`run: --${flag}=${JSON.stringify(raw)} must be an IP address`);
  return raw;
}

function list(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** A comma-separated list of namespace names (DNS labels). */
function namespaces(flag: string, raw: string): string[] {
  const names = list(raw);
  const bad = names.find((n) => !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n));
  if (bad !== undefined) throw new Error(`run: --${flag}: ${JSON.stringify(bad)} is not a namespace name (a DNS label)`);
  return names;
}

/** `run`'s flags: the one table its parser and its help come from. */
export const RUN_FLAGS: readonly FlagSpec[] = [
  {
    name: 'reconcilers',
    type: 'text',
    value: 'LIST',
    default: ZONE_ANNOTATOR,
    meaning: `comma-separated, of: ${RECONCILERS.map((r) => r.name).join(', ')}`,
  },
  {
    name: 'kubeconfig',
    type: 'text',
    value: 'FILE',
    defaultText: 'in-cluster service account, else $KUBECONFIG or ~/.kube/config',
    meaning: 'the API server and credentials',
  },
  {
    name: 'api-concurrency',
    type: 'count',
    default: String(DEFAULT_API_CONCURRENCY),
    meaning: 'requests each reconciler keeps in flight to the API server, with up to 2N keep-alive connections',
  },
  {
    name: 'leader-elect',
    type: 'switch',
    meaning: 'only the holder of the Lease runs reconcilers (use with 2 replicas; off: this replica runs them)',
  },
  {
    name: 'lease-namespace',
    type: 'text',
    value: 'NS',
    defaultText: '$POD_NAMESPACE, else the service account\'s namespace, else default',
    meaning: 'the Lease\'s namespace',
  },
  { name: 'lease-name', type: 'text', value: 'NAME', default: 'cdk8s-zones-controller', meaning: 'the Lease' },
  {
    name: 'lease-duration',
    type: 'duration',
    default: '15s',
    meaning: 'how long a Lease holds without renewal, in whole seconds',
  },
  {
    name: 'renew-deadline',
    type: 'duration',
    default: '10s',
    meaning: 'the leader gives up after failing to renew for this long',
  },
  {
    name: 'retry-period',
    type: 'duration',
    default: '2s',
    meaning: 'how often to renew, or try to acquire, the Lease',
  },
  {
    name: 'identity',
    type: 'text',
    value: 'NAME',
    defaultText: '$POD_NAME, else <hostname>-<pid>',
    meaning: 'this replica in the Lease, logs and Events',
  },
  {
    name: 'topology-keys',
    type: 'text',
    value: 'LIST',
    default: WELL_KNOWN_ZONE_KEY,
    meaning: 'node label keys of the zone annotation',
  },
  {
    name: 'shift-karpenter-node-pools',
    type: 'switch',
    meaning: 'while a zone is shifted cluster-wide, leave it out of every Karpenter NodePool (needs the zone-shift reconciler and one topology key)',
  },
  {
    name: 'autoshift-policy',
    type: 'text',
    value: 'NAME',
    defaultText: 'none; required with the zone-autoshift reconciler',
    meaning: 'the ZoneAutoshift the zone-autoshift reconciler acts on',
  },
  {
    name: 'redis-namespaces',
    type: 'text',
    value: 'LIST',
    defaultText: 'every namespace',
    meaning: 'namespaces the redis reconciler manages clusters in, one pod list each',
  },
  {
    name: 'redis-interval',
    type: 'duration',
    default: `${DEFAULT_REDIS_INTERVAL_MS / 1000}s`,
    meaning: 'how often the redis reconciler lists the pods and runs a full pass over each cluster',
  },
  {
    name: 'redis-replaced-per-pass',
    type: 'count',
    default: String(DEFAULT_REPLACED_PER_PASS),
    meaning: 'out-of-date Redis pods replaced per pass, all of one zone',
  },
  {
    name: 'metrics-port',
    type: 'count',
    min: 0,
    max: 65535,
    default: '8080',
    meaning: 'HTTP /metrics /healthz /readyz',
  },
  { name: 'webhook-port', type: 'count', min: 0, max: 65535, default: '9443', meaning: 'HTTPS admission webhooks' },
  {
    name: 'tls-mode',
    type: 'choice',
    choices: ['files', 'self-managed'],
    value: 'MODE',
    default: 'files',
    meaning: 'files (--tls-cert-file, --tls-key-file) or self-managed',
  },
  {
    name: 'tls-cert-file',
    type: 'text',
    value: 'FILE',
    defaultText: 'none',
    meaning: 'files: the PEM serving certificate (tls.crt of a cert-manager Secret); needed when a reconciler serves a webhook',
  },
  { name: 'tls-key-file', type: 'text', value: 'FILE', defaultText: 'none', meaning: 'files: its PEM key (tls.key)' },
  {
    name: 'tls-secret',
    type: 'text',
    value: 'NAME',
    defaultText: '<lease-name>-webhook-tls',
    meaning: 'self-managed: the Secret for the CA and certificate',
  },
  {
    name: 'webhook-service',
    type: 'text',
    value: 'NAME',
    defaultText: '<lease-name>',
    meaning: 'self-managed: the Service the API server calls',
  },
  {
    name: 'tls-hosts',
    type: 'text',
    value: 'LIST',
    defaultText: 'none, the Service\'s names only',
    meaning: 'self-managed: more DNS names or IPs for the certificate',
  },
  {
    name: 'webhook-configurations',
    type: 'text',
    value: 'LIST',
    defaultText: 'none',
    meaning: 'self-managed: ValidatingWebhookConfigurations to keep the caBundle of',
  },
  { name: 'bind-address', type: 'text', value: 'IP', default: '0.0.0.0', meaning: 'the webhook listener\'s address' },
  {
    name: 'metrics-bind-address',
    type: 'text',
    value: 'IP',
    default: '0.0.0.0',
    meaning: 'the /metrics /healthz /readyz listener\'s address; the kubelet probes through the pod IP',
  },
  {
    name: 'request-timeout',
    type: 'duration',
    default: '10s',
    meaning: 'both listeners: a request\'s headers and body must arrive within this; bodies over 8 MiB are answered 413',
  },
  HELP_FLAG,
];

export const RUN_HELP = commandHelp(
  usageText([{ command: 'cdk8s-zones-controller run', flags: RUN_FLAGS }], 'usage:').split('\n'),
  [
    'Runs the controller: reconcilers on the leader, webhooks and metrics on every replica. /readyz answers 200',
    'once the API server has answered and every watch cache holds its first list. Durations: 15s, 5m, 2h, 500ms.',
  ],
  RUN_FLAGS,
);

/** The reconcilers `--reconcilers` names, each known and named once. */
function reconcilersNamed(raw: string, registry: readonly Reconciler[]): Reconciler[] {
  const names = list(raw);
  if (names.length === 0) throw new Error('run: --reconcilers names no reconciler');
  const reconcilers = names.map((name) => {
    const r = registry.find((c) => c.name === name);
    if (!r) throw new Error(`run: --reconcilers: unknown reconciler ${JSON.stringify(name)}; known: ${registry.map((c) => c.name).join(', ')}`);
    return r;
  });
  if (new Set(names).size !== names.length) throw new Error(`run: --reconcilers=${JSON.stringify(raw)} names a reconciler twice`);
  return reconcilers;
}

/** The leader election's timings, in the order that keeps two leaders from overlapping. */
function leaseTimings(f: ParsedFlags): Pick<RunOptions, 'leaseDurationSeconds' | 'renewDeadlineMs' | 'retryPeriodMs'> {
  const leaseDurationMs = f.ms('lease-duration')!;
  if (leaseDurationMs % 1000 !== 0) {
    const written = JSON.stringify(f.written('lease-duration'));
    throw new Error(`run: --lease-duration=${written} must be whole seconds (a Lease counts in seconds)`);
  }
  const leaseDurationSeconds = leaseDurationMs / 1000;
  const renewDeadlineMs = f.ms('renew-deadline')!;
  const retryPeriodMs = f.ms('retry-period')!;
  if (!(retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationMs)) {
    throw new Error(`run: need --retry-period (${retryPeriodMs / 1000}) < --renew-deadline (${renewDeadlineMs / 1000}) < ` +
      `--lease-duration (${leaseDurationSeconds}), or two leaders could overlap`);
  }
  return { leaseDurationSeconds, renewDeadlineMs, retryPeriodMs };
}

/** `--tls-mode`, with the flags each mode takes and refuses. */
function checkedTlsMode(f: ParsedFlags): TlsMode {
  const tlsMode = f.text('tls-mode') as TlsMode;
  const [certFile, keyFile] = [f.text('tls-cert-file'), f.text('tls-key-file')];
  if (tlsMode === 'files' && (certFile === undefined) !== (keyFile === undefined)) {
    throw new Error('run: --tls-cert-file and --tls-key-file go together');
  }
  if (tlsMode === 'self-managed' && (certFile || keyFile)) {
    throw new Error('run: --tls-cert-file and --tls-key-file are for --tls-mode files; self-managed makes its own');
  }
  if (tlsMode === 'files') {
    for (const flag of ['tls-secret', 'webhook-service', 'tls-hosts', 'webhook-configurations'] as const) {
      if (f.text(flag)) throw new Error(`run: --${flag} is for --tls-mode self-managed (cert-manager or files manage their own)`);
    }
  }
  return tlsMode;
}

/** `--autoshift-policy`: required with the zone-autoshift reconciler (which needs zone-shift), refused without. */
function autoshiftPolicyOf(policy: string | undefined, reconcilers: readonly Reconciler[]): string | undefined {
  const autoshift = reconcilers.some((r) => r.name === ZONE_AUTOSHIFT);
  if (autoshift !== (policy !== undefined)) {
    throw new Error(autoshift ? 'run: the zone-autoshift reconciler needs --autoshift-policy (the ZoneAutoshift it acts on)'
      : 'run: --autoshift-policy needs the zone-autoshift reconciler in --reconcilers');
  }
  if (autoshift && !reconcilers.some((r) => r.name === ZONE_SHIFT)) {
    throw new Error('run: the zone-autoshift reconciler needs the zone-shift reconciler in --reconcilers (it starts ZoneShifts)');
  }
  return policy;
}

/** Parses `run`'s flags; `env` and `serviceAccountNamespace` supply defaults (POD_NAME, POD_NAMESPACE). */
export function parseRun(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  serviceAccountNamespace?: string,
  registry: readonly Reconciler[] = RECONCILERS,
): RunOptions {
  const f = parseCommandLine(args, RUN_FLAGS);
  if (f.positional.length > 0) throw new Error(`run takes no argument (${JSON.stringify(f.positional[0])})`);
  const reconcilers = reconcilersNamed(f.text('reconcilers')!, registry);
  const topologyKeys = list(f.text('topology-keys')!);
  if (topologyKeys.length === 0) throw new Error('run: --topology-keys names no label key');
  const shiftKarpenterNodePools = f.on('shift-karpenter-node-pools');
  if (shiftKarpenterNodePools && !reconcilers.some((r) => r.name === ZONE_SHIFT)) {
    throw new Error('run: --shift-karpenter-node-pools needs the zone-shift reconciler in --reconcilers');
  }
  if (shiftKarpenterNodePools && topologyKeys.length !== 1) {
    throw new Error(`run: --shift-karpenter-node-pools needs one --topology-keys key (got ${topologyKeys.join(',')}): ` +
      'a NodePool requirement names one node label');
  }
  const autoshiftPolicy = autoshiftPolicyOf(f.text('autoshift-policy'), reconcilers);
  const tlsMode = checkedTlsMode(f);
  const { leaseDurationSeconds, renewDeadlineMs, retryPeriodMs } = leaseTimings(f);
  const leaseNamespace = f.text('lease-namespace') ?? env.POD_NAMESPACE ?? serviceAccountNamespace ?? 'default';
  const leaseName = f.text('lease-name')!;
  const serviceNames = serviceHosts(f.text('webhook-service') ?? leaseName, leaseNamespace);
  const tlsHosts = [...serviceNames, ...list(f.text('tls-hosts') ?? '')];
  return {
    reconcilers,
    kubeconfig: f.text('kubeconfig'),
    apiConcurrency: f.count('api-concurrency')!,
    leaderElect: f.on('leader-elect'),
    leaseNamespace,
    leaseName,
    leaseDurationSeconds,
    renewDeadlineMs,
    retryPeriodMs,
    identity: f.text('identity') ?? env.POD_NAME ?? `${os.hostname()}-${process.pid}`,
    topologyKeys,
    shiftKarpenterNodePools,
    autoshiftPolicy,
    redisNamespaces: namespaces('redis-namespaces', f.text('redis-namespaces') ?? ''),
    redisIntervalMs: f.ms('redis-interval')!,
    redisReplacedPerPass: f.count('redis-replaced-per-pass')!,
    metricsPort: f.count('metrics-port')!,
    webhookPort: f.count('webhook-port')!,
    tlsMode,
    tlsCertFile: f.text('tls-cert-file'),
    tlsKeyFile: f.text('tls-key-file'),
    tlsSecret: f.text('tls-secret') ?? `${leaseName}-webhook-tls`,
    tlsHosts,
    webhookConfigurations: list(f.text('webhook-configurations') ?? ''),
    webhookHost: ip('bind-address', f.text('bind-address')!),
    metricsHost: ip('metrics-bind-address', f.text('metrics-bind-address')!),
    requestTimeoutMs: f.ms('request-timeout')!,
  };
}

export const run: Command = {
  name: 'run',
  summary: 'run the controller (reconcilers on the leader, webhooks and metrics on every replica)',
  help: RUN_HELP,
  flags: RUN_FLAGS,
  async run(args: string[], log: Logger): Promise<number> {
    const saNamespace = await fs.readFile(path.join(serviceAccountDir(), 'namespace'), 'utf8')
      .then((s) => s.trim(), () => undefined);
    const opts = parseOrUsageError('run', () => parseRun(args, process.env, saNamespace));
    // The process part (client, servers, signals) lives apart so this file stays loadable by jest.
    const { runController } = await import('../controller.js');
    return runController(opts, log);
  },
};
