/**
 * The CLI's client (`check --kubeconfig`, `shift`, `drill`): one JSON request to the API server, cut at a deadline
 * whatever stage it is in (connecting, TLS, waiting, reading), and `KubeApi` over it. An answer that is not 2xx is
 * a `KubeApiError` naming the request, the status and the API server's message.
 */
import type * as https from 'https';
import { KubeApiError, KubeRequestApi, PATCH_CONTENT_TYPES, queryString } from './kube-api';
import { apiServerAgent, ClusterConfig, httpsLazily, requestOptions } from './kube-connection';
import { asObject } from './objects';

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
          const answer = asObject(parsed);
          const message = typeof answer?.message === 'string' ? answer.message : text.slice(0, 200);
          const reason = typeof answer?.reason === 'string' ? answer.reason : '';
          const printed = `${what}: HTTP ${status} ${message}`;
          return reject(new KubeApiError(method, pathAndQuery, status, reason, message, printed));
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

/** The API server of `config` for the CLI (no watches), over one keep-alive agent, each call cut at `timeoutMs`. */
export function httpsKubeApi(config: ClusterConfig, timeoutMs = KUBE_CALL_TIMEOUT_MS): KubeRequestApi {
  const agent: https.Agent = apiServerAgent(config, { keepAlive: true });
  const call = <T>(method: string, path: string, body?: unknown, contentType?: string) =>
    kubeJson<T>(config, agent, method, path, { deadline: Date.now() + timeoutMs, timeoutMs }, body, contentType);
  return {
    get: (path) => call('GET', path),
    list: (path, o = {}) => call('GET', `${path}${queryString({ ...o })}`),
    create: (path, body) => call('POST', path, body),
    replace: (path, body) => call('PUT', path, body),
    patch: (path, body, type = 'merge') => call('PATCH', path, body, PATCH_CONTENT_TYPES[type]),
    delete: async (path) => { await call('DELETE', path); },
    close: () => agent.destroy(),
  };
}
