/**
 * The controller's view of the Kubernetes API: the one client interface it shares with the CLI
 * (src/kubernetes/kube-api.ts, re-exported here), the resources it reads and writes and their REST paths, so
 * reconcilers and their tests work on fakes. `connect.ts` is its implementation over HTTPS (`config.ts` says where
 * and as whom).
 */

import { KubeObject, OwnerReference } from '../../../src/kubernetes/kube-api';

export { isStatus, KubeApiError } from '../../../src/kubernetes/kube-api';
export type {
  KubeApi, KubeObject, ListOptions, ObjectList, ObjectMeta, OwnerReference, PatchType,
  WatchEvent, WatchEventType, WatchOptions,
} from '../../../src/kubernetes/kube-api';

/** A kind of object: where its REST path is and whether it lives in namespaces. */
export interface Resource {
  /** `v1` or `group/version`. */
  readonly apiVersion: string;
  /** Lower-case plural, e.g. `pods`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

export const PODS: Resource = { apiVersion: 'v1', plural: 'pods', namespaced: true };
export const NODES: Resource = { apiVersion: 'v1', plural: 'nodes', namespaced: false };
export const EVENTS: Resource = { apiVersion: 'v1', plural: 'events', namespaced: true };
export const SECRETS: Resource = { apiVersion: 'v1', plural: 'secrets', namespaced: true };
export const LEASES: Resource = { apiVersion: 'coordination.k8s.io/v1', plural: 'leases', namespaced: true };
export const CONFIGMAPS: Resource = { apiVersion: 'v1', plural: 'configmaps', namespaced: true };
export const CLAIMS: Resource = { apiVersion: 'v1', plural: 'persistentvolumeclaims', namespaced: true };
export const STATEFULSETS: Resource = { apiVersion: 'apps/v1', plural: 'statefulsets', namespaced: true };
export const DEPLOYMENTS: Resource = { apiVersion: 'apps/v1', plural: 'deployments', namespaced: true };
export const REPLICASETS: Resource = { apiVersion: 'apps/v1', plural: 'replicasets', namespaced: true };

/** The REST path of a collection (no name) or of one object, optionally a subresource (`status`, `eviction`). */
export function resourcePath(resource: Resource, namespace?: string, name?: string, subresource?: string): string {
  const base = resource.apiVersion.includes('/') ? `/apis/${resource.apiVersion}` : `/api/${resource.apiVersion}`;
  if (resource.namespaced && namespace === undefined && name !== undefined) {
    throw new Error(`${resource.plural}/${name}: a namespaced object needs a namespace`);
  }
  const ns = resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const one = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}${ns}/${resource.plural}${one}${subresource ? `/${subresource}` : ''}`;
}

/** `namespace/name` (or `name` for cluster-scoped objects): the key of caches and work queues. */
export function keyOf(obj: { metadata: { name: string; namespace?: string } }): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

/** The owner reference of the object's controller (a pod's StatefulSet or ReplicaSet), if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** True when the object whose uid is `ownerUid` is the controller of `obj`. */
export function isControlledBy(obj: KubeObject, ownerUid: string | undefined): boolean {
  return ownerUid !== undefined && controllerOf(obj)?.uid === ownerUid;
}
