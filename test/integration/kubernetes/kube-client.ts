/**
 * A small Kubernetes API client for tests: HTTPS with a client certificate, resource discovery, server-side
 * apply with strict field validation, and the API server's warnings kept with every response (a warning
 * is how PodSecurity reports a workload whose pods it would reject). Plain `https`, no dependency.
 */
import * as fs from 'fs';
import * as https from 'https';
import { isStatus, KubeApiError } from '../../../src/kubernetes/kube-api';

/** The one error class of a non-2xx answer, the CLI's and the controller's (its status, Status reason and message). */
export { KubeApiError };

/** Where the API server is and how to authenticate: file paths, as in a kubeconfig. */
export interface Connection {
  /** e.g. https://127.0.0.1:6443 */
  readonly server: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** A Kubernetes object as JSON. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: any };
  [k: string]: any;
};

export interface Response<T = any> {
  readonly status: number;
  readonly body: T;
  /** The API server's `Warning` headers (PodSecurity "would violate", deprecated APIs, unknown fields...). */
  readonly warnings: string[];
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** At most this many items (the API server's paging). */
  readonly limit?: number;
}

interface Resource {
  readonly plural: string;
  readonly namespaced: boolean;
}

/** The field manager of everything the tests apply. */
const FIELD_MANAGER = 'cdk8s-zones-test';

function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function query(params: Record<string, string | undefined>): string {
  const q = Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(v!)}`);
  return q.length ? `?${q.join('&')}` : '';
}

/** The text of a `Warning` header, which comes in RFC 7234 form: 299 - "text with \"escaped\" quotes". */
function warningText(header: string): string {
  return header.replace(/^\d{3} - "(.*)"$/, '$1').replace(/\\(.)/g, '$1');
}

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly url: URL;
  /** groupVersion -> kind -> resource; cleared for a groupVersion when it lacks a kind (a CRD was added). */
  private readonly discovered = new Map<string, Map<string, Resource>>();

  constructor(readonly connection: Connection) {
    this.url = new URL(connection.server);
    this.agent = new https.Agent({
      ca: fs.readFileSync(connection.ca),
      cert: fs.readFileSync(connection.cert),
      key: fs.readFileSync(connection.key),
      keepAlive: true,
      maxSockets: 32,
    });
  }

  /** One request; JSON in and out unless `contentType` says otherwise. Throws KubeApiError for a non-2xx status. */
  public request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Response<T>> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const bodyHeaders = payload === undefined
      ? {}
      : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
    return new Promise((resolve, reject) => {
      const req = https.request({
        host: this.url.hostname,
        port: this.url.port,
        path,
        method,
        agent: this.agent,
        headers: {
          Accept: 'application/json',
          ...bodyHeaders,
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any = text;
          try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON (e.g. /readyz) */ }
          const warnings: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (res.rawHeaders[i].toLowerCase() === 'warning') warnings.push(warningText(res.rawHeaders[i + 1]));
          }
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            const reason = parsed?.reason ?? res.statusMessage ?? '';
            reject(new KubeApiError(method, path, status, reason, parsed?.message ?? text));
          } else {
            resolve({ status, body: parsed, warnings });
          }
        });
      });
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** Closes idle connections (the process can exit). */
  public close(): void {
    this.agent.destroy();
  }

  /** The plural name and scope of a kind, from the API server's discovery. */
  public async resource(apiVersion: string, kind: string): Promise<Resource> {
    let kinds = this.discovered.get(apiVersion);
    if (!kinds?.has(kind)) {
      let list: any;
      try {
        list = (await this.request('GET', groupVersionPath(apiVersion))).body;
      } catch (err) {
        if (isStatus(err, 404)) throw new Error(`the API server does not serve ${apiVersion} (kind ${kind}): is its CRD installed?`);
        throw err;
      }
      kinds = new Map();
      for (const r of list.resources as any[]) {
        if (!r.name.includes('/')) kinds.set(r.kind, { plural: r.name, namespaced: r.namespaced });
      }
      this.discovered.set(apiVersion, kinds);
    }
    const found = kinds.get(kind);
    if (!found) throw new Error(`the API server serves ${apiVersion} but not kind ${kind}`);
    return found;
  }

  /** True when the API server serves this apiVersion and kind (discovery, no error). */
  public async serves(apiVersion: string, kind: string): Promise<boolean> {
    try {
      await this.resource(apiVersion, kind);
      return true;
    } catch (err) {
      if (err instanceof KubeApiError) throw err;
      return false;
    }
  }

  /** The URL path of a collection (no name) or of one object. */
  public async path(apiVersion: string, kind: string, namespace?: string, name?: string): Promise<string> {
    const r = await this.resource(apiVersion, kind);
    if (r.namespaced && !namespace) throw new Error(`${kind} is namespaced: a namespace is required`);
    const ns = r.namespaced ? `/namespaces/${namespace}` : '';
    return `${groupVersionPath(apiVersion)}${ns}/${r.plural}${name ? `/${name}` : ''}`;
  }

  /**
   * Server-side apply (`kubectl apply --server-side --force-conflicts --validate=strict`): unknown or
   * duplicate fields are errors. Returns the object as stored and the API server's warnings.
   */
  public async apply(obj: KubeObject, fieldManager = FIELD_MANAGER): Promise<Response<KubeObject>> {
    const path = await this.path(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name);
    return this.request('PATCH', `${path}${query({ fieldManager, force: 'true', fieldValidation: 'Strict' })}`,
      obj, 'application/apply-patch+yaml');
  }

  public async get<T = KubeObject>(apiVersion: string, kind: string, name: string, namespace?: string): Promise<T> {
    return (await this.request<T>('GET', await this.path(apiVersion, kind, namespace, name))).body;
  }

  /** The object, or undefined when it does not exist. */
  public async find<T = KubeObject>(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(apiVersion, kind, name, namespace);
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  /** The items of a list; across all namespaces when the kind is namespaced and no namespace is given. */
  public async list<T = KubeObject>(apiVersion: string, kind: string, opts: ListOptions = {}): Promise<T[]> {
    const r = await this.resource(apiVersion, kind);
    const ns = r.namespaced && opts.namespace ? `/namespaces/${opts.namespace}` : '';
    const params = query({
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      limit: opts.limit?.toString(),
    });
    const path = `${groupVersionPath(apiVersion)}${ns}/${r.plural}${params}`;
    return (await this.request('GET', path)).body.items;
  }

  public async create<T = KubeObject>(obj: KubeObject): Promise<T> {
    return (await this.request<T>('POST', await this.path(obj.apiVersion, obj.kind, obj.metadata.namespace), obj)).body;
  }

  /** A JSON merge patch. */
  public async patch<T = KubeObject>(
    apiVersion: string,
    kind: string,
    name: string,
    patch: unknown,
    namespace?: string,
  ): Promise<T> {
    const path = await this.path(apiVersion, kind, namespace, name);
    return (await this.request<T>('PATCH', path, patch, 'application/merge-patch+json')).body;
  }

  /**
   * Deletes every object of a kind in a namespace (`gracePeriodSeconds` as for `delete`; `propagationPolicy: 'Orphan'`
   * leaves the objects they own, e.g. a Deployment's ReplicaSets).
   */
  public async deleteCollection(
    apiVersion: string,
    kind: string,
    namespace: string,
    opts: { gracePeriodSeconds?: number; propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' } = {},
  ): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...opts };
    await this.request('DELETE', await this.path(apiVersion, kind, namespace), body);
  }

  /**
   * Deletes an object (no error when it is already gone). `gracePeriodSeconds: 0` removes a pod at once
   * instead of waiting for its kubelet, as the pod garbage collector does for pods of a vanished node. With
   * `preconditions.uid`, an object of that name but another uid (a successor) is left alone (no error either).
   */
  public async delete(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
    opts: { gracePeriodSeconds?: number; preconditions?: { uid: string } } = {},
  ): Promise<void> {
    const path = await this.path(apiVersion, kind, namespace, name);
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', ...opts };
    try {
      await this.request('DELETE', path, body);
    } catch (err) {
      const successor = isStatus(err, 409) && opts.preconditions !== undefined;
      if (!isStatus(err, 404) && !successor) throw err;
    }
  }
}
