/**
 * `cdk8s-zones check --live` on a cluster of 1,000 workloads and 5,000 pods, as the API server would answer its
 * lists (pages of 500, each item with its metadata, spec and status): what the check adds beyond reading the lists.
 * Cases, side by side: parsing every page (what reading costs at least), and parsing them then building the live
 * input and analysing it. The goal: at most 1 s more than the reading.
 */
import { BenchSection, measureSideBySide, timingTable } from './harness';
import { analyzeInput } from '../src/check/analyze';
import { inventoryProps } from '../src/check/cluster-nodes';
import { ZoneInventory } from '../src/check/inventory';
import { liveInput } from '../src/check/live/live-input';
import { Live, Node } from '../src/kubernetes/objects';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const ZONE_KEY = 'topology.kubernetes.io/zone';
const DEPLOYMENTS = 700;
const STATEFUL_SETS = 300;
const PODS_EACH = 5;
const PAGE = 500;

const nodes = ZONES.flatMap((zone) => [1, 2, 3].map((i) => ({
  kind: 'Node',
  metadata: { name: `${zone}-${i}`, labels: { [ZONE_KEY]: zone, 'kubernetes.io/hostname': `${zone}-${i}` } },
  status: { allocatable: { cpu: '64', memory: '256Gi', pods: '1000' } },
})));

/** A workload's pod template: a container with requests, spread hard over the zones by its own label. */
function template(app: string): object {
  return {
    metadata: { labels: { app } },
    spec: {
      containers: [{ name: 'app', image: `registry.example.com/${app}:1.0`, resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      topologySpreadConstraints: [
        { topologyKey: ZONE_KEY, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } },
      ],
    },
  };
}

/** A pod as the API server lists it, owned by `owner`, on a node of the round. */
function pod(ns: string, name: string, app: string, owner: object, i: number): object {
  return {
    metadata: {
      name,
      namespace: ns,
      uid: `${ns}-${name}`,
      resourceVersion: String(1000 + i),
      labels: { app },
      ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }],
      creationTimestamp: '2026-11-28T10:00:00Z',
    },
    spec: { nodeName: nodes[i % nodes.length].metadata.name, ...(template(app) as { spec: object }).spec },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: `10.0.${i % 250}.${i % 200}` },
  };
}

/** The lists' pages, as the API server's JSON texts, by resource. */
function clusterPages(): Map<string, string[]> {
  const items = new Map<string, object[]>([['deployments', []], ['replicasets', []], ['statefulsets', []], ['pods', []]]);
  let podIndex = 0;
  for (let d = 0; d < DEPLOYMENTS + STATEFUL_SETS; d++) {
    const ns = `team-${d % 40}`;
    const app = `app-${d}`;
    const stateful = d >= DEPLOYMENTS;
    const spec = { replicas: PODS_EACH, selector: { matchLabels: { app } }, template: template(app) };
    const uid = `${ns}-${app}`;
    if (stateful) {
      items.get('statefulsets')!.push({ metadata: { name: app, namespace: ns, uid }, spec });
    } else {
      items.get('deployments')!.push({ metadata: { name: app, namespace: ns, uid }, spec });
      const byDeployment = [{ kind: 'Deployment', name: app, uid, controller: true }];
      items.get('replicasets')!.push({
        metadata: { name: `${app}-7d9f`, namespace: ns, uid: `${uid}-rs`, ownerReferences: byDeployment },
        spec,
      });
    }
    const owner = stateful ? { kind: 'StatefulSet', name: app, uid }
      : { kind: 'ReplicaSet', name: `${app}-7d9f`, uid: `${uid}-rs` };
    for (let p = 0; p < PODS_EACH; p++) items.get('pods')!.push(pod(ns, `${app}-${p}`, app, owner, podIndex++));
  }
  const kinds: Record<string, string> = {
    deployments: 'Deployment', replicasets: 'ReplicaSet', statefulsets: 'StatefulSet', pods: 'Pod',
  };
  const page = (resource: string, all: readonly object[], i: number) => JSON.stringify({
    kind: `${kinds[resource]}List`,
    apiVersion: resource === 'pods' ? 'v1' : 'apps/v1',
    metadata: {},
    items: all.slice(i * PAGE, (i + 1) * PAGE),
  });
  return new Map([...items].map(([resource, all]) => [
    resource, Array.from({ length: Math.ceil(all.length / PAGE) }, (_, i) => page(resource, all, i)),
  ]));
}

/** Every item of every page, with its list's kind, as listPages gives them. */
function readPages(pages: Map<string, string[]>): unknown[] {
  return [...pages.values()].flatMap((texts) => texts.flatMap((text) => {
    const list = JSON.parse(text);
    const kind = list.kind.replace(/List$/, '');
    return list.items.map((i: object) => ({ kind, apiVersion: list.apiVersion, ...i }));
  }));
}

export function checkLiveBench(): BenchSection {
  const pages = clusterPages();
  const inventory = new ZoneInventory(inventoryProps({ kind: 'NodeList', items: nodes }, undefined));
  const live = () => analyzeInput(liveInput(readPages(pages), nodes as Live<Node>[], ZONE_KEY), inventory);
  const report = live();
  const failing = report.workloads.filter((w) => Object.values(w.survives).some((s) => !s)).length;
  const timings = measureSideBySide([
    { name: 'reading the lists (every page parsed)', fn: () => void readPages(pages) },
    { name: 'reading + check --live (live input and analysis)', fn: () => void live() },
  ], { warmup: 1, reps: 7 });
  const extraMs = timings[1].medianMs - timings[0].medianMs;
  const kib = [...pages.values()].flat().reduce((sum, t) => sum + t.length, 0) / 1024;
  return {
    title: 'Zone check of what runs (check --live)',
    body: [
      `${DEPLOYMENTS + STATEFUL_SETS} workloads (${DEPLOYMENTS} Deployments with their ReplicaSets, ${STATEFUL_SETS} StatefulSets) and ` +
      `${(DEPLOYMENTS + STATEFUL_SETS) * PODS_EACH} pods on 9 nodes in 3 zones, as the API server's list pages (${PAGE} items, ` +
      `${kib.toFixed(0)} KiB of JSON); the check reports ${report.workloads.length} workloads, ${failing} of them failing a zone. ` +
      'The goal: at most 1 s beyond reading the lists.',
      '',
      timingTable(timings, timings[0]),
      '',
      `check --live adds ${extraMs.toFixed(0)} ms beyond reading the lists (goal <= 1000 ms).`,
    ].join('\n'),
  };
}
