/**
 * The cluster as a drill sees it: its nodes, Deployments, StatefulSets, ReplicaSets and pods, listed once and then
 * kept current by watches, so that the drill observes every change as it happens (a pod evicted and replaced between
 * two glances is a dip the report shows). `onChange` runs after each change, with the cluster as it is then.
 */
import { ClusterSnapshot } from './drill-observe';
import { zoneKeyOf } from '../check/cluster-nodes';
import { KubeApi } from '../kubernetes/kube-api';
import { Live, Node, Pod, Workload } from '../kubernetes/objects';
import { WatchedList, WatchRetry } from '../kubernetes/watched-list';

/** The workloads a drill watches, with their kind (a list's items as the API server sends them carry none). */
const WORKLOAD_LISTS = [
  { kind: 'Deployment', path: '/apis/apps/v1/deployments' },
  { kind: 'StatefulSet', path: '/apis/apps/v1/statefulsets' },
  { kind: 'ReplicaSet', path: '/apis/apps/v1/replicasets' },
];
const NODES = '/api/v1/nodes';
const PODS = '/api/v1/pods';

/** Every list a drill watches: what its user must be allowed to watch. */
export const DRILL_WATCHED_PATHS: readonly string[] = [NODES, PODS, ...WORKLOAD_LISTS.map((l) => l.path)];

export class ClusterWatch {
  /** Lists everything, then watches; `onChange` is called on every change once all are listed. */
  static async start(
    api: Pick<KubeApi, 'list' | 'watch'>, now: () => number, retry: WatchRetry, onChange: (s: ClusterSnapshot) => void,
  ): Promise<ClusterWatch> {
    const watch = new ClusterWatch(api, now, retry, onChange);
    const lists = [watch.nodes, ...watch.workloads.map((w) => w.list), watch.pods];
    await Promise.all(lists.map((l) => l.start(watch.abort.signal))).catch(async (e) => {
      await watch.stop();
      throw e;
    });
    watch.listed = true;
    return watch;
  }

  private readonly abort = new AbortController();
  private readonly nodes: WatchedList;
  private readonly pods: WatchedList;
  private readonly workloads: Array<{ kind: string; list: WatchedList }>;
  private listed = false;

  private constructor(
    api: Pick<KubeApi, 'list' | 'watch'>, private readonly now: () => number, retry: WatchRetry,
    onChange: (s: ClusterSnapshot) => void,
  ) {
    const changed = () => {
      if (this.listed && !this.abort.signal.aborted) onChange(this.snapshot());
    };
    this.nodes = new WatchedList(api, NODES, changed, retry);
    this.pods = new WatchedList(api, PODS, changed, retry);
    this.workloads = WORKLOAD_LISTS.map(({ kind, path }) => ({
      kind,
      list: new WatchedList(api, path, changed, retry),
    }));
  }

  /** The cluster now. */
  snapshot(): ClusterSnapshot {
    const nodes = this.nodes.items() as Live<Node>[];
    const key = zoneKeyOf(nodes);
    return {
      atMs: this.now(),
      workloads: this.workloads.flatMap(({ kind, list }) =>
        (list.items() as Live<Workload>[]).map((w) => ({ ...w, kind }))),
      pods: this.pods.items() as Live<Pod>[],
      // a node without the zone label has no zone (`get` answers undefined, as for an unknown node)
      zoneOfNode: new Map(nodes.flatMap((n): [string, string][] => {
        const zone = n.metadata.labels?.[key];
        return zone === undefined ? [] : [[n.metadata.name, zone]];
      })),
    };
  }

  /** Stops every watch; resolves once they have ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all([this.nodes, this.pods, ...this.workloads.map((w) => w.list)].map((l) => l.stopped()));
  }
}
