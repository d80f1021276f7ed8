/**
 * The kubelet of a Redis cluster's pods on kwok, which plays their status but runs nothing: every 100 ms it starts a
 * redis-server for each pod Running with an IP whose uid runs none yet (the process of the pod it replaced removed
 * first), and removes the process of a pod gone. A start that fails, and a process that exited by itself, are kept in
 * `failures` and started again, as a kubelet restarts a container. kwok sometimes gives a Running pod another IP a
 * moment after its first (a real kubelet does so only with a new sandbox, whose containers start again): the process
 * is started again on the new IP. Never in a lost zone: its processes died with it. What it does is written to
 * `logFile` (in the run's logs folder), for a failure's post-mortem.
 */
import * as fs from 'fs';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { RedisProcesses } from '../redis/redis-processes';

export interface RedisKubeletOptions {
  readonly redis: RedisProcesses;
  /** The Redis node (process name) of a pod name. */
  readonly nodeOf: (pod: string) => string;
  /** The cluster's pods now. */
  readonly pods: () => Promise<any[]>;
  /** Starts a pod's process. */
  readonly run: (pod: any) => Promise<void>;
  /** The zone a pod runs in. */
  readonly runsIn: (pod: any) => string | undefined;
  /** Zones lost: no process is started there. */
  readonly lostZones: ReadonlySet<string>;
  readonly logFile: string;
}

export class RedisKubelet {
  static start(opts: RedisKubeletOptions): RedisKubelet {
    const kubelet = new RedisKubelet(opts);
    kubelet.loop = (async () => {
      while (!kubelet.stopped) {
        await kubelet.sync().catch((err) => kubelet.log(`sync failed: ${err.message}`));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    return kubelet;
  }

  /** Processes that could not start, or exited by themselves, and why (each started again). */
  readonly failures: string[] = [];
  /** The pod each process runs for, by pod name: its uid and IP. */
  private readonly running = new Map<string, string>();
  private stopped = false;
  private loop?: Promise<void>;
  private lastListing = '';

  private constructor(private readonly opts: RedisKubeletOptions) {}

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async sync(): Promise<void> {
    const pods = await this.opts.pods();
    this.logListing(pods);
    const live = new Map(pods.filter((p) => !isTerminating(p) && p.status?.phase === 'Running' && p.status.podIP)
      .map((p) => [p.metadata.name, p]));
    for (const [name, runsFor] of [...this.running]) {
      const pod = live.get(name);
      if (pod && instance(pod) === runsFor && !this.exited(pod)) continue;
      this.log(`removing ${name} (${runsFor})${pod ? `: now ${instance(pod)}` : ''}`);
      await this.opts.redis.remove(this.opts.nodeOf(name));
      this.running.delete(name);
    }
    const startable = (p: any) => !this.running.has(p.metadata.name) && !this.inLostZone(p);
    for (const pod of [...live.values()].filter(startable)) await this.start(pod);
  }

  private inLostZone(pod: any): boolean {
    return this.opts.lostZones.has(this.opts.runsIn(pod) ?? '');
  }

  /** Whether the process of `pod` (outside a lost zone) exited by itself: recorded, to be started again. */
  private exited(pod: any): boolean {
    const node = this.opts.nodeOf(pod.metadata.name);
    if (this.inLostZone(pod) || this.opts.redis.pid(node) !== undefined) return false;
    this.fail(`${pod.metadata.name} exited; its redis.log ends: ${this.opts.redis.logTail(node)}`);
    return true;
  }

  private async start(pod: any): Promise<void> {
    const name: string = pod.metadata.name;
    this.log(`starting ${name} (${pod.metadata.uid}) at ${pod.status.podIP}`);
    try {
      await this.opts.run(pod);
      this.running.set(name, instance(pod));
      this.log(`started ${name}`);
    } catch (err) {
      this.fail(`${name} (${pod.status.podIP}) did not start: ${(err as Error).message}`);
      await this.opts.redis.remove(this.opts.nodeOf(name)).catch(() => undefined);
    }
  }

  private fail(what: string): void {
    this.failures.push(`${new Date().toISOString()} ${what}`);
    this.log(what);
  }

  /** The pods as listed, when that changed: name, uid, phase, IP, terminating. */
  private logListing(pods: readonly any[]): void {
    const listing = pods.map((p) => `${p.metadata.name}/${p.metadata.uid}/${p.status?.phase}/${p.status?.podIP ?? '-'}` +
      (isTerminating(p) ? '/terminating' : '')).join(' ');
    if (listing !== this.lastListing) this.log(`pods: ${(this.lastListing = listing)}`);
  }

  private log(line: string): void {
    fs.appendFileSync(this.opts.logFile, `${new Date().toISOString()} ${line}\n`);
  }
}

/** A pod's uid and IP: a process runs for one of them. */
function instance(pod: any): string {
  return `${pod.metadata.uid}@${pod.status.podIP}`;
}
