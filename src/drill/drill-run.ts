/**
 * A drill against a live cluster: changes the zone's nodes (each with its record), watches every workload until it
 * is steady or the time is up, restores exactly what it changed, waits for the cluster to settle, and holds each
 * observation against the check's prediction. Cut short (Ctrl-C), it still restores; killed, `restoreDrill` does
 * it from the records on the nodes.
 */
import { ClusterWatch } from './cluster-watch';
import { DrillNode, drillPatch, DrillRecord, drillRecordOf, restorePatch } from './drill-nodes';
import {
  ClusterSnapshot, desiredOf, observe, podsByWorkload, podsOf, refusedOf, watchedWorkloads, WorkloadKey,
  workloadKeyText, WorkloadState, workloadState,
} from './drill-observe';
import { DrillPlan, DrillRefused, plannedPrediction, planDrill, ShiftInForce, systemsOf } from './drill-plan';
import { verdict, WorkloadVerdict } from './drill-verdict';
import { readLiveObjects } from '../check/live/live-read';
import { DrillMode } from '../contract/drill';
import { shiftInForce, ZONE_SHIFTS_PATH, ZoneShiftObject } from '../contract/zone-shift';
import { isStatus, KubeApi, KubeRequestApi, listAll } from '../kubernetes/kube-api';
import { Live, Pod } from '../kubernetes/objects';
import { isActive } from '../kubernetes/pod-life';

/** How the run goes, and what it reports to. */
export interface DrillRunOptions {
  /** The longest the watch lasts, and then the settling after the restore. */
  readonly timeoutMs: number;
  /** How long nothing must change before the cluster counts as steady. */
  readonly settleMs: number;
  /** How often a drain asks the Eviction API again, and the end of the watch is looked for (changes are watched). */
  readonly pollMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** A line of progress (the report goes elsewhere). */
  readonly progress: (line: string) => void;
  /** True once the user asked to stop (Ctrl-C): the drill restores at once. */
  readonly aborted: () => boolean;
}

/** What a drill did and saw. */
export interface DrillResult {
  readonly zone: string;
  readonly mode: DrillMode;
  readonly startedAt: string;
  readonly nodes: readonly string[];
  readonly verdicts: readonly WorkloadVerdict[];
  /**
   * How long the watch lasted; whether it ended steady (not at the timeout, not cut short), and when the last change
   * was seen.
   */
  readonly watchedMs: number;
  readonly steady: boolean;
  readonly lastChangeAfterMs: number;
  readonly cutShort: boolean;
  /** From the restore until every workload was as whole as before it (undefined: not within the timeout). */
  readonly settledAfterMs?: number;
  /**
   * The ZoneShifts that still have the zone out of service at the end (an autoshift's answer to the outage, or a
   * person's): the drill leaves them, and their taint on the zone's nodes, to end as they will.
   */
  readonly shiftsAtEnd: readonly string[];
}

/**
 * The plan of a drill of `zone` in `mode` on the cluster as it is now: what `check --live` reads (a list denied
 * stops it: a drill needs every prediction), and the ZoneShifts in force.
 */
export async function planLiveDrill(
  api: KubeRequestApi, zone: string, mode: DrillMode, nowMs: number,
): Promise<DrillPlan> {
  const { nodes, objects, findings } = await readLiveObjects(api, undefined);
  const denied = findings.find((f) => f.rule === 'live-list-denied');
  if (denied !== undefined) throw new DrillRefused(`${denied.message}; ${denied.fix}`);
  return planDrill(nodes, objects, zone, mode, await shiftsInForce(api, nowMs));
}

/** The ZoneShifts in force at `nowMs` (none where the cluster has no ZoneShift resource). */
async function shiftsInForce(api: KubeRequestApi, nowMs: number): Promise<ShiftInForce[]> {
  let shifts: ZoneShiftObject[];
  try {
    shifts = await listAll<ZoneShiftObject>(api, ZONE_SHIFTS_PATH);
  } catch (e) {
    if (isStatus(e, 404)) return [];
    throw e;
  }
  return shifts.flatMap((s) => {
    const spec = shiftInForce(s, nowMs);
    return spec === undefined ? [] : [{ name: s.metadata.name, zone: spec.zone }];
  });
}

/**
 * Runs the drill of `plan`, watching the cluster (every change seen as it happens). The nodes are restored whatever
 * happens once the first is changed.
 */
export async function runDrill(api: KubeApi, plan: DrillPlan, o: DrillRunOptions): Promise<DrillResult> {
  let recorder: DrillRecorder | undefined;
  const cluster = await ClusterWatch.start(api, o.now, { sleep: o.sleep }, (s) => recorder?.record(s));
  try {
    const first = cluster.snapshot();
    recorder = new DrillRecorder([...watchedWorkloads(first), ...systemsOf(plan)], plan, first);
    return await drill(api, cluster, recorder, plan, o);
  } finally {
    await cluster.stop();
  }
}

async function drill(
  api: KubeApi, cluster: ClusterWatch, recorder: DrillRecorder, plan: DrillPlan, o: DrillRunOptions,
): Promise<DrillResult> {
  const startMs = o.now();
  const startedAt = new Date(startMs).toISOString();
  const refused = new Map<string, Set<string>>();
  let watch: WatchEnd;
  try {
    recorder.zoneDown = plan.mode === 'outage';
    for (const name of plan.nodes) await changeNode(api, name, plan, startedAt);
    recorder.record(cluster.snapshot(), true);
    o.progress(`${plan.mode}: ${plan.nodes.length} nodes of zone ${plan.zone} changed (${plan.nodes.join(', ')}); watching ${recorder.keys.length} workloads`);
    watch = await watchUntilSteady(api, cluster, recorder, plan, refused, o);
  } finally {
    const restored = await restoreDrill(api, (n) => plan.nodes.includes(n));
    recorder.stop(cluster.snapshot());
    o.progress(`restored ${restored.length} nodes`);
  }
  const restoredAt = o.now();
  const settledAt = await waitForSettle(cluster, recorder, plan, o, restoredAt);
  const verdicts = recorder.keys.map((k) => {
    const seen = observe(recorder.statesOf(k), startMs, refusedOf(refused, k));
    return verdict({ kind: k.kind, namespace: k.namespace, name: k.name }, plannedPrediction(plan, k), seen, plan.mode);
  });
  return {
    zone: plan.zone,
    mode: plan.mode,
    startedAt,
    nodes: plan.nodes,
    verdicts,
    watchedMs: watch.endMs - startMs,
    steady: watch.steady,
    lastChangeAfterMs: watch.lastChangeMs - startMs,
    cutShort: watch.cutShort,
    settledAfterMs: settledAt === undefined ? undefined : settledAt - restoredAt,
    shiftsAtEnd: (await shiftsInForce(api, o.now())).filter((s) => s.zone === plan.zone).map((s) => s.name),
  };
}

/**
 * What the drill records of each workload: its state before the drill, then each state it passed through (every
 * change the watches saw), until the restore.
 */
class DrillRecorder {
  /** Whether the drilled zone's pods count as dead (an outage under way). */
  zoneDown = false;
  /** When a workload's state last changed. */
  changedAtMs: number;
  private readonly states: Map<string, Array<{ atMs: number; state: WorkloadState }>>;
  private recording = true;

  constructor(readonly keys: readonly WorkloadKey[], private readonly plan: DrillPlan, first: ClusterSnapshot) {
    const pods = podsByWorkload(first);
    const firstState = (k: WorkloadKey) => ({ atMs: first.atMs, state: stateOf(first, k, plan, false, pods) });
    this.states = new Map(keys.map((k) => [workloadKeyText(k), [firstState(k)]]));
    this.changedAtMs = first.atMs;
  }

  /** Records each workload's state in `snap` where it changed (`always`: every one). */
  record(snap: ClusterSnapshot, always = false): void {
    if (!this.recording) return;
    const pods = podsByWorkload(snap);
    for (const k of this.keys) {
      const seen = this.states.get(workloadKeyText(k))!;
      const state = stateOf(snap, k, this.plan, this.zoneDown, pods);
      const changed = JSON.stringify(state) !== JSON.stringify(seen[seen.length - 1].state);
      if (changed) this.changedAtMs = snap.atMs;
      if (changed || always) seen.push({ atMs: snap.atMs, state });
    }
  }

  /** The last states, as the restore begins; nothing after. */
  stop(snap: ClusterSnapshot): void {
    this.record(snap, true);
    this.recording = false;
  }

  statesOf(k: WorkloadKey): ReadonlyArray<{ atMs: number; state: WorkloadState }> {
    return this.states.get(workloadKeyText(k))!;
  }

  /** The state before the drill. */
  before(k: WorkloadKey): WorkloadState {
    return this.statesOf(k)[0].state;
  }
}

function stateOf(
  s: ClusterSnapshot,
  k: WorkloadKey,
  plan: DrillPlan,
  zoneDown: boolean,
  pods = podsByWorkload(s),
): WorkloadState {
  return workloadState(s, podsOf(pods, k), desiredOf(s, k), plan.zone, zoneDown);
}

/**
 * Starts the drill on one node: read, check it is in the zone, patch (read again when someone changed it meanwhile).
 */
async function changeNode(api: KubeRequestApi, name: string, plan: DrillPlan, startedAt: string): Promise<void> {
  await patchNode(api, name, (node) => {
    if (node.metadata.labels?.[plan.zoneKey] !== plan.zone) {
      throw new Error(`node ${name} is no longer in zone ${plan.zone}: the drill does not touch it`);
    }
    return drillPatch(node, plan.zone, plan.mode, startedAt);
  });
}

/** Patches node `name` with `patchOf(node)` conditional on its resourceVersion, reading it again on a conflict. */
async function patchNode(
  api: KubeRequestApi, name: string, patchOf: (node: DrillNode) => object | undefined,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const node: DrillNode = await api.get(`/api/v1/nodes/${name}`);
    const patch = patchOf(node);
    if (patch === undefined) return;
    try {
      await api.patch(`/api/v1/nodes/${name}`, patch, 'merge');
      return;
    } catch (e) {
      if (!isStatus(e, 409) || attempt >= 10) throw e;
    }
  }
}

/** A node a restore undid, and what its record said. */
export interface RestoredNode {
  readonly node: string;
  readonly record: DrillRecord;
}

/** Undoes every drill recorded on the nodes `which` selects (all by default); returns the nodes restored. */
export async function restoreDrill(
  api: KubeRequestApi, which: (node: string) => boolean = () => true,
): Promise<RestoredNode[]> {
  const restored: RestoredNode[] = [];
  for (const listed of await listAll(api, '/api/v1/nodes')) {
    const name = listed.metadata.name;
    if (!which(name) || drillRecordOf(listed) === undefined) continue;
    await patchNode(api, name, (node) => {
      const record = drillRecordOf(node);
      if (record === undefined) return undefined;
      restored.push({ node: name, record });
      return restorePatch(node, record);
    });
  }
  return restored;
}

/**
 * How a watch ended: steady (nothing changed for the settle time), at the timeout, or cut short; when the last change
 * was.
 */
interface WatchEnd {
  readonly steady: boolean;
  readonly cutShort: boolean;
  readonly endMs: number;
  readonly lastChangeMs: number;
}

/**
 * Watches until nothing changed for `settleMs` (in a drain: no pod left to evict, or refusals unchanged), the timeout,
 * or Ctrl-C; a drain asks the Eviction API again every `pollMs`.
 */
async function watchUntilSteady(
  api: KubeRequestApi,
  cluster: ClusterWatch,
  recorder: DrillRecorder,
  plan: DrillPlan,
  refused: Map<string, Set<string>>,
  o: DrillRunOptions,
): Promise<WatchEnd> {
  const deadline = o.now() + o.timeoutMs;
  for (;;) {
    if (plan.mode === 'drain') {
      const snap = cluster.snapshot();
      await evictFromZone(api, plan, snap, podsByWorkload(snap), refused);
    }
    const end = (steady: boolean, cutShort: boolean): WatchEnd => ({
      steady,
      cutShort,
      endMs: o.now(),
      lastChangeMs: recorder.changedAtMs,
    });
    if (o.aborted()) return end(false, true);
    if (o.now() - recorder.changedAtMs >= o.settleMs) return end(true, false);
    if (o.now() >= deadline) return end(false, false);
    await o.sleep(o.pollMs);
  }
}

/** Whether a pod is one a drain evicts: not a DaemonSet's, not a static pod's mirror, not finished or going. */
function evictable(pod: Live<Pod>): boolean {
  const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  return owner?.kind !== 'DaemonSet' && pod.metadata.annotations?.['kubernetes.io/config.mirror'] === undefined &&
    isActive(pod);
}

/**
 * Asks the Eviction API to evict every evictable pod on the zone's nodes; a refusal is counted against its workload.
 */
async function evictFromZone(
  api: KubeRequestApi, plan: DrillPlan, snap: ClusterSnapshot, byWorkload: ReadonlyMap<string, readonly Live<Pod>[]>,
  refused: Map<string, Set<string>>,
): Promise<void> {
  const workloadOf = new Map<string | undefined, string>();
  for (const [key, pods] of byWorkload) for (const p of pods) workloadOf.set(p.metadata.uid, key);
  for (const pod of snap.pods.filter((p) => plan.nodes.includes(p.spec?.nodeName as string) && evictable(p))) {
    const { namespace, name, uid } = pod.metadata;
    try {
      await api.create(`/api/v1/namespaces/${namespace}/pods/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } });
    } catch (e) {
      if (isStatus(e, 404)) continue; // gone already
      // 429: a PodDisruptionBudget or a ZoneDisruptionBudget says not now (kubectl drain retries those too); anything
      // else stops the drill
      if (!isStatus(e, 429)) throw e;
      const key = workloadOf.get(uid);
      // a pod of a workload (a listed one) has a uid
      if (key !== undefined) refused.set(key, new Set([...refused.get(key) ?? [], uid as string]));
    }
  }
}

/** After the restore: waits until every workload is as whole as before the drill; the moment it was, or undefined. */
async function waitForSettle(
  cluster: ClusterWatch, recorder: DrillRecorder, plan: DrillPlan, o: DrillRunOptions, fromMs: number,
): Promise<number | undefined> {
  const deadline = fromMs + o.timeoutMs;
  for (;;) {
    const snap = cluster.snapshot();
    const pods = podsByWorkload(snap);
    const settled = recorder.keys.every((k) => {
      const before = recorder.before(k);
      const now = stateOf(snap, k, plan, false, pods);
      return now.ready >= Math.min(before.ready, now.desired) && now.pending <= before.pending;
    });
    if (settled) return snap.atMs;
    if (o.now() >= deadline || o.aborted()) return undefined;
    await o.sleep(o.pollMs);
  }
}
