/**
 * The project's runtime controller as a real process against the test cluster: compiled once per test
 * file (`tsc -p controller/tsconfig.json`), started with the cluster's admin kubeconfig (or another
 * kubeconfig, or in-cluster mode with its service account files in a folder of the test's), its JSON log
 * lines kept (and written to the run's logs folder), stopped or killed by the test.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { freePort, stopWhenOrphaned } from '../processes';
import { REPO_ROOT } from '../shared';
import { ClusterInfo } from './control-plane';
import { KubeObject } from './kube-client';
import { waitFor, WaitAborted, WaitOptions } from './wait';
import { SERVICE_ACCOUNT_DIR_ENV } from '../../../src/kubernetes/kube-connection';
import { lineSplitter } from '../../../src/shared/lines';

export const CONTROLLER_MAIN = path.join(REPO_ROOT, 'controller', 'lib', 'controller', 'src', 'main.js');

/** The Node.js flags of the program's `#!/usr/bin/env -S node ...` line: the test runs it as the image does. */
export function nodeFlagsOf(main: string): string[] {
  const shebang = fs.readFileSync(main, 'utf8').split('\n', 1)[0];
  const words = shebang.replace(/^#!\s*/, '').split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
}

/** `run`'s arguments without `--metrics-port` and its value: each ControllerProcess is given a free port. */
export function withoutMetricsPort(args: readonly string[]): string[] {
  return args.filter((a, i) => a !== '--metrics-port' && args[i - 1] !== '--metrics-port');
}

/** The `run` arguments of a synthesized ZoneController's Deployment (`objects`), for a ControllerProcess. */
export function runArgsOf(objects: readonly KubeObject[]): string[] {
  const deployment = objects.find((o) => o.kind === 'Deployment');
  if (!deployment) throw new Error('runArgsOf: the ZoneController synthesized no Deployment');
  return withoutMetricsPort((deployment as any).spec.template.spec.containers[0].args.slice(1));
}

let built = false;
/** Compiles the controller (controller/lib), so the test runs the code of this checkout. */
export function buildController(): void {
  if (built) return;
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(REPO_ROOT, 'controller', 'tsconfig.json')], { stdio: 'pipe' });
  } catch (err: any) {
    throw new Error(`the controller does not compile: ${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
  built = true;
}

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * The controller as a pod runs it: no kubeconfig, the API server in KUBERNETES_SERVICE_HOST/PORT, token, CA,
 * namespace in `dir`.
 */
export interface InCluster {
  readonly inCluster: { readonly host: string; readonly port: string; readonly dir: string };
}

/** The flags and environment that make the controller connect as `connection` says (and nothing else). */
function connectionOf(connection: string | InCluster): { args: string[]; env: NodeJS.ProcessEnv } {
  const env = { ...process.env, KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '', KUBERNETES_SERVICE_PORT: '' };
  if (typeof connection === 'string') return { args: ['--kubeconfig', connection], env };
  const { host, port, dir } = connection.inCluster;
  return {
    args: [],
    env: { ...env, KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port, [SERVICE_ACCOUNT_DIR_ENV]: dir },
  };
}

export class ControllerProcess {
  /**
   * Starts `run <args>` with the cluster's admin kubeconfig (or `connection`: another kubeconfig, or
   * in-cluster) and a free metrics port; waits until /readyz says ok.
   */
  static async start(
    info: Pick<ClusterInfo, 'kubeconfig' | 'logsDir'>, name: string, args: string[], opts: WaitOptions = {},
    connection: string | InCluster = info.kubeconfig,
  ): Promise<ControllerProcess> {
    buildController();
    const metricsPort = await freePort();
    const connect = connectionOf(connection);
    const runArgs = [
      ...nodeFlagsOf(CONTROLLER_MAIN), CONTROLLER_MAIN, 'run', ...connect.args,
      '--identity', name,
      '--metrics-port', String(metricsPort),
      '--bind-address', '127.0.0.1',
      '--metrics-bind-address', '127.0.0.1',
      ...args,
    ];
    const child = spawn(process.execPath, runArgs, {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...connect.env, LOG_LEVEL: 'debug' },
    });
    stopWhenOrphaned(child.pid!);
    const controller = new ControllerProcess(child, name, metricsPort, path.join(info.logsDir, `controller-${name}.log`));
    await waitFor(`controller ${name} to be ready on :${metricsPort}`, async () => {
      controller.assertRunning();
      const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
      return { done: res.status === 200, state: `readyz ${res.status}` };
    }, { timeoutMs: 60_000, ...opts });
    return controller;
  }

  readonly logs: LogLine[] = [];
  readonly exited: Promise<number | null>;
  exitCode: number | null | undefined;
  private stderrTail = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly name: string,
    readonly metricsPort: number,
    logFile: string,
  ) {
    const out = fs.createWriteStream(logFile, { flags: 'a' });
    const split = lineSplitter((line) => {
      try { this.logs.push(JSON.parse(line)); } catch { this.logs.push({ level: 'raw', msg: line }); }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      out.write(chunk);
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
      split(chunk);
    });
    child.stdout!.resume();
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => {
      out.end();
      this.exitCode = code ?? (signal ? null : code);
      resolve(code);
    }));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Throws (ending any wait) when the process has exited, with the end of its log. */
  assertRunning(): void {
    if (this.exitCode !== undefined) throw new WaitAborted(`controller ${this.name} exited with ${this.exitCode}; log ends with:\n${this.stderrTail}`);
  }

  hasLogged(msg: string): boolean {
    return this.logs.some((l) => l.msg === msg);
  }

  async metrics(): Promise<string> {
    return (await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`)).text();
  }

  /** The value of a metric line, e.g. `cdk8s_zones_leader`; undefined when absent. */
  async metric(series: string): Promise<number | undefined> {
    const line = (await this.metrics()).split('\n').find((l) => l.startsWith(series + ' '));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  }

  signal(sig: NodeJS.Signals): void {
    if (this.exitCode === undefined) this.child.kill(sig);
  }

  /** SIGTERM, then the exit code (SIGKILL after 20 s). */
  async stop(): Promise<number | null> {
    if (this.exitCode !== undefined) return this.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
