/**
 * The runtime controller (compiled, as a separate process) against the real control plane of the
 * integration tier: how long after a pod is bound its zone annotation appears, for 1,000 pods of one
 * Deployment, and how much memory (RSS) the controller needs while it watches 5,000 opted-in pods.
 */
import { performance } from 'perf_hooks';
import { BenchSection } from './harness';
import { ZoneAnnotation } from '../src/contract/zone-annotation';
import { ControlPlane } from '../test/integration/kubernetes/control-plane';
import { ControllerProcess } from '../test/integration/kubernetes/controller-process';
import { deleteNamespace, restrictedNamespace } from '../test/integration/kubernetes/examples';
import { watchPods } from '../test/integration/kubernetes/pod-watch';
import { RESTRICTED_PAUSE_POD } from '../test/integration/kubernetes/scheduling';
import { waitFor } from '../test/integration/kubernetes/wait';

const LATENCY_PODS = 1000;
const WATCHED_PODS = 5000;
const NODES_PER_ZONE = 10;
const LONG = { timeoutMs: 1_200_000, intervalMs: 500 };
const OPT_IN = { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE };

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
      spec: { replicas: LATENCY_PODS, selector: { matchLabels: { app: 'latency' } }, template: { metadata: { labels: { app: 'latency', ...OPT_IN } }, spec: RESTRICTED_PAUSE_POD } },
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
    const latencies = [...times.annotated].map(([name, at]) => at - (times.bound.get(name) ?? at)).sort((a, b) => a - b);
    const bindSpan = Math.max(...times.bound.values()) - Math.min(...times.bound.values());
    const histogramSum = await controller.metric('cdk8s_zones_annotation_latency_seconds_sum');
    const histogramCount = await controller.metric('cdk8s_zones_annotation_latency_seconds_count');
    return [
      `${LATENCY_PODS} replicas of one Deployment whose pods opt in, scheduled by the real kube-scheduler over ` +
      `${cp.info.nodes.length} kwok nodes; one controller process (\`run --reconcilers zone-annotator\`, 8 patches in flight). ` +
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
  const controller = await ControllerProcess.start(cp.info, 'bench-memory', ['--reconcilers', 'zone-annotator']);
  const rss = async () => (await controller.metric('cdk8s_zones_controller_process_resident_memory_bytes'))! / 2 ** 20;
  try {
    await waitFor('the controller to start the annotator', async () => ({ done: controller.hasLogged('started') }));
    const idle = await rss();
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
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(await rss());
      await new Promise((r) => setTimeout(r, 1000));
    }
    const watching = samples.sort((a, b) => a - b)[2];
    return [
      'One controller process watching the opted-in pods of the cluster; RSS from its own `process_resident_memory_bytes`. ' +
      `${WATCHED_PODS} opted-in pods were created (${(created / 1000).toFixed(1)} s), held Pending by a scheduling gate so only ` +
      'the watch and the cache grow; RSS is the median of 5 readings a second apart once the controller had seen every pod.',
      '',
      '| state | RSS MiB | ratio to idle |',
      '| --- | ---: | ---: |',
      `| idle (0 opted-in pods, ${cp.info.nodes.length} nodes cached) | ${idle.toFixed(1)} | 1.00 |`,
      `| watching ${WATCHED_PODS} pods | ${watching.toFixed(1)} | ${(watching / idle).toFixed(2)} |`,
      '',
      `That is about ${(((watching - idle) * 1024) / WATCHED_PODS).toFixed(1)} KiB per watched pod.`,
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
    const latency = await latencySection(cp);
    const memory = await memorySection(cp);
    cp.assertRunning();
    return {
      title: 'Controller: zone annotation latency and memory',
      body: `${cp.info.kubernetesVersion} control plane with ${cp.info.nodes.length} kwok nodes; the compiled controller ` +
        `(controller/lib) as its own Node.js ${process.version} process.\n\n### Annotation latency\n\n${latency}\n\n### Memory while watching\n\n${memory}`,
    };
  } finally {
    const problems = await cp.stop();
    if (problems.length) console.error(problems.join('\n'));
  }
}
