/**
 * `run`: the controller process. Every replica serves /metrics, /healthz, /readyz and the admission
 * webhooks of the chosen reconcilers; with `--leader-elect` only the replica holding the Lease runs the
 * reconcilers (the other one takes over when the Lease expires or is released). SIGTERM/SIGINT stop the
 * watches, release the Lease and close the servers; losing the Lease exits 1 so the pod restarts clean.
 */
import { promises as fs } from 'fs';
import { isIP } from 'net';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { WELL_KNOWN_ZONE_KEY } from '../../../src/contract/labels';
import { ZONE_ANNOTATOR } from '../../../src/contract/reconcilers';
import { serviceAccountDir } from '../../../src/kubernetes/kube-connection';
import { Command, parseOrUsageError } from '../cli';
import type { RunOptions, TlsMode } from '../controller';
import { Logger } from '../log';
import { DEFAULT_API_CONCURRENCY, Reconciler } from '../reconciler';
import { RECONCILERS } from '../reconcilers';
import { DEFAULT_REDIS_INTERVAL_MS } from '../reconcilers/redis';
import { serviceHosts } from '../tls/hosts';

export const RUN_HELP = `usage: cdk8s-zones-controller run [options]

Runs the controller: reconcilers on the leader, webhooks and metrics on every replica. /readyz answers 200
once the API server has answered and every watch cache holds its first list.
  --reconcilers LIST      comma-separated, of: ${RECONCILERS.map((r) => r.name).join(', ')} (default ${ZONE_ANNOTATOR})
  --kubeconfig FILE       default: in-cluster service account, else $KUBECONFIG or ~/.kube/config
  --api-concurrency N     requests each reconciler keeps in flight to the API server, with up to 2N
                          keep-alive connections (default ${DEFAULT_API_CONCURRENCY})
  --leader-elect          only the holder of the Lease runs reconcilers (use with 2 replicas; default off:
                          this replica runs them)
  --lease-namespace NS    default: $POD_NAMESPACE, else the service account's namespace, else default
  --lease-name NAME       default cdk8s-zones-controller
  --lease-duration S      seconds a Lease holds without renewal (default 15)
  --renew-deadline S      the leader gives up after failing to renew for this long (default 10)
  --retry-period S        how often to renew / try to acquire (default 2)
  --identity NAME         default: $POD_NAME, else <hostname>-<pid>
  --topology-keys LIST    node label keys of the zone annotation (default ${WELL_KNOWN_ZONE_KEY})
  --redis-namespaces LIST namespaces the redis reconciler manages clusters in, one pod list each (default: every namespace)
  --redis-interval S      how often the redis reconciler lists the pods and runs a full pass over each cluster (default ${DEFAULT_REDIS_INTERVAL_MS / 1000})
  --redis-replaced-per-pass N  out-of-date Redis pods replaced per pass, all of one zone (default 1)
  --metrics-port N        HTTP /metrics /healthz /readyz (default 8080)
  --webhook-port N        HTTPS admission webhooks (default 9443)
  --tls-mode MODE         files (--tls-cert-file, --tls-key-file) or self-managed (default files)
  --tls-cert-file FILE    files: the PEM serving certificate (tls.crt of a cert-manager Secret); needed when a
                          reconciler serves a webhook (default: none)
  --tls-key-file FILE     files: its PEM key (tls.key) (default: none)
  --tls-secret NAME       self-managed: the Secret for the CA and certificate (default <lease-name>-webhook-tls)
  --webhook-service NAME  self-managed: the Service the API server calls (default <lease-name>)
  --tls-hosts LIST        self-managed: more DNS names or IPs for the certificate (default: none, the Service's names only)
  --webhook-configurations LIST  self-managed: ValidatingWebhookConfigurations to keep the caBundle of (default: none)
  --bind-address IP       the webhook listener's address (default 0.0.0.0)
  --metrics-bind-address IP  the /metrics /healthz /readyz listener's address (default 0.0.0.0: the kubelet
                          probes through the pod IP)
  --request-timeout S     both listeners: a request's headers and body must arrive within this (default 10);
                          bodies over 8 MiB are answered 413
  -h, --help              print this help and exit
`;

function positive(flag: string, raw: string, integer = false): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`run: --${flag}=${JSON.stringify(raw)} must be ${integer ? 'an integer' : 'a number'} > 0`);
  }
  return n;
}

function port(flag: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`run: --${flag}=${JSON.stringify(raw)} must be a port number (0-65535)`);
  return n;
}

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

/** `run`'s flags and their defaults. */
export const RUN_FLAGS = {
  'reconcilers': { type: 'string', default: ZONE_ANNOTATOR },
  'kubeconfig': { type: 'string' },
  'api-concurrency': { type: 'string', default: String(DEFAULT_API_CONCURRENCY) },
  'leader-elect': { type: 'boolean', default: false },
  'lease-namespace': { type: 'string' },
  'lease-name': { type: 'string', default: 'cdk8s-zones-controller' },
  'lease-duration': { type: 'string', default: '15' },
  'renew-deadline': { type: 'string', default: '10' },
  'retry-period': { type: 'string', default: '2' },
  'identity': { type: 'string' },
  'topology-keys': { type: 'string', default: WELL_KNOWN_ZONE_KEY },
  'redis-namespaces': { type: 'string', default: '' },
  'redis-interval': { type: 'string', default: String(DEFAULT_REDIS_INTERVAL_MS / 1000) },
  'redis-replaced-per-pass': { type: 'string', default: '1' },
  'metrics-port': { type: 'string', default: '8080' },
  'webhook-port': { type: 'string', default: '9443' },
  'tls-mode': { type: 'string', default: 'files' },
  'tls-cert-file': { type: 'string' },
  'tls-key-file': { type: 'string' },
  'tls-secret': { type: 'string' },
  'webhook-service': { type: 'string' },
  'tls-hosts': { type: 'string', default: '' },
  'webhook-configurations': { type: 'string', default: '' },
  'bind-address': { type: 'string', default: '0.0.0.0' },
  'metrics-bind-address': { type: 'string', default: '0.0.0.0' },
  'request-timeout': { type: 'string', default: '10' },
} as const;

type RunFlags = ReturnType<typeof parseArgs<{ options: typeof RUN_FLAGS; strict: true }>>['values'];

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
function leaseTimings(values: RunFlags): { leaseDurationSeconds: number; renewDeadlineMs: number; retryPeriodMs: number } {
  const leaseDurationSeconds = positive('lease-duration', values['lease-duration']!, true);
  const renewDeadlineMs = positive('renew-deadline', values['renew-deadline']!) * 1000;
  const retryPeriodMs = positive('retry-period', values['retry-period']!) * 1000;
  if (!(retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationSeconds * 1000)) {
    throw new Error(`run: need --retry-period (${retryPeriodMs / 1000}) < --renew-deadline (${renewDeadlineMs / 1000}) < --lease-duration (${leaseDurationSeconds}), or two leaders could overlap`);
  }
  return { leaseDurationSeconds, renewDeadlineMs, retryPeriodMs };
}

/** `--tls-mode`, with the flags each mode takes and refuses. */
function checkedTlsMode(values: RunFlags): TlsMode {
  const tlsMode = values['tls-mode'] as TlsMode;
  if (tlsMode !== 'files' && tlsMode !== 'self-managed') throw new Error(`run: --tls-mode=${JSON.stringify(tlsMode)} must be files or self-managed`);
  if (tlsMode === 'files' && (values['tls-cert-file'] === undefined) !== (values['tls-key-file'] === undefined)) {
    throw new Error('run: --tls-cert-file and --tls-key-file go together');
  }
  if (tlsMode === 'self-managed' && (values['tls-cert-file'] || values['tls-key-file'])) {
    throw new Error('run: --tls-cert-file and --tls-key-file are for --tls-mode files; self-managed makes its own');
  }
  if (tlsMode === 'files') {
    for (const flag of ['tls-secret', 'webhook-service', 'tls-hosts', 'webhook-configurations'] as const) {
      if (values[flag]) throw new Error(`run: --${flag} is for --tls-mode self-managed (cert-manager or files manage their own)`);
    }
  }
  return tlsMode;
}

/** Parses `run`'s flags; `env` and `serviceAccountNamespace` supply defaults (POD_NAME, POD_NAMESPACE). */
export function parseRun(
  args: string[], env: NodeJS.ProcessEnv = {}, serviceAccountNamespace?: string, registry: readonly Reconciler[] = RECONCILERS,
): RunOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    options: RUN_FLAGS,
  });
  const reconcilers = reconcilersNamed(values.reconcilers!, registry);
  const topologyKeys = list(values['topology-keys']!);
  if (topologyKeys.length === 0) throw new Error('run: --topology-keys names no label key');
  const tlsMode = checkedTlsMode(values);
  const { leaseDurationSeconds, renewDeadlineMs, retryPeriodMs } = leaseTimings(values);
  const leaseNamespace = values['lease-namespace'] ?? env.POD_NAMESPACE ?? serviceAccountNamespace ?? 'default';
  const leaseName = values['lease-name']!;
  const webhookConfigurations = list(values['webhook-configurations']!);
  const tlsHosts = [...serviceHosts(values['webhook-service'] ?? leaseName, leaseNamespace), ...list(values['tls-hosts']!)];
  return {
    reconcilers,
    kubeconfig: values.kubeconfig,
    apiConcurrency: positive('api-concurrency', values['api-concurrency']!, true),
    leaderElect: values['leader-elect']!,
    leaseNamespace,
    leaseName,
    leaseDurationSeconds,
    renewDeadlineMs,
    retryPeriodMs,
    identity: values.identity ?? env.POD_NAME ?? `${os.hostname()}-${process.pid}`,
    topologyKeys,
    redisNamespaces: namespaces('redis-namespaces', values['redis-namespaces']!),
    redisIntervalMs: positive('redis-interval', values['redis-interval']!) * 1000,
    redisReplacedPerPass: positive('redis-replaced-per-pass', values['redis-replaced-per-pass']!, true),
    metricsPort: port('metrics-port', values['metrics-port']!),
    webhookPort: port('webhook-port', values['webhook-port']!),
    tlsMode,
    tlsCertFile: values['tls-cert-file'],
    tlsKeyFile: values['tls-key-file'],
    tlsSecret: values['tls-secret'] ?? `${leaseName}-webhook-tls`,
    tlsHosts,
    webhookConfigurations,
    webhookHost: ip('bind-address', values['bind-address']!),
    metricsHost: ip('metrics-bind-address', values['metrics-bind-address']!),
    requestTimeoutMs: positive('request-timeout', values['request-timeout']!) * 1000,
  };
}

export const run: Command = {
  name: 'run',
  summary: 'run the controller (reconcilers on the leader, webhooks and metrics on every replica)',
  help: RUN_HELP,
  flags: RUN_FLAGS,
  async run(args: string[], log: Logger): Promise<number> {
    const saNamespace = await fs.readFile(path.join(serviceAccountDir(), 'namespace'), 'utf8').then((s) => s.trim(), () => undefined);
    const opts = parseOrUsageError('run', () => parseRun(args, process.env, saNamespace));
    // The process part (client, servers, signals) lives apart so this file stays loadable by jest.
    const { runController } = await import('../controller.js');
    return runController(opts, log);
  },
};
