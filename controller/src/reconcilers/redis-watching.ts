/**
 * What the `redis` reconciler watches and keeps: the labelled pods of the served namespaces (one watch each), the
 * ZoneShifts (with the zone-shift reconciler), each cluster's layout ConfigMap (by name, once a listing found the
 * cluster), and each cluster's pods as the last listing or watch event showed them. A watch event starts a full
 * pass of its cluster, debounced by DEBOUNCE_MS so the events that come with it are in first.
 */
import { ZONE_LABEL } from '../../../src/contract/labels';
import { REDIS_MANAGER } from '../../../src/contract/reconcilers';
import {
  CONTROLLER_REVISION_LABEL, REDIS_CLUSTER_LABEL, REDIS_OPERATION_ANNOTATION, REDIS_PASSWORD_VOLUME,
  REDIS_PAUSED_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION, layoutConfigMapName,
} from '../../../src/contract/redis';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { KubeApi, KubeObject, resourcePath } from '../kube/api';
import { slimMeta } from '../kube/transforms';
import { ReconcilerContext } from '../reconciler';
import { CONFIGMAPS, PODS } from '../resources';
import { Caches, Change, shiftsWatch, watchObject, Watches } from '../watches';

/**
 * How long a watch event waits for the events that come with it (a pod deleted, recreated, given an IP) before
 * its pass.
 */
const DEBOUNCE_MS = 250;

export type RedisWatch = 'pods' | 'shifts';

/** `namespace/cluster` of a labelled pod. */
export function clusterKey(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.labels![REDIS_CLUSTER_LABEL]}`;
}

/** What the pod caches keep: what the inventory and the revision check read. */
function redisPodShape(pod: KubeObject): KubeObject {
  return {
    metadata: slimMeta(pod.metadata, {
      labels: [REDIS_CLUSTER_LABEL, ZONE_LABEL, CONTROLLER_REVISION_LABEL, ZoneAnnotation.OPT_IN_LABEL],
      annotations: [ZoneAnnotation.VALUE_ANNOTATION],
    }),
    spec: { volumes: (pod.spec?.volumes ?? []).filter((v: any) => v.name === REDIS_PASSWORD_VOLUME) },
    status: { podIP: pod.status?.podIP },
  };
}

/** A resync is no change (none is asked: the poll is the backstop). */
const changed = (change: Change) => change.type !== 'resync';

/**
 * The watches: the labelled pods of `namespaces` (one watch each, as namespaced Roles allow; every namespace when
 * none is named), a change concerning the pod's cluster; and, with `zoneShifts`, the ZoneShifts, listed before any
 * pass (a pass that read them before their first list would see no zone out of service and fail masters back into
 * a shifted zone), a shift starting or ending concerning every cluster `known`.
 */
export function redisWatches(
  namespaces: readonly string[], zoneShifts: boolean, known: () => Iterable<string>,
): Watches<RedisWatch> {
  const pods = {
    resource: PODS,
    namespaces,
    labelSelector: REDIS_CLUSTER_LABEL,
    transform: redisPodShape,
    indexes: { cluster: (pod: KubeObject) => [clusterKey(pod)] },
    primary: true,
    // never blocks the loop: a namespace that cannot be watched is retried by its informer, and still has its poll
    awaitFirstList: false,
    keys: (change: Change) => (changed(change) ? [clusterKey(change.obj)] : []),
  };
  if (!zoneShifts) return { pods };
  return { pods, shifts: shiftsWatch<RedisWatch>((change) => (changed(change) ? [...known()] : [])) };
}

/**
 * The clusters the reconciler knows: each one's pods, which of them are due a full pass, the debounce of their
 * watch events, and the watches of their layout ConfigMaps.
 */
export class ClusterWatching {
  /** Each cluster's pods as the last listing or watch event showed them, by `namespace/cluster`. */
  private members = new Map<string, KubeObject[]>();
  /** The clusters a listing or a watch event found since their last full pass. */
  private readonly due = new Set<string>();
  private readonly debounce = new Map<string, NodeJS.Timeout>();
  private readonly layouts = new Map<string, AbortController>();

  constructor(
    private readonly ctx: ReconcilerContext, private readonly caches: Caches<RedisWatch>,
    private readonly signal: AbortSignal,
  ) {}

  keys(): Iterable<string> {
    return this.members.keys();
  }

  membersOf(key: string): KubeObject[] | undefined {
    return this.members.get(key);
  }

  /** Whether `key` was due a full pass (it is not any more). */
  takeDue(key: string): boolean {
    return this.due.delete(key);
  }

  /**
   * A watch event about cluster `key`: its pods as cached, and a full pass soon, once the events that come with it
   * are in.
   */
  changed(key: string, enqueue: (key: string) => void): void {
    const cached = this.caches.byIndex('pods', 'cluster', key);
    if (cached.length > 0) this.members.set(key, cached);
    this.due.add(key);
    if (this.debounce.has(key) || this.signal.aborted) return;
    this.debounce.set(key, setTimeout(() => {
      this.debounce.delete(key);
      enqueue(key);
    }, DEBOUNCE_MS));
  }

  /**
   * A listing of every labelled pod: the clusters it shows replace the known ones, each is due a full pass and has
   * its layout ConfigMap watched. Returns their keys.
   */
  listed(pods: readonly KubeObject[], enqueue: (key: string) => void): string[] {
    this.members = new Map();
    for (const pod of pods) {
      const key = clusterKey(pod);
      this.members.set(key, [...(this.members.get(key) ?? []), pod]);
    }
    const keys = [...this.members.keys()];
    for (const key of keys) if (!this.layouts.has(key)) this.layouts.set(key, this.watchLayout(key, enqueue));
    for (const key of keys) this.due.add(key);
    return keys;
  }

  /** A cluster gone: its layout ConfigMap is not watched any more. */
  forget(key: string): void {
    this.layouts.get(key)?.abort();
    this.layouts.delete(key);
  }

  close(): void {
    for (const t of this.debounce.values()) clearTimeout(t);
    for (const stop of this.layouts.values()) stop.abort();
  }

  /**
   * Watches the layout ConfigMap of cluster `key` by name: a change (a manual operation's annotation, a new layout)
   * starts a pass, until the cluster is gone or the run stops.
   */
  private watchLayout(key: string, enqueue: (key: string) => void): AbortController {
    const [namespace, cluster] = key.split('/');
    const stop = new AbortController();
    this.signal.addEventListener('abort', () => stop.abort(), { once: true });
    const annotations = [REDIS_OPERATION_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION, REDIS_PAUSED_ANNOTATION];
    const layout = {
      resource: CONFIGMAPS,
      namespace,
      name: layoutConfigMapName(cluster),
      transform: (cm: KubeObject) => ({ metadata: slimMeta(cm.metadata, { annotations }) }),
    };
    const log = this.ctx.log.with({ reconciler: REDIS_MANAGER, cluster: key });
    watchObject(this.ctx.kube, log, layout, () => this.changed(key, enqueue), stop.signal);
    return stop;
  }
}

/**
 * The labelled pods of every namespace (`namespaces` empty), else of each of `namespaces`: one list each,
 * as namespaced Roles allow; a namespace that cannot be listed is reported without hiding the others.
 */
export async function listRedisPods(
  kube: KubeApi, namespaces: readonly string[],
): Promise<{ pods: KubeObject[]; failures: [string, unknown][] }> {
  const scopes = namespaces.length === 0 ? [undefined] : namespaces;
  const lists = await Promise.allSettled(
    scopes.map((ns) => kube.list(resourcePath(PODS, ns), { labelSelector: REDIS_CLUSTER_LABEL })));
  return {
    pods: lists.flatMap((l) => (l.status === 'fulfilled' ? l.value.items : [])),
    failures: lists.flatMap((l, i): [string, unknown][] => (
      l.status === 'rejected' ? [[scopes[i] ?? '(every namespace)', l.reason]] : [])),
  };
}
