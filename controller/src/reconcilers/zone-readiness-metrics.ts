/**
 * The zone readiness gauges (`WORKLOAD_ZONE_PODS`, `WORKLOAD_ZONE_READY_PODS`): per workload and zone, its opted-in
 * pods bound there and how many of them are Ready. The zone annotator's watches feed them, change by change, so they
 * cost no API call and no pass over the pods; a row's series go with its last pod. The alert rules read them: a zone
 * whose pods of a workload are none Ready while the workload is Ready elsewhere (src/monitoring/controller-rules.ts).
 */
import { nodeZone } from './zone-shift-decision';
import { workloadOfPod } from '../../../src/contract/zone-shift-fail-safe';
import { isActive, isReady } from '../../../src/kubernetes/pod-life';
import { KubeObject, keyOf } from '../kube/api';
import { Metrics } from '../metrics';
import { Caches, Change } from '../watches';

type RowLabels = { namespace: string; workload: string; zone: string };

/** Where a pod counts: its row and whether it is Ready. */
interface Counted {
  readonly row: string;
  readonly ready: boolean;
}

/** A row's labels and counts. */
interface Row {
  readonly labels: RowLabels;
  pods: number;
  ready: number;
}

/**
 * A pod's workload: its controller as `<Kind>/<name>`, a Deployment for the pods of its ReplicaSets (so a rollout's
 * revisions are one workload), `Pod/<name>` for a pod of no controller.
 */
export function workloadOf(pod: KubeObject): string {
  return workloadOfPod(pod) ?? `Pod/${pod.metadata.name}`;
}

export class ZoneReadinessGauges {
  private readonly counted = new Map<string, Counted>();
  private readonly rows = new Map<string, Row>();

  constructor(private readonly metrics: Pick<Metrics, 'workloadZonePods' | 'workloadZoneReadyPods'>) {
    // a run counts from nothing: what an earlier run of this process showed may be gone
    metrics.workloadZonePods.reset();
    metrics.workloadZoneReadyPods.reset();
  }

  /**
   * Counts `pod` in `zone` (its node's, undefined when the node is unknown or has no zone); a pod not bound, being
   * deleted or ended counts nowhere.
   */
  observe(pod: KubeObject, zone: string | undefined): void {
    const podKey = keyOf(pod);
    if (!pod.spec?.nodeName || !isActive(pod) || zone === undefined) {
      this.forget(podKey);
      return;
    }
    const labels = { namespace: pod.metadata.namespace ?? '', workload: workloadOf(pod), zone };
    const row = JSON.stringify(labels);
    const ready = isReady(pod);
    const before = this.counted.get(podKey);
    if (before?.row === row && before.ready === ready) return;
    if (before) this.uncount(podKey, before);
    const counts = this.rows.get(row) ?? { labels, pods: 0, ready: 0 };
    counts.pods += 1;
    counts.ready += ready ? 1 : 0;
    this.rows.set(row, counts);
    this.counted.set(podKey, { row, ready });
    this.show(counts);
  }

  /** The pod counts no more (deleted, or nowhere to count it). */
  forget(podKey: string): void {
    const before = this.counted.get(podKey);
    if (before) this.uncount(podKey, before);
  }

  private uncount(podKey: string, { row, ready }: Counted): void {
    this.counted.delete(podKey);
    const counts = this.rows.get(row)!;
    counts.pods -= 1;
    counts.ready -= ready ? 1 : 0;
    if (counts.pods > 0) {
      this.show(counts);
      return;
    }
    // no stale series: a workload gone from a zone is not a zone without Ready pods
    this.rows.delete(row);
    this.metrics.workloadZonePods.remove(counts.labels);
    this.metrics.workloadZoneReadyPods.remove(counts.labels);
  }

  private show({ labels, pods, ready }: Row): void {
    this.metrics.workloadZonePods.set(labels, pods);
    this.metrics.workloadZoneReadyPods.set(labels, ready);
  }
}

/** What the feed reads of the annotator's caches. */
type PodsAndNodes = Pick<Caches<'nodes' | 'pods'>, 'get' | 'list'>;

/** How the annotator's watches feed the gauges: each change of a pod, and each node whose zone may have changed. */
export interface ReadinessFeed {
  pod(change: Change, caches: PodsAndNodes): void;
  node(change: Change, caches: PodsAndNodes): void;
}

/** The feed of `gauges`, a node's zone read from its `topologyKeys` labels as the zonal shift reads it. */
export function readinessFeed(gauges: ZoneReadinessGauges, topologyKeys: readonly string[]): ReadinessFeed {
  const zoneOfNode = (node: KubeObject | undefined) => (node ? nodeZone(node, topologyKeys) : undefined);
  return {
    pod: ({ type, obj }, c) => {
      const nodeName: string | undefined = obj.spec?.nodeName;
      if (type === 'deleted') gauges.forget(keyOf(obj));
      else gauges.observe(obj, zoneOfNode(nodeName ? c.get('nodes', nodeName) : undefined));
    },
    node: ({ type, obj, old }, c) => {
      // a node's status churns; only a new zone (or a node come or gone) moves its pods, and then rarely
      if (type === 'resync' || (type === 'modified' && old && zoneOfNode(old) === zoneOfNode(obj))) return;
      const zone = type === 'deleted' ? undefined : zoneOfNode(obj);
      for (const pod of c.list('pods')) if (pod.spec?.nodeName === obj.metadata.name) gauges.observe(pod, zone);
    },
  };
}
