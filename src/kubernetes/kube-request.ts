/**
 * One JSON request to the API server (the CLI's: `check --kubeconfig`, `shift`), cut at a deadline whatever stage
 * it is in (connecting, TLS, waiting, reading). An answer that is not 2xx is an error naming the request, the
 * status and the API server's message.
 */
import * as https from 'https';
import { ClusterConfig, requestOptions } from './kube-connection';

const NOT_JSON = Symbol('not JSON');

/** The API server's answer that was not 2xx. */
export class KubeRequestError extends Error {
  constructor(message: string, public readonly status: number, public readonly reason?: string) {
    super(message);
  }
}

/** When a request is cut: `deadline` (ms since the epoch), which may be shared by several requests of `timeoutMs` in all. */
export interface RequestTime {
  readonly deadline: number;
  readonly timeoutMs: number;
}

/** The parsed answer of `method path` (with `body` as JSON, or `contentType`), cut at `time.deadline`. */
export function kubeJson(
  config: ClusterConfig, agent: https.Agent, method: string, pathAndQuery: string, time: RequestTime, body?: unknown, contentType = 'application/json',
): Promise<any> {
  const options = requestOptions(config, method, pathAndQuery, agent, body === undefined ? {} : { 'Content-Type': contentType });
  const what = `${method} ${config.server.origin}${options.path}`;
  return new Promise((resolve, reject) => {
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = NOT_JSON;
        }
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) {
          // an API group the server does not serve answers 404 in plain text
          const message = typeof parsed?.message === 'string' ? parsed.message : text.slice(0, 200);
          return reject(new KubeRequestError(`${what}: HTTP ${status} ${message}`, status, parsed?.reason));
        }
        if (parsed === NOT_JSON) return reject(new Error(`${what}: the answer is not JSON`));
        resolve(parsed);
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
