/**
 * The nodes of a live cluster for the zone check's inventory (`cdk8s-zones check --kubeconfig FILE`): one
 * kubeconfig's current context, read as the controller reads it (src/kubernetes/kube-connection.ts: relative
 * paths from the file's folder, a bearer token or a client certificate, the cluster's CA and
 * `tls-server-name`, https only, anything else refused with the file and the reason), and
 * `GET /api/v1/nodes` (paged), read-only.
 */
import * as https from 'https';
import { parseSingleDocument } from './manifest-text';
import { apiServerAgent, ClusterConfig, kubeconfigConfig, requestOptions } from '../kubernetes/kube-connection';

/** The connection of `file`'s current context, the file read as the check reads every input (js-yaml, bounded). */
export function clusterConnection(file: string): ClusterConfig {
  return kubeconfigConfig([file], parseSingleDocument);
}

/** How long listing the nodes may take, all pages together, before the check gives up. */
export const LIST_NODES_TIMEOUT_MS = 30_000;

/** Every Node of the cluster, as a NodeList (`kubectl get nodes -o json`), within `timeoutMs` in all. */
export async function listNodes(config: ClusterConfig, timeoutMs = LIST_NODES_TIMEOUT_MS): Promise<{ kind: 'NodeList'; items: any[] }> {
  const deadline = Date.now() + timeoutMs;
  // one agent for the pages (one TLS handshake), closed after the last so no socket outlives the listing
  const agent = apiServerAgent(config, { keepAlive: true });
  const items: any[] = [];
  try {
    let cont: string | undefined;
    do {
      const query = new URLSearchParams({ limit: '500', ...(cont ? { continue: cont } : {}) });
      const page = await getJson(requestOptions(config, 'GET', `/api/v1/nodes?${query}`, agent), config.server.origin, deadline, timeoutMs);
      items.push(...(Array.isArray(page.items) ? page.items : []));
      cont = page.metadata?.continue || undefined;
    } while (cont);
  } finally {
    agent.destroy();
  }
  return { kind: 'NodeList', items: items.map((n) => ({ kind: 'Node', ...n })) };
}

/** GET as JSON; the request is cut at `deadline` whatever stage it is in (connecting, TLS, waiting, reading). */
function getJson(options: https.RequestOptions, origin: string, deadline: number, timeoutMs: number): Promise<any> {
  const url = `${origin}${options.path}`;
  return new Promise((resolve, reject) => {
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`GET ${url}: HTTP ${res.statusCode} ${body.slice(0, 200)}`));
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error(`GET ${url}: the answer is not JSON`));
        }
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`GET ${origin}: no answer within ${timeoutMs / 1000} s`)), Math.max(0, deadline - Date.now()));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end();
  });
}
