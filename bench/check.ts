/**
 * The zone check on 1,000 workloads, against what reading the same file costs: the `yaml` library parsing it
 * (the CLI's first step). Cases: parse only; parse and check (what `cdk8s-zones check` does); check only. The
 * workloads mix the constraints the analysis handles (hard and soft zone spreads, host spreads, node affinity,
 * tolerations, requests, PodDisruptionBudgets), on 3 zones of 10 nodes with allocatable CPU and a tainted node.
 */
import { parseAllDocuments, stringify } from 'yaml';
import { BenchSection, measureSideBySide, timingTable } from './harness';
import { analyzeManifests } from '../src/check/analyze';
import { ZoneInventory } from '../src/check/inventory';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const ZONE_KEY = 'topology.kubernetes.io/zone';
const WORKLOADS = 1000;

function workload(i: number): any[] {
  const app = `app-${i}`;
  const labels = { app };
  const spread = [
    { topologyKey: ZONE_KEY, maxSkew: 1 + (i % 2), whenUnsatisfiable: i % 5 === 0 ? 'ScheduleAnyway' : 'DoNotSchedule', labelSelector: { matchLabels: labels }, matchLabelKeys: ['pod-template-hash'] },
    ...(i % 7 === 0 ? [{ topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } }] : []),
  ];
  const kind = i % 4 === 0 ? 'StatefulSet' : 'Deployment';
  return [
    {
      apiVersion: 'apps/v1',
      kind,
      metadata: { name: app, namespace: `ns-${i % 20}` },
      spec: {
        replicas: 2 + (i % 9),
        selector: { matchLabels: labels },
        ...(kind === 'StatefulSet' ? { serviceName: app } : {}),
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'main', image: 'registry.example/app:1', resources: { requests: { cpu: `${100 + (i % 5) * 100}m`, memory: '128Mi' } } }],
            topologySpreadConstraints: spread,
            ...(i % 3 === 0 ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['general'] }] }] } } } } : {}),
            ...(i % 11 === 0 ? { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } : {}),
          },
        },
      },
    },
    ...(i % 2 === 0 ? [{ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: app, namespace: `ns-${i % 20}` }, spec: { minAvailable: 1, selector: { matchLabels: labels } } }] : []),
  ];
}

export function checkBench(): BenchSection {
  const text = Array.from({ length: WORKLOADS }, (_, i) => workload(i)).flat().map((o) => stringify(o)).join('---\n');
  const inventory = new ZoneInventory({
    zones: ZONES,
    nodes: ZONES.flatMap((zone) => Array.from({ length: 10 }, (_, n) => ({
      name: `${zone}-${n}`,
      zone,
      labels: { pool: n < 8 ? 'general' : 'batch' },
      allocatableCpu: '8',
      allocatableMemory: '32Gi',
      taints: n === 9 ? [{ key: 'dedicated', effect: 'NoSchedule' }] : [],
    }))),
  });
  const parse = () => parseAllDocuments(text).map((d: any) => d.toJSON());
  const parsed = parse();
  const timings = measureSideBySide([
    { name: 'yaml parse (baseline)', fn: () => void parse() },
    { name: 'yaml parse + zone check', fn: () => void analyzeManifests(parse(), inventory) },
    { name: 'zone check only', fn: () => void analyzeManifests(parsed, inventory) },
  ], { warmup: 2, reps: 10 });
  const ratio = timings[1].medianMs / timings[0].medianMs;
  return {
    title: 'Zone check',
    body: [
      `${WORKLOADS} workloads (${parsed.length} objects, ${(text.length / 1024).toFixed(0)} KiB of YAML) checked on 3 zones x 10 nodes. ` +
      'The CLI parses, then checks; the goal is at most 5 x the parse alone.',
      '',
      timingTable(timings, timings[0]),
      '',
      `Parse and check: ${ratio.toFixed(2)} x the parse (goal <= 5 x).`,
    ].join('\n'),
  };
}
