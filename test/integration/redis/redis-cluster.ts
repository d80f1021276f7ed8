/**
 * Real redis-server processes on 127.0.0.1, one per planned node of a layout, each tagged with its zone;
 * started as the construct's synthesized pod starts it (port and directories overridden): with a password,
 * its init container's script run with real `sh` on the password file writes the auth.conf that
 * redis-server includes (pod-emulation.ts); without one, only with the synthesized redis.conf (the bench).
 * Each node has its folders in a per-test directory. Zones are killed and brought back with SIGKILL and a
 * restart on the same port and directory; with a `ZoneNetwork`, each zone has its own address and can be cut
 * off from the others instead (a network partition: its nodes run on and keep their data).
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { ClusterState } from '../../../controller/src/redis/decide';
import { splitAddress } from '../../../controller/src/redis/executor';
import { RedisClusterManager } from '../../../controller/src/redis/manager';
import { InventoryNode } from '../../../controller/src/redis/model';
import { LAYOUT_KEY, REDIS_PORT } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { canListen, freePort, stopWhenOrphaned } from '../processes';
import { REPO_ROOT } from '../shared';
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
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
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

/** A client of one node that fails fast (no retries; `timeoutMs` per command); the caller disconnects it. */
export function nodeClient(
  address: string,
  password?: string,
  options: { timeoutMs?: number; Connector?: RedisOptions['Connector'] } = {},
): Redis {
  const [host, port] = splitAddress(address);
  const timeouts = { connectTimeout: options.timeoutMs, commandTimeout: options.timeoutMs };
  const c = new Redis({
    host,
    port,
    password,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    ...timeouts,
    Connector: options.Connector,
  });
  c.on('error', () => undefined);
  return c;
}

/**
 * Who serves which slot, as one live node sees it (`CLUSTER SLOTS`): the master's address per slot. `client`: one to
 * use (kept).
 */
export async function slotOwners(address: string, password?: string, client?: Redis): Promise<(string | undefined)[]> {
  const c = client ?? nodeClient(address, password);
  try {
    const slots = await c.call('CLUSTER', 'SLOTS') as [number, number, [string, number, string]][];
    const owners = new Array<string | undefined>(16384).fill(undefined);
    for (const [a, b, [h, p]] of slots) for (let s = a; s <= b; s++) owners[s] = `${h}:${p}`;
    return owners;
  } finally {
    if (!client) c.disconnect();
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
 * Writes `keys` (all of one master) with SET in one round trip, then asks the master for its connected
 * replicas (ROLE): with one, `WAIT 1` must count it for the keys to be acknowledged; with none (its replica
 * is lost) the master's OK is the acknowledgement, as a WAIT would only wait out its timeout. Throws when a
 * SET fails (MOVED, CLUSTERDOWN, timeout): no key of the batch counts then.
 */
async function setAcknowledged(c: Redis, keys: readonly string[], waitMs: number): Promise<boolean> {
  const pipeline = c.pipeline();
  for (const k of keys) pipeline.set(k, valueOf(k));
  pipeline.call('ROLE');
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([err]) => err);
  if (failed) throw failed[0];
  const [role, , replicas] = results[results.length - 1][1] as [string, number, unknown[]];
  if (role !== 'master') throw new Error('not a master');
  return replicas.length === 0 || (await c.call('WAIT', '1', String(waitMs)) as number) >= 1;
}

const valueOf = (key: string) => `value-of-${key}`;

/**
 * Writes keys straight to the master of their slot, each master's batch acknowledged as `setAcknowledged`
 * says; `written` has the keys whose SET succeeded, `acked` those acknowledged. `owners` maps slots to
 * master addresses.
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
      const ok = await setAcknowledged(c, batch, 2000).catch(() => undefined);
      for (const k of ok === undefined ? [] : batch) written.set(k, valueOf(k));
      for (const k of ok ? batch : []) acked.set(k, valueOf(k));
    } finally {
      c.disconnect();
    }
  }));
  return { written, acked };
}

/** The keys `missingKeys` reads at once (auto-pipelined: one write per node for the whole batch). */
const READ_BATCH = 5000;
/** How many times `missingKeys` reads a key whose read failed (no answer, not a missing key) before it gives up. */
const READ_ATTEMPTS = 3;

/**
 * Reads keys through a cluster client (follows MOVED/ASK); returns the keys whose value is missing or wrong. The
 * GETs of a batch are auto-pipelined (a continuous writer leaves a million keys to read back). A read that fails is
 * no lost key: it is read again by a new client. ioredis fails reads in flight with "Connection is closed" when a
 * slot map refresh drops their node from its pool (a seed reset out of the cluster answers with no slots at all).
 */
export async function missingKeys(
  inventory: InventoryNode[],
  expected: Map<string, string>,
  password?: string,
): Promise<string[]> {
  const missing: string[] = [];
  let unread = [...expected.keys()];
  for (let attempt = 1; unread.length > 0; attempt++) {
    const read = await readKeys(inventory, unread, password);
    for (const [k, value] of read.values) if (value !== expected.get(k)) missing.push(k);
    if (read.failed.length > 0 && attempt === READ_ATTEMPTS) {
      throw new Error(`${read.failed.length} keys could not be read ${READ_ATTEMPTS} times: ${read.error}`);
    }
    unread = read.failed;
  }
  return missing;
}

/** GETs `keys` through one cluster client: the values read, and the keys whose GET failed (with the last error). */
async function readKeys(
  inventory: InventoryNode[],
  keys: string[],
  password?: string,
): Promise<{ values: Map<string, string | null>; failed: string[]; error?: unknown }> {
  const cluster = new Cluster(inventory.map((n) => {
    const [host, port] = splitAddress(n.address);
    return { host, port };
  }), {
    clusterRetryStrategy: () => 100,
    enableOfflineQueue: true,
    enableAutoPipelining: true,
    redisOptions: { connectTimeout: 500, maxRetriesPerRequest: 1, password },
  });
  cluster.on('error', () => undefined);
  const values = new Map<string, string | null>();
  const failed: string[] = [];
  let error: unknown;
  try {
    for (let i = 0; i < keys.length; i += READ_BATCH) {
      const batch = keys.slice(i, i + READ_BATCH);
      const results = await Promise.allSettled(batch.map((k) => cluster.get(k)));
      results.forEach((r, j) => {
        if (r.status === 'fulfilled') {
          values.set(batch[j], r.value);
        } else {
          failed.push(batch[j]);
          error = r.reason;
        }
      });
    }
    return { values, failed, error };
  } finally {
    cluster.disconnect();
  }
}

/**
 * Polls until a live node sees every slot served by a live master and a write of `count` keys spread over
 * every master is acknowledged (`setAcknowledged`: by a replica where the master still has one); resolves
 * to the milliseconds that took and the keys acknowledged.
 */
export async function untilServedAndWritable(redis: RedisProcesses, prefix: string, timeoutMs = 30_000, count = 300):
Promise<{ ms: number; acked: Map<string, string> }> {
  const start = Date.now();
  for (let round = 0; ; round++) {
    const live = redis.live();
    const liveAddresses = new Set(live.map((n) => n.address));
    const owners = await slotOwners(live[0].address, redis.password).catch(() => []);
    if (owners.length === 16384 && owners.every((o) => o !== undefined && liveAddresses.has(o))) {
      const { acked } = await writeKeys(owners, `${prefix}-${round}`, count, redis.password)
        .catch(() => ({ acked: new Map<string, string>() }));
      if (acked.size === count) return { ms: Date.now() - start, acked };
    }
    if (Date.now() - start > timeoutMs) throw new Error(`slots not all served and writable after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs the manager as the controller does, but without pause: a `converge` pass after another until
 * stopped, so it sees a zone loss as it happens. Resolves `stop()` once the pass under way has ended.
 */
export function keepConverging(manager: RedisClusterManager): { stop(): Promise<void> } {
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      await manager.converge({ timeoutMs: 5000 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

export interface WriterOptions {
  /** The nodes to ask for the slot map (CLUSTER SLOTS), in order, after a start and after any failure. */
  readonly seeds: () => string[];
  /** The slot ranges to write to: one slot of each (by a hash tag), keys `{tag}:<prefix>:<n>`. */
  readonly ranges: readonly [number, number][];
  readonly prefix: string;
  readonly password?: string;
  /** How its connections are made (ZoneNetwork.clientFrom: a client inside a zone). */
  readonly Connector?: RedisOptions['Connector'];
  /** Keys per slot per round. @default 10 */
  readonly batch?: number;
}

/**
 * A client that writes until stopped, in rounds: `batch` keys to the master of each of its slots (as the
 * slot map says), acknowledged as `setAcknowledged` says. Records every key whose SET succeeded
 * (`written`) and the acknowledged ones (`acked`); a key whose write failed or timed out is in neither.
 */
export class ContinuousWriter {
  /** Starts writing; the first seed computes the hash tags' slots. */
  public static async start(options: WriterOptions): Promise<ContinuousWriter> {
    const candidates = Array.from({ length: 2000 }, (_, i) => `t${i}`);
    const slots = await keySlots(options.seeds()[0], candidates, options.password);
    const tags = new Map(options.ranges.map(([a, b]) => {
      const i = slots.findIndex((s) => s >= a && s <= b);
      if (i < 0) throw new Error(`no hash tag found for slots ${a}-${b}`);
      return [slots[i], candidates[i]] as [number, string];
    }));
    const writer = new ContinuousWriter(tags, options);
    writer.running = writer.loop();
    return writer;
  }

  public readonly written = new Map<string, string>();
  public readonly acked = new Map<string, string>();
  /**
   * The longest time (ms) one slot refused writes: from the start of the first failed SET (moved, down, no
   * answer) to the start of the next one that succeeded, whether or not a replica acknowledged it.
   */
  public longestRefusalMs = 0;
  /** Each slot's start of a refusal under way. */
  private readonly refusedSince = new Map<number, number>();
  private readonly clients = new Map<string, Redis>();
  private stopped = false;
  private running?: Promise<void>;
  private count = 0;

  /** `tags`: the hash tag of each slot it writes to. */
  private constructor(public readonly tags: ReadonlyMap<number, string>, private readonly options: WriterOptions) {}

  public async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    for (const c of this.clients.values()) c.disconnect();
  }

  private async loop(): Promise<void> {
    let owners: (string | undefined)[] | undefined;
    while (!this.stopped) {
      try {
        owners ??= await this.slotMap();
        await this.round(owners);
      } catch {
        owners = undefined; // failed over, cut off, or not served: ask again
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  private async slotMap(): Promise<(string | undefined)[]> {
    for (const seed of this.options.seeds()) {
      const owners = await slotOwners(seed, this.options.password, this.client(seed)).catch(() => undefined);
      if (owners) return owners;
    }
    throw new Error('no seed answers');
  }

  private async round(owners: (string | undefined)[]): Promise<void> {
    const results = await Promise.allSettled([...this.tags].map(async ([slot, tag]) => {
      const started = Date.now();
      try {
        const owner = owners[slot];
        if (!owner) throw new Error(`slot ${slot} is not served`);
        const keys = Array.from({ length: this.options.batch ?? 10 }, () => `{${tag}}:${this.options.prefix}:${this.count++}`);
        const acked = await setAcknowledged(this.client(owner), keys, WRITER_WAIT_MS);
        for (const k of keys) this.written.set(k, valueOf(k));
        for (const k of acked ? keys : []) this.acked.set(k, valueOf(k));
      } catch (err) {
        if (!this.refusedSince.has(slot)) this.refusedSince.set(slot, started);
        throw err;
      }
      const since = this.refusedSince.get(slot);
      if (since !== undefined) this.longestRefusalMs = Math.max(this.longestRefusalMs, started - since);
      this.refusedSince.delete(slot);
    }));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private client(address: string): Redis {
    let c = this.clients.get(address);
    if (!c || c.status === 'end') {
      const clientOptions = { timeoutMs: WRITER_TIMEOUT_MS, Connector: this.options.Connector };
      c = nodeClient(address, this.options.password, clientOptions);
      this.clients.set(address, c);
    }
    return c;
  }
}

/** How long the writer's WAIT waits for a replica, and its commands for an answer (a cut-off node never answers). */
const WRITER_WAIT_MS = 200;
const WRITER_TIMEOUT_MS = 500;
