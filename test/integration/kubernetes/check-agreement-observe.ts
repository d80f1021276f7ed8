/**
 * What the scheduler did with check-agreement's workloads: each one's pods, bound (in which zone), refused or not
 * tried yet.
 */
import { KubeClient, KubeObject } from './kube-client';
import { unschedulableReason } from './scheduling';
import { waitFor } from './wait';
import { isTerminating } from '../../../src/kubernetes/pod-life';

/** ` Ready=<status>` of a pod's condition, or '' when it has none. */
const conditionOf = (pod: any, type: string) => {
  const c = (pod.status?.conditions ?? []).find((x: any) => x.type === type);
  return c ? ` ${type}=${c.status}` : '';
};

/**
 * How many pods a workload wants now: a DaemonSet's desired count once its status is current (-1 before), a Job's
 * parallelism (at most its completions), the replicas of the others.
 */
function expectedPods(kind: string, current: any): number {
  if (kind === 'DaemonSet') {
    const statusCurrent = (current.status?.observedGeneration ?? 0) >= current.metadata.generation;
    return statusCurrent ? current.status?.desiredNumberScheduled ?? -1 : -1;
  }
  if (kind === 'Job') return Math.min(current.spec.parallelism ?? 1, current.spec.completions ?? Infinity);
  return current.spec.replicas ?? 1;
}

/** What the cluster shows for one workload. */
export interface Observed {
  readonly expected: number;
  /** uid -> zone of every bound pod. */
  readonly bound: Map<string, string>;
  readonly pending: number;
  readonly settled: boolean;
  readonly signature: string;
  readonly state: string;
}

/**
 * The controller-owned pods of every workload of a namespace, by `Kind/name` (a Deployment's through its
 * ReplicaSets).
 */
export async function observeNamespace(
  client: KubeClient,
  zoneOf: ReadonlyMap<string, string>,
  ns: string,
  workloads: KubeObject[],
): Promise<Map<string, Observed>> {
  const [pods, replicaSets] = await Promise.all([
    client.list('v1', 'Pod', { namespace: ns }),
    client.list('apps/v1', 'ReplicaSet', { namespace: ns }),
  ]);
  const deploymentOf = new Map(replicaSets.map((rs: any) => {
    const deployment = rs.metadata.ownerReferences?.find((o: any) => o.kind === 'Deployment');
    return [rs.metadata.name, deployment?.name];
  }));
  const ownerOf = (p: any) => {
    const o = p.metadata.ownerReferences?.find((r: any) => r.controller);
    if (!o) return undefined;
    const deployment = o.kind === 'ReplicaSet' ? deploymentOf.get(o.name) : undefined;
    return deployment ? `Deployment/${deployment}` : `${o.kind}/${o.name}`;
  };
  const out = new Map<string, Observed>();
  for (const w of workloads) {
    const current: any = await client.get(w.apiVersion, w.kind, w.metadata.name, ns);
    const key = `${w.kind}/${w.metadata.name}`;
    const owned = pods.filter((p: any) => ownerOf(p) === key);
    const mine = owned.filter((p: any) => !isTerminating(p) && p.status?.phase !== 'Failed');
    // terminating or failed: not counted, but a StatefulSet makes no pod of the same name while one is there
    const leaving = owned.filter((p: any) => !mine.includes(p));
    const expected = expectedPods(w.kind, current);
    const zoneOfPod = (p: any) => zoneOf.get(p.spec.nodeName) ?? `?${p.spec.nodeName}`;
    const bound = new Map<string, string>(mine.filter((p: any) => p.spec.nodeName)
      .map((p: any) => [p.metadata.uid, zoneOfPod(p)]));
    const refused = mine.filter((p: any) => !p.spec.nodeName && unschedulableReason(p) !== undefined);
    const untried = mine.length - bound.size - refused.length;
    // an OrderedReady StatefulSet creates no further pod while one is Pending
    const ordered = w.kind === 'StatefulSet' && current.spec.podManagementPolicy !== 'Parallel';
    // a complete Job makes no more pods (an outage may remove some of its finished ones)
    const complete = w.kind === 'Job'
      && (current.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True');
    const allThere = mine.length === expected || (ordered && refused.length > 0 && mine.length < expected);
    const settled = complete || (expected >= 0 && untried === 0 && allThere);
    out.set(key, {
      expected,
      bound,
      pending: complete ? 0 : Math.max(0, expected - bound.size),
      settled,
      signature: mine.map((p: any) => `${p.metadata.name}@${p.spec.nodeName ?? '-'}`).sort().join(','),
      state: `${key}: ${mine.length}/${expected} pods, ${bound.size} bound, ${refused.length} refused, ${untried} untried` +
        (ordered ? orderedState(current, mine) : '') + leavingState(leaving, zoneOf),
    });
  }
  return out;
}

/** Waits until every workload's pods are all bound or refused by the scheduler, and nothing moved for 2.5 s. */
export async function settle(
  client: KubeClient,
  zoneOf: ReadonlyMap<string, string>,
  rounds: { ns: string; workloads: KubeObject[] }[],
): Promise<Map<string, Map<string, Observed>>> {
  let last = '';
  let since = Date.now();
  return waitFor('every workload placed or refused, and stable', async () => {
    const seen = new Map<string, Map<string, Observed>>();
    for (const r of rounds) seen.set(r.ns, await observeNamespace(client, zoneOf, r.ns, r.workloads));
    const all = [...seen.values()].flatMap((m) => [...m.values()]);
    const signature = all.map((o) => o.signature).join(';');
    if (signature !== last) {
      last = signature;
      since = Date.now();
    }
    const waiting = all.filter((o) => !o.settled);
    return {
      done: waiting.length === 0 && Date.now() - since >= 2500,
      value: seen,
      state: waiting.map((o) => o.state).join('; ') || 'settled, waiting for stability',
    };
  }, { timeoutMs: 120_000, intervalMs: 500 });
}

/** An OrderedReady StatefulSet's progress, for the state line: its ready count and each pod's phase. */
function orderedState(statefulSet: any, pods: any[]): string {
  const podStates = pods.map((p) => `${p.metadata.name} ${p.status?.phase}${conditionOf(p, 'Ready')}`);
  return ` (OrderedReady; ${statefulSet.status?.readyReplicas ?? 0} ready; pods ${podStates.join(', ')})`;
}

/**
 * The pods of a workload that are going (terminating) or have failed, for the state line: where each is, since when
 * it is deleted and who asked (the DisruptionTarget condition's reason, e.g. DeletionByTaintManager).
 */
function leavingState(pods: any[], zoneOf: ReadonlyMap<string, string>): string {
  if (pods.length === 0) return '';
  const one = (p: any) => {
    const node = p.spec.nodeName ?? '-';
    const disruption = (p.status?.conditions ?? []).find((c: any) => c.type === 'DisruptionTarget');
    return `${p.metadata.name} ${p.status?.phase} on ${node} (${zoneOf.get(node) ?? '?'})` +
      (p.metadata.deletionTimestamp ? `, deleted at ${p.metadata.deletionTimestamp}` : '') +
      (disruption ? ` by ${disruption.reason}` : '');
  };
  return ` (leaving: ${pods.map(one).join(', ')})`;
}
