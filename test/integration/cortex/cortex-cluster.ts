/**
 * The ring of a Loki layout, run as real Cortex processes on 127.0.0.1 (the binary `npm run
 * test:integration:setup` builds from Go modules): one distributor, every ingester of the layout's ingester
 * workloads (`<workload>-<ordinal>`, in the workload's zone), and one querier, each started with the flags
 * ring-layout.ts translates from the Loki objects, joined in one memberlist ring, blocks on a filesystem store
 * in a temporary folder. Only the ring is under test: the distributor and querier Deployments' replicas are
 * stateless copies of one (`copies` of each), and queries read the ingesters (the store holds a block only after
 * 2 h, unless a test paces Cortex faster: `extraFlags`).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { remoteWriteBody, Series } from './remote-write';
import { cortexFlags, RingTarget, RingWorkload } from './ring-layout';
import { freePort, stopWhenOrphaned, waitFor } from '../processes';
import { programPath } from '../programs';

/**
 * Test pacing, not part of the layout: heartbeats every second and an ingester unhealthy after 6 s of silence
 * (Cortex's defaults are 5 s and 1 min), so a zone outage shows in the ring within a test's time.
 */
export const TEST_HEARTBEAT = { period: '1s', timeout: '6s', timeoutMs: 6_000 };

/**
 * Test pacing for a test in which no rollout waits on an ingester's readiness (it restarts none, or checks the ring
 * itself): ready 3 s after it is ACTIVE, the library's min_ready_duration (15 s, time for the ring to reach every
 * distributor) scaled as the heartbeats are (5 s to 1 s).
 */
export const TEST_MIN_READY_FLAG = '-ingester.min-ready-duration=3s';

/** Flags every process shares: no auth (one tenant), the memberlist ring, a filesystem blocks store. */
function baseFlags(dir: string, listen: string, ports: Ports, join: string[]): string[] {
  return [
    '-auth.enabled=false',
    '-ring.store=memberlist',
    `-server.http-listen-address=${listen}`, `-server.http-listen-port=${ports.http}`,
    `-server.grpc-listen-address=${listen}`, `-server.grpc-listen-port=${ports.grpc}`,
    `-memberlist.bind-addr=${listen}`, `-memberlist.bind-port=${ports.memberlist}`,
    `-memberlist.advertise-addr=${listen}`, `-memberlist.advertise-port=${ports.memberlist}`,
    ...join.map((j) => `-memberlist.join=${j}`),
    '-blocks-storage.backend=filesystem', `-blocks-storage.filesystem.dir=${path.join(dir, 'store')}`,
    `-ring.heartbeat-timeout=${TEST_HEARTBEAT.timeout}`,
  ];
}

export interface Ports { readonly http: number; readonly grpc: number; readonly memberlist: number }

/** Where and how a process runs, besides its ring role: what a restart keeps. */
export interface CortexPlace {
  readonly home: string;
  readonly store: string;
  readonly listen: string;
  readonly ports: Ports;
  readonly join: readonly string[];
  /** Flags after the translated ones, e.g. a test's pacing (later flags win). */
  readonly extra: readonly string[];
}

/** What Cortex logs once every module but its memberlist client (and HTTP server) has stopped. */
const LEAVING_MEMBERLIST = 'msg="leaving memberlist cluster"';

/** One Cortex process. */
export class CortexProcess {
  public exited = false;
  constructor(
    public readonly name: string,
    public readonly target: string,
    public readonly zone: string | undefined,
    public readonly url: string,
    public readonly child: ChildProcess,
    public readonly logFile: string,
    public readonly place: CortexPlace,
  ) {
    child.once('exit', () => { this.exited = true; });
  }

  /** SIGKILL, as a zone outage does it: no flush, no leaving the ring. Resolves once the process is gone. */
  public async kill(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await gone;
  }

  /**
   * SIGTERM, SIGKILL after 10 s. With `left`: SIGKILL as soon as the process has stopped all but its memberlist client
   * (an ingester is out of the ring, its TSDB closed) and `left()` holds. Cortex's memberlist client then waits up to
   * 10 s for its gossip queue to drain, which heartbeats every second keep full, and 5 s more to leave: 10 s cut that
   * short anyway.
   */
  public async stop(left?: () => Promise<boolean>): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    const logFrom = fs.statSync(this.logFile).size;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    if (left) void this.killOnceLeft(logFrom, left);
    await gone;
    clearTimeout(timer);
  }

  private async killOnceLeft(logFrom: number, left: () => Promise<boolean>): Promise<void> {
    while (!this.exited) {
      const leaving = fs.readFileSync(this.logFile).subarray(logFrom).includes(LEAVING_MEMBERLIST);
      if (leaving && await left()) {
        this.child.kill('SIGKILL');
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  public log(): string {
    return fs.readFileSync(this.logFile, 'utf8');
  }
}

/** Starts Cortex as `member` (its translated flags, then the process's own addresses) with its home in `home`. */
export function startCortex(
  member: Pick<RingWorkload, 'target' | 'zone' | 'ring'>,
  name: string,
  home: string,
  store: string,
  listen: string,
  ports: Ports,
  join: string[],
  extra: readonly string[] = [],
  runsIn = member.zone,
): CortexProcess {
  fs.mkdirSync(home, { recursive: true });
  const args = [...baseFlags(store, listen, ports, join), ...cortexFlags(member)];
  if (member.target === 'ingester') {
    args.push(
      `-ingester.lifecycler.ID=${name}`, `-ingester.lifecycler.addr=${listen}`, `-ingester.lifecycler.port=${ports.grpc}`,
      `-ingester.heartbeat-period=${TEST_HEARTBEAT.period}`, '-ingester.join-after=0s', '-ingester.final-sleep=0s',
      `-blocks-storage.tsdb.dir=${path.join(home, 'tsdb')}`,
    );
  }
  if (member.target === 'querier') {
    // The querier's store gateway runs in the same process, asked for every query (query-store-after 0).
    args.push(`-querier.store-gateway-addresses=${listen}:${ports.grpc}`, '-store-gateway.sharding-enabled=false',
      `-blocks-storage.bucket-store.sync-dir=${path.join(home, 'sync')}`,
      // Its own folder for the active-query log (default: ./active-query-tracker in the working directory).
      `-querier.active-query-tracker-dir=${path.join(home, 'active-query-tracker')}`);
  }
  args.push(...extra);
  const logFile = path.join(home, 'cortex.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(programPath('cortex'), args, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  stopWhenOrphaned(child.pid!);
  const started = { home, store, listen, ports, join, extra };
  return new CortexProcess(name, member.target, runsIn, `http://${listen}:${ports.http}`, child, logFile, started);
}

/** Resolves once the process answers /ready; throws with its log if it exits or takes 2 minutes. */
export async function waitUntilReady(p: CortexProcess): Promise<void> {
  await waitFor(`${p.name} to be ready (log: ${p.logFile})`, 120_000, async () => {
    const res = await fetch(`${p.url}/ready`).catch(() => undefined);
    return res?.ok ? true : undefined;
  }, () => (p.exited ? `exited with code ${p.child.exitCode}: ${p.log().slice(-2000)}` : undefined));
}

/** A ring member as the ring's JSON page lists it (its tokens counted). */
export interface RingEntry {
  readonly id: string;
  readonly state: string;
  readonly zone: string;
  readonly tokens: number;
}

/**
 * An instance the ring routes to: ACTIVE and holding its tokens. Just after a join a process's view may show an
 * instance ACTIVE with no tokens yet (for about a second here): it then owns no series.
 */
export function isServing(entry: RingEntry): boolean {
  return entry.state === 'ACTIVE' && entry.tokens > 0;
}

/** The state the ring's page shows for an instance whose heartbeat timed out. */
export const UNHEALTHY = 'Unhealthy';

/** The ingester ring as the process at `url` sees it ([] while it cannot tell). */
export async function ringOf(url: string): Promise<RingEntry[]> {
  const res = await fetch(`${url}/ingester/ring`, { headers: { Accept: 'application/json' } }).catch(() => undefined);
  if (!res?.ok) return [];
  type RingShard = { id: string; state: string; zone: string; tokens: number[] | null };
  const shards = ((await res.json()) as { shards: RingShard[] }).shards;
  return shards.map((s) => ({ id: s.id, state: s.state, zone: s.zone, tokens: s.tokens?.length ?? 0 }));
}

/** Pushes `series` through the distributor at `url`; resolves to the HTTP status (0: no answer) and body. */
export async function push(url: string, series: readonly Series[]): Promise<{ status: number; body: string }> {
  return fetch(`${url}/api/v1/push`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
    body: remoteWriteBody(series),
  }).then(
    async (r) => ({ status: r.status, body: (await r.text()).trim() }),
    (err) => ({ status: 0, body: String(err) }),
  );
}

/** How many samples the ingester at `url` has taken in (its `cortex_ingester_ingested_samples_total`). */
export async function ingestedSamples(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const line = metrics.split('\n').find((l) => l.startsWith('cortex_ingester_ingested_samples_total '));
  if (!line) throw new Error(`${url}/metrics has no cortex_ingester_ingested_samples_total`);
  return Number(line.split(' ')[1]);
}

/**
 * Every sample of the series `selector` selects in the last `window`, as `<series> <value>` strings, sorted; a failed
 * query as an Error.
 */
export async function samples(querierUrl: string, selector: string, window = '1h'): Promise<string[]> {
  // An explicit evaluation time just ahead: without one this querier evaluates at a moment that may precede the last
  // push.
  const params = new URLSearchParams({ query: `${selector}[${window}]`, time: String(Date.now() / 1000 + 1) });
  const res = await fetch(`${querierUrl}/prometheus/api/v1/query?${params}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`query ${selector}: HTTP ${res.status}: ${body.trim()}`);
  const result = JSON.parse(body).data.result as { metric: Record<string, string>; values: [number, string][] }[];
  return result.flatMap((r) => r.values.map((v) => `${r.metric.series ?? ''} ${v[1]}`)).sort();
}

/** How a cluster runs besides its layout. */
export interface CortexClusterOptions {
  /** Distributors and queriers, each (a Deployment's replicas, restarted one at a time). @default 1 */
  readonly copies?: number;
  /** Flags a test adds per target after the translated ones (its pacing, not the layout's). */
  readonly extraFlags?: (target: RingTarget) => string[];
  /** The ingesters register no zone (a ring from before zones); `CortexProcess.zone` still says where each runs. */
  readonly zonelessIngesters?: boolean;
}

/** A cluster of distributors, the layout's ingesters and queriers. */
export class CortexCluster {
  public static async start(layout: RingWorkload[], options: CortexClusterOptions = {}): Promise<CortexCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cortex-ring-'));
    const one = (target: string) => {
      const w = layout.find((m) => m.target === target);
      if (!w) throw new Error(`the layout has no ${target}`);
      return w;
    };
    const copies = (target: RingTarget) => Array.from(
      { length: options.copies ?? 1 },
      (_, i) => ({ name: i === 0 ? target : `${target}-${i}`, member: one(target) }),
    );
    const members = [
      ...copies('distributor'),
      ...layout.filter((w) => w.target === 'ingester')
        .flatMap((w) => Array.from({ length: w.replicas }, (_, i) => {
          const runsIn = w.zone ?? w.ordinalZones?.[i];
          const zone = options.zonelessIngesters ? undefined : runsIn;
          return { name: `${w.name}-${i}`, runsIn, member: { ...w, zone } };
        })),
      ...copies('querier'),
    ];
    const taken = new Set<number>();
    const port = async (): Promise<number> => {
      for (;;) {
        const p = await freePort(); // the OS may hand out a port twice once it is free again
        if (!taken.has(p)) return taken.add(p), p;
      }
    };
    const ports: Ports[] = [];
    for (const _ of members) ports.push({ http: await port(), grpc: await port(), memberlist: await port() });
    const join = ports.map((p) => `127.0.0.1:${p.memberlist}`);
    const cluster = new CortexCluster(dir);
    members.forEach((m: { name: string; member: RingWorkload; runsIn?: string }, i) => {
      const started = startCortex(
        m.member,
        m.name,
        path.join(dir, m.name),
        dir,
        '127.0.0.1',
        ports[i],
        join.filter((_, j) => j !== i),
        options.extraFlags?.(m.member.target) ?? [],
        m.runsIn ?? m.member.zone,
      );
      cluster.processes.push(started);
    });
    try {
      for (const p of cluster.processes) await waitUntilReady(p);
      await cluster.waitUntilRingServes();
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  public readonly processes: CortexProcess[] = [];

  private constructor(public readonly dir: string) {}

  public get distributor(): CortexProcess {
    return this.processes.find((p) => p.target === 'distributor')!;
  }

  public get querier(): CortexProcess {
    return this.processes.find((p) => p.target === 'querier')!;
  }

  public ingesters(zone?: string): CortexProcess[] {
    return this.processes.filter((p) => p.target === 'ingester' && (zone === undefined || p.zone === zone));
  }

  /** The processes of a target ('distributor', 'querier', ...), in start order. */
  public all(target: string): CortexProcess[] {
    return this.processes.filter((p) => p.target === target);
  }

  /** Waits until every distributor and querier sees every ingester ACTIVE with its tokens. */
  public async waitUntilRingServes(): Promise<void> {
    const ingesters = this.ingesters().length;
    for (const p of [...this.all('distributor'), ...this.all('querier')]) {
      await waitFor(`${p.name} to see ${ingesters} ACTIVE ingesters with their tokens`, 60_000, async () => {
        const ring = await ringOf(p.url);
        return ring.filter(isServing).length === ingesters ? true : undefined;
      });
    }
  }

  /**
   * Stops `p` (SIGTERM: an ingester leaves the ring, its data stays in its folder) and starts it again as `member` in
   * the same place (folder, ports, peers): a pod restarted with a new configuration. Resolves once it is ready.
   */
  public async restart(p: CortexProcess, member: Pick<RingWorkload, 'target' | 'zone' | 'ring'>): Promise<CortexProcess> {
    await p.stop(async () => p.target !== 'ingester' || this.seenLeaving(p.name));
    const { home, store, listen, ports, join, extra } = p.place;
    const next = startCortex(member, p.name, home, store, listen, ports, [...join], extra);
    this.processes[this.processes.indexOf(p)] = next;
    await waitUntilReady(next);
    return next;
  }

  /** Whether every distributor and querier still running sees ingester `name` no longer ACTIVE (leaving or gone). */
  private async seenLeaving(name: string): Promise<boolean> {
    const peers = [...this.all('distributor'), ...this.all('querier')].filter((p) => !p.exited);
    const rings = await Promise.all(peers.map((p) => ringOf(p.url)));
    return rings.every((ring) => ring.length > 0 && !ring.some((e) => e.id === name && e.state === 'ACTIVE'));
  }

  public async stop(): Promise<void> {
    // Nothing waits on the ring any more: each process may go once it has stopped all but its memberlist client.
    await Promise.all(this.processes.map((p) => p.stop(async () => true)));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
