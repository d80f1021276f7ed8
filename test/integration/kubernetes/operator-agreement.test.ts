/**
 * The check's operator models agree with the real operators (issue 35). Three operators, built from their Go
 * modules at the releases the models cite (Spotahome redis-operator, MongoDB Community operator, VictoriaMetrics
 * operator; setup.d/15-operators.sh), run against the tier's API server, scheduler and controller manager. Each
 * case (the operators' own samples, and variants that spread them over zones) is checked with `analyzeManifests`
 * from its resource alone, then applied; the operator makes its pod sets and the scheduler places their pods.
 * Held to the model, per resource:
 * - the workloads the operator made that want pods are exactly the system's members, each with the model's replicas,
 *   and the check of what the operator made (the real StatefulSet or Deployment, on its own) places it exactly as
 *   the check of the resource does: the model carried every scheduling field, label and default across;
 * - the pods the scheduler placed fall within the report's per-zone bounds (exactly on them where the layout is
 *   exact), no more Pending than it predicts;
 * - `cdk8s-zones check --live`, as a user with the runbook's ClusterRole, groups what the operator made under its
 *   resource, with the same members;
 * - losing a zone (tainted as a drill taints it, its pods removed) leaves each member at least the survivors the
 *   report gives (exactly where the layout is exact); once the zone is back, the pods placed again are within the
 *   report too, and the next zone goes.
 * The resources are applied once and each zone is lost in turn. A disagreement is listed with the report's figures.
 */
import { Observed, settle } from './check-agreement-observe';
import { cliUserKubeconfig, runCliAs } from './cli-user';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { ZONES } from './nodes';
import { operatorCases, OperatorCase } from './operator-agreement-cases';
import { operatorCrds, OperatorProcess, REAL_OPERATORS } from './operator-process';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { OutageMode, zoneOutage } from './zone-outage';
import { analyzeManifests } from '../../../src/check/analyze';
import { inventoryProps } from '../../../src/check/cluster-nodes';
import { ZoneInventory } from '../../../src/check/inventory';
import { WorkloadReport } from '../../../src/check/model';
import { CHECK_LIVE_RULES } from '../../../src/cli/cli-rbac';

const cluster = testCluster();
const { client, info } = cluster;
const zoneOf = new Map(info.nodes.map((n): [string, string] => [n.name, n.zone]));
const cases = operatorCases();
const operators: OperatorProcess[] = [];
const disagreements: string[] = [];
let inventory: ZoneInventory;
let checkUser = '';
/** The cases as applied, from the first test on. */
let running: Applied[] = [];

let checks = 0;

function check(ok: boolean, what: () => string): void {
  checks += 1;
  if (!ok) disagreements.push(what());
}

/** One case applied: its namespace, the check of its resource, and the workloads the operator made of it. */
interface Applied {
  readonly c: OperatorCase;
  readonly ns: string;
  readonly system: WorkloadReport;
  readonly members: WorkloadReport[];
  readonly objects: KubeObject[];
  workloads: KubeObject[];
}

const POD_SETS: readonly [string, string][] = [['apps/v1', 'StatefulSet'], ['apps/v1', 'Deployment']];

/** The StatefulSets and Deployments of a namespace that want pods (an operator may keep an empty one). */
async function podSets(ns: string): Promise<KubeObject[]> {
  const lists = await Promise.all(POD_SETS.map(async ([apiVersion, kind]) =>
    (await client.list<any>(apiVersion, kind, { namespace: ns })).map((w) => ({ ...w, apiVersion, kind }))));
  return lists.flat().filter((w) => (w.spec.replicas ?? 1) > 0);
}

/** The members the report names for a system, as `Kind/name`. */
const memberKeys = (r: Applied) => (r.system.members ?? [])
  .map((m) => m.split('/'))
  .map(([kind, , ...name]) => `${kind}/${name.join('/')}`)
  .sort();
const keyOf = (w: KubeObject) => `${w.kind}/${w.metadata.name}`;

/** Waits until the operators made every member the model names (and nothing new for 5 s), at most 3 minutes. */
async function waitForPodSets(applied: readonly Applied[]): Promise<void> {
  let last = '';
  let since = Date.now();
  await waitFor('the operators to make the pod sets their models name', async () => {
    operators.forEach((o) => o.assertRunning());
    for (const r of applied) r.workloads = await podSets(r.ns);
    const signature = applied.map((r) => r.workloads.map(keyOf).sort().join(',')).join(';');
    if (signature !== last) [last, since] = [signature, Date.now()];
    const missing = applied.flatMap((r) => memberKeys(r)
      .filter((k) => !r.workloads.some((w) => keyOf(w) === k))
      .map((k) => `${r.ns} ${k}`));
    return { done: missing.length === 0 && Date.now() - since > 5000, state: `missing: ${missing.join(', ') || 'none'}` };
  }, { timeoutMs: 180_000, intervalMs: 1000 })
    .catch((err) => disagreements.push(`${err.message}\n${operators.map((o) => o.tail()).join('\n')}`));
}

beforeAll(async () => {
  const crds = REAL_OPERATORS.flatMap(operatorCrds);
  const installed = await applyManifests(client, crds, 'default');
  expect(installed.rejections).toEqual([]);
  for (const operator of REAL_OPERATORS) operators.push(await OperatorProcess.start(info, operator));
  const nodes = await client.list('v1', 'Node');
  inventory = new ZoneInventory(inventoryProps({ kind: 'NodeList', items: nodes }, undefined));
  checkUser = await cliUserKubeconfig(client, info, 'cdk8s-zones-check-operators', CHECK_LIVE_RULES);
}, 300_000);

/**
 * The resources deleted first, while their namespaces are alive and their operators run (their finalizers are
 * the operators' to remove: in a terminating namespace the VictoriaMetrics operator backs off for a minute), then
 * the namespaces.
 */
async function deleteApplied(): Promise<void> {
  await Promise.all(running.map(async ({ ns, objects: [resource] }) => {
    const { apiVersion, kind, metadata: { name } } = resource;
    await client.delete(apiVersion, kind, name, ns);
    await waitFor(`${kind} ${ns}/${name} deleted by its operator`, async () => ({ done: !(await client.find(apiVersion, kind, name, ns)) }),
      { timeoutMs: 120_000 });
  }));
  await Promise.all(running.map((r) => deleteNamespace(client, r.ns, { timeoutMs: 120_000 })));
}

afterAll(async () => {
  await deleteApplied();
  await Promise.all(operators.map((o) => o.stop()));
  client.close();
}, 240_000);

/** Every case in a namespace of its own, checked from its resource alone, then applied. */
async function applyCases(): Promise<Applied[]> {
  const applied = cases.map((c) => {
    const ns = uniqueName('operators');
    const objects = c.objects.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: ns } }));
    const { workloads } = analyzeManifests(objects, inventory);
    const resource = objects[0];
    const system = workloads.find((w) => w.kind === resource.kind && w.name === resource.metadata.name);
    if (!system) throw new Error(`${c.id}: the check reports no ${resource.kind} ${resource.metadata.name}`);
    const members = workloads.filter((w) => w !== system);
    return { c, ns, system, members, workloads: [] as KubeObject[], objects };
  });
  // the operators' pods run as their images need (kwok runs none): the namespaces admit them
  const results = await Promise.all(applied.map((r) => applyManifests(client, r.objects, r.ns, 'privileged')));
  expect(results.flatMap((a) => a.rejections)).toEqual([]);
  await waitForPodSets(applied);
  return applied;
}

const boundsOf = (r: WorkloadReport) => ZONES.map((z) => `${z} ${r.perZone[z].guaranteed}..${r.perZone[z].worstCase}`)
  .join(', ') + `, ${r.pendingWorstCase} Pending at worst`;
const boundIn = (o: Observed, zone: string) => [...o.bound.values()].filter((v) => v === zone).length;
const countsOf = (o: Observed) => ZONES.map((z) => `${z} ${boundIn(o, z)}`).join(', ');
const exactLayout = (r: WorkloadReport) => ZONES.every((z) => r.perZone[z].guaranteed === r.perZone[z].worstCase);

/** A workload as the operator made it, without what the API server adds: what a user would check. */
function asMade(w: any): KubeObject {
  const { name, namespace, labels, annotations } = w.metadata;
  return { apiVersion: w.apiVersion, kind: w.kind, metadata: { name, namespace, labels, annotations }, spec: w.spec };
}

/** The operator made exactly the model's members, with its replicas, placed alone as the model places them. */
function compareMembers(r: Applied): void {
  const made = r.workloads.map(keyOf).sort();
  check(made.join() === memberKeys(r).join(),
    () => `${r.c.id}: the operator made ${made.join(', ')}; the model's members: ${memberKeys(r).join(', ')}`);
  for (const w of r.workloads) {
    const model = r.members.find((m) => `${m.kind}/${m.name}` === keyOf(w));
    if (!model) continue;
    const where = `${r.c.id} ${keyOf(w)}`;
    check(model.replicas === w.spec.replicas, () => `${where}: ${w.spec.replicas} replicas, the model says ${model.replicas}`);
    const alone = analyzeManifests([asMade(w)], inventory).workloads
      .find((x) => x.kind === w.kind && x.name === w.metadata.name)!;
    check(boundsOf(alone) === boundsOf(model),
      () => `${where}: checked as the operator made it, ${boundsOf(alone)}; the model: ${boundsOf(model)}`);
  }
}

/** The scheduler's placement within each member's per-zone bounds (exactly on them where the layout is exact). */
function comparePlacement(r: Applied, seen: Map<string, Observed>): void {
  for (const model of r.members) {
    const o = seen.get(`${model.kind}/${model.name}`);
    if (!o) continue; // not made: compareMembers said so
    const where = () => `${r.c.id} ${model.kind}/${model.name}: the scheduler placed ${countsOf(o)}, ` +
      `${o.pending} Pending; the model: ${boundsOf(model)}`;
    for (const z of ZONES) {
      check(boundIn(o, z) >= model.perZone[z].guaranteed && boundIn(o, z) <= model.perZone[z].worstCase, where);
    }
    const pending = o.pending;
    check(exactLayout(model) ? pending === model.pendingWorstCase : pending <= model.pendingWorstCase, where);
  }
}

/** `check --live` over the cases' namespaces groups what each operator made under its resource. */
async function compareLive(applied: readonly Applied[]): Promise<void> {
  const namespaces = applied.flatMap((r) => ['--namespace', r.ns]);
  const run = await runCliAs(checkUser, 'check', '--live', ...namespaces, '--format', 'json');
  expect(run.stderr).toBe('');
  const report = JSON.parse(run.stdout);
  // everything the runbook's reader may read was read (the CRDs of operators not installed here are named, info)
  expect(report.findings.filter((f: any) => f.rule === 'live-list-denied')).toEqual([]);
  const idOf = (w: any) => `${w.kind}/${w.namespace ?? '-'}/${w.name}`;
  const rowOf = (id: string) => report.workloads.find((w: any) => idOf(w) === id);
  for (const r of applied) {
    const row = rowOf(`${r.system.kind}/${r.ns}/${r.system.name}`);
    check(row !== undefined, () => `${r.c.id}: check --live reports no ${r.system.kind} ${r.system.name}`);
    // live, every workload the resource owns is a member: the ones that want no pods (an empty arbiter set) too
    const members = ((row?.members ?? []) as string[]).filter((m) => rowOf(m)?.replicas !== 0).sort();
    const offline = [...r.system.members ?? []].sort();
    check(members.join() === offline.join(),
      () => `${r.c.id}: check --live's members ${members.join(', ')}; offline: ${offline.join(', ')}`);
  }
}

/** After the zone's loss, each member keeps at least the survivors the report gives (exactly, where it is exact). */
function compareLoss(r: Applied, zone: string, before: Map<string, Observed>, after: Map<string, Observed>): void {
  for (const model of r.members) {
    const key = `${model.kind}/${model.name}`;
    const [o, a] = [before.get(key), after.get(key)];
    if (!o || !a) continue;
    const loss = model.zoneLoss.find((l) => l.zone === zone)!;
    const survivors = [...o.bound.keys()].filter((uid) => a.bound.has(uid)).length;
    check(survivors >= loss.survivors && (!exactLayout(model) || survivors === loss.survivors),
      () => `${r.c.id} ${key} (losing ${zone}): ${survivors} survivors, the model says ${loss.survivors} ` +
        `(before: ${countsOf(o)}; after: ${countsOf(a)}); the model: ${boundsOf(model)}`);
  }
}

const settleAll = () => settle(client, zoneOf, running.map((r) => ({ ns: r.ns, workloads: r.workloads })));

test('the operators make their models\' members, placed within the report; check --live groups them under their resources', async () => {
  running = await applyCases();
  running.forEach(compareMembers);
  const placed = await settleAll();
  running.forEach((r) => comparePlacement(r, placed.get(r.ns)!));
  await compareLive(running);
  expect(disagreements).toEqual([]);
}, 600_000);

test.each([...ZONES])('losing %s leaves what the report says', async (zone) => {
  const before = await settleAll();
  running.forEach((r) => comparePlacement(r, before.get(r.ns)!)); // placed again, after the zone before came back
  const namespaces = running.map((r) => r.ns);
  const outage = await zoneOutage(cluster, zone, OutageMode.TAINT, { namespaces, silenceKubelets: true });
  try {
    const after = await settleAll();
    running.forEach((r) => compareLoss(r, zone, before.get(r.ns)!, after.get(r.ns)!));
  } finally {
    await outage.restore();
  }
  // eslint-disable-next-line no-console
  console.log(`losing ${zone}: ${running.length} resources of ${REAL_OPERATORS.length} operators, ${checks} checks so far`);
  expect(disagreements).toEqual([]);
}, 300_000);
