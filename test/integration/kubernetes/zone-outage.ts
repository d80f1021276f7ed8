/**
 * The one way the tests take a zone down and bring it back. A zone that stays is tainted as `cdk8s-zones drill
 * --mode outage` taints it: the drill's own patch (src/drill/drill-nodes.ts: its NoExecute taint and its record on
 * the node), undone by the drill's restore patch, so a test's outage and a drill are the same event to the
 * scheduler and the check, and `drill --restore` would undo a test's outage left behind. Or the zone's nodes are
 * deleted. Either way the pods that were on the zone's nodes are removed at once, as the taint manager or the pod
 * garbage collector would remove them. See docs/testing-kubernetes.md. A zone drained for maintenance is cordoned
 * as `drill --mode drain` cordons it, by the drill's drain patch (`cordonZone`), and restored the same way.
 */
import { KubeClient } from './kube-client';
import { addNodes, isReady } from './nodes';
import { TestCluster } from './scheduling';
import { waitFor, WaitOptions } from './wait';
import { DrillNode, drillPatch, drillRecordOf, restorePatch } from '../../../src/drill/drill-nodes';
import { isStatus } from '../../../src/kubernetes/kube-api';
import { hasEnded } from '../../../src/kubernetes/pod-life';

export enum OutageMode {
  /**
   * The zone's nodes are deleted and the pods bound to them removed at once (what the pod garbage
   * collector does some 40 s after a node object disappears): the zone no longer exists for the scheduler,
   * so only `minDomains` stops a hard zone spread from packing the replacements into the other zones.
   */
  DELETE_NODES = 'delete-nodes',
  /**
   * The zone's nodes stay, tainted NoExecute as an outage drill taints them: their pods are removed and nothing
   * new lands there. The nodes still count as a (now empty) spread domain unless `nodeTaintsPolicy: Honor`.
   */
  TAINT = 'taint',
}

export interface OutageOptions extends WaitOptions {
  /**
   * Further nodes of the zone, by name, that go down with the cluster's (a test's own pool of nodes). TAINT only:
   * DELETE_NODES recreates the cluster's nodes alone.
   */
  readonly poolNodes?: readonly string[];
  /**
   * Only the pods of these namespaces are removed (and waited for); by default every pod on the zone's nodes.
   * The pods of other namespaces then go as the taint manager evicts them, or stay where they tolerate the taint.
   */
  readonly namespaces?: readonly string[];
  /**
   * TAINT only: the zone's kubelets fall silent too. kwok's node Leases are taken (another holder, for an hour),
   * and kwok leaves a node whose Lease it does not hold alone ("read only": no heartbeat, no pod played), as a
   * zone's kubelets falling silent. Without that, kwok 0.7 deletes terminating pods by name from a queue that lags
   * its watch under load, so a late delete hits the pod a StatefulSet recreated under the same name.
   */
  readonly silenceKubelets?: boolean;
}

/** A simulated zone outage; `restore()` brings the zone's nodes back as they were. */
export interface ZoneOutage {
  readonly zone: string;
  /** The names of the nodes that went down. */
  readonly nodes: readonly string[];
  restore(): Promise<void>;
}

/** Who holds a silenced zone's node Leases. */
const OUTAGE_HOLDER = 'cdk8s-zones.test/zone-outage';
const LEASES = 'kube-node-lease';

/**
 * Takes a zone away (see `OutageMode`) and waits until none of the pods that were on its nodes is left. Always
 * `restore()` it (in a `finally`): the cluster is shared by every test file of the project.
 */
export async function zoneOutage(
  cluster: TestCluster, zone: string, mode = OutageMode.DELETE_NODES, opts: OutageOptions = {},
): Promise<ZoneOutage> {
  const { client, info } = cluster;
  const own = info.nodes.filter((n) => n.zone === zone);
  if (own.length === 0) throw new Error(`zoneOutage: zone=${zone} has no nodes (zones: ${info.zones.join(', ')})`);
  if (mode === OutageMode.DELETE_NODES && (opts.poolNodes?.length || opts.silenceKubelets)) {
    throw new Error(`zoneOutage: mode=${mode} takes neither poolNodes nor silenceKubelets (it recreates only the cluster's own nodes)`);
  }
  const names = [...own.map((n) => n.name), ...opts.poolNodes ?? []];
  if (opts.silenceKubelets) await silenceKubelets(client, names);
  if (mode === OutageMode.DELETE_NODES) {
    await Promise.all(names.map((name) => client.delete('v1', 'Node', name)));
    await removePods(client, zone, names, opts);
  } else {
    // Fenced first (NoSchedule: nothing new lands there, nothing is evicted), the pods removed, then the drill's
    // NoExecute taint in place of the fence. Tainted NoExecute at once, the taint-eviction controller would mark the
    // pods terminating before they are removed, and kwok 0.7 finishes a terminating pod by name from a queue that
    // lags under load: its late delete hit the pod a StatefulSet had recreated under that name in another zone.
    await Promise.all(names.map((name) => patchNode(client, name, fencePatch)));
    await removePods(client, zone, names, opts);
    const startedAt = new Date().toISOString();
    const outage = (node: DrillNode) => drillPatch(unfenced(node), zone, 'outage', startedAt);
    await Promise.all(names.map((name) => patchNode(client, name, outage)));
  }
  return {
    zone,
    nodes: names,
    restore: () => (mode === OutageMode.DELETE_NODES
      ? addNodes(client, own, opts)
      : untaint(client, zone, names, opts)),
  };
}

/** The taint that keeps new pods off a zone's nodes while its pods are removed (no eviction: NoSchedule). */
const FENCE = { key: 'cdk8s-zones.test/zone-outage-fence', effect: 'NoSchedule' };

const fencePatch = (node: DrillNode) => ({
  metadata: { resourceVersion: node.metadata.resourceVersion },
  spec: { taints: [...node.spec?.taints ?? [], FENCE] },
});

/** `node` as it was before the fence: the drill's patch replaces the fence with its taint and records no fence. */
const unfenced = (node: DrillNode): DrillNode => ({
  ...node,
  spec: { ...node.spec, taints: (node.spec?.taints ?? []).filter((t) => t.key !== FENCE.key) },
});

/** Takes the nodes' Leases from kwok (see `OutageOptions.silenceKubelets`). */
async function silenceKubelets(client: KubeClient, names: readonly string[]): Promise<void> {
  const renewTime = new Date().toISOString().replace('Z', '000Z'); // a MicroTime
  await Promise.all(names.map((name) => client.patch('coordination.k8s.io/v1', 'Lease', name,
    { spec: { holderIdentity: OUTAGE_HOLDER, leaseDurationSeconds: 3600, renewTime } }, LEASES)));
}

/**
 * Force-deletes, by uid, the pods (of `opts.namespaces`) on the nodes that have not ended, as the taint manager
 * evicts them from a lost node (nobody would finish their graceful deletion), and waits until they are gone. A pod
 * that arrives after (a DaemonSet's that tolerates the taint) may stay: only the pods there at the loss must go.
 */
async function removePods(
  client: KubeClient, zone: string, names: readonly string[], opts: OutageOptions,
): Promise<void> {
  const nodes = new Set(names);
  const ours = (p: any) => opts.namespaces === undefined || opts.namespaces.includes(p.metadata.namespace);
  const there = async () => (await client.list('v1', 'Pod'))
    .filter((p: any) => nodes.has(p.spec.nodeName) && !hasEnded(p) && ours(p));
  const lost = await there();
  await Promise.all(lost.map((p: any) => client.delete('v1', 'Pod', p.metadata.name, p.metadata.namespace,
    { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid } })));
  const uids = new Set(lost.map((p: any) => p.metadata.uid));
  await waitFor(`the pods of ${zone} to be gone`, async () => {
    const left = (await there()).filter((p: any) => uids.has(p.metadata.uid));
    const state = left.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`).join(', ');
    return { done: left.length === 0, state };
  }, opts);
}

/**
 * The zone back: each node restored from the drill's record (exactly what the outage changed), its Lease returned
 * to kwok when silenced, and every node Ready with no taint the outage left (the node lifecycle controller's).
 */
async function untaint(client: KubeClient, zone: string, names: readonly string[], opts: OutageOptions): Promise<void> {
  await restoreNodes(client, names);
  await untilBack(client, zone, names, opts);
}

/**
 * Only the kubelets of `zone` fall silent (its nodes' Leases taken, see `OutageOptions.silenceKubelets`): nothing is
 * tainted or removed, as when a zone's network goes. kwok still posts the nodes' status (it does so for every node it
 * has played, whatever their Leases), so the node lifecycle controller keeps them Ready: only their Leases go stale.
 * A zone that never comes back is `zoneOutage` with `OutageMode.DELETE_NODES`. `poolNodes`: a test's own nodes of
 * the zone, silenced too.
 */
export async function silenceZone(
  cluster: TestCluster, zone: string, opts: Pick<OutageOptions, 'poolNodes'> & WaitOptions = {},
): Promise<ZoneOutage> {
  const names = [...cluster.info.nodes.filter((n) => n.zone === zone).map((n) => n.name), ...opts.poolNodes ?? []];
  await silenceKubelets(cluster.client, names);
  const restore = () => untilBack(cluster.client, zone, names, { ...opts, silenceKubelets: true });
  return { zone, nodes: names, restore };
}

/** The Leases of silenced nodes given back to kwok, and every node Ready with no taint the outage left. */
async function untilBack(
  client: KubeClient, zone: string, names: readonly string[], opts: OutageOptions,
): Promise<void> {
  if (opts.silenceKubelets) {
    await Promise.all(names.map((name) => client.delete('coordination.k8s.io/v1', 'Lease', name, LEASES)));
  }
  const what = `${zone}'s nodes to be Ready again${opts.silenceKubelets ? ', their Leases held by kwok' : ''}`;
  await waitFor(what, async () => {
    const leases = opts.silenceKubelets
      ? await client.list('coordination.k8s.io/v1', 'Lease', { namespace: LEASES })
      : [];
    const kwoks = leases.filter((l: any) => l.spec?.holderIdentity && l.spec.holderIdentity !== OUTAGE_HOLDER);
    const held = new Set(kwoks.map((l) => l.metadata.name));
    const nodes = (await client.list('v1', 'Node')).filter((n: any) => names.includes(n.metadata.name));
    // the node lifecycle controller's taints (not.ready, unreachable); a cordon is no outage's (a test's own)
    const tainted = (n: any) => (n.spec.taints ?? [])
      .some((t: any) => t.key.startsWith('node.kubernetes.io/') && t.key !== 'node.kubernetes.io/unschedulable');
    const silent = (n: any) => opts.silenceKubelets && !held.has(n.metadata.name);
    const waiting = nodes.filter((n: any) => silent(n) || !isReady(n) || tainted(n))
      .map((n: any) => n.metadata.name);
    return { done: nodes.length === names.length && waiting.length === 0, state: `waiting: ${waiting.join(', ')}` };
  }, opts);
}

/**
 * Cordons the nodes `names` of `zone` as `cdk8s-zones drill --mode drain` does: the drill's own drain patch
 * (`spec.unschedulable` and its record on the node). Always `restoreNodes` them (in a `finally`): the cluster is
 * shared by every test file of the project.
 */
export async function cordonZone(client: KubeClient, zone: string, names: readonly string[]): Promise<void> {
  const startedAt = new Date().toISOString();
  await Promise.all(names.map((name) => patchNode(client, name, (node) => drillPatch(node, zone, 'drain', startedAt))));
}

/**
 * Undoes on each node what a drill's patch (an outage's taint, a drain's cordon) changed, from the drill's record
 * on it, as `drill --restore` does; a node with no record is left alone.
 */
export async function restoreNodes(client: KubeClient, names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => patchNode(client, name, (node) => {
    const record = drillRecordOf(node);
    return record === undefined ? undefined : restorePatch(node, record);
  })));
}

/**
 * Patches node `name` with `patchOf(node)`, conditional on its resourceVersion (the drill's patches carry it), reading
 * it again when it changed meanwhile (kwok updates nodes), as the drill does; `undefined`: nothing to patch.
 */
async function patchNode(
  client: KubeClient, name: string, patchOf: (node: DrillNode) => object | undefined,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const patch = patchOf(await client.get<DrillNode>('v1', 'Node', name));
    if (patch === undefined) return;
    try {
      await client.patch('v1', 'Node', name, patch);
      return;
    } catch (err) {
      if (!isStatus(err, 409) || attempt >= 10) throw err;
    }
  }
}
