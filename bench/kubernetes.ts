/**
 * The real control plane of the integration tier (`npm run test:integration:setup` builds it): how long
 * the real kube-scheduler takes to place 1,000 pods of the web example over 30 kwok nodes in 3 zones, with
 * and without the constraints cdk8s-zones synthesizes, and how long applying every example takes.
 */
import { performance } from 'perf_hooks';
import { AsyncBenchCase, BenchSection, measureSideBySideAsync, timingTable } from './harness';
import { ControlPlane } from '../test/integration/kubernetes/control-plane';
import {
  applyManifests, ApplyResult, deleteApplied, deleteNamespace, exampleNames, restrictedNamespace, synthesizeExample,
} from '../test/integration/kubernetes/examples';
import { KubeObject } from '../test/integration/kubernetes/kube-client';
import { HOSTNAME_KEY, ZONE_KEY } from '../test/integration/kubernetes/nodes';
import { livePods, podsByZone } from '../test/integration/kubernetes/scheduling';
import { waitFor } from '../test/integration/kubernetes/wait';

const REPLICAS = 1000;
const NODES_PER_ZONE = 10;
const LONG = { timeoutMs: 900_000, intervalMs: 100 };

/** What the web example's Deployment keeps of the placement `Zonal.spread` gives it. */
interface Placement {
  readonly id: string;
  readonly name: string;
  readonly strip: (pod: any) => void;
}

const PLACEMENTS: Placement[] = [
  { id: 'synthesized', name: 'as synthesized: hard zone spread (minDomains 3), soft host spread, zone affinity', strip: () => undefined },
  {
    id: 'zone-only',
    name: 'hard zone spread and zone affinity only (no host spread)',
    strip: (pod) => {
      pod.topologySpreadConstraints = pod.topologySpreadConstraints.filter((c: any) => c.topologyKey !== HOSTNAME_KEY);
    },
  },
  {
    id: 'none',
    name: 'no constraints (the scheduler\'s default spreading only)',
    strip: (pod) => { delete pod.topologySpreadConstraints; delete pod.affinity; },
  },
];

function webDeployment(placement: Placement): KubeObject[] {
  return synthesizeExample('web-3-zones').map((o) => {
    if (o.kind !== 'Deployment') return o;
    const d = structuredClone(o);
    d.spec.replicas = REPLICAS;
    placement.strip(d.spec.template.spec);
    return d;
  });
}

/**
 * Sum and count of the scheduler's `scheduler_scheduling_algorithm_duration_seconds`: the time spent
 * choosing a node (filters and scores), without the binding that follows, from its Prometheus metrics.
 */
async function algorithm(cp: ControlPlane): Promise<{ sum: number; count: number }> {
  const text = await cp.schedulerMetrics();
  const value = (suffix: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`scheduler_scheduling_algorithm_duration_seconds_${suffix} `));
    if (!line) throw new Error(`the scheduler's metrics lack scheduler_scheduling_algorithm_duration_seconds_${suffix}`);
    return Number(line.split(' ').pop());
  };
  return { sum: value('sum'), count: value('count') };
}

interface ScheduleRun {
  zones: Record<string, number>;
  /** Per pod: the scheduler's own algorithm latency, and the CPU time the scheduler process used. */
  algorithmMs: number;
  cpuMs: number;
}

/**
 * One run: with the scheduler frozen, apply the Deployment and let the controller-manager create all
 * its pods; then thaw the scheduler and time it until every pod is bound. Deletes everything after.
 */
async function scheduleOnce(cp: ControlPlane, placement: Placement, run: number, runs: ScheduleRun[]): Promise<number> {
  const { client } = cp;
  const ns = `bench-web-${placement.id}-${run}`;
  await restrictedNamespace(client, ns);
  const before = await algorithm(cp);
  const cpuBefore = cp.cpuMillis('kube-scheduler');
  const created = performance.now();
  cp.freeze('kube-scheduler');
  try {
    const applied = await applyManifests(client, webDeployment(placement), ns);
    if (applied.rejections.length) throw new Error(`rejected: ${applied.rejections.join('; ')}`);
    await waitFor(`${REPLICAS} pods in ${ns}`, async () => {
      const d: any = await client.get('apps/v1', 'Deployment', 'web', ns);
      return { done: d.status?.replicas === REPLICAS, state: `${d.status?.replicas ?? 0} pods` };
    }, LONG);
  } finally {
    cp.thaw('kube-scheduler');
  }
  const start = performance.now();
  await waitFor(`every pod in ${ns} to be scheduled`, async () =>
    ({ done: (await client.list('v1', 'Pod', { namespace: ns, fieldSelector: 'spec.nodeName=', limit: 1 })).length === 0 }), LONG);
  const ms = performance.now() - start;
  const cpu = cp.cpuMillis('kube-scheduler') - cpuBefore;
  const after = await algorithm(cp);
  const pods = await livePods(client, ns);
  runs.push({
    zones: podsByZone(cp.info, pods),
    algorithmMs: (after.sum - before.sum) * 1000 / (after.count - before.count),
    cpuMs: cpu / REPLICAS,
  });
  const deleting = performance.now();
  await deleteNamespace(client, ns, LONG);
  const seconds = (spanMs: number) => (spanMs / 1000).toFixed(1);
  console.log(`  ${placement.id}: scheduled ${REPLICAS} pods in ${seconds(ms)} s ` +
    `(${JSON.stringify(runs[runs.length - 1].zones)}), created them in ${seconds(start - created)} s, ` +
    `deleted them in ${seconds(performance.now() - deleting)} s`);
  return ms;
}

async function schedulingSection(cp: ControlPlane): Promise<string> {
  const runs = PLACEMENTS.map(() => [] as ScheduleRun[]);
  let run = 0;
  const cases: AsyncBenchCase[] = PLACEMENTS.map((p, i) => ({
    name: p.name,
    fn: () => scheduleOnce(cp, p, run++, runs[i]),
  }));
  const timings = await measureSideBySideAsync(cases, { warmup: 1, reps: 5 });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const measured = runs.map((r) => r.slice(1)); // each case's first run is its warm-up
  const cpuBaseline = median(measured[measured.length - 1].map((r) => r.cpuMs));
  const rows = PLACEMENTS.map((p, i) => {
    const zones = [...new Set(measured[i].map((r) => Object.values(r.zones).join(' / ')))].join(', ');
    const cpu = median(measured[i].map((r) => r.cpuMs));
    const algorithmMs = median(measured[i].map((r) => r.algorithmMs));
    return `| ${p.name} | ${cpu.toFixed(2)} | ${(cpu / cpuBaseline).toFixed(2)} | ${algorithmMs.toFixed(2)} | ${zones} |`;
  });
  const zones = cp.info.zones.join(' / ');
  return [
    `${REPLICAS} replicas of the web example's Deployment over ${cp.info.nodes.length} kwok nodes (${NODES_PER_ZONE} per zone, ` +
      `4 and 8 CPUs alternating). In each run the scheduler is frozen while the controller-manager creates the ${REPLICAS} pods, ` +
      'then thawed; the time is from thawing until every pod is bound (polled every 100 ms). One warm-up run per case, the cases interleaved.',
    '',
    timingTable(timings, timings[timings.length - 1]),
    '',
    'Per pod, medians over the runs: the CPU time of the scheduler process from thawing until every pod is bound (user + ' +
      'system, from /proc: what the constraints cost, and less disturbed by other jobs on the machine than wall time), the ' +
      'scheduler\'s own `scheduler_scheduling_algorithm_duration_seconds` (choosing a node, without binding; wall time), and ' +
      `where the pods landed (${zones}; every distinct outcome):`,
    '',
    '| case | scheduler CPU ms per pod | ratio to baseline | algorithm ms per pod | pods per zone |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}

async function applySection(cp: ControlPlane): Promise<string> {
  const { client } = cp;
  const names = exampleNames();
  let run = 0;
  const crds = new Set<string>();
  const applyAll = async (which: string[]): Promise<number> => {
    const start = performance.now();
    const results: ApplyResult[] = [];
    for (const name of which) {
      const result = await applyManifests(client, synthesizeExample(name), `bench-${name}-${run++}`.slice(0, 63));
      if (result.rejections.length) throw new Error(`example ${name} rejected: ${result.rejections.join('; ')}`);
      result.crds.forEach((c) => crds.add(c));
      results.push(result);
    }
    const ms = performance.now() - start;
    for (const result of results) await deleteApplied(client, result);
    return ms;
  };
  const first = await applyAll(names); // installs the CRDs the examples need
  const cases: AsyncBenchCase[] = [
    { name: `all examples (${names.length})`, fn: () => applyAll(names) },
    ...names.map((n) => ({ name: `example ${n}`, fn: () => applyAll([n]) })),
  ];
  const timings = await measureSideBySideAsync(cases, { warmup: 1, reps: 5 });
  const objects = names.map((n) => `${n}: ${synthesizeExample(n).length}`).join(', ');
  return [
    'Synthesis (in-process) and server-side apply of every object (strict field validation), namespaces included: each ' +
      'namespace is made to enforce Pod Security "restricted" and waited for until its default ServiceAccount exists (pods ' +
      `can be created). Everything is deleted after each run (not timed). Objects per example: ${objects}. ` +
      `The first apply of all examples took ${first.toFixed(0)} ms; ` +
      (crds.size ? `it also installed the ${crds.size} CRDs they need and waited until they were Established.` : 'none of them needs a CRD.'),
    '',
    timingTable(timings, timings[0]),
  ].join('\n');
}

export async function kubernetesBench(): Promise<BenchSection> {
  const started = performance.now();
  const cp = await ControlPlane.start({ name: 'bench', layout: { nodesPerZone: NODES_PER_ZONE } }).catch((err) => {
    throw new Error(`bench kubernetes needs the test control plane: ${err.message}`);
  });
  const up = performance.now() - started;
  try {
    const scheduling = await schedulingSection(cp);
    const apply = await applySection(cp);
    cp.assertRunning();
    return {
      title: 'Kubernetes: scheduling and apply on a real control plane',
      body: `${cp.info.kubernetesVersion} control plane with ${cp.info.nodes.length} kwok nodes, started in ${(up / 1000).toFixed(1)} s ` +
        `(zones labelled ${ZONE_KEY}).\n\n### Scheduling ${REPLICAS} web pods\n\n${scheduling}\n\n### Applying the examples\n\n${apply}`,
    };
  } finally {
    const problems = await cp.stop();
    if (problems.length) console.error(problems.join('\n'));
  }
}
