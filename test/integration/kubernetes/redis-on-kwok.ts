/**
 * A synthesized ZonalRedisCluster (3 masters x 1 replica over the tier's 3 zones) on the test control plane, its
 * pods run for real: kwok makes them Running with IPs inside 127.0.0.0/8 (loopback on Linux, see nodes.ts), and
 * each pod is run as its kubelet would, on that pod's IP (pod-emulation.ts): its init container (real `sh`) turns
 * the Secret key mounted as a file into the auth.conf that redis-server includes, then the pod's own command line.
 * The real controller's `redis` reconciler (a ControllerProcess the caller starts) scales the StatefulSets to the
 * layout, drives the cluster and writes the status ConfigMap, which `statusWhere` reads.
 */
import * as path from 'path';
import { ApiObject, App, Chart, Duration, Size } from 'cdk8s';
import { ClusterInfo } from './control-plane';
import { ControllerProcess } from './controller-process';
import { waitForRollout } from './examples';
import { KubeClient, KubeObject } from './kube-client';
import { RedisKubelet } from './redis-kubelet';
import { livePods, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { ClusterState } from '../../../controller/src/redis/decide';
import { parseClusterNodes } from '../../../controller/src/redis/executor';
import { RedisHealth } from '../../../controller/src/redis/health';
import { LAYOUT_KEY, REDIS_CLUSTER_LABEL, STATUS_KEY, layoutConfigMapName, statusConfigMapName } from '../../../src/contract/redis';
import { ZonalRedisCluster } from '../../../src/redis/cluster';
import { RedisShardLayout } from '../../../src/redis/layout';
import { ZoneTopology } from '../../../src/topology/zone-topology';
import { ZoneController } from '../../../src/zone-controller/zone-controller';
import { EmulatedPod } from '../redis/pod-emulation';
import { nodeClient } from '../redis/redis-keys';
import { RedisProcesses } from '../redis/redis-processes';

/** The status ConfigMap's state.json. */
export type RedisStatus = ClusterState & {
  skippedPods: string[];
  updated: string;
  health: RedisHealth;
  lastOperation?: { operation: string; result: string; message: string; at: string };
};

export interface RedisOnKwokOptions {
  readonly name: string;
  readonly password: string;
  readonly nodeTimeoutMs: number;
  /** The controller the cluster names also runs the zone-shift reconciler. @default false */
  readonly zoneShift?: boolean;
  /**
   * The cluster's `lostZoneRecovery`, and the controller it names runs the zone annotator, the zone-shift and the
   * lost-zone recovery reconcilers. @default false
   */
  readonly lostZoneRecovery?: boolean;
}

/** The folder a pod's data volume is kept in, under the pod's name: a new claim is a new, empty volume. */
export type VolumeOf = (pod: any) => Promise<string>;

export class RedisOnKwok {
  readonly redis: RedisProcesses;
  /** The planned layout, once `runPods` has read it from the layout ConfigMap. */
  layout!: RedisShardLayout;
  /** Zones `killZone` took: their processes are never started again. */
  private readonly lostZones = new Set<string>();
  /** The kubelet `kubelet` started, if any. */
  private playing?: RedisKubelet;

  constructor(
    private readonly client: KubeClient,
    private readonly info: ClusterInfo,
    readonly ns: string,
    readonly opts: RedisOnKwokOptions,
  ) {
    this.redis = new RedisProcesses(opts.nodeTimeoutMs, opts.password);
  }

  /**
   * The password Secret and the cluster, as an app that installs the controller elsewhere synthesizes them;
   * `alongside` adds the app's other charts (a Prometheus that monitors the cluster, say) before the cluster's chart is
   * synthesized.
   */
  manifests(alongside?: (app: App, cluster: ZonalRedisCluster) => void): KubeObject[] {
    const app = new App();
    const chart = new Chart(app, 'redis', { namespace: this.ns, disableResourceNameHashes: true });
    new ApiObject(chart, 'password', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'redis-password' },
      stringData: { password: this.opts.password },
    });
    const cluster = new ZonalRedisCluster(chart, 'redis', {
      // the test runs the controller as a process
      controller: ZoneController.fromInstalled({
        workloadNamespaces: [this.ns],
        zoneAnnotator: this.opts.lostZoneRecovery ?? false,
        redisManager: true,
        zoneShift: this.opts.zoneShift || this.opts.lostZoneRecovery,
        lostZoneRecovery: this.opts.lostZoneRecovery,
      }),
      lostZoneRecovery: this.opts.lostZoneRecovery,
      name: this.opts.name,
      topology: new ZoneTopology({ zones: [...this.info.zones] }),
      masters: 3,
      replicasPerMaster: 1,
      password: { name: 'redis-password', key: 'password' },
      storage: { size: Size.gibibytes(1) },
      clusterNodeTimeout: Duration.millis(this.opts.nodeTimeoutMs),
    });
    alongside?.(app, cluster);
    return chart.toJson();
  }

  /** Waits until the manager scaled each zone's StatefulSet to the layout and every pod runs; runs them all. */
  async runAllPods(applied: readonly KubeObject[], controller?: ControllerProcess): Promise<any[]> {
    const pods = await this.untilScaled(applied, controller);
    await this.runPods(pods);
    return pods;
  }

  /** Waits until the manager scaled each zone's StatefulSet to the layout and every pod runs (in kwok); the pods. */
  async untilScaled(applied: readonly KubeObject[], controller?: ControllerProcess): Promise<any[]> {
    await waitFor('the manager to scale each zone\'s StatefulSet to the layout', async () => {
      controller?.assertRunning();
      const all = await this.client.list<any>('apps/v1', 'StatefulSet', { namespace: this.ns });
      const scaled = all.length === this.info.zones.length && all.every((x) => x.spec.replicas === 2);
      return { done: scaled, state: JSON.stringify(all.map((x) => x.spec.replicas)) };
    });
    await waitForRollout(this.client, applied);
    return livePods(this.client, this.ns, `${REDIS_CLUSTER_LABEL}=${this.opts.name}`);
  }

  /** Reads the layout, the pods' ConfigMap and Secret, and runs each pod (pod-emulation.ts). */
  async runPods(pods: readonly any[], volumeOf?: VolumeOf): Promise<void> {
    const layoutConfigMap = await this.client.get<any>('v1', 'ConfigMap', layoutConfigMapName(this.opts.name), this.ns);
    this.layout = RedisShardLayout.fromJson(layoutConfigMap.data[LAYOUT_KEY]);
    const configMap = await this.client.get<any>('v1', 'ConfigMap', `${this.opts.name}-config`, this.ns);
    const secrets = new Map([['redis-password', await this.client.get<any>('v1', 'Secret', 'redis-password', this.ns)]]);
    for (const p of pods) await this.runPod(p, configMap, secrets, volumeOf ? await volumeOf(p) : '');
  }

  /**
   * Runs the cluster's pods as their kubelets would, from now until `stop` (redis-kubelet.ts), each with its data in
   * the folder `volumeOf` names; never in a zone `killZone` took.
   */
  kubelet(volumeOf: VolumeOf): RedisKubelet {
    const labelSelector = `${REDIS_CLUSTER_LABEL}=${this.opts.name}`;
    return this.playing = RedisKubelet.start({
      redis: this.redis,
      nodeOf: (pod) => pod.slice(this.opts.name.length + 1),
      pods: () => this.client.list<any>('v1', 'Pod', { namespace: this.ns, labelSelector }),
      run: (pod) => this.runPods([pod], volumeOf),
      runsIn: (pod) => zoneOfNode(this.info, pod.spec.nodeName),
      lostZones: this.lostZones,
      logFile: path.join(this.info.logsDir, `redis-kubelet-${this.ns}.log`),
    });
  }

  /**
   * Runs the pod as its kubelet would, on this machine: its volumes as folders (the data volume one folder per
   * pod name and `volume`, as a PersistentVolume would be, so the pod's successor on the same claim finds its data),
   * its init container, then its redis-server on the pod's IP and its `redis` container port.
   */
  private async runPod(pod: any, configMap: any, secrets: Map<string, any>, volume: string): Promise<void> {
    const emulated = emulatedPod(pod, path.join(this.redis.root, pod.metadata.name, volume), configMap, secrets);
    const args = emulated.redisServerArgs();
    const port = pod.spec.containers[0].ports.find((p: any) => p.name === 'redis').containerPort;
    const data = args[args.indexOf('--dir') + 1];
    if (data !== emulated.volumeDir('data')) throw new Error(`pod ${pod.metadata.name}: redis-server's --dir ${data} is not its data volume`);
    await this.redis.add({
      name: pod.metadata.name.slice(this.opts.name.length + 1),
      zone: zoneOfNode(this.info, pod.spec.nodeName)!,
      address: `${pod.status.podIP}:${port}`,
    }, data, args, emulated.env());
  }

  /** What the kubelet could not start, or found exited (and started again). */
  kubeletFailures(): string[] {
    return this.playing?.failures ?? [];
  }

  /** A zone lost: its processes die at once (SIGKILL), and `kubelet` never starts one there again. */
  async killZone(zone: string): Promise<void> {
    this.lostZones.add(zone);
    await this.redis.killZone(zone);
  }

  async status(): Promise<RedisStatus | undefined> {
    const cm = await this.client.find<any>('v1', 'ConfigMap', statusConfigMapName(this.opts.name), this.ns);
    return cm ? JSON.parse(cm.data[STATUS_KEY]) : undefined;
  }

  /**
   * Waits until the status ConfigMap, written after `since`, says what `check` wants; on timeout shows the last
   * status.
   */
  async statusWhere(
    what: string, since: Date, check: (s: RedisStatus) => boolean, controller?: ControllerProcess, timeoutMs = 120_000,
  ): Promise<RedisStatus> {
    return waitFor(`the status ConfigMap to report ${what}`, async () => {
      controller?.assertRunning();
      const s = await this.status();
      const state = JSON.stringify(s && {
        healthy: s.healthy,
        mastersPerZone: s.mastersPerZone,
        issues: s.issues,
        skippedPods: s.skippedPods,
        ...(this.playing?.failures.length ? { kubeletFailures: this.playing.failures } : {}),
      });
      return { done: !!s && new Date(s.updated) > since && check(s), value: s, state };
    }, { timeoutMs, intervalMs: 500 });
  }

  /** The address of planned node `name`. */
  address(name: string): string {
    return this.redis.inventory.find((n) => n.name === name)!.address;
  }

  /** The planned node (of the inventory) at `address`. */
  nameAt(address: string): string | undefined {
    return this.redis.inventory.find((n) => n.address === address)?.name;
  }

  /** One command on the planned node `name` (a client of that node alone). */
  async call(name: string, ...args: (string | number)[]): Promise<any> {
    const c = nodeClient(this.address(name), this.opts.password, { timeoutMs: 10_000 });
    try {
      return await c.call(String(args[0]), ...args.slice(1).map(String));
    } finally {
      c.disconnect();
    }
  }

  /** Each live node's own line of CLUSTER NODES (role and slots as it says of itself), by name. */
  async selfViews(): Promise<Map<string, ReturnType<typeof parseClusterNodes>[number]>> {
    const views = await Promise.all(this.redis.live().map(async (n) => {
      const entries = parseClusterNodes(await this.call(n.name, 'CLUSTER', 'NODES'));
      return [n.name, entries.find((e) => e.flags.includes('myself'))!] as const;
    }));
    return new Map(views);
  }

  async close(): Promise<void> {
    await this.redis.close();
  }
}

/**
 * `pod` (as the API server has it) run on this machine, its volumes under `dir`: from its ConfigMap and its Secrets
 * (by name, as the API server has them: base64 data).
 */
export function emulatedPod(pod: any, dir: string, configMap: any, secrets: Map<string, any>): EmulatedPod {
  const bytes = (data: Record<string, string>) => Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  );
  const decoded = new Map([...secrets].map(([name, secret]) => [name, bytes(secret.data)]));
  return new EmulatedPod(pod.spec, dir, {
    configMaps: new Map([[configMap.metadata.name, configMap.data]]), secrets: decoded, podIP: pod.status.podIP,
  });
}
