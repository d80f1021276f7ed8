/**
 * Helpers for scheduling proofs: where did the pods land (by node, by zone), wait until they are scheduled
 * or provably unschedulable (zone-outage.ts takes a zone away). See docs/testing-kubernetes.md.
 */
import * as fs from 'fs';
import { ClusterInfo, CLUSTER_ENV } from './control-plane';
import { KubeClient, KubeObject } from './kube-client';
import { waitFor, WaitOptions } from './wait';
import { isTerminating } from '../../../src/kubernetes/pod-life';

/** The spec of a pod that passes Pod Security "restricted" and asks for almost nothing: for tests of many pods. */
export const RESTRICTED_PAUSE_POD = {
  securityContext: { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{
    name: 'app',
    image: 'registry.k8s.io/pause:3.10',
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    resources: { requests: { cpu: '1m', memory: '1Mi' } },
  }],
};

/** The running test cluster, from a test file: its description and an admin client. */
export interface TestCluster {
  readonly info: ClusterInfo;
  readonly client: KubeClient;
}

/**
 * Connects to the control plane that the kubernetes project's global setup started (jest
 * `--selectProjects kubernetes`). Call `client.close()` in `afterAll`.
 */
export function testCluster(): TestCluster {
  const file = process.env[CLUSTER_ENV];
  if (!file || !fs.existsSync(file)) {
    throw new Error(`no test cluster: ${CLUSTER_ENV} is ${file ? `${file}, which does not exist` : 'not set'}; tests under ` +
      'test/integration/kubernetes/ run in the jest project "kubernetes", whose global setup starts the control plane');
  }
  const info = JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterInfo;
  return { info, client: new KubeClient(info) };
}

let named = 0;
/** A name unique to this run, for a namespace: `<prefix>-<base36 time><n>`, within the 63-character limit. */
export function uniqueName(prefix: string): string {
  return `${prefix.slice(0, 48)}-${Date.now().toString(36)}${named++}`;
}

/** The label selector (`k=v,k2=v2`) of a workload's `spec.selector.matchLabels`, to find its pods. */
export function labelSelectorOf(workload: KubeObject): string {
  const labels = workload.spec?.selector?.matchLabels;
  if (!labels || workload.spec.selector.matchExpressions) throw new Error(`${workload.kind} ${workload.metadata.name}: only a matchLabels selector can be turned into a label selector string`);
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
}

/** The pods of a namespace (optionally matching a label selector) that are not being deleted. */
export async function livePods(client: KubeClient, namespace: string, labelSelector?: string): Promise<any[]> {
  return (await client.list('v1', 'Pod', { namespace, labelSelector })).filter((p: any) => !isTerminating(p));
}

/**
 * Pod counts per zone of the pods' nodes, every zone of the cluster listed (0 when empty). Unscheduled pods are not
 * counted.
 */
export function podsByZone(info: ClusterInfo, pods: readonly any[]): Record<string, number> {
  const zoneOf = new Map(info.nodes.map((n) => [n.name, n.zone]));
  const counts: Record<string, number> = Object.fromEntries(info.zones.map((z) => [z, 0]));
  for (const p of pods) {
    const zone = zoneOf.get(p.spec.nodeName);
    if (zone !== undefined) counts[zone] += 1;
  }
  return counts;
}

/** Pod counts per node name (scheduled pods only). */
export function podsByNode(pods: readonly any[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of pods) if (p.spec.nodeName) counts[p.spec.nodeName] = (counts[p.spec.nodeName] ?? 0) + 1;
  return counts;
}

/**
 * Why the scheduler left a pod Pending (its PodScheduled condition), or undefined when it is scheduled or not tried
 * yet.
 */
export function unschedulableReason(pod: any): string | undefined {
  const c = (pod.status?.conditions ?? []).find((x: any) => x.type === 'PodScheduled');
  return c?.status === 'False' && c.reason === 'Unschedulable' ? c.message : undefined;
}

/** A pod's name with the scheduler's reason for refusing it, for a wait's state. */
function describeUnscheduled(pod: any): string {
  return `${pod.metadata.name} (${unschedulableReason(pod) ?? 'not tried yet'})`;
}

/** Waits until exactly `count` live pods match and all are scheduled (bound to a node); returns them. */
export async function waitForScheduled(
  client: KubeClient, namespace: string, labelSelector: string, count: number, opts: WaitOptions = {},
): Promise<any[]> {
  return waitFor(`${count} pods matching ${labelSelector} in ${namespace} to be scheduled`, async () => {
    const pods = await livePods(client, namespace, labelSelector);
    const unscheduled = pods.filter((p) => !p.spec.nodeName);
    const done = pods.length === count && unscheduled.length === 0;
    return {
      done,
      value: pods,
      state: `${pods.length} pods, ${unscheduled.length} unscheduled: ${unscheduled.map(describeUnscheduled).join('; ')}`,
    };
  }, opts);
}

/**
 * Waits until `count` live pods match and exactly the unscheduled ones have been tried and refused by the
 * scheduler (PodScheduled=False, reason Unschedulable), each refusal matching `reason`; returns
 * `{ scheduled, pending }`. This is proof that the scheduler considered and rejected them, not a timeout.
 */
export async function waitForUnschedulable(
  client: KubeClient,
  namespace: string,
  labelSelector: string,
  count: { total: number; pending: number },
  reason: RegExp,
  opts: WaitOptions = {},
): Promise<{ scheduled: any[]; pending: any[] }> {
  return waitFor(`${count.pending} of ${count.total} pods matching ${labelSelector} in ${namespace} to be refused by the scheduler (${reason})`, async () => {
    const pods = await livePods(client, namespace, labelSelector);
    const pending = pods.filter((p) => !p.spec.nodeName);
    const refused = pending.filter((p) => reason.test(unschedulableReason(p) ?? ''));
    return {
      done: pods.length === count.total && pending.length === count.pending && refused.length === count.pending,
      value: { scheduled: pods.filter((p) => p.spec.nodeName), pending },
      state: `${pods.length} pods, ${pending.length} pending: ${pending.map(describeUnscheduled).join('; ')}`,
    };
  }, opts);
}

/** The zone label of a node name, per the cluster layout. */
export function zoneOfNode(info: ClusterInfo, nodeName: string): string | undefined {
  return info.nodes.find((n) => n.name === nodeName)?.zone;
}
