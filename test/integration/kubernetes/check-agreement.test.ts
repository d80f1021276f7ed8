/**
 * The zone check agrees with the real kube-scheduler (issues 17 and 22). Every file of check-corpus/, the plain
 * workloads of every example and the built-in workloads of the real charts of test/check/real-corpus (issue 22,
 * `realCorpusCases`) are checked with `analyzeManifests` against an inventory that describes the kwok nodes below,
 * then applied: the pods the scheduler places must fall within the report's per-zone bounds (exactly on them where
 * guaranteed === worstCase), no more may stay Pending than it predicts, and when a zone goes down (its nodes tainted
 * NoExecute as an outage drill taints them, its pods removed: `zoneDown`) the survivors must be at least the
 * report's worst case and the replacements left Pending as predicted (exactly, where the layout is).
 *
 * The nodes form pools (label cdk8s-zones.test/pool) of several shapes: equal nodes, a pool with tainted nodes,
 * pools with a smaller zone, an uneven pool; every corpus workload selects its pool, so all the files run at
 * once in their own namespaces and one outage per zone serves them all. Three rounds, one per zone: each
 * applies everything into fresh namespaces, compares the placement, takes that zone down, compares, and
 * cleans up. Then, per zone, the files with a PodDisruptionBudget are drained from it (cordon, evictions through
 * the Eviction API, refusals retried): a drain that stays blocked must be one the report calls drainBlocked
 * (and exactly those, where the layout is exact). A disagreement is a bug in the analysis: the test lists each one
 * with the report's figures, and .cache/check-agreement/observed.json keeps what the scheduler did beside each
 * report.
 *
 * Examples: their Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, budgets and service accounts, moved
 * into one test namespace and given a nodeSelector for the examples pool (the check reads those same objects;
 * no operator runs here, so custom resources are left out). Jobs: kwok completes their pods at once, so only
 * their placement is compared, not a zone loss.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Case, corpusCases, exampleCases, realCorpusCases, WORKLOAD_KINDS } from './check-agreement-cases';
import { Observed, observeNamespace, settle } from './check-agreement-observe';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { isReady, ZONES } from './nodes';
import { testCluster } from './scheduling';
import { sleep, waitFor } from './wait';
import { cordonZone, OutageMode, restoreNodes, zoneOutage, ZoneOutage } from './zone-outage';
import { analyzeManifests } from '../../../src/check/analyze';
import { WorkloadReport } from '../../../src/check/model';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { REPO_ROOT } from '../shared';
import { agreementInventory, NODES, poolNodeObject } from './check-agreement-pools';

const cluster = testCluster();
const { client, info } = cluster;
const INVENTORY = agreementInventory(info);
const zoneOf = new Map<string, string>([...NODES, ...info.nodes].map((n): [string, string] => [n.name, n.zone]));

const zoneNodes = (zone: string) => [...NODES, ...info.nodes].filter((n) => n.zone === zone).map((n) => n.name);

/**
 * Zone `zone` lost (`zoneOutage`, as an outage drill takes it): its nodes and the pool's tainted NoExecute (they
 * stay, spread domains as NotReady nodes are), its kubelets silenced, and the pods of `namespaces` on them removed
 * at once, budgets ignored, as the taint manager evicts them from NotReady nodes.
 */
function zoneDown(zone: string, namespaces: string[]): Promise<ZoneOutage> {
  const poolNodes = NODES.filter((n) => n.zone === zone).map((n) => n.name);
  return zoneOutage(cluster, zone, OutageMode.TAINT, { poolNodes, namespaces, silenceKubelets: true });
}

/**
 * `kubectl drain --ignore-daemonsets` of a zone: its nodes cordoned by the drill's drain patch (`cordonZone`, as
 * `drill --mode drain` cordons them), every pod of `namespaces` on them but a DaemonSet's (which would come straight
 * back) evicted through the Eviction API, refusals (429: a PodDisruptionBudget) retried until nothing has moved for
 * 8 s; then the nodes restored from the drill's record. Returns the workloads whose pods are still there, by
 * namespace and owner: what a budget blocked.
 */
async function drainZone(zone: string, rounds: readonly Round[]): Promise<Set<string>> {
  const names = zoneNodes(zone);
  try {
    await cordonZone(client, zone, names);
    const left = await evictUntilStill(new Set(names), new Set(rounds.map((r) => r.ns)));
    return await ownersOf(left, rounds);
  } finally {
    await restoreNodes(client, names);
  }
}

/** Evicts the pods of `namespaces` on `nodes` (but a DaemonSet's) until none is left or nothing moved for 8 s. */
async function evictUntilStill(nodes: ReadonlySet<string>, namespaces: ReadonlySet<string>): Promise<any[]> {
  let lastMove = Date.now();
  for (;;) {
    const left = (await client.list('v1', 'Pod')).filter((p: any) => namespaces.has(p.metadata.namespace)
      && nodes.has(p.spec.nodeName)
      && !isTerminating(p)
      && !(p.metadata.ownerReferences ?? []).some((o: any) => o.controller && o.kind === 'DaemonSet'));
    if (left.length === 0 || Date.now() - lastMove > 8000) return left;
    for (const p of left) {
      if (await evict(p)) lastMove = Date.now();
    }
    await sleep(500);
  }
}

/** Asks the Eviction API to evict pod `p`: true when it did, false when a PodDisruptionBudget refused (429). */
async function evict(p: any): Promise<boolean> {
  const { name, namespace } = p.metadata;
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } };
  try {
    await client.request('POST', `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, eviction);
    return true;
  } catch (err: any) {
    if (err.status !== 429) throw err;
    return false;
  }
}

/** The workloads (`<namespace> <Kind>/<name>`) that own one of the pods `left`. */
async function ownersOf(left: readonly any[], rounds: readonly Round[]): Promise<Set<string>> {
  const uids = new Set(left.map((p: any) => p.metadata.uid));
  const owners = await Promise.all(rounds.map(async (r) => {
    const seen = await observeNamespace(client, zoneOf, r.ns, r.workloads);
    return [...seen.entries()]
      .filter(([, o]) => [...o.bound.keys()].some((uid) => uids.has(uid)))
      .map(([key]) => `${r.ns} ${key}`);
  }));
  return new Set(owners.flat());
}

const cases = [...corpusCases(), ...exampleCases(), ...realCorpusCases()];
const disagreements: string[] = [];
/** What the scheduler did, per round and workload, next to the report: kept in .cache/check-agreement/observed.json. */
const observed: Record<string, unknown>[] = [];
const ARTIFACT = path.join(REPO_ROOT, '.cache', 'check-agreement', 'observed.json');
const notes: string[] = [];
let checks = 0;

function check(ok: boolean, what: () => string): void {
  checks += 1;
  if (!ok) disagreements.push(what());
}


function fmtReport(r: WorkloadReport): string {
  const perZone = ZONES.map((z) => `${z} ${r.perZone[z].guaranteed}..${r.perZone[z].worstCase}`);
  const zoneLoss = r.zoneLoss.map((l) =>
    `${l.zone}: survivors ${l.survivors}, replacementsPending ${l.replacementsPending}, drainBlocked ${l.drainBlocked}`);
  return `report: perZone ${perZone.join(', ')}; pendingWorstCase ${r.pendingWorstCase}; zoneLoss ${zoneLoss.join('; ')}`;
}
const countsOf = (o: Observed) => ZONES.map((z) => `${z} ${[...o.bound.values()].filter((v) => v === z).length}`).join(', ');
const exactLayout = (r: WorkloadReport) => ZONES.every((z) => r.perZone[z].guaranteed === r.perZone[z].worstCase);

/** The kinds that make pods, each group after the one before (a Deployment makes ReplicaSets). */
const POD_MAKERS = [
  [['apps/v1', 'Deployment']],
  [['apps/v1', 'ReplicaSet'], ['apps/v1', 'StatefulSet'], ['apps/v1', 'DaemonSet'], ['batch/v1', 'Job']],
];

/**
 * Deletes namespace `ns` (`deleteNamespace`: waits until it is gone) without its pods' grace period: the namespace
 * controller, finding pods terminating, waits their grace period (30 s) out before it looks again. So the workloads
 * go first, leaving their pods (Orphan: nothing makes them again), then the pods at once (grace 0), then the
 * namespace, with no pod left to wait for.
 */
async function dropNamespace(ns: string): Promise<void> {
  for (const kinds of POD_MAKERS) {
    await Promise.all(kinds.map(([apiVersion, kind]) =>
      client.deleteCollection(apiVersion, kind, ns, { propagationPolicy: 'Orphan' })));
  }
  await client.deleteCollection('v1', 'Pod', ns, { gracePeriodSeconds: 0 });
  await deleteNamespace(client, ns);
}

/** Waits for every one of `promises`, then throws the first rejection (`Promise.all` would stop waiting at it). */
async function allSettled(promises: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

beforeAll(async () => {
  await Promise.all(NODES.map((n) => client.create(poolNodeObject(n))));
  // the reports while kwok makes the nodes Ready: the analysis reads the inventory, not the cluster
  for (const c of cases) {
    const { workloads } = analyzeManifests(c.objects, INVENTORY);
    c.reports.push(...workloads.filter((w) => WORKLOAD_KINDS.includes(w.kind)));
  }
  await waitFor(`kwok to report ${NODES.length} pool nodes Ready`, async () => {
    const nodes = await client.list('v1', 'Node');
    const ready = new Set(nodes.filter(isReady).map((n) => n.metadata.name));
    const waiting = NODES.filter((n) => !ready.has(n.name)).map((n) => n.name);
    return { done: waiting.length === 0, state: `not Ready: ${waiting.join(', ')}` };
  });
}, 180_000);

afterAll(async () => {
  await Promise.all(NODES.map((n) => client.delete('v1', 'Node', n.name)));
  await client.delete('storage.k8s.io/v1', 'StorageClass', 'agreement-zones-a-b');
  client.close();
});

test('the corpus holds at least 30 manifests and every one of them names a workload the check reports', () => {
  const corpus = cases.filter((c) => !c.id.startsWith('example '));
  expect(corpus.length).toBeGreaterThanOrEqual(30);
  expect(corpus.filter((c) => c.reports.length === 0).map((c) => c.id)).toEqual([]);
});

/** One namespace per case, its objects applied (none refused), its workloads listed. */
interface Round {
  readonly c: Case;
  readonly ns: string;
  readonly workloads: KubeObject[];
}

async function applyRounds(of: readonly Case[], prefix: string): Promise<Round[]> {
  const suffix = Date.now().toString(36);
  const rounds = of.map((c, i) => ({ c, ns: `${prefix}-${i}-${suffix}`, workloads: [] as KubeObject[] }));
  const applied = await Promise.all(rounds.map((r) => {
    const podSecurity = r.c.privileged ? 'privileged' : 'restricted';
    return applyManifests(client, r.c.objects, r.ns, podSecurity);
  }));
  expect(applied.flatMap((a) => a.rejections)).toEqual([]);
  rounds.forEach((r, i) => r.workloads.push(...applied[i].applied.filter((o) => WORKLOAD_KINDS.includes(o.kind))));
  return rounds;
}

/**
 * Every workload's bound pods within the report's per-zone bounds, no more Pending than it predicts (exactly, where
 * the layout is exact).
 */
function comparePlacement(rounds: readonly Round[], before: Map<string, Map<string, Observed>>, label: string): void {
  for (const r of rounds) {
    for (const report of r.c.reports) {
      const o = before.get(r.ns)!.get(`${report.kind}/${report.name}`)!;
      const where = `${r.c.id} ${report.kind}/${report.name} (${label})`;
      if (report.kind === 'DaemonSet') {
        check(o.expected === report.replicas,
          () => `${where}: ${o.expected} DaemonSet pods, the report says ${report.replicas}; ${fmtReport(report)}`);
      }
      for (const z of ZONES) {
        const n = [...o.bound.values()].filter((v) => v === z).length;
        check(n >= report.perZone[z].guaranteed && n <= report.perZone[z].worstCase,
          () => `${where}: ${z} holds ${n} (scheduler: ${countsOf(o)}, ${o.pending} Pending); ${fmtReport(report)}`);
      }
      check(o.pending <= report.pendingWorstCase,
        () => `${where}: ${o.pending} Pending > pendingWorstCase (scheduler: ${countsOf(o)}); ${fmtReport(report)}`);
      if (exactLayout(report)) {
        check(o.pending === report.pendingWorstCase,
          () => `${where}: ${o.pending} Pending, the report's exact layout says ${report.pendingWorstCase} (scheduler: ${countsOf(o)}); ${fmtReport(report)}`);
      }
    }
  }
}

test.each(ZONES.map((z, i) => [i + 1, z] as [number, string]))('round %i: placement within the report, then losing %s leaves what the report says', async (_, zone) => {
  const started = Date.now();
  const rounds = await applyRounds(cases, `agree-${zone}`);
  try {

    const before = await settle(client, zoneOf, rounds);
    comparePlacement(rounds, before, `round ${zone}`);

    const outage = await zoneDown(zone, rounds.map((r) => r.ns));
    try {
      const after = await settle(client, zoneOf, rounds);
      for (const r of rounds) {
        for (const report of r.c.reports) {
          const key = `${report.kind}/${report.name}`;
          const o = before.get(r.ns)!.get(key)!;
          const a = after.get(r.ns)!.get(key)!;
          const where = `${r.c.id} ${key} (losing ${zone})`;
          if (report.kind === 'Job') {
            notes.push(`${where}: not compared (kwok completes Job pods at once)`);
            continue;
          }
          const loss = report.zoneLoss.find((l) => l.zone === zone)!;
          const survivors = [...o.bound.keys()].filter((uid) => a.bound.has(uid)).length;
          check(survivors >= loss.survivors,
            () => `${where}: ${survivors} survivors < the report's ${loss.survivors} (before: ${countsOf(o)}; after: ${countsOf(a)}, ${a.pending} Pending); ${fmtReport(report)}`);
          const replacementsPending = Math.max(0, a.pending - o.pending);
          const beforeAndAfter = () => `(before: ${countsOf(o)}; after: ${countsOf(a)}); ${fmtReport(report)}`;
          check(replacementsPending <= loss.replacementsPending,
            () => `${where}: ${replacementsPending} replacements Pending > the report's ${loss.replacementsPending} ${beforeAndAfter()}`);
          observed.push({
            case: r.c.id,
            workload: key,
            lost: zone,
            before: `${countsOf(o)}, ${o.pending} Pending`,
            after: `${countsOf(a)}, ${a.pending} Pending`,
            report: fmtReport(report),
          });
          if (exactLayout(report)) {
            check(replacementsPending === loss.replacementsPending,
              () => `${where}: ${replacementsPending} replacements Pending, the report's exact layout says ${loss.replacementsPending} ${beforeAndAfter()}`);
          }
        }
      }
    } finally {
      // independent: the namespaces go (no pod is created in a terminating one) while the zone comes back
      await allSettled([...rounds.map((r) => dropNamespace(r.ns)), outage.restore()]);
    }
  } finally {
    await Promise.all(rounds.map((r) => deleteNamespace(client, r.ns).catch(() => undefined)));
  }
  // eslint-disable-next-line no-console
  console.log(`round ${zone}: ${cases.length} cases, ${rounds.reduce((s, r) => s + r.c.reports.length, 0)} workloads, ${checks} checks so far, ` +
    `${disagreements.length} disagreements so far, ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

const drainCases = cases.filter((c) => c.objects.some((o) => o.kind === 'PodDisruptionBudget'));

test.each([...ZONES])('draining %s is blocked by a PodDisruptionBudget where the report says drainBlocked', async (zone) => {
  const started = Date.now();
  const rounds = await applyRounds(drainCases, `drain-${zone}`);
  try {
    const before = await settle(client, zoneOf, rounds);
    const blocked = await drainZone(zone, rounds);
    for (const r of rounds) {
      for (const report of r.c.reports) {
        const key = `${report.kind}/${report.name}`;
        const o = before.get(r.ns)!.get(key)!;
        const inZone = [...o.bound.values()].filter((z) => z === zone).length;
        if (inZone === 0) continue;
        const loss = report.zoneLoss.find((l) => l.zone === zone)!;
        const was = blocked.has(`${r.ns} ${key}`);
        const where = `${r.c.id} ${key} (draining ${zone}, ${inZone} pods there)`;
        observed.push({
          case: r.c.id,
          workload: key,
          drained: zone,
          before: `${countsOf(o)}, ${o.pending} Pending`,
          blocked: was,
          report: `drainBlocked ${loss.drainBlocked}`,
        });
        check(!was || loss.drainBlocked,
          () => `${where}: the drain was blocked, the report says drainBlocked false; ${fmtReport(report)}`);
        if (exactLayout(report)) {
          check(was === loss.drainBlocked,
            () => `${where}: drain blocked ${was}, the report's exact layout says ${loss.drainBlocked}; ${fmtReport(report)}`);
        }
      }
    }
  } finally {
    await Promise.all(rounds.map((r) => dropNamespace(r.ns)));
  }
  // eslint-disable-next-line no-console
  console.log(`drain ${zone}: ${drainCases.length} cases, ${checks} checks so far, ${disagreements.length} disagreements so far, ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test('the scheduler never disagrees with the report', () => {
  // eslint-disable-next-line no-console
  const notCompared = [...new Set(notes.map((n) => n.replace(/ \(losing .*\)/, '')))];
  console.log(`${checks} checks over ${cases.length} cases; ${disagreements.length} disagreements` +
    (notCompared.length ? `\nnot compared:\n${notCompared.join('\n')}` : '') +
    (disagreements.length ? `\n${disagreements.join('\n')}` : ''));
  fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
  fs.writeFileSync(ARTIFACT, JSON.stringify(observed, null, 1));
  // eslint-disable-next-line no-console
  console.log(`what the scheduler did, beside each report: ${ARTIFACT}`);
  expect(disagreements).toEqual([]);
});
