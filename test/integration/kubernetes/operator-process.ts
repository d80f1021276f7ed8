/**
 * Real operators on the Kubernetes tier (built by test/integration/setup.d/15-operators.sh at the releases the
 * check's models cite): each runs as a process outside the cluster with the admin kubeconfig, as its own
 * docs describe running it locally for development, its output kept in the run's logs folder.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { ClusterInfo } from './control-plane';
import { KubeObject } from './kube-client';
import { WaitAborted } from './wait';
import { freePort, stopWhenOrphaned } from '../processes';
import { CACHE_DIR, programPath } from '../programs';

/** How to start one operator. */
export interface RealOperator {
  /** Its program in .cache/bin and its CRDs' folder in .cache/operators. */
  readonly name: string;
  /** The release the setup step builds, which the check's model follows. */
  readonly release: string;
  /** Its arguments and environment, given the admin kubeconfig and two free ports. */
  readonly command: (kubeconfig: string, ports: readonly number[]) => { args: string[]; env: Record<string, string> };
}

export const REAL_OPERATORS: readonly RealOperator[] = [
  {
    name: 'spotahome-redis-operator',
    release: 'v1.2.4',
    // cmd/utils/flags.go: -development runs it outside a cluster, with -kubeconfig
    command: (kubeconfig, [metrics]) => ({
      args: ['-development', '-kubeconfig', kubeconfig, '-listen-address', `127.0.0.1:${metrics}`],
      env: {},
    }),
  },
  {
    name: 'mongodb-community-operator',
    release: 'v0.13.0',
    // cmd/manager/main.go refuses to start without these; the images are only named in the pods (kwok runs none)
    command: (kubeconfig) => ({
      args: [],
      env: {
        KUBECONFIG: kubeconfig,
        WATCH_NAMESPACE: '*',
        MONGODB_REPO_URL: 'quay.io/mongodb',
        MONGODB_IMAGE: 'mongodb-community-server',
        AGENT_IMAGE: 'quay.io/mongodb/mongodb-agent-ubi:108.0.2.8729-1',
        VERSION_UPGRADE_HOOK_IMAGE: 'quay.io/mongodb/mongodb-kubernetes-operator-version-upgrade-post-start-hook:1.0.9',
        READINESS_PROBE_IMAGE: 'quay.io/mongodb/mongodb-kubernetes-readinessprobe:1.0.22',
      },
    }),
  },
  {
    name: 'victoriametrics-operator',
    release: 'v0.74.1',
    // internal/manager/manager.go: its listeners on free ports, pprof off
    command: (kubeconfig, [metrics, probes]) => ({
      args: [`-metrics-bind-address=127.0.0.1:${metrics}`, `-health-probe-bind-address=127.0.0.1:${probes}`, '-pprof-addr='],
      env: { KUBECONFIG: kubeconfig },
    }),
  },
];

/** An operator's CRDs, as setup.d/15-operators.sh copied them from its module. */
export function operatorCrds(operator: RealOperator): KubeObject[] {
  const dir = path.join(CACHE_DIR, 'operators', operator.name);
  if (!fs.existsSync(dir)) {
    throw new Error(`${operator.name}'s CRDs are not in ${dir}: run \`npm run test:integration:setup\``);
  }
  return fs.readdirSync(dir).sort().flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(dir, f), 'utf8'))
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o?.kind === 'CustomResourceDefinition'));
}

/** A running operator: its output lines, and whether it is still running. */
export class OperatorProcess {
  /** Starts `operator` against the test cluster. */
  public static async start(info: Pick<ClusterInfo, 'kubeconfig' | 'logsDir'>, operator: RealOperator): Promise<OperatorProcess> {
    const ports = [await freePort(), await freePort()];
    const { args, env } = operator.command(info.kubeconfig, ports);
    const child = spawn(programPath(operator.name), args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stopWhenOrphaned(child.pid!);
    return new OperatorProcess(operator, child, path.join(info.logsDir, `operator-${operator.name}.log`));
  }

  private readonly lines: string[] = [];
  private exit: string | undefined;

  private constructor(public readonly operator: RealOperator, private readonly child: ChildProcess, logFile: string) {
    const log = fs.createWriteStream(logFile);
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        this.lines.push(...chunk.toString().split('\n').filter(Boolean));
        this.lines.splice(0, Math.max(0, this.lines.length - 200));
      });
    }
    child.on('exit', (code, signal) => {
      this.exit = `${operator.name} ${operator.release} exited (code ${code}, signal ${signal}); its log: ${logFile}`;
      log.end();
    });
  }

  /** Throws (ending any wait) with its last lines when the operator is no longer running. */
  public assertRunning(): void {
    if (this.exit) throw new WaitAborted(`${this.exit}\n${this.lines.slice(-15).join('\n')}`);
  }

  /** Its last `n` output lines. */
  public tail(n = 5): string {
    return this.lines.slice(-n).join('\n');
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  public async stop(): Promise<void> {
    if (this.exit) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
