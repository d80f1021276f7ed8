/**
 * Real Loki behind the direct output's ingester pods on kwok: a distributor, a querier and a compactor on
 * 127.0.0.1, and for each ingester pod kwok runs (Running and Ready at once, IP inside 127.0.0.0/8) a Loki
 * ingester on the pod's IP, as its kubelet would (HTTP 3100, gRPC 9095, memberlist 7946, the zone its
 * arguments name, a data folder per pod name as its volume), stopped (SIGTERM) when the pod is deleted.
 * Records when each pod was down: from its deletion until its successor answers Loki's `/ready` (the
 * ingester ACTIVE in the ring). Used by loki-rollout.test.ts and `npm run bench rollout`.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { KubeObject } from './kube-client';
import { IngesterRollout, LokiOutput, ZoneAwareLokiStack, ZoneTopology } from '../../../src';
import { lokiConfig, renderLokiConfig } from '../../../src/loki/config';
import { GRPC_PORT, HTTP_PORT, MEMBERLIST_PORT, ZONE_FLAG } from '../../../src/loki/direct';
import { HEARTBEAT, LokiProcess } from '../loki/loki-cluster';
import { freePort, stopWhenOrphaned } from '../processes';
import { programPath } from '../programs';

/** The name prefix of the ingester pods of `lokiIngesterManifests`. */
export const INGESTER_PREFIX = 'logs-ingester-';

/**
 * The library's ingester objects of a direct Loki stack (`<perZone>` ingesters per zone, replication factor 3):
 * the StatefulSets, their Service and ConfigMap, and the ZoneAwareUpdate (`rollout` ZONE_AWARE) or not
 * (PARTITIONED). `endpoint` (the S3 endpoint) is the config change. The other components run as processes.
 */
export function lokiIngesterManifests(
  namespace: string, zones: string[], perZone: number, endpoint: string, rollout = IngesterRollout.ZONE_AWARE,
): KubeObject[] {
  const chart = new Chart(Testing.app(), 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    namespace,
    output: LokiOutput.DIRECT,
    topology: new ZoneTopology({ zones }),
    replicationFactor: 3,
    ingesterReplicasPerZone: perZone,
    s3: { bucket: 'logs', endpoint },
    ingesterRollout: rollout,
    controllerInstalledElsewhere: rollout === IngesterRollout.ZONE_AWARE, // the controller runs as a process
  });
  return Testing.synth(chart).filter((o: KubeObject) => ['StatefulSet', 'ZoneAwareUpdate', 'ConfigMap'].includes(o.kind)
    || (o.kind === 'Service' && o.metadata.name === 'logs-ingester'));
}

interface Ports { readonly http: number; readonly grpc: number; readonly memberlist: number }

/** One pod's time down: from its deletion until its successor answered /ready (`to` unset until then). */
export interface Down { readonly pod: string; readonly zone: string; readonly from: number; to?: number }

export class LokiOnKwok {
  /** Starts the distributor, querier and compactor; ingester pods named `<ingesterPrefix>...` are run as they come (`onPod`). */
  public static async start(root: string, ingesterPrefix: string): Promise<LokiOnKwok> {
    const port = async (): Promise<Ports> => ({ http: await freePort(), grpc: await freePort(), memberlist: await freePort() });
    const ports = { distributor: await port(), querier: await port(), compactor: await port() };
    const loki = new LokiOnKwok(root, ingesterPrefix, ports.compactor, Object.values(ports).map((p) => `127.0.0.1:${p.memberlist}`));
    for (const [name, p] of Object.entries(ports)) loki.helpers.push(loki.run(name, name, '127.0.0.1', p));
    return loki;
  }

  /** The pod of each name now, and its process once started (after its predecessor's stopped: same volume). */
  public readonly running = new Map<string, { uid: string; zone: string; ip: string; process?: LokiProcess }>();
  public readonly downs: Down[] = [];
  private readonly helpers: LokiProcess[] = [];
  private readonly chain = new Map<string, Promise<void>>();
  /** Per pod IP, the stop of the process last on it: kwok may hand a deleted pod's IP to another pod at once. */
  private readonly released = new Map<string, Promise<void>>();

  private constructor(
    private readonly root: string, private readonly ingesterPrefix: string, private readonly compactor: Ports, private readonly join: string[],
  ) {}

  public get distributor(): LokiProcess {
    return this.helpers[0];
  }

  public get querier(): LokiProcess {
    return this.helpers[1];
  }

  /** Runs `pod` as its kubelet would: once its predecessor (same name) and the last process on its IP stopped, a Loki ingester. */
  public onPod(type: string, pod: any): void {
    const name: string = pod.metadata.name;
    if (!name.startsWith(this.ingesterPrefix)) return;
    const current = this.running.get(name);
    if (current && (type === 'DELETED' || pod.metadata.deletionTimestamp) && current.uid === pod.metadata.uid) {
      this.downs.push({ pod: name, zone: current.zone, from: Date.now() });
      this.running.delete(name);
      this.after(name, async () => current.process?.stop());
      this.released.set(current.ip, this.chain.get(name)!);
    } else if (type !== 'DELETED' && !pod.metadata.deletionTimestamp && pod.status?.podIP && current?.uid !== pod.metadata.uid) {
      const zone = (pod.spec.containers[0].args as string[]).find((a) => a.startsWith(`${ZONE_FLAG}=`))!.split('=')[1];
      const entry: { uid: string; zone: string; ip: string; process?: LokiProcess } = { uid: pod.metadata.uid, zone, ip: pod.status.podIP };
      this.running.set(name, entry);
      const free = this.released.get(entry.ip) ?? Promise.resolve();
      this.after(name, async () => {
        await free;
        entry.process = this.run(name, 'ingester', entry.ip, { http: HTTP_PORT, grpc: GRPC_PORT, memberlist: MEMBERLIST_PORT }, [`${ZONE_FLAG}=${zone}`]);
      });
    }
  }

  /** Ends each open down interval whose pod's successor answers /ready. */
  public async poll(): Promise<void> {
    await Promise.all(this.downs.filter((d) => d.to === undefined).map(async (down) => {
      const next = this.running.get(down.pod);
      if (next?.process && await isReady(`http://${next.ip}:${HTTP_PORT}`)) down.to ??= Date.now();
    }));
  }

  /** Polls every 20 ms until `stop` is called: an interval then never seems to last past the moment it ended by more than that. */
  public pollContinuously(): { stop: () => Promise<void> } {
    let polling = true;
    const loop = (async () => {
      while (polling) {
        await this.poll();
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    return { stop: async () => { polling = false; await loop; } };
  }

  /** The most zones that had a pod down at the same moment. */
  public maxZonesDownAtOnce(): number {
    const ended = this.downs.map((d) => ({ ...d, to: d.to ?? Number.POSITIVE_INFINITY }));
    return Math.max(0, ...ended.map((a) => new Set(ended.filter((b) => b.from <= a.from && a.from < b.to).map((b) => b.zone)).size));
  }

  /** The pods taken down together: a wave starts at a deletion while no pod is down (per Loki's /ready), later ones join it. */
  public waves(): Down[][] {
    const waves: Down[][] = [];
    const byStart = [...this.downs].sort((a, b) => a.from - b.from);
    byStart.forEach((d, i) => {
      const open = byStart.slice(0, i).some((e) => e.from <= d.from && d.from < (e.to ?? Number.POSITIVE_INFINITY));
      if (open && waves.length > 0) waves[waves.length - 1].push(d); else waves.push([d]);
    });
    return waves;
  }

  /** Throws with its log when a pod's process has exited by itself. */
  public assertRunning(): void {
    for (const [name, r] of this.running) {
      if (r.process?.exited) throw new Error(`${name}'s Loki exited (${r.process.child.exitCode}): ${fs.readFileSync(r.process.logFile, 'utf8').slice(-1500)}`);
    }
  }

  /** The ring's ingesters as the distributor sees them. */
  public async ring(): Promise<{ id: string; state: string; zone: string }[]> {
    const res = await fetch(`${this.distributor.url}/ring`, { headers: { Accept: 'application/json' } });
    if (!res.ok) return [];
    return ((await res.json()) as { shards: { id: string; state: string; zone: string }[] }).shards;
  }

  /** Pushes one line now; resolves to the HTTP status (0 when the request failed) and body. */
  public async push(stream: Record<string, string>, line: string): Promise<{ status: number; body: string }> {
    return fetch(`${this.distributor.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ streams: [{ stream, values: [[(BigInt(Date.now()) * 1_000_000n).toString(), line]] }] }),
    }).then(async (r) => ({ status: r.status, body: await r.text() }), (err) => ({ status: 0, body: String(err) }));
  }

  /** Every line of `selector` from `start` to `end` (ns), page by page (Loki caps a query at 5,000 lines); a failure as a string. */
  public async queryAll(selector: string, start: bigint, end: bigint): Promise<string[] | string> {
    const lines: string[] = [];
    for (let from = start; ;) {
      const params = new URLSearchParams({ query: selector, start: from.toString(), end: end.toString(), limit: '5000', direction: 'forward' });
      const res = await fetch(`${this.querier.url}/loki/api/v1/query_range?${params}`);
      const body = await res.text();
      if (!res.ok) return `HTTP ${res.status}: ${body.trim()}`;
      const values: [string, string][] = JSON.parse(body).data.result.flatMap((r: any) => r.values);
      lines.push(...values.map((v) => v[1]));
      if (values.length < 5000) return lines;
      from = BigInt(values[values.length - 1][0]) + 1n; // one line per nanosecond stamp: pushes are sequential
    }
  }

  public async stop(): Promise<void> {
    await Promise.all(this.chain.values());
    await Promise.all([...this.running.values()].map((r) => r.process?.stop()));
    await Promise.all(this.helpers.map((h) => h.stop()));
    fs.rmSync(path.join(this.root, 'storage'), { recursive: true, force: true });
  }

  private after(name: string, step: () => Promise<void>): void {
    this.chain.set(name, (this.chain.get(name) ?? Promise.resolve()).then(step));
  }

  /** Writes `name`'s config (the library's Loki config builder, with this machine's addresses) and starts Loki with `-target=`. */
  private run(name: string, target: string, listen: string, ports: Ports, args: string[] = []): LokiProcess {
    const home = path.join(this.root, name);
    fs.mkdirSync(home, { recursive: true });
    const configFile = path.join(home, 'config.yaml');
    fs.writeFileSync(configFile, renderLokiConfig(lokiConfig({
      replicationFactor: 3,
      zoneAwareness: true,
      instanceZone: '',
      instanceId: name,
      instanceAddr: listen,
      listenAddress: listen,
      httpPort: ports.http,
      grpcPort: ports.grpc,
      memberlistPort: ports.memberlist,
      memberlistBindAddr: listen,
      joinMembers: this.join.filter((j) => j !== `${listen}:${ports.memberlist}`),
      pathPrefix: home,
      storage: { type: 'filesystem', directory: path.join(this.root, 'storage') },
      compactorAddress: `http://127.0.0.1:${this.compactor.http}`,
      heartbeat: HEARTBEAT,
    })));
    const logFile = path.join(home, 'loki.log');
    const log = fs.openSync(logFile, 'a');
    const child = spawn(programPath('loki'), [`-config.file=${configFile}`, `-target=${target}`, ...args], { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    stopWhenOrphaned(child.pid!);
    return new LokiProcess(name, target, undefined, ports.http, child, logFile);
  }
}

async function isReady(url: string): Promise<boolean> {
  return fetch(`${url}/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
}
