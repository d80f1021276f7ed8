/**
 * Real redis-server processes on 127.0.0.1, one per planned node of a layout, each tagged with its zone;
 * started as the construct's synthesized pod starts it (port and directories overridden): with a password,
 * its init container's script run with real `sh` on the password file writes the auth.conf that
 * redis-server includes (pod-emulation.ts); without one, only with the synthesized redis.conf (the bench).
 * Each node has its folders in a per-test directory. Zones are killed and brought back with SIGKILL and a
 * restart on the same port and directory.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis, { Cluster } from 'ioredis';
import { ClusterState } from '../../../controller/src/redis/decide';
import { splitAddress } from '../../../controller/src/redis/executor';
import { InventoryNode } from '../../../controller/src/redis/model';
import { REDIS_PORT } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { freePort, stopWhenOrphaned } from '../processes';
import { REPO_ROOT } from '../shared';
import { EmulatedPod, SynthesizedPod, synthesizedRedisPod } from './pod-emulation';

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
  name: string, host: string, port: number, dir: string, args: string[], password?: string, env: NodeJS.ProcessEnv = process.env,
): Promise<ChildProcess> {
  // else the PING below could be answered by that other program
  if (await listening(host, port)) throw new Error(`redis-server ${name}: ${host}:${port} is taken by another program (another test run?)`);
  const child = spawn(redisServerPath(), [
    ...args, '--port', String(port), '--bind', host, '--dir', dir, '--logfile', path.join(dir, 'redis.log'), '--save', '', '--set-proc-title', 'no',
  ], { stdio: 'ignore', env });
  stopWhenOrphaned(child.pid!);
  const client = new Redis({ host, port, password, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      try {
        await client.connect();
        if (await client.ping() === 'PONG') return child;
      } catch {
        if (child.exitCode !== null) throw new Error(`redis-server ${name} exited (${child.exitCode}); see ${dir}/redis.log`);
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

/** Whether something accepts connections on host:port. */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

interface RedisProcess {
  readonly node: InventoryNode;
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

  /** `password`: the one every process requires (and the helpers' clients use); none: no auth at all (the bench). */
  constructor(public readonly nodeTimeoutMs: number, public readonly password?: string) {
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

  /** Starts a process for each node of `layout` not started yet (in the layout's zone). */
  public async addLayout(layout: RedisShardLayout): Promise<void> {
    for (const n of layout.nodes) {
      if (this.processes.has(n.name)) continue;
      const port = await freePort();
      const node = { name: n.name, zone: n.zone, address: `127.0.0.1:${port}` };
      if (this.password === undefined) {
        const [config, data] = ['config', 'data'].map((d) => path.join(this.root, n.name, d));
        [config, data].forEach((d) => fs.mkdirSync(d, { recursive: true }));
        const configMap = this.pod.spec.volumes.find((v: any) => v.configMap).configMap.name;
        fs.writeFileSync(path.join(config, 'redis.conf'), this.pod.configMaps.get(configMap)!['redis.conf']);
        await this.add(node, data, [path.join(config, 'redis.conf')]);
        continue;
      }
      const pod = this.emulatedPod(n.name);
      await this.add(node, pod.volumeDir('data'), pod.redisServerArgs(), pod.env());
    }
  }

  /** The synthesized pod of node `name` (with a password): its volumes in the node's own folder. */
  public emulatedPod(name: string): EmulatedPod {
    let pod = this.pods.get(name);
    if (!pod) {
      const secrets = new Map([[PASSWORD_SECRET.name, { [PASSWORD_SECRET.key]: Buffer.from(this.password!) }]]);
      pod = new EmulatedPod(this.pod.spec, path.join(this.root, name), { configMaps: this.pod.configMaps, secrets, podIP: '127.0.0.1' });
      this.pods.set(name, pod);
    }
    return pod;
  }

  /** Whether the synthesized readiness probe of node `name` passes, run for real (on the node's port rather than the pod's). */
  public ready(name: string): boolean {
    const port = String(splitAddress(this.get(name).node.address)[1]);
    return this.emulatedPod(name).ready((a) => (a === String(REDIS_PORT) ? port : a));
  }

  /** Starts a process for `node`, listening on its address, with `args` (a config file first), `env` and its data in `dir`. */
  public async add(node: InventoryNode, dir: string, args: string[], env?: NodeJS.ProcessEnv): Promise<void> {
    if (this.processes.has(node.name)) throw new Error(`redis process ${node.name} exists already`);
    this.processes.set(node.name, { node, dir, args, env });
    await this.start(node.name);
  }

  public get inventory(): InventoryNode[] {
    return [...this.processes.values()].map((p) => p.node);
  }

  /** The nodes whose process runs. */
  public live(): InventoryNode[] {
    return this.inventory.filter((n) => this.pid(n.name) !== undefined);
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
    const [host, port] = splitAddress(p.node.address);
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

/** Runs the compiled controller CLI (built once per test file by `buildController`). */
export function runCli(args: string[]): { code: number | null; state?: ClusterState; problems: string[] } {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const problems = r.stderr.split('\n').filter((l) => /"level":"(warn|error)"/.test(l));
  return { code: r.status, state: r.stdout.trim() ? JSON.parse(r.stdout) : undefined, problems };
}

const CLI = path.join(REPO_ROOT, 'controller', 'lib', 'controller', 'src', 'main.js');

export function buildController(): void {
  execFileSync('npx', ['tsc', '-p', path.join(REPO_ROOT, 'controller', 'tsconfig.json')], { cwd: REPO_ROOT, stdio: 'inherit' });
}

/** A client of one node that fails fast (no retries); the caller disconnects it. */
function nodeClient(address: string, password?: string): Redis {
  const [host, port] = splitAddress(address);
  const c = new Redis({ host, port, password, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  c.on('error', () => undefined);
  return c;
}

/** Who serves which slot, as one live node sees it (`CLUSTER SLOTS`): the master's address per slot. */
export async function slotOwners(address: string, password?: string): Promise<(string | undefined)[]> {
  const c = nodeClient(address, password);
  try {
    const slots = await c.call('CLUSTER', 'SLOTS') as [number, number, [string, number, string]][];
    const owners = new Array<string | undefined>(16384).fill(undefined);
    for (const [a, b, [h, p]] of slots) for (let s = a; s <= b; s++) owners[s] = `${h}:${p}`;
    return owners;
  } finally {
    c.disconnect();
  }
}

/** The hash slot of each key, as the server at `address` computes it (`CLUSTER KEYSLOT`, one round trip). */
export async function keySlots(address: string, keys: readonly string[], password?: string): Promise<number[]> {
  const c = nodeClient(address, password);
  try {
    const pipeline = c.pipeline();
    for (const k of keys) pipeline.call('CLUSTER', 'KEYSLOT', k);
    return (await pipeline.exec() ?? []).map(([err, slot]) => {
      if (err) throw err;
      return slot as number;
    });
  } finally {
    c.disconnect();
  }
}

/**
 * Writes keys straight to the master of their slot, each master's batch followed by `WAIT 1` (at least one
 * replica has it); `written` has the keys whose SET succeeded, `acked` those a replica acknowledged.
 * `owners` maps slots to master addresses.
 */
export async function writeKeys(
  owners: (string | undefined)[], prefix: string, count: number, password?: string,
): Promise<{ written: Map<string, string>; acked: Map<string, string> }> {
  const keys = Array.from({ length: count }, (_, i) => `${prefix}:${i}`);
  const anyMaster = owners.find((o) => o !== undefined);
  if (!anyMaster) throw new Error('no slot is served');
  const slots = await keySlots(anyMaster, keys, password);
  const byMaster = new Map<string, string[]>();
  keys.forEach((key, i) => {
    const owner = owners[slots[i]];
    if (!owner) throw new Error(`slot of ${key} is not served`);
    byMaster.set(owner, [...(byMaster.get(owner) ?? []), key]);
  });
  const acked = new Map<string, string>();
  const written = new Map<string, string>();
  await Promise.all([...byMaster].map(async ([address, batch]) => {
    const c = nodeClient(address, password);
    try {
      const pipeline = c.pipeline();
      for (const k of batch) pipeline.set(k, `value-of-${k}`);
      const results = await pipeline.exec();
      if (results && results.every(([err]) => !err)) for (const k of batch) written.set(k, `value-of-${k}`);
      const replicas = await c.call('WAIT', '1', '2000') as number;
      if (replicas >= 1) for (const k of batch) acked.set(k, `value-of-${k}`);
    } finally {
      c.disconnect();
    }
  }));
  return { written, acked };
}

/** Reads keys through a cluster client (follows MOVED/ASK); returns the keys whose value is missing or wrong. */
export async function missingKeys(inventory: InventoryNode[], expected: Map<string, string>, password?: string): Promise<string[]> {
  const cluster = new Cluster(inventory.map((n) => {
    const [host, port] = splitAddress(n.address);
    return { host, port };
  }), {
    clusterRetryStrategy: () => 100, enableOfflineQueue: true, redisOptions: { connectTimeout: 500, maxRetriesPerRequest: 1, password },
  });
  cluster.on('error', () => undefined);
  try {
    const keys = [...expected.keys()];
    const missing: string[] = [];
    for (let i = 0; i < keys.length; i += 500) {
      const batch = keys.slice(i, i + 500);
      const values = await Promise.all(batch.map((k) => cluster.get(k)));
      batch.forEach((k, j) => { if (values[j] !== expected.get(k)) missing.push(k); });
    }
    return missing;
  } finally {
    cluster.disconnect();
  }
}

/**
 * Polls until a live node sees every slot served by a live master and a write of `count` keys to every
 * master succeeds; resolves to the milliseconds that took and the keys a replica acknowledged.
 */
export async function untilServedAndWritable(redis: RedisProcesses, prefix: string, timeoutMs = 30_000, count = 300):
Promise<{ ms: number; acked: Map<string, string> }> {
  const start = Date.now();
  for (let round = 0; ; round++) {
    const live = redis.live();
    const liveAddresses = new Set(live.map((n) => n.address));
    const owners = await slotOwners(live[0].address, redis.password).catch(() => []);
    if (owners.length === 16384 && owners.every((o) => o !== undefined && liveAddresses.has(o))) {
      const { written, acked } = await writeKeys(owners, `${prefix}-${round}`, count, redis.password).catch(() => ({ written: new Map(), acked: new Map() }));
      if (written.size === count) return { ms: Date.now() - start, acked };
    }
    if (Date.now() - start > timeoutMs) throw new Error(`slots not all served and writable after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
