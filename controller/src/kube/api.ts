/**
 * The controller's view of the Kubernetes API: plain interfaces, so reconcilers and their tests work on
 * fakes. `connect.ts` is the one implementation over HTTPS (`config.ts` says where and as whom).
 */

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly deletionTimestamp?: string;
  readonly creationTimestamp?: string;
  readonly ownerReferences?: ReadonlyArray<OwnerReference>;
  readonly finalizers?: readonly string[];
}

/** Any Kubernetes object as JSON (the one object type of the controller: caches, decisions, requests). */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: any;
}

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

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  readonly items: T[];
  readonly metadata: { readonly resourceVersion?: string; readonly continue?: string };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  readonly type: WatchEventType;
  /** The object; for ERROR a `Status` (its `code` 410 means the resourceVersion is too old). */
  readonly object: T;
}

export interface WatchOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  /** The API server ends the watch after this many seconds (the informer then resumes it). */
  readonly timeoutSeconds?: number;
}

/** The merge patch types the API server accepts. */
export type PatchType = 'merge' | 'strategic' | 'json';

/** What the controller needs from the API server. Every failure is a `KubeApiError`. */
export interface KubeApi {
  get<T extends KubeObject = KubeObject>(path: string): Promise<T>;
  list<T extends KubeObject = KubeObject>(path: string, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject = KubeObject>(path: string, body: object): Promise<T>;
  replace<T extends KubeObject = KubeObject>(path: string, body: object): Promise<T>;
  patch<T extends KubeObject = KubeObject>(path: string, body: unknown, type?: PatchType): Promise<T>;
  delete(path: string): Promise<void>;
  /**
   * Streams watch events to `onEvent` until the server ends the watch (resolves), the connection fails
   * (rejects) or `signal` aborts (resolves).
   */
  watch<T extends KubeObject = KubeObject>(
    path: string, opts: WatchOptions, onEvent: (event: WatchEvent<T>) => void, signal: AbortSignal,
  ): Promise<void>;
}

/** A non-2xx answer: the HTTP status and the `Status` reason and message. */
export class KubeApiError extends Error {
  constructor(readonly method: string, readonly path: string, readonly status: number, readonly reason: string, readonly detail: string) {
    super(`${method} ${path}: ${status} ${reason}: ${detail}`);
  }
}

export function isStatus(err: unknown, status: number): boolean {
  return err instanceof KubeApiError && err.status === status;
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
