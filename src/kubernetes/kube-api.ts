/**
 * The one Kubernetes client interface of the CLI (`shift`, `drill`) and the runtime controller: the calls, the
 * object and list types, the patch types and the one error a failed call throws. Pure, no package: the controller
 * imports it (test/architecture.test.ts). The CLI's implementation is `httpsKubeApi` (kube-request.ts: each call
 * cut at its own deadline), the controller's `kubeApi` (controller/src/kube/connect.ts: watches, token refresh);
 * unit tests use in-memory ones.
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

/** Any Kubernetes object as JSON (the one object type of the clients: caches, decisions, requests). */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: any;
}

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
}

/** One page of a list, as the API server answers it. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  /** e.g. `NodeList`. */
  readonly kind?: string;
  readonly apiVersion?: string;
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

/** What a DELETE may ask (meta/v1 DeleteOptions): the fields this project sends. */
export interface DeleteOptions {
  /** 0: at once, for a pod on a node that no longer answers (its kubelet would never confirm). */
  readonly gracePeriodSeconds?: number;
  /** Delete only this very object (a 409 Conflict if the name now belongs to another). */
  readonly preconditions?: { readonly uid?: string };
}

/** The patch types the API server accepts. */
export type PatchType = 'merge' | 'strategic' | 'json';

/** The Content-Type of each patch type. */
export const PATCH_CONTENT_TYPES: { readonly [type in PatchType]: string } = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

/**
 * The API server, as the CLI and the controller call it; every path is a full API path (`/api/v1/nodes`,
 * `/apis/...`). Every answer that is not 2xx is a `KubeApiError`.
 */
export interface KubeApi {
  get<T extends KubeObject = KubeObject>(path: string): Promise<T>;
  /** One page of the list at `path` (`listAll` reads every page). */
  list<T extends KubeObject = KubeObject>(path: string, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject = KubeObject>(path: string, body: object): Promise<T>;
  replace<T extends KubeObject = KubeObject>(path: string, body: object): Promise<T>;
  /** A merge patch unless `type` says otherwise. */
  patch<T extends KubeObject = KubeObject>(path: string, body: unknown, type?: PatchType): Promise<T>;
  /** With `options` sent as the DeleteOptions body (a grace period, a precondition on the uid). */
  delete(path: string, options?: DeleteOptions): Promise<void>;
  /**
   * Streams watch events to `onEvent` until the server ends the watch (resolves), the connection fails
   * (rejects) or `signal` aborts (resolves).
   */
  watch<T extends KubeObject = KubeObject>(
    path: string, opts: WatchOptions, onEvent: (event: WatchEvent<T>) => void, signal: AbortSignal,
  ): Promise<void>;
  /** Closes the connections (the process may then exit). */
  close(): void;
}

/** The API without watches: what the CLI's commands take that only ask and change (the drill watches). */
export type KubeRequestApi = Omit<KubeApi, 'watch'>;

/**
 * A non-2xx answer: the request, the HTTP status and the `Status` reason and message. `message` defaults to all of
 * them in one line; the CLI gives its own (the server's address and the message it prints).
 */
export class KubeApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly reason: string,
    readonly detail: string,
    message = `${method} ${path}: ${status} ${reason}: ${detail}`,
  ) {
    super(message);
  }
}

/** True when `err` is the API server's answer `status` (404, 409...). */
export function isStatus(err: unknown, status: number): boolean {
  return err instanceof KubeApiError && err.status === status;
}

/** `?k=v&...` of the parameters that are set (`''` when none is). */
export function queryString(params: Record<string, string | number | boolean | undefined>): string {
  const q = Object.entries(params).filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return q.length ? `?${q.join('&')}` : '';
}

/** The page size `listPages` asks for. */
const PAGE_SIZE = 500;

/** Every item of a list, page by page through `page(continueToken)`, each with its list's `kind` and `apiVersion`. */
export async function listPages<T extends KubeObject = KubeObject>(
  page: (continueToken?: string) => Promise<ObjectList | undefined>,
): Promise<T[]> {
  return (await versionedPages<T>(page)).items;
}

/** A whole list and its resourceVersion: a watch from it sees every change after the list. */
export interface VersionedList<T extends KubeObject> {
  readonly items: T[];
  /** Undefined when the API server left it out (an in-memory one may). */
  readonly resourceVersion?: string;
}

/** Every item of the list at `path` (all pages) and the list's resourceVersion (its first page's: one snapshot). */
export function listVersioned<T extends KubeObject = KubeObject>(
  api: Pick<KubeApi, 'list'>, path: string,
): Promise<VersionedList<T>> {
  return versionedPages<T>((cont) => api.list(path, { limit: PAGE_SIZE, continue: cont }));
}

async function versionedPages<T extends KubeObject>(
  page: (continueToken?: string) => Promise<ObjectList | undefined>,
): Promise<VersionedList<T>> {
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let cont: string | undefined;
  do {
    const answer = await page(cont);
    resourceVersion ??= answer?.metadata?.resourceVersion;
    // the API server leaves them out of each item; a list without them (an in-memory one) leaves the items as they are
    const kind = typeof answer?.kind === 'string' ? { kind: answer.kind.replace(/List$/, '') } : {};
    const apiVersion = answer?.apiVersion !== undefined ? { apiVersion: answer.apiVersion } : {};
    const pageItems = Array.isArray(answer?.items) ? answer!.items : [];
    items.push(...pageItems.map((i) => ({ ...kind, ...apiVersion, ...i }) as T));
    cont = answer?.metadata?.continue || undefined;
  } while (cont);
  return { items, resourceVersion };
}

/**
 * Every item of the list at `path` (all pages; those `selectors` match), each with `kind` and `apiVersion` from its
 * list.
 */
export function listAll<T extends KubeObject = KubeObject>(
  api: Pick<KubeApi, 'list'>, path: string, selectors: Pick<ListOptions, 'labelSelector' | 'fieldSelector'> = {},
): Promise<T[]> {
  return listPages<T>((cont) => api.list(path, { ...selectors, limit: PAGE_SIZE, continue: cont }));
}

/** The query of one page of `listPages` (for a client that builds its own requests). */
export function pageQuery(continueToken?: string): string {
  return queryString({ limit: PAGE_SIZE, continue: continueToken });
}
