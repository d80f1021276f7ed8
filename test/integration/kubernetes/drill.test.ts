/**
 * `cdk8s-zones drill` (docs/runbooks/prove-zone-survival.md) on the real API server, scheduler and controller
 * manager (its taint-eviction controller deletes the pods of an outage), with every example's plain workloads and
 * budgets applied, and a StatefulSet under a ZoneDisruptionBudget (its eviction webhook served by the real
 * controller): an outage and a drain of each zone, where every observation must agree with the check's
 * prediction made from the live objects and nodes, and every node must be exactly as before once it is over; and
 * a drill killed mid-way (SIGKILL: no restore ran) that `drill --restore` undoes.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { cliUserKubeconfig, runCliAs } from './cli-user';
import { EvictionWebhook, zonalStatefulSet } from './evictions';
import { applyManifests, deleteNamespace, exampleNames, plainExampleObjects } from './examples';
import { nodeObject, notReady, planNodes, ZONES } from './nodes';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { DRILL_RULES } from '../../../src/cli/cli-rbac';
import { DRILL_RECORD_ANNOTATION } from '../../../src/contract/drill';
import { formatDrillReport } from '../../../src/drill/drill-report';
import { DrillResult } from '../../../src/drill/drill-run';
import { drillFailed } from '../../../src/drill/drill-verdict';
import { REPO_ROOT } from '../shared';

const { client, info } = testCluster();
const prefix = uniqueName('drill');
/** One namespace per example (their names and labels repeat from one to the next). */
const examples = exampleNames().map((name, i) => ({ name, namespace: `${prefix}-${i}` }));
/** A zonal StatefulSet under a ZoneDisruptionBudget, its eviction webhook served by the real controller. */
const budgeted = `${prefix}-zdb`;
const namespaces = [...examples.map((e) => e.namespace), budgeted];
let webhook: EvictionWebhook | undefined;
const POOL_KEY = 'cdk8s-zones.test/pool';
/** Each drill's text report, for whoever reads the run after. */
const REPORTS = path.join(REPO_ROOT, '.cache', 'drill');
const nodes = planNodes({ nodesPerZone: 3, namePrefix: 'kwok-drill', podCidrOctet: 244 });

/** What a drill may change on a node, and must restore: its labels, annotations, taints and unschedulable. */
async function nodeStates(): Promise<Map<string, string>> {
  const all = await client.list('v1', 'Node');
  return new Map(all.map((n: any) => [n.metadata.name, JSON.stringify({
    labels: n.metadata.labels,
    annotations: n.metadata.annotations,
    taints: n.spec.taints ?? [],
    unschedulable: n.spec.unschedulable ?? null,
  })]));
}

/** The drill's user: the runbook's ClusterRole and nothing else (set in beforeAll). */
let kubeconfig = '';

/** The program in this process as that user. */
const cli = (...args: string[]) => runCliAs(kubeconfig, ...args);

/** Every workload of the test namespace ready with all its replicas (the state each drill starts from). */
async function allReady(): Promise<void> {
  await waitFor('every workload of the examples to be ready', async () => {
    const all = [...await client.list('apps/v1', 'Deployment'), ...await client.list('apps/v1', 'StatefulSet')];
    const workloads = all.filter((w: any) => namespaces.includes(w.metadata.namespace));
    const waiting = workloads
      .filter((w: any) => (w.status?.readyReplicas ?? 0) < (w.spec.replicas ?? 1))
      .map((w: any) => `${w.kind}/${w.metadata.name}`);
    return { done: workloads.length > 0 && waiting.length === 0, state: `not ready: ${waiting.join(', ')}` };
  }, { timeoutMs: 180_000 });
}

beforeAll(async () => {
  kubeconfig = await cliUserKubeconfig(client, info, 'cdk8s-zones-drill', DRILL_RULES);
  // the examples' pool: 3 roomy nodes per zone (the drill acts on the cluster's own nodes of the zone too)
  await Promise.all(nodes.map((n) => {
    const node = nodeObject({ ...n, size: { name: 'roomy', cpu: '32', memory: '128Gi', pods: 110 } });
    const labels = { ...node.metadata.labels, [POOL_KEY]: 'drill' };
    return client.create({ ...node, metadata: { ...node.metadata, labels } });
  }));
  await waitFor('kwok to report the pool Ready', async () => {
    const waiting = await notReady(client, nodes);
    return { done: waiting.length === 0, state: `not Ready: ${waiting.join(', ')}` };
  });
  for (const e of examples) {
    // Jobs complete at once under kwok and DaemonSets' pods go with their nodes: the drill watches neither
    const objects = plainExampleObjects(e.name, { [POOL_KEY]: 'drill' }).filter((o) => o.kind !== 'Job' && o.kind !== 'DaemonSet');
    const applied = await applyManifests(client, objects, e.namespace);
    expect(applied.rejections).toEqual([]);
  }
  await zonalStatefulSet(client, info, budgeted, 'db', 1);
  webhook = await EvictionWebhook.start(client, info, budgeted);
  await allReady();
}, 300_000);

afterAll(async () => {
  await webhook?.stop();
  for (const namespace of namespaces) await deleteNamespace(client, namespace);
  await Promise.all(nodes.map((n) => client.delete('v1', 'Node', n.name).catch(() => undefined)));
  client.close();
}, 120_000);

for (const mode of ['outage', 'drain']) {
  for (const zone of ZONES) {
    test(`drill --mode ${mode} of ${zone}: every observation agrees with the check's prediction, and every node is restored exactly`, async () => {
      await allReady();
      const before = await nodeStates();
      const plan = await cli('drill', '--zone', zone, '--mode', mode);
      expect(plan.code).toBe(0);
      expect(plan.stdout).toContain('Nothing was changed');
      expect(await nodeStates()).toEqual(before);

      const callsBefore = await webhook!.calls();
      const run = await cli('drill', '--zone', zone, '--mode', mode, '--yes', '--format', 'json', '--settle', '5s', '--timeout', '3m');
      const result: DrillResult = JSON.parse(run.stdout);
      fs.mkdirSync(REPORTS, { recursive: true });
      fs.writeFileSync(path.join(REPORTS, `${mode}-${zone}.txt`), formatDrillReport(result, 'text'));
      const ours = result.verdicts.filter((v) => namespaces.includes(v.namespace));
      // the drill acted on the zone's nodes and only those
      const zoneNodes = info.nodes
        .concat(nodes as any)
        .filter((n: any) => n.zone === zone)
        .map((n: any) => n.name);
      expect([...result.nodes].sort()).toEqual(zoneNodes.sort());
      expect(ours.length).toBeGreaterThan(5);
      expect(ours.filter((v) => v.predicted === undefined).map((v) => v.name)).toEqual([]);
      expect(ours.filter((v) => v.kind === 'ZoneGroup').length).toBeGreaterThan(0); // rings judged as one
      const contradicted = result.verdicts
        .filter((v) => v.contradictions.length > 0)
        .map((v) => `${v.name}: ${v.contradictions.join('; ')}`);
      expect(contradicted).toEqual([]);
      // the zone's pods really went (an outage) or were asked to leave (a drain): the drill did something
      const moved = ours.filter((v) => v.observed.before.inZone > 0 && v.observed.end.inZone === 0);
      expect(moved.length).toBeGreaterThan(0);
      expect(result.steady).toBe(true);
      expect(result.settledAfterMs).toBeDefined();
      expect(run.code).toBe(drillFailed(result.verdicts) ? 1 : 0);
      const db = result.verdicts.find((v) => v.namespace === budgeted && v.name === 'db')!;
      expect(db.predicted).toBeDefined();
      // the ZoneDisruptionBudget was asked
      if (mode === 'drain') expect(await webhook!.calls()).toBeGreaterThan(callsBefore);
      // every node exactly as before; the controller-manager removes the taint it gives a cordoned node
      // (node.kubernetes.io/unschedulable) only after the drill uncordoned it, so that may take a moment under load
      const after = await waitFor('every node as before the drill', async () => {
        const now = await nodeStates();
        return { done: JSON.stringify([...now]) === JSON.stringify([...before]), value: now };
      }, { timeoutMs: 30_000 }).catch(async () => nodeStates());
      expect(after).toEqual(before);
    }, 600_000);
  }
}

test('a drill killed mid-way (no restore ran) is undone by drill --restore, and a new drill is refused until then', async () => {
  await allReady();
  const before = await nodeStates();
  const child: ChildProcess = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(REPO_ROOT, 'src/cli/main.ts'),
    'drill', '--zone', 'zone-b', '--mode', 'outage', '--yes', '--kubeconfig', kubeconfig], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const zoneB = [...before.keys()].filter((n) => JSON.parse(before.get(n)!).labels['topology.kubernetes.io/zone'] === 'zone-b');
  try {
    await waitFor('the drill to record itself on zone-b\'s nodes', async () => {
      const recorded = (await client.list('v1', 'Node'))
        .filter((n: any) => n.metadata.annotations?.[DRILL_RECORD_ANNOTATION] !== undefined);
      return { done: recorded.length === zoneB.length, state: `${recorded.length} recorded; the drill's stderr: ${stderr}` };
    }, { timeoutMs: 120_000 });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  expect(await nodeStates()).not.toEqual(before);
  const refused = await cli('drill', '--zone', 'zone-a', '--yes');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('run cdk8s-zones drill --restore first');

  const restore = await cli('drill', '--restore');
  expect(restore.code).toBe(0);
  expect(restore.stdout).toMatch(/node \S+: restored \(outage drill of zone zone-b/);
  expect(await nodeStates()).toEqual(before);
  await allReady();
}, 600_000);
