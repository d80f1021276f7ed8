/**
 * The one implementation of `KubeApi`: JSON over HTTPS to the API server that `config.ts` names, with the
 * agents and request options of src/kubernetes/kube-connection.ts (shared with the zone check). The TLS agents
 * are built once: requests share keep-alive connections (a burst of patches pays no handshake each), and
 * watches, which hold a connection for minutes, have their own so they never take a request's.
 * The bearer token is read from its source on each request (a file is re-read as it rotates, and at once
 * when the server answers 401, after which the request is tried once more).
 */
import * as http from 'http';
import * as https from 'https';
import { loadClusterConfig } from './config';
import {
  KubeApi,
  KubeApiError,
  KubeObject,
  ListOptions,
  ObjectList,
  PATCH_CONTENT_TYPES,
  queryString,
  WatchEvent,
  WatchOptions,
} from '../../../src/kubernetes/kube-api';
import { apiServerAgent, ClusterConfig, ConfigSelection, requestOptions } from '../../../src/kubernetes/kube-connection';
import { lineSplitter } from '../../../src/shared/lines';

/**
 * The abort listeners a run's signal may hold before Node warns of a leak: every open watch and request adds
 * one (removed when it ends), and a controller holds a watch per informer and up to --api-concurrency requests.
 */
export const MAX_SIGNAL_LISTENERS = 1000;

/** Connections to the API server that requests (not watches) may hold at once. */
export const DEFAULT_MAX_SOCKETS = 64;

export interface ConnectOptions extends ConfigSelection {
  /** Keep-alive connections for requests at most; more requests wait for one. @default DEFAULT_MAX_SOCKETS */
  readonly maxSockets?: number;
}

const USER_AGENT = 'cdk8s-zones-controller';

/** An answer that is not a watch stream can be kept whole in memory, but not forever. */
const REQUEST_TIMEOUT_MS = 60_000;

/** The body of an answer as JSON when it is JSON (a Status names the reason of a failure). */
function readJson(res: http.IncomingMessage): Promise<{ text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
      resolve({ text, json });
    });
  });
}

const apiError = (method: string, path: string, res: http.IncomingMessage, body: { text: string; json: any }) =>
  new KubeApiError(
    method,
    path,
    res.statusCode ?? 0,
    body.json?.reason ?? res.statusMessage ?? '',
    body.json?.message ?? body.text.slice(0, 500),
  );

/** Connects to the cluster `opts` selects (see `loadClusterConfig`). */
export function connect(opts: ConnectOptions = {}): KubeApi {
  return kubeApi(loadClusterConfig(opts), opts.maxSockets);
}

/** How to reach the API server: its config, a TLS agent for requests and one for watches. */
interface Endpoint {
  readonly config: ClusterConfig;
  readonly requests: https.Agent;
  readonly watches: https.Agent;
}

function endpointOf(config: ClusterConfig, maxSockets: number): Endpoint {
  return {
    config,
    requests: apiServerAgent(config, { keepAlive: true, maxSockets }),
    watches: apiServerAgent(config, { keepAlive: false }),
  };
}

/** A request's options: the token as its source holds it now, and the controller's User-Agent. */
function options(
  e: Endpoint,
  method: string,
  path: string,
  agent: https.Agent,
  extra: Record<string, string>,
): https.RequestOptions {
  return requestOptions(e.config, method, path, agent, { 'User-Agent': USER_AGENT, ...extra });
}

/** One request, answered whole; `retried` after a 401 that made the token source read a new token. */
function send<T>(
  e: Endpoint,
  method: string,
  path: string,
  payload: Buffer | undefined,
  contentType: string,
  retried = false,
): Promise<T> {
  const extra: Record<string, string> = payload ? { 'Content-Type': contentType, 'Content-Length': String(payload.length) } : {};
  return new Promise<T>((resolve, reject) => {
    const req = https.request(options(e, method, path, e.requests, extra), (res) => {
      readJson(res).then((body) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve(body.json as T);
        const tokenRefreshed = status === 401 && !retried && e.config.token?.refresh();
        if (tokenRefreshed) return resolve(send<T>(e, method, path, payload, contentType, true));
        reject(apiError(method, path, res, body));
      }, reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Watches `path` from `wo.resourceVersion`, each event to `onEvent`, until the server ends the watch or `signal`
 * aborts.
 */
async function watch<T extends KubeObject>(
  e: Endpoint, path: string, wo: WatchOptions, onEvent: (event: WatchEvent<T>) => void, signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) return;
  const q = queryString({
    watch: 1,
    allowWatchBookmarks: true,
    resourceVersion: wo.resourceVersion,
    labelSelector: wo.labelSelector,
    fieldSelector: wo.fieldSelector,
    timeoutSeconds: wo.timeoutSeconds,
  });
  return new Promise<void>((resolve, reject) => {
    const req = https.request({ ...options(e, 'GET', path + q, e.watches, {}), signal }, (res) => {
      if (res.statusCode !== 200) {
        if (res.statusCode === 401) e.config.token?.refresh(); // the informer retries the watch with the new token
        readJson(res).then((body) => reject(apiError('WATCH', path, res, body)), reject);
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

export function kubeApi(config: ClusterConfig, maxSockets = DEFAULT_MAX_SOCKETS): KubeApi {
  const e = endpointOf(config, maxSockets);
  const request = <T>(method: string, path: string, body?: unknown, contentType = 'application/json') =>
    send<T>(e, method, path, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), contentType);
  return {
    get: (path) => request('GET', path),
    list: <T extends KubeObject>(path: string, lo: ListOptions = {}) => request<ObjectList<T>>('GET', path + queryString({
      labelSelector: lo.labelSelector,
      fieldSelector: lo.fieldSelector,
      limit: lo.limit,
      continue: lo.continue,
      resourceVersion: lo.resourceVersion,
    })),
    create: (path, body) => request('POST', path, body),
    replace: (path, body) => request('PUT', path, body),
    patch: (path, body, type = 'merge') => request('PATCH', path, body, PATCH_CONTENT_TYPES[type]),
    delete: async (path, deleteOptions) => {
      const body = deleteOptions === undefined ? undefined : { kind: 'DeleteOptions', apiVersion: 'v1', ...deleteOptions };
      await request('DELETE', path, body);
    },
    watch: (path, wo, onEvent, signal) => watch(e, path, wo, onEvent, signal),
    close: () => {
      e.requests.destroy();
      e.watches.destroy();
    },
  };
}
