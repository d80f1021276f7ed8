/**
 * Real redis-server processes on 127.0.0.1, one per planned node of a layout, each tagged with its zone;
 * started as the construct's synthesized pod starts it (port and directories overridden): with a password,
 * its init container's script run with real `sh` on the password file writes the auth.conf that
 * redis-server includes (pod-emulation.ts); without one, only with the synthesized redis.conf (the bench).
 * Each node has its folders in a per-test directory. Zones are killed and brought back with SIGKILL and a
 * restart on the same port and directory; with a `ZoneNetwork`, each zone has its own address and can be cut
 * off from the others instead (a network partition: its nodes run on and keep their data).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis from 'ioredis';
import { splitAddress } from '../../../controller/src/redis/executor';
import { InventoryNode } from '../../../controller/src/redis/model';
import { LAYOUT_KEY, REDIS_PORT } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { canListen, freePort, stopWhenOrphaned } from '../processes';
import { EmulatedPod, SynthesizedPod, synthesizedRedisPod } from './pod-emulation';
import { ZoneNetwork } from './zone-network';

/**
 * A password with every kind of byte that could break out of a config file, a shell or a probe: quotes,
 * a backslash, spaces, '$', a command substitution, non-ASCII, and a trailing newline.
 */
export const AWKWARD_PASSWORD = 'p"a\'s s\\w $HOME $(id) `id` \\x41 é 🔑\n';
/** The Secret the synthesized pods name (the tier writes its key as the kubelet would). */
export const PASSWORD_SECRET = { name: 'redis-password', key: 'password' };

/** Debian's redis-server (test/integration/setup.d/30-redis.sh installs it). */
export function redisServerPath(): string {
  for (const file of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (fs.existsSync(file)) return file;
  }
  throw new Error('redis-server is not installed: run `npm run test:integration:setup` (setup.d/30-redis.sh installs Debian\'s redis-server)');
}

/**
 * Starts redis-server with `args` (a config file first, then options) and `env`, bound to `host:port`, with
 * its data and log in `dir`; resolves once it answers PING (with `password` when it requires one). It keeps
 * its command line as given (`--set-proc-title no`), so /proc/PID/cmdline shows what it was started with.
 */
export async function startRedisServer(
  name: string,
  host: string,
  port: number,
  dir: string,
  args: string[],
  password?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChildProcess> {
  // else the PING below could be answered by that other program
  if (await listening(host, port)) throw new Error(`redis-server ${name}: ${host}:${port} is taken by another program (another test run?)`);
  const child = spawn(redisServerPath(), [
    ...args, '--port', String(port), '--bind', host, '--dir', dir, '--logfile', path.join(dir, 'redis.log'), '--save', '', '--set-proc-title', 'no',
  ], { stdio: 'ignore', env });
  stopWhenOrphaned(child.pid!);
  const client = new Redis({
    host,
    port,
    password,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    // a PING unanswered is tried again until the deadline, never awaited for good
    commandTimeout: 2000,
  });
  client.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      try {
        await client.connect();
        if (await client.ping() === 'PONG') return child;
      } catch {
        if (child.exitCode !== null) throw new Error(`redis-server ${name} exited (${child.exitCode}); ${dir}/redis.log ends:\n${logTail(dir)}`);
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`redis-server ${name} did not answer on ${host}:${port}; see ${dir}/redis.log`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    client.disconnect();
  }
}

/** Whether `password` is in a process's command line, and in its environment (/proc/PID/cmdline, /proc/PID/environ). */
export function exposesPassword(pid: number, password: string): [boolean, boolean] {
  const secret = Buffer.from(password);
  return [fs.readFileSync(`/proc/${pid}/cmdline`).includes(secret), fs.readFileSync(`/proc/${pid}/environ`).includes(secret)];
}

/**
 * A free port for a cluster node on `host` whose cluster bus port (Redis's port + 10000, which CLUSTER MEET
 * assumes) is free too: redis-server exits at once when it cannot listen there.
 */
async function freeNodePort(host: string): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && await canListen(host, port + 10_000)) return port;
  }
  throw new Error(`no free port on ${host} with a free cluster bus port (+10000) in 100 tries`);
}

/** The last lines of the log in `dir` (the test's folder is gone by the time anyone reads a CI log). */
function logTail(dir: string): string {
  const file = path.join(dir, 'redis.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-5).join('\n') : '(no log)';
}

/** Whether something accepts connections on host:port. */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    // on loopback a port is refused or accepted at once: no answer is a listener that does not accept
    socket.once('timeout', () => { socket.destroy(); reject(new Error(`${host}:${port} neither accepts nor refuses a connection`)); });
  });
}

interface RedisProcess {
  /** The node as the cluster and the manager reach it (through its proxy, with a `ZoneNetwork`). */
  readonly node: InventoryNode;
  /** Where redis-server listens (default: the node's address). */
  readonly listen?: string;
  /** Its data directory (`--dir`). */
  readonly dir: string;
  /** The config file and options before `--port`, `--bind` and `--dir`. */
  readonly args: string[];
  /** Its environment (the pod's container's, when started as the pod). */
  readonly env?: NodeJS.ProcessEnv;
  child?: ChildProcess;
}

export class RedisProcesses {
  public readonly root: string;
  /** The password in a file (for `redis --password-file`), when there is one. */
  public readonly passwordFile?: string;
  private readonly processes = new Map<string, RedisProcess>();
  private readonly pod: SynthesizedPod;
  private readonly pods = new Map<string, EmulatedPod>();

  /**
   * `password`: the one every process requires (and the helpers' clients use); none: no auth at all (the bench).
   * `network`: each zone on its own address, behind proxies that can partition it (none: every node on 127.0.0.1).
   */
  constructor(
    public readonly nodeTimeoutMs: number,
    public readonly password?: string,
    private readonly network?: ZoneNetwork,
  ) {
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-it-'));
    this.pod = synthesizedRedisPod(nodeTimeoutMs, PASSWORD_SECRET);
    if (password !== undefined) {
      this.passwordFile = path.join(this.root, 'password');
      fs.writeFileSync(this.passwordFile, password, { mode: 0o600 });
    }
  }

  /** The `redis` CLI's flag for the password, if there is one. */
  public get cliAuth(): string[] {
    return this.passwordFile ? ['--password-file', this.passwordFile] : [];
  }

  /**
   * The data of the synthesized layout ConfigMap (`layout.json`, `failover.json`), which the manager reads in
   * Kubernetes.
   */
  public get layoutConfigMap(): Record<string, string> {
    return [...this.pod.configMaps.values()].find((data) => LAYOUT_KEY in data)!;
  }

  /** Starts a process for each node of `layout` not started yet (in the layout's zone). */
  public async addLayout(layout: RedisShardLayout): Promise<void> {
    for (const n of layout.nodes) {
      if (this.processes.has(n.name)) continue;
      const host = this.network?.address(n.zone) ?? '127.0.0.1';
      const listen = `${host}:${this.network ? await freePort() : await freeNodePort(host)}`;
      const { address, args } = await this.wire(n.zone, listen);
      const node = { name: n.name, zone: n.zone, address };
      if (this.password === undefined) {
        const [config, data] = ['config', 'data'].map((d) => path.join(this.root, n.name, d));
        [config, data].forEach((d) => fs.mkdirSync(d, { recursive: true }));
        const configMap = this.pod.spec.volumes.find((v: any) => v.configMap).configMap.name;
        fs.writeFileSync(path.join(config, 'redis.conf'), this.pod.configMaps.get(configMap)!['redis.conf']);
        await this.add(node, data, [path.join(config, 'redis.conf'), ...args], undefined, listen);
        continue;
      }
      const pod = this.emulatedPod(n.name, host);
      await this.add(node, pod.volumeDir('data'), [...pod.redisServerArgs(), ...args], pod.env(), listen);
    }
  }

  /**
   * How a node listening on `listen` is reached: there, or with a network through proxies on its zone's address
   * for its client and bus ports, which it announces (and it connects out from its zone's address).
   */
  private async wire(zone: string, listen: string): Promise<{ address: string; args: string[] }> {
    if (!this.network) return { address: listen, args: [] };
    const [host] = splitAddress(listen);
    const bus = await freePort();
    const port = await this.network.exposeNode(zone, listen, `${host}:${bus}`);
    const args = ['--cluster-port', bus, '--cluster-announce-port', port, '--cluster-announce-bus-port', port + 10_000, '--bind-source-addr', host];
    return { address: `${host}:${port}`, args: args.map(String) };
  }

  /** The synthesized pod of node `name` (with a password): its volumes in the node's own folder. */
  public emulatedPod(name: string, podIP = '127.0.0.1'): EmulatedPod {
    let pod = this.pods.get(name);
    if (!pod) {
      const secrets = new Map([[PASSWORD_SECRET.name, { [PASSWORD_SECRET.key]: Buffer.from(this.password!) }]]);
      const sources = { configMaps: this.pod.configMaps, secrets, podIP };
      pod = new EmulatedPod(this.pod.spec, path.join(this.root, name), sources);
      this.pods.set(name, pod);
    }
    return pod;
  }

  /**
   * Whether the synthesized readiness probe of node `name` passes, run for real (on the node's port rather than the
   * pod's).
   */
  public ready(name: string): boolean {
    const port = String(splitAddress(this.get(name).node.address)[1]);
    return this.emulatedPod(name).ready((a) => (a === String(REDIS_PORT) ? port : a));
  }

  /**
   * Starts a process for `node`, listening on `listen` (default: its address), with `args` (a config file
   * first), `env` and its data in `dir`.
   */
  public async add(
    node: InventoryNode,
    dir: string,
    args: string[],
    env?: NodeJS.ProcessEnv,
    listen?: string,
  ): Promise<void> {
    if (this.processes.has(node.name)) throw new Error(`redis process ${node.name} exists already`);
    this.processes.set(node.name, { node, dir, args, env, listen });
    await this.start(node.name);
  }

  public get inventory(): InventoryNode[] {
    return [...this.processes.values()].map((p) => p.node);
  }

  /** The nodes whose process runs. */
  public live(): InventoryNode[] {
    return this.inventory.filter((n) => this.pid(n.name) !== undefined);
  }

  /** The last lines of a node's redis.log. */
  public logTail(name: string): string {
    return logTail(this.get(name).dir);
  }

  public pid(name: string): number | undefined {
    return this.get(name).child?.pid;
  }

  /** Starts (or restarts) a node's process; `fresh` wipes its directory first (a replaced node: new id, no data). */
  public async start(name: string, fresh = false): Promise<void> {
    const p = this.get(name);
    if (p.child) throw new Error(`${name} is already running`);
    if (fresh) {
      for (const f of fs.readdirSync(p.dir)) fs.rmSync(path.join(p.dir, f), { recursive: true });
    }
    const [host, port] = splitAddress(p.listen ?? p.node.address);
    p.child = await startRedisServer(name, host, port, p.dir, p.args, this.password, p.env);
    const child = p.child;
    child.on('exit', () => { if (p.child === child) p.child = undefined; });
  }

  /** SIGKILL, and waits until the process is gone. */
  public async kill(name: string): Promise<void> {
    const p = this.get(name);
    const child = p.child;
    if (!child) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  /** Kills a node's process and drops it (its directory stays, for `add` to start it again elsewhere). */
  public async remove(name: string): Promise<void> {
    await this.kill(name);
    this.processes.delete(name);
  }

  public async killZone(zone: string): Promise<string[]> {
    const names = this.inventory.filter((n) => n.zone === zone).map((n) => n.name);
    await Promise.all(names.map((n) => this.kill(n)));
    return names;
  }

  /** Writes an inventory file for the `redis` CLI. */
  public writeInventory(layout: RedisShardLayout): string {
    const file = path.join(this.root, `inventory-${layout.masters}.json`);
    fs.writeFileSync(file, JSON.stringify({ layout: JSON.parse(layout.toJson()), nodes: this.inventory }));
    return file;
  }

  public async close(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((n) => this.kill(n)));
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  private get(name: string): RedisProcess {
    const p = this.processes.get(name);
    if (!p) throw new Error(`no redis process named ${name}`);
    return p;
  }
}
