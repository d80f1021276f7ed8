/**
 * The ring behind the direct Loki output's ingester pods on kwok, run by Cortex (Apache-2.0; the ring Loki
 * shares with it): a distributor and a querier on 127.0.0.1, and for each ingester pod kwok runs (Running and
 * Ready at once, IP inside 127.0.0.0/8) a Cortex ingester on the pod's IP, as its kubelet would run Loki (HTTP
 * 3100, gRPC 9095, memberlist 7946, the zone its arguments name, a data folder per pod name, or per claim with
 * `volumeOf`, as its volume), stopped (SIGTERM) when the pod is deleted; a zone lost kills its processes at once.
 * Each process gets the flags ../cortex/ring-layout.ts translates from the Loki objects. Records when each pod was
 * down: from its deletion until its successor answers `/ready` (the ingester ACTIVE in the ring). Used by
 * loki-rollout.test.ts, loki-lost-zone.test.ts and `npm run bench rollout`.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { KubeObject } from './kube-client';
import { waitFor } from './wait';
import { IngesterRollout, ZoneAwareLokiStack, ZoneController, ZoneTopology } from '../../../src';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { GRPC_PORT, HTTP_PORT, MEMBERLIST_PORT } from '../../../src/loki/direct';
import { CortexProcess, isServing, Ports, push, RingEntry, ringOf, samples, startCortex } from '../cortex/cortex-cluster';
import { lokiRing, ringMemberOf, RingWorkload } from '../cortex/ring-layout';
import { freePort } from '../processes';

/** The name prefix of the ingester pods of `lokiIngesterManifests`. */
export const INGESTER_PREFIX = 'logs-ingester-';

/**
 * Every object of a direct Loki stack (`<perZone>` ingesters per zone, replication factor 3) with the
 * ZoneAwareUpdate (`rollout` ZONE_AWARE) or not (PARTITIONED). `endpoint` (the S3 endpoint) is the config change.
 */
export function lokiObjects(
  namespace: string, zones: string[], perZone: number, endpoint: string, rollout = IngesterRollout.ZONE_AWARE,
  lostZoneRecovery = false,
): KubeObject[] {
  const chart = new Chart(Testing.app(), 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    namespace,
    topology: new ZoneTopology({ zones }),
    replicationFactor: 3,
    direct: {
      ingesterReplicasPerZone: perZone,
      objectStorage: { bucket: 'logs', endpoint },
      ingesterRollout: rollout,
      // the controller runs as a process
      controller: rollout === IngesterRollout.ZONE_AWARE || lostZoneRecovery
        ? ZoneController.fromInstalled({
          workloadNamespaces: [namespace],
          zoneAwareUpdate: rollout === IngesterRollout.ZONE_AWARE,
          zoneShift: lostZoneRecovery,
          lostZoneRecovery,
        })
        : undefined,
      lostZoneRecovery,
    },
  });
  return Testing.synth(chart);
}

/**
 * The objects of `lokiObjects` the cluster runs: the ingester StatefulSets, their Service and ConfigMap, the
 * ZoneAwareUpdate.
 */
export function lokiIngesterManifests(objects: KubeObject[]): KubeObject[] {
  return objects.filter((o: KubeObject) => ['StatefulSet', 'ZoneAwareUpdate', 'ConfigMap'].includes(o.kind)
    || (o.kind === 'Service' && o.metadata.name === 'logs-ingester'));
}

/** Where a pod's ingester keeps its data: a folder name under the pod's (e.g. its claim's uid: a new claim, empty). */
export type VolumeOf = (pod: any) => Promise<string>;

/** A pod being run: its uid, zone and IP, and its process once started. */
interface Running { readonly uid: string; readonly zone: string; readonly ip: string; process?: CortexProcess }

/** A client pushing a sample every few ms: what the distributor accepted (the values, and when) and refused. */
export interface Pusher {
  /** The accepted samples' values, as a query returns them (` <value>`). */
  readonly accepted: string[];
  readonly acceptedAt: number[];
  readonly refused: string[];
  /** Stops pushing; resolves once the last push has been answered. */
  stop(): Promise<void>;
}

/** One pod's time down: from its deletion until its successor answered /ready (`to` unset until then). */
/**
 * An ingester down: from its deletion seen (`from`) until its successor first answers /ready (`to`, an upper bound:
 * seen by a poll), and the latest moment a poll was sure it was still down (`surelyDownAt`, a lower bound of its end).
 */
export interface Down {
  readonly pod: string;
  readonly zone: string;
  readonly from: number;
  to?: number;
  surelyDownAt: number;
}

export class RingOnKwok {
  /**
   * Starts the distributor and the querier of `objects` (the Loki objects: the ring settings of every process come
   * from them); ingester pods named `<ingesterPrefix>...` are run as they come (`onPod`), as their ConfigMap says.
   */
  public static async start(
    root: string, ingesterPrefix: string, objects: KubeObject[], volumeOf?: VolumeOf,
  ): Promise<RingOnKwok> {
    const port = async (): Promise<Ports> => ({
      http: await freePort(),
      grpc: await freePort(),
      memberlist: await freePort(),
    });
    const ports = { distributor: await port(), querier: await port() };
    const join = Object.values(ports).map((p) => `127.0.0.1:${p.memberlist}`);
    const ring = new RingOnKwok(root, ingesterPrefix, objects, join, volumeOf);
    const layout = lokiRing(objects);
    for (const [name, p] of Object.entries(ports)) {
      const member = layout.find((w) => w.target === name);
      if (!member) throw new Error(`the Loki objects have no ${name}`);
      ring.helpers.push(ring.run(name, member, '127.0.0.1', p));
    }
    return ring;
  }

  /** The pod of each name now, and its process once started (after its predecessor's stopped: same volume). */
  public readonly running = new Map<string, Running>();
  public readonly downs: Down[] = [];
  private readonly helpers: CortexProcess[] = [];
  private readonly chain = new Map<string, Promise<void>>();
  /** Per pod IP, the stop of the process last on it: kwok may hand a deleted pod's IP to another pod at once. */
  private readonly released = new Map<string, Promise<void>>();

  private constructor(
    private readonly root: string,
    private readonly ingesterPrefix: string,
    private readonly objects: KubeObject[],
    private readonly join: string[],
    private readonly volumeOf?: VolumeOf,
  ) {}

  public get distributor(): CortexProcess {
    return this.helpers[0];
  }

  public get querier(): CortexProcess {
    return this.helpers[1];
  }

  /**
   * Runs `pod` as its kubelet would: once its predecessor (same name) and the last process on its IP stopped, an
   * ingester.
   */
  public onPod(type: string, pod: any): void {
    const name: string = pod.metadata.name;
    if (!name.startsWith(this.ingesterPrefix)) return;
    const current = this.running.get(name);
    if (current && (type === 'DELETED' || isTerminating(pod)) && current.uid === pod.metadata.uid) {
      const from = Date.now();
      this.downs.push({ pod: name, zone: current.zone, from, surelyDownAt: from });
      this.running.delete(name);
      this.after(name, async () => current.process?.stop());
      this.released.set(current.ip, this.chain.get(name)!);
    } else if (type !== 'DELETED' && !isTerminating(pod) && pod.status?.podIP && current?.uid !== pod.metadata.uid) {
      const member = ringMemberOf(name, pod.spec, this.objects.filter((o) => o.kind === 'ConfigMap'))!;
      const entry: Running = { uid: pod.metadata.uid, zone: member.zone!, ip: pod.status.podIP };
      this.running.set(name, entry);
      const free = this.released.get(entry.ip) ?? Promise.resolve();
      this.after(name, async () => {
        await free;
        const ports = { http: HTTP_PORT, grpc: GRPC_PORT, memberlist: MEMBERLIST_PORT };
        const volume = this.volumeOf ? await this.volumeOf(pod) : '';
        entry.process = this.run(name, member, entry.ip, ports, volume);
      });
    }
  }

  /**
   * A zone lost: its ingesters (by the ring zone they run in) die at once (SIGKILL), with whatever they had not
   * shipped to the store.
   */
  public async killZone(zone: string): Promise<void> {
    await Promise.all([...this.running.values()].filter((r) => r.zone === zone).map((r) => r.process?.kill()));
  }

  /** Ends each open down interval whose pod's successor answers /ready. */
  public async poll(): Promise<void> {
    await Promise.all(this.downs.filter((d) => d.to === undefined).map(async (down) => {
      const asked = Date.now();
      const next = this.running.get(down.pod);
      if (next?.process && await isReady(`http://${next.ip}:${HTTP_PORT}`)) down.to ??= Date.now();
      // not ready when asked (or later): down at that moment for sure
      else if (down.to === undefined) down.surelyDownAt = Math.max(down.surelyDownAt, asked);
    }));
  }

  /**
   * Polls every 20 ms until `stop` is called: an interval then never seems to last past the moment it ended by more
   * than that.
   */
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
    const zonesDownAt = (a: typeof ended[number]) => ended
      .filter((b) => b.from <= a.from && a.from < b.to)
      .map((b) => b.zone);
    return Math.max(0, ...ended.map((a) => new Set(zonesDownAt(a)).size));
  }

  /** The longest stretch, in ms, during which pods of two or more zones were down together (0: never). */
  public longestMultiZoneDownMs(): number {
    const ended = this.downs.map((d) => ({ ...d, to: d.to ?? Number.POSITIVE_INFINITY }));
    const times = [...new Set(ended.flatMap((d) => [d.from, d.to]))].filter(Number.isFinite).sort((a, b) => a - b);
    let longest = 0;
    let since: number | undefined;
    for (const t of times) {
      const zones = new Set(ended.filter((d) => d.from <= t && t < d.to).map((d) => d.zone)).size;
      if (zones >= 2) {
        since ??= t;
      } else if (since !== undefined) {
        longest = Math.max(longest, t - since);
        since = undefined;
      }
    }
    return longest;
  }

  /**
   * The pods taken down together: a wave starts at a deletion while no pod is down (per /ready), later ones join
   * it.
   */
  public waves(): Down[][] {
    const waves: Down[][] = [];
    const byStart = [...this.downs].sort((a, b) => a.from - b.from);
    byStart.forEach((d, i) => {
      const open = byStart.slice(0, i).some((e) => e.from <= d.from && d.from < (e.to ?? Number.POSITIVE_INFINITY));
      if (open && waves.length > 0) waves[waves.length - 1].push(d); else waves.push([d]);
    });
    return waves;
  }

  /** Throws with its log when a pod's process, or the distributor or querier, has exited by itself. */
  public assertRunning(): void {
    const processes = [...[...this.running.values()].map((r) => r.process), ...this.helpers];
    for (const p of processes) {
      if (p?.exited) throw new Error(`${p.name}'s Cortex exited (${p.child.exitCode}): ${p.log().slice(-1500)}`);
    }
  }

  /** The ring's ingesters as the distributor sees them. */
  public async ring(): Promise<RingEntry[]> {
    return ringOf(this.distributor.url);
  }

  /**
   * Whether every running ingester answers /ready (after it is ACTIVE in the ring, an ingester waits its minimum
   * ready duration before it does).
   */
  public async allReady(): Promise<boolean> {
    const running = [...this.running.values()];
    const ready = await Promise.all(running.map((r) => (r.process ? isReady(`http://${r.ip}:${HTTP_PORT}`) : false)));
    return running.length > 0 && ready.every(Boolean);
  }

  /** The ring's ingesters that the distributor and the querier both route to (ACTIVE, with their tokens). */
  public async serving(): Promise<RingEntry[]> {
    const [d, q] = await Promise.all([ringOf(this.distributor.url), ringOf(this.querier.url)]);
    return d.filter((e) => isServing(e) && q.some((f) => f.id === e.id && isServing(f)));
  }

  /** Pushes one sample of `series` now; resolves to the HTTP status (0 when the request failed) and body. */
  public async push(series: Record<string, string>, value: number): Promise<{ status: number; body: string }> {
    return push(this.distributor.url, [{ labels: series, samples: [{ value, timestampMs: Date.now() }] }]);
  }

  /** Every sample of `selector` in the last `window`, as `<series label> <value>`; a failure as a string. */
  public async query(selector: string, window: string): Promise<string[] | string> {
    return samples(this.querier.url, selector, window).catch((err: Error) => err.message);
  }

  /** Pushes sample 0, 1, 2 … of `series`, one every `everyMs`, until stopped. */
  public pushEvery(series: Record<string, string>, everyMs: number): Pusher {
    let pushing = true;
    const pusher = {
      accepted: [] as string[],
      acceptedAt: [] as number[],
      refused: [] as string[],
      stop: async () => {
        pushing = false;
        await loop;
      },
    };
    const loop = (async () => {
      for (let i = 0; pushing; i++) {
        const res = await this.push(series, i);
        if (res.status === 200) {
          pusher.accepted.push(` ${i}`);
          pusher.acceptedAt.push(Date.now());
        } else {
          pusher.refused.push(`sample ${i}: ${res.status} ${res.body}`);
        }
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
    return pusher;
  }

  /** Waits for a query of `selector` to return at least as many samples as `expected`; the expected ones it lacks. */
  public async missing(selector: string, expected: readonly string[]): Promise<string[]> {
    const returned = await waitFor(`every one of ${expected.length} samples returned by a query`, async () => {
      const values = await this.query(selector, '1h');
      return {
        done: typeof values !== 'string' && values.length >= expected.length,
        value: values as string[],
        state: typeof values === 'string' ? values : `${values.length} of ${expected.length}`,
      };
    }, { timeoutMs: 60_000 });
    const returnedSet = new Set(returned);
    return expected.filter((v) => !returnedSet.has(v));
  }

  public async stop(): Promise<void> {
    await Promise.all(this.chain.values());
    await Promise.all([...this.running.values()].map((r) => r.process?.stop()));
    await Promise.all(this.helpers.map((h) => h.stop()));
    fs.rmSync(path.join(this.root, 'store'), { recursive: true, force: true });
  }

  private after(name: string, step: () => Promise<void>): void {
    this.chain.set(name, (this.chain.get(name) ?? Promise.resolve()).then(step));
  }

  /** Starts Cortex as `member` on `listen` with its home under the root (in `volume`) and the shared store. */
  private run(
    name: string, member: Omit<RingWorkload, 'replicas' | 'name'>, listen: string, ports: Ports, volume = '',
  ): CortexProcess {
    const join = this.join.filter((j) => j !== `${listen}:${ports.memberlist}`);
    return startCortex(member, name, path.join(this.root, name, volume), this.root, listen, ports, join);
  }
}

async function isReady(url: string): Promise<boolean> {
  return fetch(`${url}/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
}
