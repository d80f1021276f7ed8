/**
 * Runs a synthesized Redis pod spec on this machine as a kubelet would, so the tiers test what the
 * construct writes rather than a copy of it: volumes become folders (ConfigMap files and Secret items
 * written out, with their modes), mount paths in arguments are mapped to those folders, `$(VAR)` is
 * expanded from the container's env (the downward API's status.podIP; nothing else is emulated, so a
 * Secret in a container's environment fails here), and the init containers run for real (their `sh`).
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Duration, Testing } from 'cdk8s';
import { ZonalRedisCluster } from '../../../src/redis/cluster';
import { RedisPasswordSecret } from '../../../src/redis/cluster-props';
import { ZoneTopology } from '../../../src/topology/zone-topology';
import { ZoneController } from '../../../src/zone-controller/zone-controller';

/** What the pod's volumes come from: ConfigMap data and Secret data (decoded) by name, and the pod's IP. */
export interface PodSources {
  readonly configMaps: ReadonlyMap<string, Record<string, string>>;
  readonly secrets: ReadonlyMap<string, Record<string, Buffer>>;
  readonly podIP: string;
}

/** A synthesized pod spec and the ConfigMaps it mounts, by name. */
export interface SynthesizedPod {
  readonly spec: any;
  readonly configMaps: Map<string, Record<string, string>>;
}

const synthesized = new Map<string, SynthesizedPod>();

/**
 * The pod spec and ConfigMaps of a synthesized ZonalRedisCluster (3 masters over zones a, b, c); synthesized once
 * per arguments.
 */
export function synthesizedRedisPod(clusterNodeTimeoutMs: number, password: RedisPasswordSecret): SynthesizedPod {
  const key = JSON.stringify([clusterNodeTimeoutMs, password]);
  if (!synthesized.has(key)) synthesized.set(key, synthesize(clusterNodeTimeoutMs, password));
  return structuredClone(synthesized.get(key)!);
}

function synthesize(clusterNodeTimeoutMs: number, password: RedisPasswordSecret): SynthesizedPod {
  const chart = new Chart(Testing.app(), 'redis', { namespace: 'redis' });
  new ZonalRedisCluster(chart, 'redis', {
    // the tier runs the manager itself
    controller: ZoneController.fromInstalled({ workloadNamespaces: ['redis'], zoneAnnotator: false, redisManager: true }),
    topology: new ZoneTopology({ zones: ['a', 'b', 'c'] }),
    masters: 3,
    password,
    clusterNodeTimeout: Duration.millis(clusterNodeTimeoutMs),
  });
  const objects = Testing.synth(chart);
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data]));
  return { spec: objects.find((o) => o.kind === 'StatefulSet').spec.template.spec, configMaps };
}

/**
 * A pod's volumes as folders under `podDir`, one per volume name (a volume claim's too: a folder, as its
 * PersistentVolume), the same ones for its successor in that folder.
 */
export class EmulatedPod {
  constructor(private readonly spec: any, private readonly podDir: string, private readonly sources: PodSources) {
    for (const volume of spec.volumes ?? []) this.writeVolume(volume);
    for (const c of [...spec.initContainers ?? [], ...spec.containers]) {
      for (const m of c.volumeMounts ?? []) fs.mkdirSync(this.volumeDir(m.name), { recursive: true });
    }
  }

  /**
   * The redis container's command line (after the init containers ran), checked to be redis-server's: its
   * arguments.
   */
  public redisServerArgs(): string[] {
    this.runInitContainers();
    const [program, ...args] = this.argv();
    if (program !== 'redis-server') throw new Error(`the synthesized container runs ${program}, not redis-server`);
    return args;
  }

  /**
   * Whether the container's readiness probe (an exec) passes, run for real with `map` applied to its mapped command
   * line.
   */
  public ready(map: (arg: string) => string = (a) => a, container: any = this.spec.containers[0]): boolean {
    const [program, ...args] = container.readinessProbe.exec.command.map((a: string) => map(this.local(container, a)));
    return spawnSync(program, args, { env: this.env(container), stdio: 'ignore' }).status === 0;
  }

  /** Runs every init container (real programs); throws with its stderr when one fails. */
  public runInitContainers(): void {
    for (const c of this.spec.initContainers ?? []) {
      const [program, ...args] = this.argv(c);
      try {
        execFileSync(program, args, { env: this.env(c), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
      } catch (err: any) {
        throw new Error(`init container ${c.name} failed (${err.status}): ${err.stderr}`);
      }
    }
  }

  /** The command line of container `name` (default: the first), mapped to this machine. */
  public argv(container: any = this.spec.containers[0]): string[] {
    const argv: string[] = [...(container.command ?? []), ...(container.args ?? [])];
    return argv.map((a) => this.local(container, this.expand(container, a)));
  }

  /**
   * The environment of a container (default: the first): its env (see the file's comment) and PATH, nothing from
   * this process.
   */
  public env(container: any = this.spec.containers[0]): NodeJS.ProcessEnv {
    const env = Object.fromEntries((container.env ?? []).map((e: any) => [e.name, this.value(container, e)]));
    return { PATH: process.env.PATH, ...env };
  }

  /** The folder of a volume. */
  public volumeDir(name: string): string {
    return path.join(this.podDir, name);
  }

  /** A path inside the container, as a path on this machine (other arguments unchanged). */
  public local(container: any, arg: string): string {
    const m = (container.volumeMounts ?? []).find((x: any) => arg === x.mountPath || arg.startsWith(`${x.mountPath}/`));
    return m ? this.volumeDir(m.name) + arg.slice(m.mountPath.length) : arg;
  }

  private expand(container: any, arg: string): string {
    return arg.replace(/\$\((\w+)\)/g, (whole, name) => {
      const e = (container.env ?? []).find((x: any) => x.name === name);
      return e ? this.value(container, e) : whole;
    });
  }

  private value(container: any, e: any): string {
    if (e.value !== undefined) return e.value;
    if (e.valueFrom?.fieldRef?.fieldPath === 'status.podIP') return this.sources.podIP;
    throw new Error(`env ${e.name} of container ${container.name}: not emulated (${JSON.stringify(e.valueFrom)})`);
  }

  private writeVolume(volume: any): void {
    const dir = this.volumeDir(volume.name);
    fs.mkdirSync(dir, { recursive: true });
    if (volume.configMap) {
      const data = this.sources.configMaps.get(volume.configMap.name);
      if (!data) throw new Error(`volume ${volume.name}: no ConfigMap ${volume.configMap.name}`);
      for (const [file, text] of Object.entries(data)) fs.writeFileSync(path.join(dir, file), text);
    }
    if (volume.secret) {
      const data = this.sources.secrets.get(volume.secret.secretName);
      if (!data) throw new Error(`volume ${volume.name}: no Secret ${volume.secret.secretName} (the pod would not start)`);
      const items: { key: string; path: string; mode?: number }[] = volume.secret.items
        ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) {
        if (!(item.key in data)) throw new Error(`volume ${volume.name}: Secret ${volume.secret.secretName} has no key ${item.key}`);
        const file = path.join(dir, item.path);
        fs.rmSync(file, { force: true });
        fs.writeFileSync(file, data[item.key], { mode: item.mode ?? volume.secret.defaultMode ?? 0o644 });
      }
    }
  }
}
