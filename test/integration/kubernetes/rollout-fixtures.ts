/** Shared objects of the rollout tests (ZoneAwareUpdate, ZoneDisruptionBudget) on the test cluster. */
import { KubeObject } from './kube-client';
import { ZONE_KEY } from './nodes';
import { zoneAwareUpdateCrd, zoneDisruptionBudgetCrd } from '../../../src/contract/rollout-crds';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';

/** A StatefulSet of pause containers that passes Pod Security "restricted", spread evenly over the zones. */
export function statefulSet(name: string, ns: string, replicas: number, updateStrategy: object): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      updateStrategy,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          topologySpreadConstraints: [{
            maxSkew: 1,
            topologyKey: ZONE_KEY,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: name } },
          }],
          containers: [{
            name: 'app',
            image: 'registry.k8s.io/pause:3.10',
            resources: { requests: { cpu: '10m', memory: '16Mi' } },
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ['ALL'] },
            },
          }],
        },
      },
    },
  };
}

/** A paused Deployment with strategy Recreate (what a ZoneAwareUpdate rolls), same pods as `statefulSet`. */
export function deployment(name: string, ns: string, replicas: number): KubeObject {
  const sts = statefulSet(name, ns, replicas, {});
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: { replicas, paused: true, strategy: { type: 'Recreate' }, selector: sts.spec.selector, template: sts.spec.template },
  };
}

/** The CRDs of ZoneAwareUpdate and ZoneDisruptionBudget, as the library synthesizes them. */
export function crds(): KubeObject[] {
  return [zoneAwareUpdateCrd(), zoneDisruptionBudgetCrd()];
}

/** Pods deleted together, in one zone (the zone is the first pod's). */
export interface Batch { zone: string; pods: string[] }

/**
 * Watches a rollout from pod events and groups the deletions of the original pods (`original`: their
 * uids) into batches. A batch starts at the first sign of a step taken while the workload is settled
 * (every pod present, Ready, none terminating), the state a controller waits for between steps: for a
 * StatefulSet (`startsAt: 'deletion'`) a deletion, for a Deployment rolled by scaling its ReplicaSets
 * (`'creation'`) a deletion or the creation of a new pod, whichever the two ReplicaSets' controllers do
 * first. Deletions while unsettled join the current batch. (kwok sometimes deletes a recreated pod a second
 * time, by name: such pods are not original ones and are left out.) Also records how many zones had an
 * unavailable original pod (terminating, missing or not Ready) at the same time, at most, from the first
 * moment the watch has seen every pod settled.
 */
export class RolloutObserver {
  readonly batches: Batch[] = [];
  /** Every deletion of an original pod, in the API server's order, and whether the workload was settled just before. */
  readonly deletions: Array<{ readonly name: string; readonly settled: boolean }> = [];
  maxZonesDisrupted = 0;
  private readonly live = new Map<string, { uid: string; ready: boolean; terminating: boolean; zone?: string }>();
  private readonly initialPerZone = new Map<string, number>();
  private readonly deleted = new Set<string>();
  private armed = false;

  constructor(
    private readonly zones: ReadonlyMap<string, string>,
    private readonly original: ReadonlySet<string>,
    private readonly replicas: number,
    private readonly zoneOfNode: (node: string) => string | undefined,
    private readonly startsAt: 'deletion' | 'creation' = 'deletion',
  ) {
    for (const zone of zones.values()) this.initialPerZone.set(zone, (this.initialPerZone.get(zone) ?? 0) + 1);
  }

  onEvent(type: string, pod: any): void {
    const name = pod.metadata.name;
    const uid = pod.metadata.uid;
    const goes = type === 'DELETED' || isTerminating(pod);
    if (this.startsAt === 'creation' && type === 'ADDED' && !this.original.has(uid) && this.armed && this.settled()) {
      this.batches.push({ zone: '', pods: [] });
    }
    if (goes && this.original.has(uid) && !this.deleted.has(uid)) {
      this.deleted.add(uid);
      this.deletions.push({ name, settled: this.settled() });
      if (this.settled() || this.batches.length === 0) this.batches.push({ zone: '', pods: [] });
      const batch = this.batches[this.batches.length - 1];
      batch.zone ||= this.zones.get(name)!;
      batch.pods.push(name);
    }
    if (type === 'DELETED') {this.live.delete(name);} else {
      const zone = pod.spec?.nodeName ? this.zoneOfNode(pod.spec.nodeName) : undefined;
      this.live.set(name, { uid, ready: isReady(pod), terminating: isTerminating(pod), zone });
    }
    this.armed ||= this.settled();
    if (!this.armed) return;
    const available = new Map<string, number>();
    for (const p of this.live.values()) {
      if (p.ready && !p.terminating && p.zone) available.set(p.zone, (available.get(p.zone) ?? 0) + 1);
    }
    const disrupted = [...this.initialPerZone].filter(([zone, count]) => (available.get(zone) ?? 0) < count).length;
    this.maxZonesDisrupted = Math.max(this.maxZonesDisrupted, disrupted);
  }

  /**
   * Checks a controller's account of its batches (`claimed`, e.g. from its log) against what the watch
   * saw: the same pods went, batch after batch (no pod of a batch before every pod of the one before), and
   * a StatefulSet's batch began only once the workload was settled. Returns the problems found.
   */
  problemsWith(claimed: readonly Batch[]): string[] {
    const batchOf = new Map(claimed.flatMap((b, i) => b.pods.map((p) => [p, i] as const)));
    const problems: string[] = [];
    const seen = this.deletions.map((d) => d.name).sort();
    const told = [...batchOf.keys()].sort();
    if (JSON.stringify(seen) !== JSON.stringify(told)) problems.push(`deleted ${seen.join(',')} but the batches name ${told.join(',')}`);
    let current = -1;
    for (const d of this.deletions) {
      const i = batchOf.get(d.name) ?? -1;
      if (i < current) problems.push(`${d.name} (batch ${i}) went after a pod of batch ${current}`);
      if (i > current && this.startsAt === 'deletion' && !d.settled) problems.push(`batch ${i} began with ${d.name} before the workload was settled`);
      current = Math.max(current, i);
    }
    return problems;
  }

  /** How many times the rollout moved to another zone, plus one: 3 for zone by zone over 3 zones. */
  get zoneRuns(): number {
    return this.batches.filter((b, i) => i === 0 || b.zone !== this.batches[i - 1].zone).length;
  }

  private settled(): boolean {
    return this.live.size === this.replicas && [...this.live.values()].every((p) => p.ready && !p.terminating);
  }
}
