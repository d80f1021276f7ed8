/**
 * What the caches must show of a zone-aware-update action before the next decision (pure): deciding on caches
 * that do not show it yet would repeat it.
 */
import { ZauAction, ZauInput } from './zone-aware-update-decision';
import { isActive, isTerminating } from '../../../src/kubernetes/pod-life';
import { KubeObject } from '../kube/api';

/**
 * What the caches must show of an action before the next decision: deciding on caches that do not show it
 * yet would repeat it (delete the next batch while the last is still running, create the ReplicaSet twice).
 */
export type Expectation =
  /** The deleted pods (namespace/name, uid) gone or terminating. */
  | { readonly kind: 'pods-going'; readonly pods: ReadonlyArray<{ readonly key: string; readonly uid?: string }> }
  /** The created ReplicaSet (namespace/name) in the cache. */
  | { readonly kind: 'replicaset-created'; readonly key: string }
  /**
   * The ReplicaSets (namespace/name) at their new replicas, and no more of their pods active than that: the
   * ReplicaSet controller deletes after our scale, and a decision on pods it has deleted would pick them again.
   */
  | { readonly kind: 'replicas'; readonly targets: ReadonlyArray<{ readonly key: string; readonly replicas: number }> };

export function expectationOf(action: ZauAction, input: ZauInput): Expectation | undefined {
  const keyOf = (name: string) => `${input.zau.metadata.namespace}/${name}`;
  switch (action.kind) {
    case 'delete':
      return {
        kind: 'pods-going',
        pods: input.pods.filter((p) => action.pods.includes(p.metadata.name))
          .map((p) => ({ key: keyOf(p.metadata.name), uid: p.metadata.uid })),
      };
    case 'create-replicaset':
      return { kind: 'replicaset-created', key: keyOf(action.replicaSet.metadata.name) };
    case 'scale': {
      const { up, down } = action.scaling;
      const targets = [...(up ? [up] : []), ...down].map((t) => ({ key: keyOf(t.name), replicas: t.replicas }));
      return { kind: 'replicas', targets };
    }
    default:
      return undefined;
  }
}

/** The caches an expectation is checked against. */
export interface CachedObjects {
  pod(key: string): KubeObject | undefined;
  replicaSet(key: string): KubeObject | undefined;
  /** The pods whose controller has uid `uid`. */
  podsOf(uid: string): readonly KubeObject[];
}

export function expectationMet(expectation: Expectation, caches: CachedObjects): boolean {
  switch (expectation.kind) {
    case 'pods-going':
      return expectation.pods.every(({ key, uid }) => {
        const pod = caches.pod(key);
        return !pod || pod.metadata.uid !== uid || isTerminating(pod);
      });
    case 'replicaset-created':
      return caches.replicaSet(expectation.key) !== undefined;
    case 'replicas':
      return expectation.targets.every((t) => {
        const rs = caches.replicaSet(t.key);
        if (rs?.spec?.replicas !== t.replicas) return false;
        return caches.podsOf(rs.metadata.uid ?? '').filter(isActive).length <= t.replicas;
      });
  }
}

