/**
 * A Loki cluster of real processes on 127.0.0.1 (the binary `npm run test:integration:setup` builds from
 * Go modules): one distributor, `ingestersPerZone` ingesters in each zone, a querier and a compactor, each started
 * with `-target=` and its own configuration made by the library's Loki config builder, joined in one
 * memberlist ring, sharing a filesystem object store in a temporary folder.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { lokiConfig, renderLokiConfig } from '../../../src/loki/config';
import { ZONE_ENV, ZONE_FLAG } from '../../../src/loki/direct';
import { freePort, stopWhenOrphaned, waitFor } from '../processes';
import { programPath } from '../programs';

/** Seconds between ring heartbeats, and after which a silent ingester counts as unhealthy. */
export const HEARTBEAT = { periodSeconds: 1, timeoutSeconds: 6 };

export interface LokiClusterProps {
  readonly zones: string[];
  readonly ingestersPerZone: number;
  readonly replicationFactor: number;
  readonly zoneAwareness: boolean;
}

/** One Loki process. */
export class LokiProcess {
  public exited = false;
  constructor(
    public readonly name: string,
    public readonly target: string,
    public readonly zone: string | undefined,
    public readonly httpPort: number,
    public readonly child: ChildProcess,
    public readonly logFile: string,
  ) {
    child.once('exit', () => { this.exited = true; });
  }

  public get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  /** SIGKILL, as a zone outage does it: no flush, no leaving the ring. Resolves once the process is gone. */
  public async kill(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await gone;
  }

  public async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}

/** A ring member as the ring's JSON page lists it. */
export interface RingMember {
  readonly id: string;
  readonly state: string;
  readonly zone: string;
}

export class LokiCluster {
  public static async start(props: LokiClusterProps): Promise<LokiCluster> {
    const binary = programPath('loki');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loki-proof-'));
    const members: { name: string; target: string; zone?: string }[] = [
      { name: 'distributor', target: 'distributor' },
      ...props.zones.flatMap((zone) => Array.from({ length: props.ingestersPerZone }, (_, i) => ({ name: `ingester-${zone}-${i}`, target: 'ingester', zone }))),
      { name: 'querier', target: 'querier' },
      // The querier filters deleted lines and needs the compactor's delete API for that.
      { name: 'compactor', target: 'compactor' },
    ];
    const taken = new Set<number>();
    const port = async (): Promise<number> => {
      for (;;) {
        const p = await freePort(); // the OS may hand out a port twice once it is free again
        if (!taken.has(p)) return taken.add(p), p;
      }
    };
    const ports: { http: number; grpc: number; memberlist: number }[] = [];
    for (const _ of members) ports.push({ http: await port(), grpc: await port(), memberlist: await port() });
    const join = ports.map((p) => `127.0.0.1:${p.memberlist}`);
    const storage = path.join(dir, 'storage');
    const compactor = ports[members.findIndex((m) => m.target === 'compactor')];
    const cluster = new LokiCluster(dir, props);
    members.forEach((m, i) => {
      const home = path.join(dir, m.name);
      fs.mkdirSync(home, { recursive: true });
      const configFile = path.join(home, 'config.yaml');
      fs.writeFileSync(configFile, renderLokiConfig(lokiConfig({
        replicationFactor: props.replicationFactor,
        zoneAwareness: props.zoneAwareness,
        instanceZone: `\${${ZONE_ENV}}`, // as in the direct output: expanded from the environment
        instanceId: m.name,
        instanceAddr: '127.0.0.1',
        listenAddress: '127.0.0.1',
        httpPort: ports[i].http,
        grpcPort: ports[i].grpc,
        memberlistPort: ports[i].memberlist,
        memberlistBindAddr: '127.0.0.1',
        joinMembers: join.filter((_, j) => j !== i),
        pathPrefix: home,
        storage: { type: 'filesystem', directory: storage },
        compactorAddress: `http://127.0.0.1:${compactor.http}`,
        heartbeat: HEARTBEAT,
      })));
      const logFile = path.join(home, 'loki.log');
      const log = fs.openSync(logFile, 'a');
      // The zone reaches the first zone's ingesters in a flag (as ZoneSource.perZoneStatefulSets() writes
      // it), the others' in the environment (as podTopologyLabels() and controller() hand it over).
      const byFlag = m.zone !== undefined && m.zone === props.zones[0];
      const args = [`-config.file=${configFile}`, `-target=${m.target}`, '-config.expand-env=true', ...(byFlag ? [`${ZONE_FLAG}=${m.zone}`] : [])];
      const env = { ...process.env };
      delete env[ZONE_ENV];
      if (m.zone !== undefined && !byFlag) env[ZONE_ENV] = m.zone;
      const child = spawn(binary, args, { stdio: ['ignore', log, log], env });
      fs.closeSync(log);
      stopWhenOrphaned(child.pid!);
      cluster.processes.push(new LokiProcess(m.name, m.target, m.zone, ports[i].http, child, logFile));
    });
    try {
      for (const p of cluster.processes) {
        await waitFor(`${p.name} to be ready (log: ${p.logFile})`, 120_000, async () => {
          const res = await fetch(`${p.url}/ready`);
          return res.ok ? true : undefined;
        }, () => (p.exited ? `exited with code ${p.child.exitCode}: ${fs.readFileSync(p.logFile, 'utf8').slice(-2000)}` : undefined));
      }
      // Every ingester ACTIVE in the ring as the distributor and the querier see it.
      const ingesters = props.zones.length * props.ingestersPerZone;
      for (const p of [cluster.distributor, cluster.querier]) {
        await waitFor(`${p.name} to see ${ingesters} ACTIVE ingesters`, 60_000, async () => {
          const ring = await cluster.ring(p);
          return ring.filter((m) => m.state === 'ACTIVE').length === ingesters ? true : undefined;
        });
      }
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  public readonly processes: LokiProcess[] = [];

  private constructor(public readonly dir: string, public readonly props: LokiClusterProps) {}

  public get distributor(): LokiProcess {
    return this.processes.find((p) => p.target === 'distributor')!;
  }

  public get querier(): LokiProcess {
    return this.processes.find((p) => p.target === 'querier')!;
  }

  public ingesters(zone?: string): LokiProcess[] {
    return this.processes.filter((p) => p.target === 'ingester' && (zone === undefined || p.zone === zone));
  }

  /** The ingester ring as `via` sees it. */
  public async ring(via: LokiProcess): Promise<RingMember[]> {
    const res = await fetch(`${via.url}/ring`, { headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error(`GET ${via.url}/ring: ${res.status} ${await res.text()}`);
    const body = await res.json() as { shards: RingMember[] };
    return body.shards.map((s) => ({ id: s.id, state: s.state, zone: s.zone }));
  }

  /** The effective configuration of a process (after Loki applied its defaults and common section). */
  public async config(p: LokiProcess): Promise<string> {
    const res = await fetch(`${p.url}/config`);
    return res.text();
  }

  /** Pushes one line to `stream` at `nanos`; resolves to the HTTP status and body. */
  public async push(stream: { [label: string]: string }, nanos: bigint, line: string): Promise<{ status: number; body: string }> {
    const res = await fetch(`${this.distributor.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ streams: [{ stream, values: [[nanos.toString(), line]] }] }),
    });
    return { status: res.status, body: await res.text() };
  }

  /** Every line of streams matching `selector` between `start` and `end` (ns); throws on a failed query. */
  public async query(selector: string, start: bigint, end: bigint): Promise<string[]> {
    const params = new URLSearchParams({
      query: selector, start: start.toString(), end: end.toString(), limit: '5000', direction: 'forward',
    });
    const res = await fetch(`${this.querier.url}/loki/api/v1/query_range?${params}`);
    const body = await res.text();
    if (!res.ok) throw new Error(`query ${selector}: HTTP ${res.status}: ${body.trim()}`);
    const parsed = JSON.parse(body) as { data: { result: { values: [string, string][] }[] } };
    return parsed.data.result.flatMap((r) => r.values.map((v) => v[1])).sort();
  }

  public async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
