/**
 * The one in-memory API server of the unit tests (the CLI's commands, the controller's): `KubeApi` over objects
 * kept by their full path, with the answers the real one gives where the code under test depends on them (404,
 * 409 on a name taken or a stale resourceVersion, merge and strategic merge patches, of an object or of its status
 * subresource, a finalizer holding a deletion, lists across namespaces and by label, watches from a list's
 * resourceVersion), every call recorded, and a hook before each call (a test makes it fail there: a server down, a
 * namespace forbidden, a slow answer) and after it (a test plays a controller there).
 */
import {
  DeleteOptions, KubeApi, KubeApiError, KubeObject, ListOptions, ObjectList, PatchType, WatchEvent, WatchOptions,
} from '../src/kubernetes/kube-api';

/** RFC 7386: `patch` merged into `target` (null deletes). */
export function mergePatch(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: any = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * A strategic merge patch as the API server applies one to lists keyed by `name` (webhooks, containers): each item
 * of the patch merged into the item of that name; anything else as a merge patch.
 */
export function strategicMergePatch(target: any, patch: any): any {
  if (Array.isArray(patch) && Array.isArray(target) && patch.every((p) => typeof p?.name === 'string')) {
    const merged = target.map((t: any) => {
      const p = patch.find((x: any) => x.name === t?.name);
      return p === undefined ? t : strategicMergePatch(t, p);
    });
    return [...merged, ...patch.filter((p: any) => !target.some((t: any) => t?.name === p.name))];
  }
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: any = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = strategicMergePatch(out[k], v);
  }
  return out;
}

/** A copy as the API sends it (JSON; structuredClone would give objects of another realm under jest). */
function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/** `k=v` and `k` terms of a label selector, all of which `labels` must meet. */
function labelsMatch(selector: string | undefined, labels: Record<string, string> = {}): boolean {
  return (selector ?? '').split(',').filter((t) => t !== '').every((term) => {
    const [key, value] = term.split('=');
    return value === undefined ? key in labels : labels[key] === value;
  });
}

export class MemoryKubeApi implements KubeApi {
  /** Objects by their full path (`<list path>/<name>`). */
  readonly objects = new Map<string, any>();
  /** Every call, as `METHOD path` (a list with its selectors: `LIST path?labelSelector=...`). */
  readonly calls: string[] = [];
  private version = 1;
  /** Every change, in order: what a watch from an older version replays. */
  private readonly changes: Array<{ path: string; event: WatchEvent }> = [];
  private readonly watchers = new Set<{ listPath: string; onEvent: (event: WatchEvent) => void }>();
  /** Called before each call, with the call; what it throws is the call's answer. */
  public beforeCall: (call: string) => void | Promise<void> = () => undefined;
  /** Called after each call (a test plays the controller here). */
  public onCall: (api: MemoryKubeApi) => void = () => undefined;

  put(listPath: string, obj: any): void {
    const path = `${listPath}/${obj.metadata.name}`;
    const type = this.objects.has(path) ? 'MODIFIED' : 'ADDED';
    const metadata = { ...obj.metadata, resourceVersion: String(this.version++) };
    this.objects.set(path, { ...obj, metadata });
    this.changed(path, type);
  }

  /** Tells the watches of the object at `path` (its current state, or `gone` once deleted). */
  private changed(path: string, type: WatchEvent['type'], gone?: any): void {
    const object = gone ?? this.objects.get(path);
    const event = { type, object: json(object) } as WatchEvent;
    this.changes.push({ path, event });
    for (const w of this.watchers) if (inList(path, w.listPath)) w.onEvent(json(event));
  }

  async get(path: string): Promise<any> {
    return this.after(`GET ${path}`, () => json(this.found(path)));
  }

  /** The whole list in one page: the objects directly under `path`, or under it in every namespace. */
  async list(path: string, opts: ListOptions = {}): Promise<ObjectList<any>> {
    // the selectors as written (unencoded), so a test reads them as the code under test wrote them
    const selectors = [['labelSelector', opts.labelSelector], ['fieldSelector', opts.fieldSelector]]
      .filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`).join('&');
    return this.after(`LIST ${path}${selectors ? `?${selectors}` : ''}`, () => ({
      items: [...this.objects]
        .filter(([p, o]) => inList(p, path) && labelsMatch(opts.labelSelector, o.metadata.labels))
        .map(([, o]) => json(o)),
      metadata: { resourceVersion: String(this.version - 1) },
    }));
  }

  async create(path: string, body: any): Promise<any> {
    return this.after(`POST ${path}`, () => {
      if (this.objects.has(`${path}/${body.metadata.name}`)) {
        const printed = `POST ${path}: HTTP 409 already exists`;
        throw new KubeApiError('POST', path, 409, 'AlreadyExists', 'already exists', printed);
      }
      const creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      this.put(path, { ...body, metadata: { ...body.metadata, creationTimestamp } });
      return json(this.objects.get(`${path}/${body.metadata.name}`));
    });
  }

  async replace(path: string, body: any): Promise<any> {
    return this.after(`PUT ${path}`, () => {
      if (this.objects.get(path)?.metadata.resourceVersion !== body.metadata?.resourceVersion) {
        throw new KubeApiError('PUT', path, 409, 'Conflict', 'changed', `PUT ${path}: HTTP 409 conflict`);
      }
      return this.store(path, body);
    });
  }

  /** A patch of the object at `path`, or of its status alone when `path` is its `/status` subresource. */
  async patch(path: string, body: any, type: PatchType = 'merge'): Promise<any> {
    return this.after(`PATCH ${path}`, () => {
      const parent = path.slice(0, path.lastIndexOf('/'));
      const status = path.endsWith('/status') && this.objects.has(parent);
      const at = status ? parent : path;
      const current = this.found(at);
      const wanted = body?.metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== current.metadata.resourceVersion) {
        throw new KubeApiError('PATCH', path, 409, 'Conflict', 'conflict', `PATCH ${path}: HTTP 409 conflict`);
      }
      if (type === 'json') throw new Error(`MemoryKubeApi: PATCH ${path}: JSON patches are not played`);
      const patched = type === 'strategic' ? strategicMergePatch(current, body) : mergePatch(current, body);
      return this.store(at, status ? { ...current, status: patched.status } : patched);
    });
  }

  async delete(path: string, options?: DeleteOptions): Promise<void> {
    return this.after(`DELETE ${path}`, () => {
      const current = this.found(path);
      const uid = options?.preconditions?.uid;
      if (uid !== undefined && uid !== current.metadata.uid) {
        throw new KubeApiError('DELETE', path, 409, 'Conflict', `precondition failed: uid ${uid}`, `DELETE ${path}: HTTP 409 conflict`);
      }
      const finalized = (current.metadata.finalizers ?? []).length > 0;
      const deletionTimestamp = new Date().toISOString();
      if (finalized) {
        this.store(path, { ...current, metadata: { ...current.metadata, deletionTimestamp } });
      } else {
        this.objects.delete(path);
        const metadata = { ...current.metadata, resourceVersion: String(this.version++) };
        this.changed(path, 'DELETED', { ...current, metadata });
      }
    });
  }

  /**
   * The changes of the objects of the list at `path` after `opts.resourceVersion` (all those kept, without one), then
   * each as it happens, until `signal` aborts.
   */
  async watch<T extends KubeObject = KubeObject>(
    path: string, opts: WatchOptions, onEvent: (event: WatchEvent<T>) => void, signal: AbortSignal,
  ): Promise<void> {
    await this.after(`WATCH ${path}`, () => undefined);
    const after = Number(opts.resourceVersion ?? 0);
    for (const c of this.changes) {
      const newer = Number(c.event.object.metadata.resourceVersion) > after;
      if (inList(c.path, path) && newer) onEvent(json(c.event) as WatchEvent<T>);
    }
    const watcher = { listPath: path, onEvent: onEvent as (event: WatchEvent) => void };
    this.watchers.add(watcher);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.watchers.delete(watcher);
  }

  close(): void {}

  private store(path: string, next: any): any {
    this.objects.set(path, { ...next, metadata: { ...next.metadata, resourceVersion: String(this.version++) } });
    this.changed(path, 'MODIFIED');
    return json(this.objects.get(path));
  }

  private found(path: string): any {
    const o = this.objects.get(path);
    if (o === undefined) {
      throw new KubeApiError('GET', path, 404, 'NotFound', 'not found', `${path}: HTTP 404 not found`);
    }
    return o;
  }

  private async after<T>(call: string, act: () => T): Promise<T> {
    this.calls.push(call);
    await this.beforeCall(call);
    try {
      return act();
    } finally {
      this.onCall(this);
    }
  }
}

/** Whether the object at `objectPath` is an item of the list at `listPath` (a list without a namespace: of any). */
function inList(objectPath: string, listPath: string): boolean {
  const parent = objectPath.slice(0, objectPath.lastIndexOf('/'));
  return parent === listPath || parent.replace(/\/namespaces\/[^/]+\//, '/') === listPath;
}
