/**
 * What the zone-disruption-budget reconciler and its eviction webhook decide, given what the caches hold
 * (budgets, pods, their owners, nodes, claims): pure functions around the library's budget planner
 * (src/rollout/disruption-budget.ts), unit-tested without a cluster. Only what the API server shows
 * counts: a pod is unavailable when it is not Ready, terminating or missing. The one exception is
 * `reserved`: evictions allowed while the deciding request was waiting and not confirmed within its wait
 * (zone-disruption-budget.ts explains the reservations).
 */
import { ZoneDisruptionBudgetSpec, ZoneDisruptionBudgetStatus } from '../../../src/contract/rollout-resources';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { isOutByShift } from '../../../src/contract/zone-shift';
import { Selector, selectorMatches } from '../../../src/kubernetes/label-selector';
import { hasEnded, isPending, isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import {
  Budget, BudgetOwner, BudgetPod, computeBudget, evictionVerdict, EvictionVerdict, missingPods,
} from '../../../src/rollout/disruption-budget';
import { scaleMaxUnavailable } from '../../../src/rollout/max-unavailable';
import { isControlledBy, KubeObject, keyOf } from '../kube/api';

/** Where a StatefulSet pod's volume was provisioned: the scheduler writes the node on the claim. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';

export interface BudgetWorld {
  /** Pods of the budget's namespace. */
  readonly pods: readonly KubeObject[];
  /** StatefulSets and ReplicaSets of the budget's namespace. */
  readonly owners: readonly KubeObject[];
  /** PersistentVolumeClaims of the namespace. */
  readonly claims: readonly KubeObject[];
  readonly nodeLabels: (node: string) => Record<string, string> | undefined;
  readonly topologyKeys: readonly string[];
  /** Zones whose nodes a zonal shift tainted. */
  readonly shiftedZones?: ReadonlySet<string>;
  /** Where pods were last seen running: pod key (namespace/name) -> zone. */
  readonly lastZones: ReadonlyMap<string, string>;
  /**
   * Pod keys whose eviction was allowed after the deciding request arrived and that the API server has
   * not confirmed by the end of that request's wait: counted as unavailable, so evictions deciding at the
   * same time cannot together exceed a budget. None for the status.
   */
  readonly reserved?: ReadonlySet<string>;
}

/** The zone of a node (the topology label values joined, as the zone annotation), if it has the labels. */
export function zoneOfNode(world: Pick<BudgetWorld, 'nodeLabels' | 'topologyKeys'>, node: string | undefined): string | undefined {
  const labels = node ? world.nodeLabels(node) : undefined;
  return labels ? ZoneAnnotation.valueFor(labels, [...world.topologyKeys]) : undefined;
}

/** A pod as the budget sees it; an unscheduled StatefulSet pod is placed by `fallbackZone` (its claim's zone). */
export function budgetPod(world: BudgetWorld, pod: KubeObject, fallbackZone?: string): BudgetPod {
  return {
    name: pod.metadata.name,
    zone: zoneOfNode(world, pod.spec?.nodeName) ?? (pod.spec?.nodeName ? undefined : fallbackZone),
    healthy: isReady(pod) && !isTerminating(pod) && !world.reserved?.has(keyOf(pod)),
    outByShift: isOutByShift(pod),
  };
}

/** The zone a StatefulSet pod returns to: where a claim of it was provisioned, else where it last ran. */
function knownZone(world: BudgetWorld, sts: KubeObject, podName: string): string | undefined {
  const templates: Array<{ metadata?: { name?: string } }> = sts.spec?.volumeClaimTemplates ?? [];
  for (const t of templates) {
    const claim = world.claims.find((c) => c.metadata.name === `${t.metadata?.name}-${podName}`);
    const zone = zoneOfNode(world, claim?.metadata.annotations?.[SELECTED_NODE_ANNOTATION]);
    if (zone !== undefined) return zone;
  }
  return world.lastZones.get(`${sts.metadata.namespace}/${podName}`);
}

/** The selected pods' budget: existing pods (not ended) plus the ones their owners want but do not have (bug 28). */
export function budgetOf(zdb: KubeObject, world: BudgetWorld): { budget: Budget; pods: KubeObject[] } {
  const spec: ZoneDisruptionBudgetSpec = zdb.spec;
  const selector: Selector = spec.selector;
  const pods = world.pods.filter((p) => !hasEnded(p) && selectorMatches(selector, p.metadata.labels ?? {}));
  const owners: BudgetOwner[] = world.owners
    .filter((o) => (o.spec?.replicas ?? 1) > 0 && selectorMatches(selector, o.spec?.template?.metadata?.labels ?? {}))
    .map((o) => {
      const own = world.pods.filter((p) => !hasEnded(p) && isControlledBy(p, o.metadata.uid));
      const active = own.filter((p) => !isTerminating(p)).map((p) => p.metadata.name);
      const terminating = own.filter(isTerminating).map((p) => p.metadata.name);
      if (o.kind === 'StatefulSet') {
        const start: number = o.spec?.ordinals?.start ?? 0;
        const replicas: number = o.spec?.replicas ?? 1;
        const knownZones: Record<string, string> = {};
        for (let i = start; i < start + replicas; i++) {
          const zone = knownZone(world, o, `${o.metadata.name}-${i}`);
          if (zone !== undefined) knownZones[`${o.metadata.name}-${i}`] = zone;
        }
        return {
          kind: 'StatefulSet',
          name: o.metadata.name,
          replicas,
          startOrdinal: start,
          activePods: active,
          terminatingPods: terminating,
          knownZones,
        };
      }
      return { kind: 'ReplicaSet', name: o.metadata.name, replicas: o.spec?.replicas ?? 1, activePods: active };
    });
  const missing = missingPods(owners);
  const expected = pods.length + missing.length;
  const maxUnavailable = scaleMaxUnavailable(spec.maxUnavailable, expected, 'up');
  const known = new Map(owners.flatMap((o) => Object.entries(o.knownZones ?? {})));
  const budgetPods = pods.map((p) => budgetPod(world, p, known.get(p.metadata.name)));
  const budget = computeBudget({ pods: budgetPods, missing, maxUnavailable, shiftedZones: world.shiftedZones });
  return { budget, pods };
}

/** The ZoneDisruptionBudget status for `budget`. */
export function budgetStatus(zdb: KubeObject, budget: Budget): ZoneDisruptionBudgetStatus {
  return {
    observedGeneration: zdb.metadata.generation,
    expectedPods: budget.expected,
    healthyPods: budget.healthy,
    maxUnavailable: budget.maxUnavailable,
    zones: budget.zones.map((z) => ({
      zone: z.zone,
      expected: z.expected,
      healthy: z.healthy,
      disruptionsAllowed: z.disruptionsAllowed,
      ...(z.shifted ? { shifted: true, outByShift: z.outByShift } : {}),
    })),
  };
}

export interface EvictionDecision {
  /** Allowed by every budget that selects the pod (a dry-run budget never denies). */
  readonly allowed: boolean;
  readonly zone: string;
  readonly message: string;
  /** Denials of dry-run budgets: logged and counted, not enforced. */
  readonly dryRunDenials: string[];
  /** The budgets that select the pod. */
  readonly budgets: string[];
  /** The pod counts as available now: letting it go lowers what the budgets see (so it needs a reservation). */
  readonly available: boolean;
}

/**
 * Why no budget guards the pod's eviction, if none does: it has ended, has not started (Pending) or is being
 * deleted, so evicting it lowers nothing. The Eviction API lets such a pod past PodDisruptionBudgets too.
 */
function beyondBudgets(pod: KubeObject): string | undefined {
  if (hasEnded(pod)) return `has ended (${pod.status.phase})`;
  if (isPending(pod)) return 'is Pending';
  if (isTerminating(pod)) return 'is being deleted';
  return undefined;
}

/** The verdict on evicting `pod` under every budget of its namespace that selects it. */
export function decideEviction(pod: KubeObject, budgets: readonly KubeObject[], world: BudgetWorld): EvictionDecision {
  const matching = budgets.filter((b) => selectorMatches(b.spec.selector, pod.metadata.labels ?? {}))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const target = budgetPod(world, pod);
  const beyond = beyondBudgets(pod);
  if (beyond !== undefined) {
    return {
      allowed: true,
      zone: target.zone ?? 'none',
      message: `eviction of ${pod.metadata.name} allowed: it ${beyond}, so evicting it disrupts nothing`,
      dryRunDenials: [],
      budgets: matching.map((b) => b.metadata.name),
      available: false,
    };
  }
  if (matching.length === 0) {
    return {
      allowed: true, zone: target.zone ?? 'none', message: 'no ZoneDisruptionBudget selects the pod', dryRunDenials: [], budgets: [], available: target.healthy,
    };
  }
  const denials: string[] = [];
  const dryRunDenials: string[] = [];
  let verdict: EvictionVerdict | undefined;
  for (const zdb of matching) {
    verdict = evictionVerdict(budgetOf(zdb, world).budget, target);
    if (verdict.allowed) continue;
    const line = `ZoneDisruptionBudget ${zdb.metadata.name}: ${verdict.reason}`;
    (zdb.spec.dryRun ? dryRunDenials : denials).push(line);
  }
  return {
    allowed: denials.length === 0,
    zone: verdict!.zone,
    message: denials.length > 0 ? `eviction of ${pod.metadata.name} denied: ${denials.join('; ')}` : `eviction of ${pod.metadata.name} allowed`,
    dryRunDenials,
    budgets: matching.map((b) => b.metadata.name),
    available: target.healthy,
  };
}
