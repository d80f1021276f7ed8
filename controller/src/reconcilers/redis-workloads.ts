/**
 * The redis reconciler's day-2 work on a cluster's Kubernetes objects, after each full pass has driven Redis:
 * its StatefulSets are scaled to the layout (the manager owns their replicas: `redis/scale.ts` decides when)
 * and its out-of-date pods are replaced (`redis/upgrade.ts` decides which). Only the cluster's own
 * StatefulSets (by name) are read and scaled, and only its planned pods are deleted: what its Role allows.
 */
import {
  CONTROLLER_REVISION_LABEL,
  redisNodeOfPod,
  redisPodName,
  redisStatefulSetName,
  redisZoneSlug as zoneSlug,
} from '../../../src/contract/redis';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { RedisShardLayout } from '../../../src/redis/layout';
import { controllerOf, isStatus, KubeObject, resourcePath } from '../kube/api';
import { EventSubject } from '../kube/events';
import { ReconcilerContext } from '../reconciler';
import type { Issue } from '../redis/decide';
import { until } from '../redis/executor';
import type { RedisClusterManager } from '../redis/manager';
import { isMaster, self } from '../redis/model';
import { decideScale, ScaleChange } from '../redis/scale';
import { decideUpgrade, outdatedNodes, Replacement, UpgradeDecision } from '../redis/upgrade';
import { PODS, STATEFULSETS } from '../resources';

/**
 * How long a master failed over away from for an upgrade is kept from taking its shard back, unless replaced
 * sooner.
 */
const HOLD_FAIL_BACK_MS = 30_000;
/** How long the upgrade waits for a master it failed over away from to report itself a replica. */
const DEMOTION_WAIT_MS = 5_000;

/** What the day-2 work did and saw in one pass (in the status ConfigMap). */
export interface WorkloadReport {
  readonly statefulSets: { name: string; zone: string; replicas?: number; wanted: number }[];
  /** The StatefulSets scaled in this pass. */
  readonly scaled: { name: string; from: number; to: number }[];
  /** Why a StatefulSet is not scaled down yet. */
  readonly scaleWaiting: string[];
  /** Out-of-date pods (planned nodes), those replaced in this pass, and why none is now. */
  readonly upgrade: { outdated?: string[]; replaced: string[]; waiting?: string };
  readonly issues: Issue[];
  /** For the health phase. */
  readonly upgrading: boolean;
  readonly scaling: boolean;
}

interface Pass {
  readonly ctx: ReconcilerContext;
  readonly namespace: string;
  readonly cluster: string;
  readonly manager: RedisClusterManager;
  /** The cluster's pods, as listed. */
  readonly pods: readonly KubeObject[];
  /** Whether the pass's converge ended healthy. */
  readonly healthy: boolean;
  /** The object the Events are about (the layout ConfigMap). */
  readonly subject: EventSubject;
  /** Pods replaced per pass. */
  readonly maxPerPass?: number;
  /**
   * The nodes a scale-up added that have not been seen in a healthy cluster yet (kept by the caller between
   * passes).
   */
  readonly growing: Set<string>;
  /**
   * The pods this reconciler deleted whose successors are not listed yet: node -> pod uid (kept by the caller
   * between passes).
   */
  readonly deleted: Map<string, string>;
  /**
   * Planned masters failed over away from and not replaced yet: node -> until when no pass fails back to them (kept
   * by the caller).
   */
  readonly heldFailBack: Map<string, number>;
}

/** Scales the cluster's StatefulSets and replaces out-of-date pods, as far as is safe now. */
export async function driveWorkloads(p: Pass): Promise<WorkloadReport> {
  const { ctx, cluster, manager } = p;
  const layout = manager.layout;
  const sets = await readStatefulSets(p, layout);
  const nodes = await manager.observe();
  const present = sets.filter((s): s is ZoneStatefulSet & { object: KubeObject } => s.object !== undefined);
  const current = present.map((s) => ({ zone: s.zone, statefulSet: s.name, replicas: s.object.spec?.replicas ?? 1 }));
  const scale = decideScale(layout, current, nodes, zoneSlug);
  if (p.healthy) p.growing.clear();
  for (const change of scale.changes) {
    await scaleTo(p, change);
    for (let i = change.replicas; i < change.to; i++) p.growing.add(`${zoneSlug(change.zone)}-${i}`);
  }

  const outdated = present.length === sets.length
    ? outdatedNodes(present.map((s) => s.object as any), podRevisions(cluster, p.pods))
    : undefined;
  const planned = new Set(layout.nodes.map((n) => n.name));
  const plannedOutdated = outdated && new Set([...outdated].filter((n) => planned.has(n)));
  const settled = p.healthy && p.growing.size === 0 && scale.changes.length === 0;
  const upgrade: UpgradeDecision = plannedOutdated
    ? decideUpgrade({ layout, nodes, healthy: settled, outdated: plannedOutdated, maxPerPass: p.maxPerPass })
    : { outdated: [], replace: [], issues: [] };
  const replaced: string[] = [];
  for (const r of upgrade.replace) {
    if (await replace(p, r)) replaced.push(r.node);
    else break; // observe again at the next pass
  }
  if (upgrade.replace.length === 0 && upgrade.waiting) {
    ctx.log.with({ cluster }).debug('redis upgrade waits', { waiting: upgrade.waiting });
  }
  const missing = sets.filter((s) => s.object === undefined).map((s) => s.name);
  return {
    statefulSets: sets.map((s) => statefulSetReport(s, layout)),
    scaled: scale.changes.map((c) => ({ name: c.statefulSet, from: c.replicas, to: c.to })),
    scaleWaiting: scale.waiting,
    upgrade: {
      outdated: outdated && upgrade.outdated,
      replaced,
      waiting: upgrade.replace.length === 0 ? upgrade.waiting : undefined,
    },
    issues: [
      ...upgrade.issues,
      ...(missing.length > 0 ? [{ kind: 'absent' as const, message: `StatefulSets not found: ${missing.join(', ')} (neither scaled nor upgraded)` }] : []),
    ],
    upgrading: (plannedOutdated?.size ?? 0) > 0,
    scaling: scale.changes.length > 0 || scale.waiting.length > 0 || p.growing.size > 0,
  };
}

/** A StatefulSet of the cluster: its zone, and the object as read (undefined: not found). */
interface ZoneStatefulSet {
  readonly zone: string;
  readonly name: string;
  readonly object?: KubeObject;
}

/** One StatefulSet's line of the report: its replicas now and as the layout wants them. */
function statefulSetReport(s: ZoneStatefulSet, layout: RedisShardLayout) {
  return { name: s.name, zone: s.zone, replicas: s.object?.spec?.replicas, wanted: layout.nodesPerZone[s.zone] };
}

/** The cluster's StatefulSets, one per zone of the layout (undefined object: not found). */
async function readStatefulSets(p: Pass, layout: RedisShardLayout): Promise<ZoneStatefulSet[]> {
  return Promise.all(layout.zones.map(async (zone) => {
    const name = redisStatefulSetName(p.cluster, zoneSlug(zone));
    const object = await p.ctx.kube.get(resourcePath(STATEFULSETS, p.namespace, name)).catch((err) => {
      if (isStatus(err, 404)) return undefined;
      throw err;
    });
    return { zone, name, object };
  }));
}

/** Each counted pod's planned node, StatefulSet and revision label. */
function podRevisions(
  cluster: string,
  pods: readonly KubeObject[],
): { node: string; statefulSet: string; revision?: string }[] {
  return pods.flatMap((pod) => {
    const node = redisNodeOfPod(cluster, pod.metadata.name);
    const owner = controllerOf(pod);
    if (!node || owner?.kind !== 'StatefulSet' || isTerminating(pod)) return [];
    return [{ node, statefulSet: owner.name, revision: pod.metadata.labels?.[CONTROLLER_REVISION_LABEL] }];
  });
}

async function scaleTo(p: Pass, change: ScaleChange): Promise<void> {
  const scale = resourcePath(STATEFULSETS, p.namespace, change.statefulSet, 'scale');
  await p.ctx.kube.patch(scale, { spec: { replicas: change.to } });
  const why = change.to > change.replicas ? 'to the layout' : 'the nodes it removes are drained of slots and forgotten';
  p.ctx.log.with({ cluster: p.cluster })
    .info('redis statefulset scaled', { statefulSet: change.statefulSet, from: change.replicas, to: change.to });
  await p.ctx.events.record(p.subject, 'Normal', 'RedisScaled', `StatefulSet ${change.statefulSet} scaled from ${change.replicas} to ${change.to} replicas (${why})`);
}

/**
 * Replaces one pod: a master is failed over to its heir first and deleted only once it is a replica. False
 * when the failover did not happen (nothing deleted).
 */
async function replace(p: Pass, r: Replacement): Promise<boolean> {
  const log = p.ctx.log.with({ cluster: p.cluster });
  if (r.kind === 'master') {
    // No pass fails the shard back to it before it is replaced, even if this failover completes late: that would
    // undo it, and the next one would come while the masters still refuse a second vote for the shard, and hang
    // with the shard's writes paused.
    p.heldFailBack.set(r.node, Date.now() + HOLD_FAIL_BACK_MS);
    const after = await p.manager.failover(r.heir).catch((error) => {
      log.warn('redis upgrade: failover before replacing a master failed', { master: r.node, heir: r.heir, error });
      return undefined;
    });
    if (!after) return false;
    // It must report itself a replica (gossip) before its pod goes: deleted earlier, its shard would lose the
    // master it still thinks it is.
    const demoted = await until(async () => {
      const node = (await p.manager.observe()).find((n) => n.name === r.node);
      return !!node?.reachable && !isMaster(self(node));
    }, DEMOTION_WAIT_MS, `${r.node} to report itself a replica`).then(() => true, () => false);
    if (!demoted) return false;
  }
  const pod = redisPodName(p.cluster, r.node);
  await p.ctx.kube.delete(resourcePath(PODS, p.namespace, pod));
  // Away from now on, not once the watch shows the pod terminating: its process may still answer meanwhile, and a
  // pass in between would fail its shard back to it (redis/pods.ts withoutDeletedPods).
  p.deleted.set(r.node, p.pods.find((x) => x.metadata.name === pod)?.metadata.uid ?? '');
  p.heldFailBack.delete(r.node); // away until its successor is listed, which then takes the shard back
  p.manager.inventory = p.manager.inventory.filter((n) => n.name !== r.node);
  const how = r.kind === 'master' ? `a master: failed over to ${r.heir} first, deleted as its replica` : 'a replica';
  log.info('redis pod replaced', { pod, node: r.node, kind: r.kind, heir: r.kind === 'master' ? r.heir : undefined });
  await p.ctx.events.record(p.subject, 'Normal', 'RedisPodReplaced', `pod ${pod} (${how}) deleted: its StatefulSet recreates it at the current revision`);
  return true;
}
