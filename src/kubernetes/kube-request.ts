/**
 * The CLI's client (`check --kubeconfig`, `shift`, `drill`): one JSON request to the API server, cut at a deadline
 * whatever stage it is in (connecting, TLS, waiting, reading), and `KubeApi` over it. An answer that is not 2xx is
 * a `KubeApiError` naming the request, the status and the API server's message.
 */
import type * as https from 'https';
import {
  KubeApi, KubeApiError, KubeObject, PATCH_CONTENT_TYPES, queryString, WatchEvent, WatchOptions,
} from './kube-api';
import { apiServerAgent, ClusterConfig, httpsLazily, requestOptions } from './kube-connection';
import { asObject } from './objects';
import { lineSplitter } from '../shared/lines';

const NOT_JSON = Symbol('not JSON');

/**
 * When a request is cut: `deadline` (ms since the epoch), which may be shared by several requests of `timeoutMs` in
 * all.
 */
export interface RequestTime {
  readonly deadline: number;
  readonly timeoutMs: number;
}

/**
 * The parsed answer of `method path` (with `body` as JSON, or `contentType`), cut at `time.deadline`. `T` is what the
 * caller expects the API server to answer (JSON it does not check).
 */
export function kubeJson<T = unknown>(
  config: ClusterConfig, agent: https.Agent, method: string, pathAndQuery: string, time: RequestTime, body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const options = requestOptions(config, method, pathAndQuery, agent, body === undefined ? {} : { 'Content-Type': contentType });
  const what = `${method} ${config.server.origin}${options.path}`;
  return new Promise((resolve, reject) => {
    const req = httpsLazily().request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = NOT_JSON;
        }
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) {
          // an API group the server does not serve answers 404 in plain text
          return reject(apiError(what, method, pathAndQuery, status, asObject(parsed), text));
        }
        if (parsed === NOT_JSON) return reject(new Error(`${what}: the answer is not JSON`));
        resolve(parsed as T);
      });
    });
    const cut = () => req.destroy(new Error(`${method} ${config.server.origin}: no answer within ${time.timeoutMs / 1000} s`));
    const timer = setTimeout(cut, Math.max(0, time.deadline - Date.now()));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** How long one call may take before the CLI gives up on it. */
export const KUBE_CALL_TIMEOUT_MS = 30_000;

/**
 * The API server of `config` for the CLI, over one keep-alive agent, each call cut at `timeoutMs`; watches (the
 * drill's) over an agent of their own, each lasting as long as the API server keeps it.
 */
export function httpsKubeApi(config: ClusterConfig, timeoutMs = KUBE_CALL_TIMEOUT_MS): KubeApi {
  const agent: https.Agent = apiServerAgent(config, { keepAlive: true });
  let watchAgent: https.Agent | undefined;
  const call = <T>(method: string, path: string, body?: unknown, contentType?: string) =>
    kubeJson<T>(config, agent, method, path, { deadline: Date.now() + timeoutMs, timeoutMs }, body, contentType);
  return {
    get: (path) => call('GET', path),
    list: (path, o = {}) => call('GET', `${path}${queryString({ ...o })}`),
    create: (path, body) => call('POST', path, body),
    replace: (path, body) => call('PUT', path, body),
    patch: (path, body, type = 'merge') => call('PATCH', path, body, PATCH_CONTENT_TYPES[type]),
    delete: async (path, options) => {
      await call('DELETE', path, options === undefined ? undefined : { kind: 'DeleteOptions', apiVersion: 'v1', ...options });
    },
    watch: (path, o, onEvent, signal) =>
      kubeWatch(config, watchAgent ??= apiServerAgent(config, { keepAlive: true }), path, o, onEvent, signal),
    close: () => {
      agent.destroy();
      watchAgent?.destroy();
    },
  };
}

/**
 * Streams the watch events of `path` to `onEvent` until the API server ends the watch (resolves), the connection
 * fails or an ERROR event arrives (rejects: a `KubeApiError`, 410 when the version is too old) or `signal` aborts
 * (resolves).
 */
export function kubeWatch<T extends KubeObject>(
  config: ClusterConfig, agent: https.Agent, path: string, o: WatchOptions, onEvent: (event: WatchEvent<T>) => void,
  signal: AbortSignal,
): Promise<void> {
  const query = queryString({ watch: 1, allowWatchBookmarks: true, ...o });
  const options = { ...requestOptions(config, 'GET', `${path}${query}`, agent), signal };
  const what = `WATCH ${config.server.origin}${options.path}`;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve();
    const failed = (e: Error) => (signal.aborted ? resolve() : reject(e));
    const req = httpsLazily().request(options, (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => failed(watchError(what, path, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
        return;
      }
      const split = lineSplitter((line) => {
        const event = JSON.parse(line) as WatchEvent<T>;
        if (event.type === 'ERROR') throw watchError(what, path, Number(event.object?.code) || 500, line);
        onEvent(event);
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        try {
          split(chunk);
        } catch (e) {
          req.destroy();
          failed(e as Error);
        }
      });
      res.on('end', () => resolve());
      res.on('error', failed);
    });
    req.on('error', failed);
    req.end();
  });
}

/** A watch (`what`) refused, or ended by an ERROR event (`text`: the answer, a `Status`, or the event). */
function watchError(what: string, path: string, status: number, text: string): KubeApiError {
  let answer: Record<string, unknown> | undefined;
  try {
    const parsed = asObject(JSON.parse(text));
    answer = asObject(parsed?.object) ?? parsed;
  } catch {
    answer = undefined;
  }
  return apiError(what, 'WATCH', path, status, answer, text);
}

/** The error of request `what` answered `status`, with the API server's `Status` (`answer`) or else its `text`. */
function apiError(
  what: string, method: string, path: string, status: number, answer: Record<string, unknown> | undefined, text: string,
): KubeApiError {
  const message = typeof answer?.message === 'string' ? answer.message : text.slice(0, 200);
  const reason = typeof answer?.reason === 'string' ? answer.reason : '';
  return new KubeApiError(method, path, status, reason, message, `${what}: HTTP ${status} ${message}`);
}
