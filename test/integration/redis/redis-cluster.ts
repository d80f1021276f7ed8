/**
 * Real redis-server processes on 127.0.0.1, one per planned node of a layout, each tagged with its zone;
 * started with the redis.conf the construct synthesizes (port and directory overridden), in a per-test
 * directory. Zones are killed and brought back with SIGKILL and a restart on the same port and directory.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis, { Cluster } from 'ioredis';
import { ClusterState } from '../../../controller/src/redis/decide';
import { InventoryNode } from '../../../controller/src/redis/model';
import { redisConf } from '../../../src/redis/cluster';
import { RedisShardLayout } from '../../../src/redis/layout';
import { freePort, stopWhenOrphaned } from '../processes';
import { REPO_ROOT } from '../shared';

// the key -> slot function ioredis routes with (its own dependency)
// eslint-disable-next-line @typescript-eslint/no-require-imports, import/no-extraneous-dependencies
export const keySlot: (key: string) => number = require('cluster-key-slot');

/** Debian's redis-server (test/integration/setup.d/30-redis.sh installs it). */
export function redisServerPath(): string {
  for (const file of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (fs.existsSync(file)) return file;
  }
  throw new Error('redis-server is not installed: run `npm run test:integration:setup` (setup.d/30-redis.sh installs Debian\'s redis-server)');
}

interface RedisProcess {
  readonly node: InventoryNode;
  readonly dir: string;
  readonly port: number;
  child?: ChildProcess;
}

export class RedisProcesses {
  public readonly root: string;
  private readonly processes = new Map<string, RedisProcess>();

  constructor(public readonly nodeTimeoutMs: number) {
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-it-'));
  }

  /** Starts a process for each node of `layout` not started yet (in the layout's zone). */
  public async addLayout(layout: RedisShardLayout): Promise<void> {
    for (const n of layout.nodes) {
      if (this.processes.has(n.name)) continue;
      const port = await freePort();
      const dir = path.join(this.root, n.name);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'redis.conf'), redisConf(this.nodeTimeoutMs, false));
      this.processes.set(n.name, { node: { name: n.name, zone: n.zone, address: `127.0.0.1:${port}` }, dir, port });
      await this.start(n.name);
    }
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
      for (const f of fs.readdirSync(p.dir)) if (f !== 'redis.conf') fs.rmSync(path.join(p.dir, f), { recursive: true });
    }
    const child = spawn(redisServerPath(), [
      path.join(p.dir, 'redis.conf'), '--port', String(p.port), '--bind', '127.0.0.1', '--dir', p.dir,
      '--logfile', path.join(p.dir, 'redis.log'), '--save', '',
    ], { stdio: 'ignore' });
    stopWhenOrphaned(child.pid!);
    p.child = child;
    child.on('exit', () => { if (p.child === child) p.child = undefined; });
    const client = new Redis({ host: '127.0.0.1', port: p.port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await client.connect();
        if (await client.ping() === 'PONG') break;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server ${name} did not answer on port ${p.port}; see ${p.dir}/redis.log`);
        if (child.exitCode !== null) throw new Error(`redis-server ${name} exited (${child.exitCode}); see ${p.dir}/redis.log`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    client.disconnect();
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

/** Who serves which slot, as one live node sees it (`CLUSTER SLOTS`): the master's address per slot. */
export async function slotOwners(address: string): Promise<(string | undefined)[]> {
  const [host, port] = address.split(':');
  const c = new Redis({ host, port: Number(port), retryStrategy: () => null, maxRetriesPerRequest: 0 });
  c.on('error', () => undefined);
  try {
    const slots = await c.call('CLUSTER', 'SLOTS') as [number, number, [string, number, string]][];
    const owners = new Array<string | undefined>(16384).fill(undefined);
    for (const [a, b, [h, p]] of slots) for (let s = a; s <= b; s++) owners[s] = `${h}:${p}`;
    return owners;
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
  owners: (string | undefined)[], prefix: string, count: number,
): Promise<{ written: Map<string, string>; acked: Map<string, string> }> {
  const byMaster = new Map<string, string[]>();
  for (let i = 0; i < count; i++) {
    const key = `${prefix}:${i}`;
    const owner = owners[keySlot(key)];
    if (!owner) throw new Error(`slot of ${key} is not served`);
    byMaster.set(owner, [...(byMaster.get(owner) ?? []), key]);
  }
  const acked = new Map<string, string>();
  const written = new Map<string, string>();
  await Promise.all([...byMaster].map(async ([address, keys]) => {
    const [host, port] = address.split(':');
    const c = new Redis({ host, port: Number(port), retryStrategy: () => null, maxRetriesPerRequest: 0 });
    c.on('error', () => undefined);
    try {
      const pipeline = c.pipeline();
      for (const k of keys) pipeline.set(k, `value-of-${k}`);
      const results = await pipeline.exec();
      if (results && results.every(([err]) => !err)) for (const k of keys) written.set(k, `value-of-${k}`);
      const replicas = await c.call('WAIT', '1', '2000') as number;
      if (replicas >= 1) for (const k of keys) acked.set(k, `value-of-${k}`);
    } finally {
      c.disconnect();
    }
  }));
  return { written, acked };
}

/** Reads keys through a cluster client (follows MOVED/ASK); returns the keys whose value is missing or wrong. */
export async function missingKeys(inventory: InventoryNode[], expected: Map<string, string>): Promise<string[]> {
  const cluster = new Cluster(inventory.map((n) => ({ host: '127.0.0.1', port: Number(n.address.split(':')[1]) })), {
    clusterRetryStrategy: () => 100, enableOfflineQueue: true, redisOptions: { connectTimeout: 500, maxRetriesPerRequest: 1 },
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
    const owners = await slotOwners(live[0].address).catch(() => []);
    if (owners.length === 16384 && owners.every((o) => o !== undefined && liveAddresses.has(o))) {
      const { written, acked } = await writeKeys(owners, `${prefix}-${round}`, count).catch(() => ({ written: new Map(), acked: new Map() }));
      if (written.size === count) return { ms: Date.now() - start, acked };
    }
    if (Date.now() - start > timeoutMs) throw new Error(`slots not all served and writable after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
