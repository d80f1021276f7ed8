/**
 * A real Kubernetes control plane for tests and benchmarks, on 127.0.0.1 with free ports: etcd,
 * kube-apiserver (PodSecurity and PodTopologyLabels admission), kube-controller-manager, kube-scheduler,
 * kwok playing the kubelets of fake nodes in several zones, and a fake zonal volume provisioner.
 *
 * Each run gets its own folder under .cache/k8s/runs/ (certificates, kubeconfigs, logs, etcd data);
 * `stop()` removes the etcd data and keeps the rest, and the last runs' folders are kept for reading
 * logs after a failure. A component that cannot start fails `start()` with its exit status and the end
 * of its log. Every component is stopped by a sentinel if the process that started it dies without
 * stopping it (a killed test run leaves no orphans on a shared machine).
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import { freePort, stopWhenOrphaned } from '../processes';
import { CACHE_DIR, programPath } from '../programs';
import { kwokDeleteGuard, podDeletionAuditArgs } from './api-server-policies';
import { KubeClient } from './kube-client';
import { FakeNode, KWOK_ANNOTATION, NodeLayout, nodeObject, notReady, planNodes } from './nodes';
import { ClientName, createPki, kubeconfig, Pki } from './pki';
import { FakeZonalProvisioner, storageClassObject } from './provisioner';
import { WaitAborted, waitFor } from './wait';

const RUNS_DIR = path.join(CACHE_DIR, 'k8s', 'runs');
/** Jest's global setup puts the path of the running cluster's cluster.json here for the test files. */
export const CLUSTER_ENV = 'CDK8S_ZONES_TEST_CLUSTER';

const SERVICE_CIDR = '10.96.0.0/16';
const SERVICE_IP = '10.96.0.1';
/** How many finished runs' folders (logs) to keep. */
const KEEP_RUNS = 4;

/** Everything a client of the cluster needs, written to `<runDir>/cluster.json`. */
export interface ClusterInfo {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** The CA of the API server's certificate. */
  readonly ca: string;
  /** An admin client certificate and key (group system:masters). */
  readonly cert: string;
  readonly key: string;
  /** An admin kubeconfig with the same identity (for kubectl, @kubernetes/client-node, a controller under test). */
  readonly kubeconfig: string;
  readonly runDir: string;
  readonly logsDir: string;
  readonly zones: readonly string[];
  readonly nodes: readonly FakeNode[];
  readonly kubernetesVersion: string;
}

export interface ControlPlaneOptions {
  /** Names the run folder (`<name>-<time>`). @default 'test' */
  readonly name?: string;
  /** @default three zones of three nodes */
  readonly layout?: NodeLayout;
  /**
   * The second octet of kwok's pod IPs on nodes without a podCIDR (`127.<octet>.0.0/16`): two control planes that run
   * side by side take different ones, as their nodes take different `layout.podCidrOctet`s. @default 240
   */
  readonly unassignedPodCidrOctet?: number;
  /** Where the binaries are (tests of the harness itself point it elsewhere). @default .cache/bin via programPath */
  readonly program?: (name: string) => string;
  /** @default 180_000 (a loaded 2-core machine) */
  readonly startTimeoutMs?: number;
}

/** GET a URL of a component; HTTPS without verifying its self-signed certificate (health endpoints only). */
function probe(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const req = get(url, { rejectUnauthorized: false, timeout: 5000 } as https.RequestOptions, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

function tail(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

let ticks: number | undefined;
/** Clock ticks per second, the unit of /proc/<pid>/stat times. */
function clockTicks(): number {
  return ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
}

/** One component: a child process writing to its own log file. */
class Component {
  readonly log: string;
  private readonly child: ChildProcess;
  /** Set when the process has exited: "exit code 1" or "signal SIGKILL". */
  exited?: string;
  private readonly done: Promise<void>;

  constructor(readonly name: string, binary: string, args: string[], logsDir: string) {
    this.log = path.join(logsDir, `${name}.log`);
    const fd = fs.openSync(this.log, 'a');
    fs.writeSync(fd, `# ${binary} ${args.join(' ')}\n`);
    this.child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    if (this.child.pid) stopWhenOrphaned(this.child.pid);
    this.done = new Promise((resolve) => {
      this.child.on('error', (err) => { this.exited = `failed to start: ${err.message}`; resolve(); });
      this.child.on('exit', (code, signal) => { this.exited = signal ? `signal ${signal}` : `exit code ${code}`; resolve(); });
    });
  }

  /** CPU time the process has used so far (user + system), from /proc. */
  cpuMillis(): number {
    this.assertRunning();
    // Fields after the command name (which is in parentheses and may contain spaces): utime and stime are the 12th
    // and 13th.
    const fields = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 1000 / clockTicks();
  }

  signal(sig: NodeJS.Signals): void {
    this.assertRunning();
    this.child.kill(sig);
  }

  /** Throws (with the end of the log) when the process has exited. */
  assertRunning(): void {
    if (this.exited) throw new WaitAborted(`${this.name} stopped (${this.exited}); the end of ${this.log}:\n${tail(this.log)}`);
  }

  /** Waits until `ready` holds, failing at once if the process exits. */
  async waitReady(what: string, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    await waitFor(`${this.name} to be ready (${what})`, async () => {
      this.assertRunning();
      return { done: await ready().catch(() => false) };
    }, { timeoutMs, intervalMs: 300 }).catch((err) => {
      if (err instanceof WaitAborted) throw err; // a crash, with its log
      throw new Error(`${err.message}; the end of ${this.log}:\n${tail(this.log)}`);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.done;
    clearTimeout(timer);
  }
}

/** The pid of the process running a run; removed when the run stops. */
const OWNER_FILE = 'owner.pid';

/** Removes the folders of old runs, keeping the last KEEP_RUNS finished ones and every one still running. */
function pruneRuns(): void {
  if (!fs.existsSync(RUNS_DIR)) return;
  const running = (run: string) => {
    try {
      process.kill(Number(fs.readFileSync(path.join(RUNS_DIR, run, OWNER_FILE), 'utf8')), 0);
      return true;
    } catch {
      return false; // no owner file (stopped), or its process is gone (killed: the sentinels stopped the components)
    }
  };
  const finished = fs.readdirSync(RUNS_DIR).sort().filter((r) => !running(r));
  for (const run of finished.slice(0, Math.max(0, finished.length - KEEP_RUNS))) {
    fs.rmSync(path.join(RUNS_DIR, run), { recursive: true, force: true });
  }
}

/** How often the control plane is started again when a port it picked was taken before its component bound it. */
const MAX_START_ATTEMPTS = 3;

export class ControlPlane {
  /** Starts every component and the nodes of `layout`; on failure stops what it started and throws. */
  public static async start(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const program = opts.program ?? programPath;
    const names = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'];
    const binaries = Object.fromEntries(names.map((n) => [n, program(n)])); // throws first when one is missing
    pruneRuns();
    for (let attempt = 1; ; attempt++) {
      const runDir = path.join(RUNS_DIR, `${opts.name ?? 'test'}-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
      const cp = new ControlPlane(runDir, binaries, opts.layout ?? {}, opts.unassignedPodCidrOctet ?? 240);
      try {
        await cp.boot(opts.startTimeoutMs ?? 180_000);
        return cp;
      } catch (err) {
        await cp.stop();
        const message = (err as Error).message;
        // A free port can be taken by another program (a test of the other lane) before a component binds it:
        // start again, on other free ports.
        if (attempt < MAX_START_ATTEMPTS && message.includes('address already in use')) continue;
        throw new Error(`the Kubernetes test control plane did not start (logs in ${cp.logsDir}): ${message}`);
      }
    }
  }

  public readonly logsDir: string;
  private readonly components: Component[] = [];
  private schedulerMetricsUrl?: string;
  private provisioner?: FakeZonalProvisioner;
  private clientOrUndefined?: KubeClient;
  private infoOrUndefined?: ClusterInfo;

  private constructor(
    readonly runDir: string,
    private readonly binaries: Record<string, string>,
    private readonly layout: NodeLayout,
    private readonly unassignedPodCidrOctet: number,
  ) {
    this.logsDir = path.join(runDir, 'logs');
    fs.mkdirSync(this.logsDir, { recursive: true });
    fs.writeFileSync(path.join(runDir, OWNER_FILE), String(process.pid));
  }

  /** An admin client. */
  public get client(): KubeClient {
    if (!this.clientOrUndefined) throw new Error('the control plane is not started');
    return this.clientOrUndefined;
  }

  public get info(): ClusterInfo {
    if (!this.infoOrUndefined) throw new Error('the control plane is not started');
    return this.infoOrUndefined;
  }

  /** Path of the JSON file holding `info`, for other processes (see CLUSTER_ENV). */
  public get infoFile(): string {
    return path.join(this.runDir, 'cluster.json');
  }

  private spawn(name: string, args: string[]): Component {
    const c = new Component(name, this.binaries[name], args, this.logsDir);
    this.components.push(c);
    return c;
  }

  private async boot(timeoutMs: number): Promise<void> {
    const dir = this.runDir;
    const [etcdPort, peerPort, apiPort, kcmPort, schedPort] = await Promise.all([1, 2, 3, 4, 5].map(freePort));
    const pki: Pki = createPki(path.join(dir, 'pki'), SERVICE_IP);
    const server = `https://127.0.0.1:${apiPort}`;
    const kubeconfigOf = (client: ClientName) => {
      const file = path.join(dir, `${client}.kubeconfig`);
      fs.writeFileSync(file, kubeconfig(server, pki.ca.cert, client, pki.clients[client]));
      return file;
    };

    const etcd = this.spawn('etcd', [
      '--name=test', `--data-dir=${path.join(dir, 'etcd-data')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`, `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=test=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync', // throwaway data: durability costs time and disk I/O shared with other jobs
      '--log-level=warn',
    ]);
    await etcd.waitReady('GET /health', async () => (await probe(`http://127.0.0.1:${etcdPort}/health`)).body.includes('"true"'), timeoutMs);

    const apiserver = this.spawn('kube-apiserver', [
      ...podDeletionAuditArgs(dir, this.logsDir),
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      '--bind-address=127.0.0.1', `--secure-port=${apiPort}`, '--advertise-address=127.0.0.1',
      // The loopback address cannot be an endpoint of the `kubernetes` Service; nothing here needs that Service.
      '--endpoint-reconciler-type=none',
      `--tls-cert-file=${pki.apiserver.cert}`, `--tls-private-key-file=${pki.apiserver.key}`, `--client-ca-file=${pki.ca.cert}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccount.pub}`, `--service-account-signing-key-file=${pki.serviceAccount.key}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--authorization-mode=Node,RBAC',
      // As on a real cluster: privileged containers are allowed by the API server, refused by PodSecurity per
      // namespace.
      '--allow-privileged=true',
      '--enable-admission-plugins=NamespaceLifecycle,LimitRanger,ServiceAccount,DefaultStorageClass,DefaultTolerationSeconds,' +
        'PodSecurity,PodTopologyLabels,Priority,ResourceQuota,StorageObjectInUseProtection,PersistentVolumeClaimResize,RuntimeClass,' +
        'MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy',
      // KEP-4742 (beta and on by default in 1.35): the binding copies the node's zone and region labels onto the pod.
      '--feature-gates=PodTopologyLabelsAdmission=true',
      '--profiling=false',
      // Tests and benchmarks delete namespaces of up to a thousand pods (the default deletes one at a time).
      '--delete-collection-workers=8',
    ]);
    const admin = pki.clients.admin;
    const client = new KubeClient({ server, ca: pki.ca.cert, cert: admin.cert, key: admin.key });
    this.clientOrUndefined = client;
    await apiserver.waitReady('GET /readyz', async () => (await client.request('GET', '/readyz')).body === 'ok', timeoutMs);
    // before kwok starts (api-server-policies.ts)
    for (const guard of kwokDeleteGuard()) await client.apply(guard);

    const healthArgs = (component: ClientName, port: number) => {
      const kc = kubeconfigOf(component);
      return [
        '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${path.join(dir, component)}`,
        `--authentication-kubeconfig=${kc}`, `--authorization-kubeconfig=${kc}`,
        '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      ];
    };
    const kcm = this.spawn('kube-controller-manager', [
      `--kubeconfig=${kubeconfigOf('kube-controller-manager')}`, ...healthArgs('kube-controller-manager', kcmPort),
      '--leader-elect=false', '--use-service-account-credentials=true',
      `--service-account-private-key-file=${pki.serviceAccount.key}`, `--root-ca-file=${pki.ca.cert}`,
      `--cluster-signing-cert-file=${pki.ca.cert}`, `--cluster-signing-key-file=${pki.ca.key}`,
      // Fast enough to create a thousand pods in seconds (the default 20/s is a real cluster's politeness).
      '--kube-api-qps=1000', '--kube-api-burst=2000',
    ]);
    const schedulerConfig = path.join(dir, 'kube-scheduler.yaml');
    fs.writeFileSync(schedulerConfig, JSON.stringify({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      // Binding a thousand pods is not held back by client-side rate limits (the default is 50/s).
      clientConnection: { kubeconfig: kubeconfigOf('kube-scheduler'), qps: 1000, burst: 2000 },
      leaderElection: { leaderElect: false },
    }, null, 2));
    const scheduler = this.spawn('kube-scheduler', [`--config=${schedulerConfig}`, ...healthArgs('kube-scheduler', schedPort)]);
    const kwok = this.spawn('kwok', [
      `--kubeconfig=${kubeconfigOf('kwok')}`,
      '--manage-all-nodes=false', `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=fake`,
      // Pod IPs of nodes without a podCIDR; loopback like the nodes' own (nodes.ts): a test can listen on a pod's IP.
      `--cidr=127.${this.unassignedPodCidrOctet}.0.0/16`, '--node-ip=127.0.0.1', '--node-lease-duration-seconds=40',
    ]);

    await Promise.all([
      kcm.waitReady('GET /healthz', async () => (await probe(`https://127.0.0.1:${kcmPort}/healthz`)).body === 'ok', timeoutMs),
      scheduler.waitReady('GET /readyz', async () => (await probe(`https://127.0.0.1:${schedPort}/readyz`)).body === 'ok', timeoutMs),
      // The service account controller runs: namespaces get their `default` ServiceAccount, pods can be admitted.
      kcm.waitReady('the default ServiceAccount exists', async () => !!(await client.find('v1', 'ServiceAccount', 'default', 'default')), timeoutMs),
    ]);
    await client.apply(storageClassObject());
    const nodes = planNodes(this.layout);
    await Promise.all(nodes.map((n) => client.create(nodeObject(n))));
    await kwok.waitReady(`all ${nodes.length} nodes Ready`, async () => (await notReady(client, nodes)).length === 0, timeoutMs);

    this.provisioner = new FakeZonalProvisioner(client);
    this.provisioner.start();
    this.schedulerMetricsUrl = `https://127.0.0.1:${schedPort}/metrics`;
    const version = (await client.request('GET', '/version')).body.gitVersion;
    this.infoOrUndefined = {
      server,
      ca: pki.ca.cert,
      cert: pki.clients.admin.cert,
      key: pki.clients.admin.key,
      kubeconfig: kubeconfigOf('admin'),
      runDir: dir,
      logsDir: this.logsDir,
      zones: [...new Set(nodes.map((n) => n.zone))],
      nodes,
      kubernetesVersion: version,
    };
    fs.writeFileSync(this.infoFile, JSON.stringify(this.info, null, 2));
  }

  /** The scheduler's Prometheus metrics (for benchmarks). */
  public async schedulerMetrics(): Promise<string> {
    if (!this.schedulerMetricsUrl) throw new Error('the control plane is not started');
    return (await probe(this.schedulerMetricsUrl)).body;
  }

  /**
   * Freezes a component (SIGSTOP) until `thaw`: e.g. the scheduler, so that a benchmark can create a
   * thousand pods first and then time the scheduler placing them all.
   */
  public freeze(component: string): void {
    this.component(component).signal('SIGSTOP');
  }

  public thaw(component: string): void {
    this.component(component).signal('SIGCONT');
  }

  /**
   * CPU time a component has used so far, in milliseconds (for benchmarks: less sensitive to a loaded machine than
   * wall time).
   */
  public cpuMillis(component: string): number {
    return this.component(component).cpuMillis();
  }

  private component(name: string): Component {
    const c = this.components.find((x) => x.name === name);
    if (!c) throw new Error(`no component ${name} (components: ${this.components.map((x) => x.name).join(', ')})`);
    return c;
  }

  /** Throws, naming the component and the end of its log, when one has stopped. */
  public assertRunning(): void {
    this.components.forEach((c) => c.assertRunning());
  }

  /**
   * Stops every component (the provisioner first, etcd last) and removes the etcd data; keeps logs and
   * certificates. Returns what went wrong while it ran: components that had stopped on their own (with the
   * end of their log), the provisioner's last error.
   */
  public async stop(): Promise<string[]> {
    const problems: string[] = [];
    for (const c of this.components) {
      try { c.assertRunning(); } catch (err) { problems.push((err as Error).message); }
    }
    await this.provisioner?.stop();
    if (this.provisioner?.lastError) problems.push(`the fake zonal provisioner failed: ${this.provisioner.lastError}`);
    this.clientOrUndefined?.close();
    for (const c of [...this.components].reverse()) await c.stop();
    fs.rmSync(path.join(this.runDir, 'etcd-data'), { recursive: true, force: true });
    fs.rmSync(path.join(this.runDir, OWNER_FILE), { force: true });
    return problems;
  }
}
