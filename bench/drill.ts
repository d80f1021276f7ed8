/**
 * The zonal shift drill on the test control plane, with the real controller (`zone-annotator`, `redis` and
 * `zone-shift` reconcilers): how long from a ZoneShift's creation until its zone is out of service, (a) every
 * opted-in pod of the zone listed not ready in its Service's EndpointSlices (no traffic), (b) every Redis master out
 * of the zone; against Redis's own failover of a zone that stops (its redis-server processes SIGSTOPped, the
 * controller stopped, so that Redis alone decides after cluster-node-timeout) on the same cluster, and against one
 * API round trip (a GET of the ZoneShift). The cases are interleaved, zones in turn, and the cluster is brought
 * back to its plan (the controller fails the masters back) between runs.
 *
 * The Redis pods run as real redis-server processes on their kwok pod IPs
 * (test/integration/kubernetes/redis-on-kwok.ts), the web pods on extra nodes with routable pod IPs (the EndpointSlice
 * controller refuses loopback endpoints), and the kubelet's readiness rule for gates is played by kubelet-readiness.ts
 * (kwok does not recompute Ready).
 */
import { performance } from 'perf_hooks';
import { Chart, Duration, Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis from 'ioredis';
import { BenchSection } from './harness';
import { parseClusterNodes } from '../controller/src/redis/executor';
import { InventoryNode } from '../controller/src/redis/model';
import { AUTOSHIFT_POLICY_LABEL, ZONE_AUTOSHIFT_KIND } from '../src/contract/zone-autoshift';
import { zoneAutoshiftCrd } from '../src/contract/zone-autoshift-crd';
import { ZONE_SHIFT_KIND } from '../src/contract/zone-shift';
import { zoneShiftCrd } from '../src/contract/zone-shift-crd';
import { autoshiftSpec } from '../src/zone-controller/autoshift';
import { ZoneController } from '../src/zone-controller/zone-controller';
import { ControlPlane } from '../test/integration/kubernetes/control-plane';
import { ControllerProcess } from '../test/integration/kubernetes/controller-process';
import { applyManifests, deleteNamespace, waitForRollout } from '../test/integration/kubernetes/examples';
import { KubeClient, KubeObject } from '../test/integration/kubernetes/kube-client';
import { playKubeletReadiness } from '../test/integration/kubernetes/kubelet-readiness';
import { addNodes, FakeNode, HOSTNAME_KEY, planNodes } from '../test/integration/kubernetes/nodes';
import { PodWatch } from '../test/integration/kubernetes/pod-watch';
import { RedisOnKwok } from '../test/integration/kubernetes/redis-on-kwok';
import { RESTRICTED_PAUSE_POD } from '../test/integration/kubernetes/scheduling';
import { sleep, waitFor } from '../test/integration/kubernetes/wait';
import { silenceZone } from '../test/integration/kubernetes/zone-outage';
import { nodeClient } from '../test/integration/redis/redis-keys';

/** Runs of each case. */
const RUNS = 5;
/** The construct's default clusterNodeTimeout (ZonalRedisCluster). */
const NODE_TIMEOUT_MS = 5000;
const WEB_PER_ZONE = 2;
const GROUP = 'cdk8s-zones.dev/v1alpha1';
/** How often the end of a case is looked for. */
const POLL_MS = 20;
/** GETs of the ZoneShift per run (their median is the run's round trip). */
const GETS_PER_RUN = 10;
const ALL_SLOTS = 16384;
const LONG = { timeoutMs: 180_000, intervalMs: 200 };
/**
 * How long each case waits, once the cluster is back to plan, before the next: a replica that stood for election
 * stands again only 4 x cluster-node-timeout later (Redis's auth_retry_time in clusterHandleSlaveFailover), and every
 * case ends with elections (the failover, then the fail-back). Without it a case would time Redis's wait, not its own.
 */
const SETTLE_MS = 4 * NODE_TIMEOUT_MS + 1000;
/** The controller-manager's default node monitor grace period (the test control plane leaves it as is). */
const NODE_MONITOR_GRACE_MS = 50_000;
/** The ZoneAutoshift the controller acts on: the defaults, but a short recovery (the bench waits it out each run). */
const AUTOSHIFT_POLICY = 'bench-drill';
const autoshiftPolicy = (): KubeObject => ({
  apiVersion: GROUP,
  kind: ZONE_AUTOSHIFT_KIND,
  metadata: { name: AUTOSHIFT_POLICY },
  spec: autoshiftSpec('bench drill', { recoveredFor: Duration.seconds(10), minDuration: Duration.seconds(10) }),
});

/** The web Deployment (opted in to the shift's readiness gate, on the routable nodes only) and its Service. */
function webObjects(ns: string, nodes: readonly FakeNode[], zones: readonly string[]): KubeObject[] {
  const app = Testing.app();
  const chart = new Chart(app, 'web', { namespace: ns });
  const labels = { app: 'web' };
  const deployment = new k8s.KubeDeployment(chart, 'web', {
    metadata: { name: 'web' },
    spec: {
      replicas: WEB_PER_ZONE * zones.length,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...RESTRICTED_PAUSE_POD,
          topologySpreadConstraints: [{
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: labels },
          }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{
                  matchExpressions: [{ key: HOSTNAME_KEY, operator: 'In', values: nodes.map((n) => n.name) }],
                }],
              },
            },
          },
        } as any,
      },
    },
  });
  const gate = ZoneController.fromInstalled({ workloadNamespaces: [ns], zoneShift: true });
  ZoneController.addZoneShiftGate(deployment, gate);
  new k8s.KubeService(chart, 'web-service', { metadata: { name: 'web' }, spec: { selector: labels, ports: [{ port: 80 }] } });
  return Testing.synth(chart);
}

/** Two significant digits below 1 (a ratio of 0.0003 is no 0.000), two decimals up to 10, whole numbers beyond. */
const ratio = (x: number) => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(2));
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Stats { readonly median: number; readonly min: number; readonly max: number; readonly runs: number }
const stats = (xs: readonly number[]): Stats => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs),
  runs: xs.length,
});

/** The cluster, the controller and what the cases look at. */
class Drill {
  private controller?: ControllerProcess;
  private kubelet?: PodWatch;
  private readonly redisClients = new Map<string, Redis>();

  constructor(
    private readonly cp: ControlPlane,
    private readonly ns: string,
    readonly redis: RedisOnKwok,
    private readonly webNodes: readonly FakeNode[],
  ) {}

  private get client(): KubeClient {
    return this.cp.client;
  }

  async setUp(): Promise<void> {
    await addNodes(this.client, this.webNodes);
    const objects = [
      zoneShiftCrd() as KubeObject,
      zoneAutoshiftCrd() as KubeObject,
      autoshiftPolicy(),
      ...this.redis.manifests(),
      ...webObjects(this.ns, this.webNodes, this.cp.info.zones),
    ];
    const { applied, rejections } = await applyManifests(this.client, objects, this.ns);
    if (rejections.length > 0) throw new Error(`rejected: ${rejections.join('; ')}`);
    this.kubelet = await playKubeletReadiness(this.client, this.cp.info, this.ns);
    await this.startController();
    await this.redis.runAllPods(applied.filter((o) => o.metadata.name !== 'web'), this.controller);
    await waitForRollout(this.client, applied);
    await this.untilBackToPlan(new Date(0));
    await sleep(SETTLE_MS);
  }

  private async startController(): Promise<void> {
    this.controller = await ControllerProcess.start(this.cp.info, `bench-drill-${Date.now().toString(36)}`,
      ['--reconcilers', 'zone-annotator,redis,zone-shift,zone-autoshift', '--autoshift-policy', AUTOSHIFT_POLICY,
        '--redis-namespaces', this.ns]);
  }

  /** One drill: the shift created, then polled until the zone is out of service (a) and (b); then cancelled. */
  async drill(zone: string): Promise<{ endpointsMs: number; mastersMs: number; roundTripMs: number }> {
    const name = `drill-${zone}`;
    await this.client.create({
      apiVersion: GROUP,
      kind: ZONE_SHIFT_KIND,
      metadata: { name },
      spec: { zone, expiresAt: new Date(Date.now() + 600_000).toISOString(), reason: 'bench drill' },
    });
    const created = performance.now(); // the API server's answer: it accepted the shift
    let endpointsMs: number | undefined;
    let mastersMs: number | undefined;
    await waitFor(`zone ${zone} out of service`, async () => {
      this.controller!.assertRunning();
      await Promise.all([
        endpointsMs === undefined && this.webOutOf(zone).then((out) => {
          if (out) endpointsMs = performance.now() - created;
        }),
        mastersMs === undefined && this.mastersOutOf(zone, true).then((out) => {
          if (out) mastersMs = performance.now() - created;
        }),
      ]);
      return {
        done: endpointsMs !== undefined && mastersMs !== undefined,
        state: JSON.stringify({ endpointsMs, mastersMs }),
      };
    }, { timeoutMs: 60_000, intervalMs: POLL_MS });
    const roundTripMs = await this.roundTrip(name);
    const since = new Date();
    await this.client.delete(GROUP, ZONE_SHIFT_KIND, name);
    await waitFor(`shift ${name} undone and gone`, async () => ({ done: !(await this.client.find(GROUP, ZONE_SHIFT_KIND, name)) }), LONG);
    await this.untilBackToPlan(since);
    await sleep(SETTLE_MS);
    return { endpointsMs: endpointsMs!, mastersMs: mastersMs!, roundTripMs };
  }

  /**
   * Autoshift: the zone's kubelets fall silent (their node Leases taken from kwok: no heartbeat; the redis-servers run
   * on), polled until the controller's autoshift of the zone exists, and until the zone is out of service as in a
   * drill; then the Leases given back, and the autoshift waited out (it ends once the zone is healthy for
   * recoveredFor).
   */
  async autoshift(zone: string): Promise<{ shiftMs: number; outOfServiceMs: number }> {
    const poolNodes = this.webNodes.filter((n) => n.zone === zone).map((n) => n.name);
    const outage = await silenceZone({ client: this.client, info: this.cp.info }, zone, { poolNodes, ...LONG });
    const silenced = performance.now();
    const labelSelector = `${AUTOSHIFT_POLICY_LABEL}=${AUTOSHIFT_POLICY}`;
    const ours = () => this.client.list<any>(GROUP, ZONE_SHIFT_KIND, { labelSelector });
    let shiftMs: number | undefined;
    let outOfServiceMs: number | undefined;
    try {
      await waitFor(`the autoshift of ${zone}, and the zone out of service`, async () => {
        this.controller!.assertRunning();
        if (shiftMs === undefined && (await ours()).length > 0) shiftMs = performance.now() - silenced;
        if (shiftMs !== undefined && await this.webOutOf(zone) && await this.mastersOutOf(zone, true)) {
          outOfServiceMs = performance.now() - silenced;
        }
        return { done: outOfServiceMs !== undefined, state: JSON.stringify({ shiftMs }) };
      }, { timeoutMs: 4 * NODE_MONITOR_GRACE_MS, intervalMs: 200 });
    } finally {
      await outage.restore();
    }
    const since = new Date();
    await waitFor('the autoshift ended and undone', async () => ({ done: (await ours()).length === 0 }), LONG);
    await this.untilBackToPlan(since);
    await sleep(SETTLE_MS);
    return { shiftMs: shiftMs!, outOfServiceMs: outOfServiceMs! };
  }

  /** The median of GETS_PER_RUN GETs of the shift. */
  private async roundTrip(name: string): Promise<number> {
    const samples: number[] = [];
    for (let i = 0; i < GETS_PER_RUN; i++) {
      const start = performance.now();
      await this.client.get(GROUP, ZONE_SHIFT_KIND, name);
      samples.push(performance.now() - start);
    }
    return median(samples);
  }

  /**
   * Redis alone: the controller stopped, the zone's redis-servers SIGSTOPped (a zone dying: its connections hang, as
   * a cut network's would), polled until every slot is served by a master outside the zone; then resumed and the
   * controller started again, which fails the masters back to plan.
   */
  async redisAlone(zone: string): Promise<number> {
    await this.controller!.stop();
    const pids = this.redis.redis.inventory.filter((n) => n.zone === zone).map((n) => this.redis.redis.pid(n.name)!);
    const stopped = performance.now();
    pids.forEach((pid) => process.kill(pid, 'SIGSTOP'));
    let ms: number;
    try {
      await waitFor(
        `Redis to fail zone ${zone}'s masters over`,
        async () => ({ done: await this.mastersOutOf(zone, false) }),
        { timeoutMs: 60_000, intervalMs: POLL_MS },
      );
      ms = performance.now() - stopped;
    } finally {
      pids.forEach((pid) => process.kill(pid, 'SIGCONT'));
    }
    const since = new Date();
    await this.startController();
    await this.untilBackToPlan(since);
    await sleep(SETTLE_MS);
    return ms;
  }

  /**
   * Whether every opted-in web pod of `zone` is listed not ready in the Service's EndpointSlices (and the others
   * ready).
   */
  private async webOutOf(zone: string): Promise<boolean> {
    const slices = await this.client.list<any>('discovery.k8s.io/v1', 'EndpointSlice', { namespace: this.ns, labelSelector: 'kubernetes.io/service-name=web' });
    const endpoints = slices.flatMap((s) => s.endpoints ?? []);
    const inZone = endpoints.filter((e: any) => e.zone === zone);
    const readyOnlyOutsideZone = endpoints.every((e: any) => (e.conditions?.ready === true) === (e.zone !== zone));
    return inZone.length === WEB_PER_ZONE && readyOnlyOutsideZone;
  }

  /**
   * Whether every slot is served by a master outside `zone`, as the nodes there say of themselves (their own line of
   * CLUSTER NODES); `askZone`: and no node of the zone says it is a master with slots (it answers: the drill).
   */
  private async mastersOutOf(zone: string, askZone: boolean): Promise<boolean> {
    const nodes = this.redis.redis.inventory.filter((n) => askZone || n.zone !== zone);
    const selves = await Promise.all(nodes.map((n) => this.selfOf(n)));
    const masters = selves.filter((s) => s.flags.includes('master') && s.slots.length > 0);
    if (masters.some((m) => m.zone === zone)) return false;
    const slotsOf = ([a, b]: [number, number]) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
    const served = new Set(masters.flatMap((m) => m.slots.flatMap(slotsOf)));
    return served.size === ALL_SLOTS;
  }

  private async selfOf(n: InventoryNode): Promise<{ zone: string; flags: string[]; slots: [number, number][] }> {
    let c = this.redisClients.get(n.address);
    if (!c || c.status === 'end') {
      c = nodeClient(n.address, this.redis.opts.password, { timeoutMs: 2000 });
      this.redisClients.set(n.address, c);
    }
    const me = parseClusterNodes(await c.call('CLUSTER', 'NODES') as string).find((e) => e.flags.includes('myself'))!;
    return { zone: n.zone, flags: me.flags, slots: me.slots };
  }

  /**
   * Until the status reports the cluster healthy (after `since`) and each shard's planned master says it is one; every
   * web endpoint ready.
   */
  private async untilBackToPlan(since: Date): Promise<void> {
    await this.redis.statusWhere('a healthy cluster', since, (s) => s.healthy, this.controller, LONG.timeoutMs);
    const planned = new Set(this.redis.layout.shards.map((s) => s.master));
    await waitFor('the planned masters', async () => {
      const selves = this.redis.redis.inventory.map(async (n) => [n.name, await this.selfOf(n)] as const);
      const masters = (await Promise.all(selves))
        .filter(([, s]) => s.flags.includes('master') && s.slots.length > 0)
        .map(([name]) => name);
      return { done: masters.length === planned.size && masters.every((m) => planned.has(m)), state: masters.join(', ') };
    }, LONG);
    await waitFor('every web endpoint ready', async () => {
      const slices = await this.client.list<any>('discovery.k8s.io/v1', 'EndpointSlice', { namespace: this.ns, labelSelector: 'kubernetes.io/service-name=web' });
      const ready = slices.flatMap((s) => s.endpoints ?? []).filter((e: any) => e.conditions?.ready === true);
      return { done: ready.length === WEB_PER_ZONE * this.cp.info.zones.length, state: `${ready.length} ready` };
    }, LONG);
  }

  async tearDown(): Promise<void> {
    this.kubelet?.stop();
    await this.controller?.stop();
    for (const c of this.redisClients.values()) c.disconnect();
    await this.redis.close();
    await deleteNamespace(this.client, this.ns).catch(() => undefined);
  }
}

interface Samples {
  endpoints: number[];
  masters: number[];
  redisAlone: number[];
  roundTrip: number[];
  autoshift: number[];
  autoshiftOutOfService: number[];
}

/**
 * RUNS interleaved rounds, zones in turn: Redis alone, then the drill (its round trips measured while its shift holds).
 */
async function measure(drill: Drill, zones: readonly string[]): Promise<Samples> {
  const samples: Samples = {
    endpoints: [], masters: [], redisAlone: [], roundTrip: [], autoshift: [], autoshiftOutOfService: [],
  };
  for (let run = 0; run < RUNS; run++) {
    const zone = zones[run % zones.length];
    samples.redisAlone.push(await drill.redisAlone(zone));
    const d = await drill.drill(zone);
    samples.endpoints.push(d.endpointsMs);
    samples.masters.push(d.mastersMs);
    samples.roundTrip.push(d.roundTripMs);
    const a = await drill.autoshift(zone);
    samples.autoshift.push(a.shiftMs);
    samples.autoshiftOutOfService.push(a.outOfServiceMs);
    console.log(`drill run ${run + 1}/${RUNS} (${zone}): Redis alone ${samples.redisAlone[run].toFixed(0)} ms; drill endpoints ` +
      `${d.endpointsMs.toFixed(0)} ms, masters ${d.mastersMs.toFixed(0)} ms; GET ${d.roundTripMs.toFixed(1)} ms; ` +
      `autoshift ${a.shiftMs.toFixed(0)} ms, out of service ${a.outOfServiceMs.toFixed(0)} ms`);
  }
  return samples;
}

function report(samples: Samples, cp: ControlPlane): BenchSection {
  const alone = stats(samples.redisAlone);
  const trip = stats(samples.roundTrip);
  const row = (name: string, s: Stats, digits = 0) =>
    `| ${name} | ${s.runs} | ${s.median.toFixed(digits)} | ${s.min.toFixed(digits)} – ${s.max.toFixed(digits)} | ` +
    `${ratio(s.median / alone.median)} | ${ratio(s.median / trip.median)} |`;
  const graceRow = (name: string, s: Stats) =>
    `| ${name} | ${s.runs} | ${s.median.toFixed(0)} | ${s.min.toFixed(0)} – ${s.max.toFixed(0)} | ${ratio(s.median / NODE_MONITOR_GRACE_MS)} |`;
  return {
    title: 'Zonal shift drill: time to take a zone out of service',
    body: [
      `\`npm run bench drill\`. The test control plane (${cp.info.kubernetesVersion}, ${cp.info.nodes.length} kwok nodes in ${cp.info.zones.join(', ')}, ` +
      `and ${cp.info.zones.length} more with routable pod IPs for the web pods) with the compiled controller as its own process ` +
      '(`run --reconcilers zone-annotator,redis,zone-shift`, default settings). A ZonalRedisCluster of 3 masters x 1 replica over the 3 zones ' +
      `(cluster-node-timeout ${NODE_TIMEOUT_MS} ms, the construct's default) whose pods run as real redis-server processes on their kwok pod ` +
      `IPs, and a Deployment of ${WEB_PER_ZONE * cp.info.zones.length} pods opted in to the shift's readiness gate behind a Service ` +
      '(kwok does not recompute Ready from readiness gates; the bench plays that kubelet rule with a watch).',
      '',
      'Drill: from the API server\'s answer to the ZoneShift\'s creation (as the runbook writes it) until (a) every web pod of the zone is ' +
      'listed not ready in the Service\'s EndpointSlices and the others ready, and (b) every slot is served by a master outside the zone ' +
      'and no node of the zone says it is a master (each node\'s own line of CLUSTER NODES), polled every ' +
      `${POLL_MS} ms. Redis alone: the controller stopped, both redis-server processes of the zone SIGSTOPped (a zone dying), until every ` +
      'slot is served by a master outside the zone as the other nodes say; then SIGCONT, the controller started again, and the masters ' +
      `failed back to plan. One API round trip: a GET of the ZoneShift, the median of ${GETS_PER_RUN} per run while it holds. ` +
      `${RUNS} runs of each, interleaved, zones in turn; between runs the cluster back to its plan (healthy, planned masters, every endpoint ready) ` +
      `and then ${SETTLE_MS / 1000} s more: a replica that stood for election stands again only 4 x cluster-node-timeout later (Redis's ` +
      'auth_retry_time), so without that wait a case would time Redis\'s wait for it.',
      '',
      '| case | runs | median ms | min – max ms | ratio to Redis alone | ratio to one API round trip |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      row('drill (a): the zone\'s opted-in pods out of their EndpointSlices', stats(samples.endpoints)),
      row('drill (b): every Redis master out of the zone (CLUSTER FAILOVER by the manager)', stats(samples.masters)),
      row(`Redis alone: SIGSTOP of the zone, until its master is failed over (cluster-node-timeout ${NODE_TIMEOUT_MS} ms)`, alone),
      row('one API round trip (GET of the ZoneShift)', trip, 2),
      '',
      'Autoshift: the controller also runs `zone-autoshift` on a ZoneAutoshift of the defaults (a node\'s Lease stale after 40 s, ' +
      'impaired for 20 s) with recoveredFor and minDuration 10 s. From the zone\'s kubelets falling silent (their node Leases taken from ' +
      'kwok, so no heartbeat; the redis-servers run on, as in a zone cut off) until the autoshift\'s ZoneShift exists, and until the zone ' +
      `is out of service as (a) and (b) say; as a ratio to the node monitor grace period (${NODE_MONITOR_GRACE_MS / 1000} s, the ` +
      'controller-manager\'s default), after which the node lifecycle controller marks the nodes NotReady.',
      '',
      '| case | runs | median ms | min – max ms | ratio to the node monitor grace period |',
      '| --- | ---: | ---: | ---: | ---: |',
      graceRow('autoshift: the kubelets silent until the autoshift\'s ZoneShift exists', stats(samples.autoshift)),
      graceRow('autoshift: the kubelets silent until the zone is out of service ((a) and (b))', stats(samples.autoshiftOutOfService)),
      '',
      '(a) comes in two groups, about 0.1 s or about 1.1 s: in the slow runs the controller\'s log shows both gates of the zone turned ' +
      'False within 50 ms of each other, so the second is the kube-controller-manager\'s EndpointSlice controller syncing the Service once ' +
      'more about a second after its first write, not the controller. (b) is one CLUSTER FAILOVER: the replica catches up with its paused ' +
      'master and is elected at once, where Redis alone first waits out cluster-node-timeout to agree the master failed.',
    ].join('\n'),
  };
}

export async function drillBench(): Promise<BenchSection> {
  const cp = await ControlPlane.start({ name: 'bench-drill' }).catch((err) => {
    throw new Error(`bench drill needs the test control plane (npm run test:integration:setup): ${err.message}`);
  });
  const ns = `bench-drill-${Date.now().toString(36)}`;
  const webNodes = planNodes({
    nodesPerZone: 1,
    namePrefix: 'kwok-web',
    podCidrOctet: 246,
    routablePodIps: true,
    zones: cp.info.zones,
  });
  const redis = new RedisOnKwok(cp.client, cp.info, ns, {
    name: 'cache',
    password: 'bench-drill',
    nodeTimeoutMs: NODE_TIMEOUT_MS,
    zoneShift: true,
  });
  const drill = new Drill(cp, ns, redis, webNodes);
  try {
    await drill.setUp();
    const samples = await measure(drill, cp.info.zones);
    cp.assertRunning();
    return report(samples, cp);
  } finally {
    await drill.tearDown();
    const problems = await cp.stop();
    if (problems.length) console.error(problems.join('\n'));
  }
}
