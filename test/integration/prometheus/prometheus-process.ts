/**
 * A real Prometheus (the binary `npm run test:integration:setup` installs) on a free 127.0.0.1 port,
 * with its own configuration file and data folder; reconfigured in place with /-/reload, so a test can
 * reuse one process for many configurations. Everything waits on the HTTP API, never on sleeps.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { freePort, waitFor } from '../processes';
import { programPath } from '../programs';

/** An active target as /api/v1/targets lists it. */
export interface ActiveTarget {
  readonly scrapePool: string;
  readonly labels: { [name: string]: string };
}

/** A dropped target as /api/v1/targets lists it. */
export interface DroppedTarget {
  readonly discoveredLabels: { [name: string]: string };
}

export interface TargetList {
  readonly active: ActiveTarget[];
  readonly dropped: DroppedTarget[];
}

/**
 * Runs the program ("$0" "$@") and stops it when the test process goes away, even when it is killed
 * (a shared machine must not collect orphaned Prometheus processes); SIGTERM stops it cleanly.
 */
const WATCHDOG = [
  '"$0" "$@" & child=$!',
  'trap \'kill -TERM $child 2>/dev/null; wait $child; exit\' TERM INT',
  'while kill -0 "$WATCHED_PID" 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1 & wait $!; done',
  'kill -TERM $child 2>/dev/null; wait $child',
].join('\n');


export class PrometheusProcess {
  /** Starts Prometheus with `config` (YAML text) in `dir`; resolves once it is ready. */
  public static async start(dir: string, config: string): Promise<PrometheusProcess> {
    fs.mkdirSync(dir, { recursive: true });
    const configFile = path.join(dir, 'prometheus.yml');
    fs.writeFileSync(configFile, config);
    const binary = programPath('prometheus');
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const log = fs.openSync(path.join(dir, 'prometheus.log'), 'a');
      const child = spawn('bash', ['-c', WATCHDOG, binary,
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--web.enable-lifecycle',
        '--log.level=warn'], { stdio: ['ignore', log, log], env: { ...process.env, WATCHED_PID: `${process.pid}` } });
      fs.closeSync(log);
      const prometheus = new PrometheusProcess(child, port, dir, configFile);
      try {
        await waitFor(`Prometheus on port ${port} to be ready (log: ${path.join(dir, 'prometheus.log')})`, 120_000, async () => {
          if (prometheus.exited) throw new Error(`exited with code ${child.exitCode}`);
          const res = await fetch(`${prometheus.url}/-/ready`);
          return res.ok ? true : undefined;
        });
        return prometheus;
      } catch (err) {
        await prometheus.stop();
        // Another process may have taken the port between freePort() and the bind: try another one.
        if (attempt >= 3) throw err;
      }
    }
  }

  public readonly url: string;
  private exited = false;
  private readonly exit: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    port: number,
    public readonly dir: string,
    private readonly configFile: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.exit = new Promise((resolve) => child.once('exit', () => {
      this.exited = true;
      resolve();
    }));
  }

  /** Writes a new configuration and makes Prometheus load it (fails when Prometheus rejects it). */
  public async reload(config: string): Promise<void> {
    fs.writeFileSync(this.configFile, config);
    const res = await fetch(`${this.url}/-/reload`, { method: 'POST' });
    if (!res.ok) throw new Error(`Prometheus at ${this.url} rejected the configuration: ${res.status} ${await res.text()}`);
  }

  /** The active and dropped targets of /api/v1/targets. */
  public async targets(): Promise<TargetList> {
    const res = await fetch(`${this.url}/api/v1/targets`);
    if (!res.ok) throw new Error(`GET ${this.url}/api/v1/targets: ${res.status}`);
    const body = await res.json() as { data: { activeTargets: ActiveTarget[]; droppedTargets: DroppedTarget[] } };
    return { active: body.data.activeTargets, dropped: body.data.droppedTargets };
  }

  /** Stops Prometheus (SIGTERM, then SIGKILL after 30 s) and waits for it to exit. */
  public async stop(): Promise<void> {
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.exit;
    clearTimeout(timer);
  }
}
