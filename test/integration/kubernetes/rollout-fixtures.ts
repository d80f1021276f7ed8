/** Shared objects of the rollout tests (ZoneAwareUpdate, ZoneDisruptionBudget) on the test cluster. */
import { Chart, Testing } from 'cdk8s';
import { ZoneRolloutCrds } from '../../../src';
import { KubeObject } from './kube-client';
import { ZONE_KEY } from './nodes';

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
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE_KEY, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: name } } }],
          containers: [{
            name: 'app', image: 'registry.k8s.io/pause:3.10',
            resources: { requests: { cpu: '10m', memory: '16Mi' } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          }],
        },
      },
    },
  };
}

/** The CRDs of ZoneAwareUpdate and ZoneDisruptionBudget, as the library synthesizes them. */
export function crds(): KubeObject[] {
  const chart = new Chart(Testing.app(), 'crds');
  new ZoneRolloutCrds(chart, 'crds');
  return Testing.synth(chart);
}

export const isReady = (p: any): boolean => (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

/** Pods deleted together, in one zone (the zone is the first pod's). */
export interface Batch { zone: string; pods: string[] }

/**
 * Watches a rollout from pod events. Groups the deletions of the original pods (`original`: their uids)
 * into batches: a deletion starts a new batch when it happens while the workload is settled (every pod
 * present, Ready, none terminating), the state a controller waits for between steps; a deletion while the
 * previous one is unsettled joins the same batch. (kwok sometimes deletes a recreated pod a second time, by
 * name: such pods are not original ones and are left out.) Also records how many zones had an
 * unavailable pod (terminating, missing or not Ready) at the same time, at most, from the first moment
 * the watch has seen every pod settled.
 */
export class RolloutObserver {
  readonly batches: Batch[] = [];
  maxZonesDisrupted = 0;
  private readonly live = new Map<string, { uid: string; ready: boolean; terminating: boolean }>();
  private readonly deleted = new Set<string>();
  private armed = false;

  constructor(private readonly zones: ReadonlyMap<string, string>, private readonly original: ReadonlySet<string>, private readonly replicas: number) {}

  onEvent(type: string, pod: any): void {
    const name = pod.metadata.name;
    const uid = pod.metadata.uid;
    const goes = type === 'DELETED' || pod.metadata.deletionTimestamp;
    if (goes && this.original.has(uid) && !this.deleted.has(uid)) {
      this.deleted.add(uid);
      if (this.settled() || this.batches.length === 0) this.batches.push({ zone: this.zones.get(name)!, pods: [] });
      this.batches[this.batches.length - 1].pods.push(name);
    }
    if (type === 'DELETED') this.live.delete(name);
    else this.live.set(name, { uid, ready: isReady(pod), terminating: !!pod.metadata.deletionTimestamp });
    this.armed ||= this.settled();
    if (!this.armed) return;
    const disrupted = new Set([...this.zones.keys()]
      .filter((n) => { const p = this.live.get(n); return !p || !p.ready || p.terminating; })
      .map((n) => this.zones.get(n)));
    this.maxZonesDisrupted = Math.max(this.maxZonesDisrupted, disrupted.size);
  }

  /** How many times the rollout moved to another zone, plus one: 3 for zone by zone over 3 zones. */
  get zoneRuns(): number {
    return this.batches.filter((b, i) => i === 0 || b.zone !== this.batches[i - 1].zone).length;
  }

  private settled(): boolean {
    return this.live.size === this.replicas && [...this.live.values()].every((p) => p.ready && !p.terminating);
  }
}
