/**
 * The one implementation of `KubeApi`: JSON over HTTPS to the API server, credentials from the pod's
 * service account (in the cluster) or a kubeconfig. This is the only module that loads
 * `@kubernetes/client-node`, and only for its kubeconfig handling (files, in-cluster token refresh, exec
 * plugins); requests use one keep-alive agent so a burst of patches does not pay a TLS handshake each.
 */
import * as https from 'https';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApi, KubeApiError, KubeObject, ListOptions, ObjectList, PatchType, WatchEvent, WatchOptions } from './api';
import { lineSplitter } from '../lines';

export interface ConnectOptions {
  /** A kubeconfig file; without it: in-cluster config when running in a pod, else $KUBECONFIG / ~/.kube/config. */
  readonly kubeconfig?: string;
  /** Requests in flight at most (the agent's socket limit). @default 32 */
  readonly maxSockets?: number;
}

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return q.length ? `?${q.join('&')}` : '';
}

export function loadKubeConfig(file?: string): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else if (process.env.KUBERNETES_SERVICE_HOST && !process.env.KUBECONFIG) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error(`no Kubernetes cluster configured (kubeconfig ${file ?? process.env.KUBECONFIG ?? 'default'})`);
  return kc;
}

export function connect(opts: ConnectOptions = {}): KubeApi {
  const kc = loadKubeConfig(opts.kubeconfig);
  const server = new URL(kc.getCurrentCluster()!.server);
  let agent: https.Agent | undefined;

  /** Headers with fresh credentials (tokens are re-read as they rotate) and the shared agent. */
  async function requestOptions(method: string, path: string, headers: Record<string, string>): Promise<https.RequestOptions> {
    const o: https.RequestOptions & { headers: Record<string, any> } = { headers: { Accept: 'application/json', ...headers } };
    await kc.applyToHTTPSOptions(o);
    agent ??= new https.Agent({
      keepAlive: true,
      maxSockets: opts.maxSockets ?? 32,
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      rejectUnauthorized: o.rejectUnauthorized,
      servername: (o as any).servername,
    });
    return { method, hostname: server.hostname, port: server.port || 443, path, headers: o.headers, auth: o.auth, agent };
  }

  async function request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = payload ? { 'Content-Type': contentType, 'Content-Length': String(payload.length) } : {};
    const options = await requestOptions(method, path, headers);
    return new Promise<T>((resolve, reject) => {
      const req = https.request(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any;
          try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(parsed as T);
          else reject(new KubeApiError(method, path, status, parsed?.reason ?? res.statusMessage ?? '', parsed?.message ?? text.slice(0, 500)));
        });
      });
      req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  async function watch<T extends KubeObject>(
    path: string, wo: WatchOptions, onEvent: (e: WatchEvent<T>) => void, signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) return;
    const q = query({
      watch: 1,
      allowWatchBookmarks: true,
      resourceVersion: wo.resourceVersion,
      labelSelector: wo.labelSelector,
      fieldSelector: wo.fieldSelector,
      timeoutSeconds: wo.timeoutSeconds,
    });
    const options = { ...(await requestOptions('GET', path + q, {})), signal };
    return new Promise<void>((resolve, reject) => {
      const req = https.request(options, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: any;
            try { parsed = JSON.parse(text); } catch { parsed = undefined; }
            reject(new KubeApiError('WATCH', path, res.statusCode ?? 0, parsed?.reason ?? '', parsed?.message ?? text.slice(0, 500)));
          });
          return;
        }
        const split = lineSplitter((line) => onEvent(JSON.parse(line) as WatchEvent<T>));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          try {
            split(chunk);
          } catch (err) { // an ERROR event (e.g. 410 Gone) or a handler's failure ends this watch
            reject(err);
            req.destroy();
          }
        });
        res.on('end', () => resolve());
        res.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
      });
      req.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
      req.end();
    });
  }

  return {
    get: (path) => request('GET', path),
    list: <T extends KubeObject>(path: string, lo: ListOptions = {}) => request<ObjectList<T>>('GET', path + query({
      labelSelector: lo.labelSelector, fieldSelector: lo.fieldSelector, limit: lo.limit, continue: lo.continue, resourceVersion: lo.resourceVersion,
    })),
    create: (path, body) => request('POST', path, body),
    replace: (path, body) => request('PUT', path, body),
    patch: (path, body, type = 'merge') => request('PATCH', path, body, CONTENT_TYPES[type]),
    delete: async (path) => { await request('DELETE', path); },
    watch,
  };
}
