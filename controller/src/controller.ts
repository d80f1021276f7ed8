/**
 * The running controller process: connects to the API server, serves metrics and webhooks, campaigns for
 * the Lease (with --leader-elect), runs the reconcilers while leading, and shuts down in order on
 * SIGTERM/SIGINT. `run` (commands/run.ts) parses the flags and loads this module only when it runs: the
 * flags, RunOptions included, are checked without connecting to anything.
 */
import { setMaxListeners } from 'events';
import { promises as fs } from 'fs';
import { AdmissionWebhook } from './admission';
import { KubeApi } from './kube/api';
import { connect, MAX_SIGNAL_LISTENERS } from './kube/connect';
import { kubeEventRecorder } from './kube/events';
import { delay } from './kube/informer';
import { kubeLeaseStore, LeaderElector } from './kube/leader';
import { Logger } from './log';
import { createMetrics, Metrics } from './metrics';
import { Readiness, waitForApiServer } from './readiness';
import { Reconciler, ReconcilerContext } from './reconciler';
import { Certificate, Servers, startServers } from './server';
import type { SelfManagedTlsOptions } from './tls/self-managed';
import { ExitCode, exitCodeOf } from '../../src/contract/exit-codes';
import { ZONE_SHIFT } from '../../src/contract/reconcilers';
import { UsageError } from '../../src/shared/errors';

export type TlsMode = 'files' | 'self-managed';

export interface RunOptions {
  readonly reconcilers: readonly Reconciler[];
  readonly kubeconfig?: string;
  /** Requests each reconciler keeps in flight to the API server (`--api-concurrency`). */
  readonly apiConcurrency: number;
  readonly leaderElect: boolean;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  readonly leaseDurationSeconds: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly identity: string;
  readonly topologyKeys: readonly string[];
  /** The namespaces the redis reconciler lists pods in; empty: every namespace. */
  readonly redisNamespaces: readonly string[];
  /** `--shift-karpenter-node-pools`: the zonal shift leaves shifted zones out of Karpenter's NodePools. */
  readonly shiftKarpenterNodePools?: boolean;
  /** `--autoshift-policy`: the ZoneAutoshift the zone-autoshift reconciler acts on. */
  readonly autoshiftPolicy?: string;
  /** How often the redis reconciler runs a full pass (`--redis-interval`). */
  readonly redisIntervalMs: number;
  /** Out-of-date Redis pods replaced per pass (`--redis-replaced-per-pass`). */
  readonly redisReplacedPerPass?: number;
  readonly metricsPort: number;
  readonly webhookPort: number;
  readonly tlsMode: TlsMode;
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  /** self-managed: the Secret holding the CA and serving certificate. */
  readonly tlsSecret: string;
  /** self-managed: the names the serving certificate covers (the webhook Service's, plus --tls-hosts). */
  readonly tlsHosts: readonly string[];
  /** self-managed: the ValidatingWebhookConfigurations whose caBundle the controller keeps current. */
  readonly webhookConfigurations: readonly string[];
  /** The address the webhook listener binds. */
  readonly webhookHost: string;
  /** The address the metrics and probes listener binds. */
  readonly metricsHost: string;
  /** Both listeners: a request (headers and body) must arrive within this. */
  readonly requestTimeoutMs: number;
}

/** How long reconcilers get to finish their current work after the stop signal. */
const STOP_GRACE_MS = 10_000;

/** How often the serving certificate is checked (files re-read, Secret and caBundle reconciled). */
const TLS_CHECK_MS = 60_000;

/** Waits one TLS check period; false once `signal` aborted. */
async function tick(signal: AbortSignal): Promise<boolean> {
  await delay(TLS_CHECK_MS, signal);
  return !signal.aborted;
}

interface Tls {
  readonly certificate: Certificate;
  /** Keeps the certificate (and, self-managed, the caBundle) current until `signal` aborts. */
  maintain(signal: AbortSignal, apply: (cert: Certificate) => void): Promise<void>;
}

/** The webhook server's TLS, or undefined when no webhook is served and no TLS is configured. */
async function webhookTls(
  opts: RunOptions,
  webhooks: readonly AdmissionWebhook[],
  kube: KubeApi,
  log: Logger,
): Promise<Tls | undefined> {
  return opts.tlsMode === 'files' ? filesTls(opts, webhooks, log) : selfManagedTls(opts, kube, log);
}

/** TLS from `--tls-cert-file` and `--tls-key-file`, re-read when they change on disk. */
async function filesTls(
  opts: RunOptions,
  webhooks: readonly AdmissionWebhook[],
  log: Logger,
): Promise<Tls | undefined> {
  if (!opts.tlsCertFile || !opts.tlsKeyFile) {
    if (webhooks.length === 0) return undefined;
    throw new UsageError(`the reconcilers serve admission webhooks (${webhooks.map((w) => w.path).join(', ')}): ` +
      'give --tls-cert-file and --tls-key-file, or --tls-mode self-managed');
  }
  const read = async (): Promise<Certificate> => ({
    cert: await fs.readFile(opts.tlsCertFile!, 'utf8'),
    key: await fs.readFile(opts.tlsKeyFile!, 'utf8'),
  });
  let current = await read();
  return {
    certificate: current,
    async maintain(signal, apply) {
      while (await tick(signal)) {
        const next = await read().catch((err) => {
          log.warn('could not re-read the serving certificate', { error: err });
          return current;
        });
        if (next.cert !== current.cert || next.key !== current.key) {
          log.info('serving certificate changed on disk, reloaded', { file: opts.tlsCertFile });
          apply(next);
          current = next;
        }
      }
    },
  };
}

/** TLS the controller issues itself, kept in a Secret, its CA injected into the webhook configurations. */
async function selfManagedTls(opts: RunOptions, kube: KubeApi, log: Logger): Promise<Tls> {
  // Loaded only in this mode: the certificate library is large, and files mode never needs it.
  const { ensureWebhookPki, injectCaBundle } = await import('./tls/self-managed.js');
  const tlsOpts: SelfManagedTlsOptions = {
    namespace: opts.leaseNamespace,
    secretName: opts.tlsSecret,
    hosts: opts.tlsHosts,
    webhookConfigurations: opts.webhookConfigurations,
    log,
  };
  let pki = await ensureWebhookPki(kube, tlsOpts);
  await injectCaBundle(kube, tlsOpts, pki.ca.cert);
  return {
    certificate: pki.serving,
    async maintain(signal, apply) {
      while (await tick(signal)) {
        try {
          const next = await ensureWebhookPki(kube, tlsOpts);
          if (next.serving.cert !== pki.serving.cert) {
            log.info('webhook certificate renewed, reloaded');
            apply(next.serving);
          }
          pki = next;
          await injectCaBundle(kube, tlsOpts, pki.ca.cert);
        } catch (err) {
          log.warn('could not check the webhook certificates', { error: err });
        }
      }
    },
  };
}

/** What every reconciler gets: the log, metrics, API client, Event recorder and the run's settings. */
function reconcilerContext(opts: RunOptions, kube: KubeApi, log: Logger, metrics: Metrics): ReconcilerContext {
  return {
    log,
    metrics,
    kube,
    events: kubeEventRecorder(kube, 'cdk8s-zones-controller', opts.identity, log),
    settings: {
      topologyKeys: opts.topologyKeys,
      namespace: opts.leaseNamespace,
      identity: opts.identity,
      redisNamespaces: opts.redisNamespaces,
      redisIntervalMs: opts.redisIntervalMs,
      redisReplacedPerPass: opts.redisReplacedPerPass,
      apiConcurrency: opts.apiConcurrency,
      zoneShifts: opts.reconcilers.some((r) => r.name === ZONE_SHIFT),
      shiftKarpenterNodePools: opts.shiftKarpenterNodePools,
      autoshiftPolicy: opts.autoshiftPolicy,
    },
  };
}

/**
 * Runs `lead` until `shutdown` aborts: at once, or while this replica holds the lease (`--leader-elect`; losing
 * it calls `lostLease`). On shutdown the reconcilers get STOP_GRACE_MS to finish, then the lease is released.
 */
async function leadUntilStopped(
  opts: RunOptions,
  kube: KubeApi,
  log: Logger,
  shutdown: AbortSignal,
  lead: (signal: AbortSignal) => Promise<void>,
  lostLease: () => void,
): Promise<void> {
  if (opts.leaderElect) {
    const elector = new LeaderElector(kubeLeaseStore(kube, opts.leaseNamespace, opts.leaseName), {
      identity: opts.identity,
      leaseDurationSeconds: opts.leaseDurationSeconds,
      renewDeadlineMs: opts.renewDeadlineMs,
      retryPeriodMs: opts.retryPeriodMs,
      stopGraceMs: STOP_GRACE_MS,
      log,
    });
    log.info('campaigning for the lease', { lease: `${opts.leaseNamespace}/${opts.leaseName}` });
    await elector.run(shutdown, { onStartedLeading: lead, onStoppedLeading: lostLease });
    return;
  }
  const leading = lead(shutdown);
  await new Promise<void>((resolve) => (shutdown.aborted
    ? resolve()
    : shutdown.addEventListener('abort', () => resolve(), { once: true })));
  const grace = new AbortController();
  await Promise.race([leading, delay(STOP_GRACE_MS, grace.signal)]);
  grace.abort();
}

/**
 * Runs every reconciler until `signal` aborts, as the leader; one that fails calls `failed` (which ends the
 * process).
 */
async function runReconcilers(
  reconcilers: readonly Reconciler[], ctx: ReconcilerContext, signal: AbortSignal,
  failed: (name: string, err: unknown) => void,
): Promise<void> {
  ctx.metrics.leader.set(1);
  ctx.log.info('running reconcilers', { reconcilers: reconcilers.map((r) => r.name) });
  await Promise.all(reconcilers.map((r) => r.run(ctx, signal).catch((err) => {
    ctx.log.error('reconciler failed', { reconciler: r.name, error: err, stack: err instanceof Error ? err.stack : undefined });
    failed(r.name, err);
  })));
  ctx.metrics.leader.set(0);
}

/** The process's stop: the first reason wins and is logged once; /readyz answers not ready from then on. */
class Shutdown {
  private readonly controller = new AbortController();
  exitCode = 0;

  constructor(private readonly log: Logger, private readonly readiness: Readiness) {
    // Every open watch and request listens to it (one listener each, removed when it ends): not a leak.
    setMaxListeners(MAX_SIGNAL_LISTENERS, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(why: string, code: number): void {
    if (this.signal.aborted) return;
    this.log.info('stopping', { why });
    this.exitCode = code;
    this.readiness.stop();
    this.controller.abort();
  }

  /** Ends whatever still runs (a failed start), without a reason to log. */
  end(code: number): void {
    if (this.signal.aborted) return;
    this.exitCode = code;
    this.readiness.stop();
    this.controller.abort();
  }
}

/** What runController takes from its process; a test gives its own. */
export interface ControllerHost {
  /** The API client. @default one connected as `--kubeconfig` says */
  readonly kube?: KubeApi;
  /** Calls `stop` on SIGTERM and SIGINT until the function it returns is called. @default the process's signals */
  readonly onSignals?: (stop: (signal: string) => void) => () => void;
  /** After the stop: whatever still holds the event loop must not keep the process alive. @default exit after 2 s */
  readonly exitSoon?: (code: number) => void;
  /** Called once the listeners are bound (a test reads their ports). */
  readonly listening?: (servers: Servers) => void;
}

function processSignals(stop: (signal: string) => void): () => void {
  const onSignal = (sig: NodeJS.Signals) => stop(sig);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}

function exitSoon(code: number): void {
  // A socket the API server keeps open must not keep a stopped controller alive.
  setTimeout(() => process.exit(code), 2_000).unref();
}

/** The API client of `--kubeconfig`; a kubeconfig it cannot use is bad input (exit 2). */
function connectOrUsageError(opts: RunOptions): KubeApi {
  try {
    // Twice the reconcilers' concurrency: the lease, Events and webhook TLS always find a connection.
    return connect({ kubeconfig: opts.kubeconfig, maxSockets: 2 * opts.apiConcurrency });
  } catch (err) {
    const which = opts.kubeconfig === undefined ? 'the kubeconfig' : `--kubeconfig ${opts.kubeconfig}`;
    throw new UsageError(`run: ${which}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Serves metrics, probes and webhooks, and leads (or campaigns to) until `shutdown` aborts. */
async function serveAndLead(
  opts: RunOptions,
  ctx: ReconcilerContext & { readiness: Readiness },
  tls: Tls | undefined,
  webhooks: readonly AdmissionWebhook[],
  shutdown: Shutdown,
  listening?: (servers: Servers) => void,
): Promise<void> {
  const servers = await startServers({
    metricsPort: opts.metricsPort,
    metricsHost: opts.metricsHost,
    webhook: tls && { port: opts.webhookPort, host: opts.webhookHost, certificate: tls.certificate, webhooks },
    metrics: ctx.metrics,
    log: ctx.log,
    limits: { requestTimeoutMs: opts.requestTimeoutMs },
    notReady: () => ctx.readiness.notReadyBecause(),
  });
  listening?.(servers);
  const tlsMaintained = tls?.maintain(shutdown.signal, (cert) => servers.setCertificate(cert));
  const lead = (signal: AbortSignal) => runReconcilers(opts.reconcilers, ctx, signal,
    (name, err) => shutdown.stop(`reconciler ${name} failed`, exitCodeOf(err)));
  // could not renew the Lease (the API server unreachable or refusing): it cannot run as the leader any more
  const lostLease = () => shutdown.stop('lost the lease', ExitCode.CANNOT_RUN);
  // a stop while the listeners were starting: nothing to lead, and no `started` after `stopping`
  if (!shutdown.signal.aborted) await leadUntilStopped(opts, ctx.kube, ctx.log, shutdown.signal, lead, lostLease);
  await tlsMaintained;
  await servers.close();
}

export async function runController(opts: RunOptions, baseLog: Logger, host: ControllerHost = {}): Promise<number> {
  const log = baseLog.with({ identity: opts.identity });
  const kube = host.kube ?? connectOrUsageError(opts);
  const readiness = new Readiness();
  const ctx = { ...reconcilerContext(opts, kube, log, createMetrics()), readiness };
  const shutdown = new Shutdown(log, readiness);
  // SIGTERM is how Kubernetes stops a pod: a graceful stop, 0; SIGINT (Ctrl-C) is an interruption, 130
  const removeSignals = (host.onSignals ?? processSignals)(
    (sig) => shutdown.stop(sig, sig === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.OK));
  void waitForApiServer(kube, shutdown.signal, log).then((answered) => answered && readiness.apiServerAnswered());
  try {
    const webhooks = opts.reconcilers.flatMap((r) => r.webhooks?.(ctx, shutdown.signal) ?? []);
    for (const w of webhooks) if (w.synced) readiness.waitFor(`webhook ${w.name}`, w.synced);
    const tls = await webhookTls(opts, webhooks, kube, log);
    if (!shutdown.signal.aborted) await serveAndLead(opts, ctx, tls, webhooks, shutdown, host.listening);
    log.info('stopped', { exitCode: shutdown.exitCode });
  } catch (err) {
    shutdown.end(exitCodeOf(err)); // the watches a webhook started must not keep the failed process alive
    throw err;
  } finally {
    removeSignals();
    (host.exitSoon ?? exitSoon)(shutdown.exitCode);
  }
  return shutdown.exitCode;
}
