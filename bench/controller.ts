/**
 * The runtime controller (compiled, as a separate process):
 * - against a fake API server (bench/fake-api-server.ts): how long after a pod is bound its zone annotation
 *   is written, for 1,000 pods bound at 130/s with every PATCH answered after 85 ms, at two settings of
 *   `--api-concurrency`; the fixed round trip makes the figure stable from run to run;
 * - against the real control plane of the integration tier: the same latency for 1,000 pods of one
 *   Deployment placed by the real kube-scheduler, and the memory (RSS) the controller needs idle and while
 *   it watches 5,000 opted-in pods, next to a bare Node.js process measured the same way in the same run.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { FakeApiServer } from './fake-api-server';
import { BenchSection } from './harness';
import { DEFAULT_API_CONCURRENCY } from '../controller/src/reconciler';
import { ZoneAnnotation } from '../src/contract/zone-annotation';
import { ControlPlane } from '../test/integration/kubernetes/control-plane';
import { ControllerProcess } from '../test/integration/kubernetes/controller-process';
import { deleteNamespace, restrictedNamespace } from '../test/integration/kubernetes/examples';
import { createPki, kubeconfig } from '../test/integration/kubernetes/pki';
import { watchPods } from '../test/integration/kubernetes/pod-watch';
import { RESTRICTED_PAUSE_POD } from '../test/integration/kubernetes/scheduling';
import { waitFor } from '../test/integration/kubernetes/wait';

const LATENCY_PODS = 1000;
const WATCHED_PODS = 5000;
const NODES_PER_ZONE = 10;
const LONG = { timeoutMs: 1_200_000, intervalMs: 500 };
const OPT_IN = { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE };
/** The fake API server: pods bound per second, and how long it takes to answer a PATCH. */
const ARRIVALS_PER_SECOND = 130;
const PATCH_DELAY_MS = 85;
/** The targets of the issue: p99 latency / patch round trip, idle and watching RSS / a bare Node.js process. */
const TARGETS = { latencyRatio: 3, idleRss: 1.6, watchingRss: 2 };
/** `--api-concurrency` of the controller as it was (8 patches in flight), and now. */
const CONCURRENCIES = [8, DEFAULT_API_CONCURRENCY];

/** When this process first saw each pod bound and first saw it annotated, from one watch of the namespace. */
interface PodTimes {
  readonly bound: Map<string, number>;
  readonly annotated: Map<string, number>;
  stop(): void;
}

async function watchTimes(cp: ControlPlane, namespace: string): Promise<PodTimes> {
  const bound = new Map<string, number>();
  const annotated = new Map<string, number>();
  const watch = await watchPods(cp.info, namespace, ({ pod }) => {
    const now = performance.now();
    const name = pod.metadata.name;
    if (pod.spec?.nodeName && !bound.has(name)) bound.set(name, now);
    if (pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION] && !annotated.has(name)) annotated.set(name, now);
  });
  return { bound, annotated, stop: () => watch.stop() };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Latencies (ms, sorted) from when each pod was bound to when it was annotated. */
function latenciesOf(bound: ReadonlyMap<string, number>, annotated: ReadonlyMap<string, number>): number[] {
  return [...annotated].map(([name, at]) => at - (bound.get(name) ?? at)).sort((a, b) => a - b);
}

/** A process's resident set in MiB, as the kernel counts it (/proc/PID/status VmRSS). */
function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

/** The median of 5 RSS readings a second apart. */
async function medianRss(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMiB(pid));
    await new Promise((r) => setTimeout(r, 1000));
  }
  return samples.sort((a, b) => a - b)[2];
}

/** The RSS of a Node.js process that loads nothing and waits: what any Node.js program costs. */
async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 1000));
    return await medianRss(child.pid!);
  } finally {
    child.kill();
  }
}

const ratio = (x: number, of: number) => (x / of).toFixed(2);
const meets = (value: number, target: number) => (value <= target ? 'yes' : '**no**');

/** One run of the annotator against the fake API server at `concurrency`: the latencies, sorted. */
async function fakeServerRun(dir: string, concurrency: number): Promise<number[]> {
  const pki = createPki(path.join(dir, 'pki'), '10.96.0.1');
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const nodes = zones.flatMap((zone) =>
    Array.from({ length: NODES_PER_ZONE }, (_, i) => ({ name: `${zone}-node-${i}`, zone })));
  const server = await FakeApiServer.start({
    cert: fs.readFileSync(pki.apiserver.cert),
    key: fs.readFileSync(pki.apiserver.key),
    nodes,
    patchDelayMs: PATCH_DELAY_MS,
  });
  const file = path.join(dir, `fake-${concurrency}.kubeconfig`);
  fs.writeFileSync(file, kubeconfig(server.url, pki.ca.cert, 'admin', pki.clients.admin));
  const controller = await ControllerProcess.start({ kubeconfig: file, logsDir: dir }, `bench-fake-${concurrency}`,
    ['--reconcilers', 'zone-annotator', '--api-concurrency', String(concurrency)]);
  try {
    await waitFor('the annotator to start', async () => ({ done: controller.hasLogged('started') }));
    await server.arrive(LATENCY_PODS, ARRIVALS_PER_SECOND);
    await waitFor(`${LATENCY_PODS} pods annotated`, async () => {
      controller.assertRunning();
      return { done: server.annotated.size >= LATENCY_PODS, state: `${server.annotated.size} annotated` };
    }, LONG);
    if (server.patches !== LATENCY_PODS) throw new Error(`${server.patches} patches for ${LATENCY_PODS} pods: a pod was patched twice`);
    return latenciesOf(server.bound, server.annotated);
  } finally {
    await controller.stop();
    await server.close();
  }
}

export async function fakeServerSection(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-controller-'));
  try {
    const rows: string[] = [];
    for (const concurrency of CONCURRENCIES) {
      const l = await fakeServerRun(dir, concurrency);
      const p99 = percentile(l, 99);
      const label = `${concurrency}${concurrency === DEFAULT_API_CONCURRENCY ? ' (default)' : ''}`;
      rows.push(`| ${label} | ${l.length} | ${percentile(l, 50).toFixed(0)} | ` +
        `${percentile(l, 90).toFixed(0)} | ${p99.toFixed(0)} | ${l[l.length - 1].toFixed(0)} | ${ratio(p99, PATCH_DELAY_MS)} | ` +
        `${meets(p99 / PATCH_DELAY_MS, TARGETS.latencyRatio)} |`);
    }
    return [
      `A fake API server (bench/fake-api-server.ts, HTTPS) creates ${LATENCY_PODS} opted-in pods at ${ARRIVALS_PER_SECOND}/s, binds each to one of ` +
      `${3 * NODES_PER_ZONE} nodes 20 ms later, and answers every PATCH after ${PATCH_DELAY_MS} ms; one controller process ` +
      '(`run --reconcilers zone-annotator --api-concurrency N`). Latency per pod = from the server writing the binding to the watch ' +
      `to the server answering the PATCH that annotates the pod (one clock); ${PATCH_DELAY_MS} ms of it is the round trip. ` +
      'Every pod was patched exactly once (the echo of a patch costs no second one). ' +
      'Before `--api-concurrency`, the controller kept 8 patches in flight.',
      '',
      '| --api-concurrency | pods | p50 ms | p90 ms | p99 ms | max ms | p99 / patch round trip | ≤ 3 |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |',
      ...rows,
    ].join('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function latencySection(cp: ControlPlane): Promise<string> {
  const client = cp.client;
  const ns = 'bench-annotator-latency';
  await restrictedNamespace(client, ns);
  const controller = await ControllerProcess.start(cp.info, 'bench-latency', ['--reconcilers', 'zone-annotator']);
  try {
    const times = await watchTimes(cp, ns);
    const started = performance.now();
    await client.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'latency', namespace: ns },
      spec: {
        replicas: LATENCY_PODS,
        selector: { matchLabels: { app: 'latency' } },
        template: { metadata: { labels: { app: 'latency', ...OPT_IN } }, spec: RESTRICTED_PAUSE_POD },
      },
    });
    let lastReport = 0;
    await waitFor(`${LATENCY_PODS} pods annotated`, async () => {
      const state = `${times.bound.size} bound, ${times.annotated.size} annotated`;
      if (performance.now() - lastReport > 10_000) {
        console.log(`  ${state}`);
        lastReport = performance.now();
      }
      return { done: times.annotated.size >= LATENCY_PODS, state };
    }, LONG);
    const total = performance.now() - started;
    times.stop();
    const latencies = latenciesOf(times.bound, times.annotated);
    const bindSpan = Math.max(...times.bound.values()) - Math.min(...times.bound.values());
    const histogramSum = await controller.metric('cdk8s_zones_annotation_latency_seconds_sum');
    const histogramCount = await controller.metric('cdk8s_zones_annotation_latency_seconds_count');
    return [
      `${LATENCY_PODS} replicas of one Deployment whose pods opt in, scheduled by the real kube-scheduler over ` +
      `${cp.info.nodes.length} kwok nodes; one controller process (\`run --reconcilers zone-annotator\`, ${DEFAULT_API_CONCURRENCY} patches in flight). ` +
      'Latency per pod = from the moment a watch of the namespace (in the benchmark process) first shows the pod bound to ' +
      'a node to the moment it first shows the annotation; the same watch sees both, so no clocks are compared. ' +
      `The scheduler bound the pods over ${(bindSpan / 1000).toFixed(1)} s; all were annotated ${(total / 1000).toFixed(1)} s after the Deployment was created.`,
      '',
      '| pods | p50 ms | p90 ms | p99 ms | max ms |',
      '| ---: | ---: | ---: | ---: | ---: |',
      `| ${latencies.length} | ${percentile(latencies, 50).toFixed(0)} | ${percentile(latencies, 90).toFixed(0)} | ` +
        `${percentile(latencies, 99).toFixed(0)} | ${latencies[latencies.length - 1].toFixed(0)} |`,
      '',
      'The controller\'s own histogram `cdk8s_zones_annotation_latency_seconds` (from the PodScheduled condition, whole seconds) ' +
      `averages ${((histogramSum ?? 0) / (histogramCount || 1)).toFixed(2)} s over ${histogramCount} pods.`,
    ].join('\n');
  } finally {
    await controller.stop();
    await deleteNamespace(client, ns, LONG);
  }
}

async function memorySection(cp: ControlPlane): Promise<string> {
  const client = cp.client;
  const ns = 'bench-annotator-memory';
  await restrictedNamespace(client, ns);
  const bare = await bareNodeRss();
  const controller = await ControllerProcess.start(cp.info, 'bench-memory', ['--reconcilers', 'zone-annotator']);
  try {
    await waitFor('the controller to start the annotator', async () => ({ done: controller.hasLogged('started') }));
    const idle = await medianRss(controller.pid);
    // Scheduling gates keep the pods Pending without the scheduler working on them: only the watch grows.
    const names = Array.from({ length: WATCHED_PODS }, (_, i) => `watched-${i}`);
    const started = performance.now();
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((name) => client.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: ns, labels: { app: 'watched', ...OPT_IN } },
        spec: { ...RESTRICTED_PAUSE_POD, schedulingGates: [{ name: 'cdk8s-zones.bench/hold' }] },
      })));
    }
    const created = performance.now() - started;
    await waitFor(`the controller to see ${WATCHED_PODS} pods`, async () => {
      const n = await controller.metric('cdk8s_zones_reconciles_total{reconciler="zone-annotator"}');
      return { done: (n ?? 0) >= WATCHED_PODS, state: `${n} reconciles` };
    }, LONG);
    const watching = await medianRss(controller.pid);
    return [
      'Resident memory (VmRSS, the median of 5 readings a second apart) of one controller process watching the opted-in pods of ' +
      'the cluster, and of a bare Node.js process (`node -e` with a timer: what any Node.js program costs) measured the same way ' +
      `in the same run. ${WATCHED_PODS} opted-in pods were created (${(created / 1000).toFixed(1)} s), held Pending by a scheduling gate ` +
      'so only the watch and the cache grow; the watching reading is taken once the controller had reconciled every pod.',
      '',
      '| process | RSS MiB | ratio to bare Node.js | target |',
      '| --- | ---: | ---: | :---: |',
      `| bare Node.js ${process.version} | ${bare.toFixed(1)} | 1.00 | |`,
      `| controller, idle (0 opted-in pods, ${cp.info.nodes.length} nodes cached) | ${idle.toFixed(1)} | ${ratio(idle, bare)} | ` +
        `≤ ${TARGETS.idleRss}: ${meets(idle / bare, TARGETS.idleRss)} |`,
      `| controller, watching ${WATCHED_PODS} pods | ${watching.toFixed(1)} | ${ratio(watching, bare)} | ` +
        `≤ ${TARGETS.watchingRss}: ${meets(watching / bare, TARGETS.watchingRss)} |`,
      '',
      `That is about ${(((watching - idle) * 1024) / WATCHED_PODS).toFixed(2)} KiB per watched pod.`,
    ].join('\n');
  } finally {
    await controller.stop();
    await deleteNamespace(client, ns, LONG);
  }
}

export async function controllerBench(): Promise<BenchSection> {
  const cp = await ControlPlane.start({ name: 'bench-controller', layout: { nodesPerZone: NODES_PER_ZONE } }).catch((err) => {
    throw new Error(`bench controller needs the test control plane: ${err.message}`);
  });
  try {
    const fake = await fakeServerSection();
    const latency = await latencySection(cp);
    const memory = await memorySection(cp);
    cp.assertRunning();
    return {
      title: 'Controller: zone annotation latency and memory',
      body: `The compiled controller (controller/lib) as its own Node.js ${process.version} process; the real control plane is ` +
        `${cp.info.kubernetesVersion} with ${cp.info.nodes.length} kwok nodes. Rerun with \`npm run bench controller\`.\n\n` +
        `### Annotation latency against a fake API server (${PATCH_DELAY_MS} ms per PATCH)\n\n${fake}\n\n` +
        `### Annotation latency on the real control plane\n\n${latency}\n\n### Memory\n\n${memory}`,
    };
  } finally {
    const problems = await cp.stop();
    if (problems.length) console.error(problems.join('\n'));
  }
}
