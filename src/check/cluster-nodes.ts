/**
 * The nodes of a live cluster for the zone check's inventory (`cdk8s-zones check --kubeconfig FILE`): one
 * kubeconfig's current context, read as the controller reads it (src/kubernetes/kube-connection.ts: relative
 * paths from the file's folder, a bearer token or a client certificate, the cluster's CA and
 * `tls-server-name`, https only, anything else refused with the file and the reason), and
 * `GET /api/v1/nodes` (paged), read-only.
 */
import { parseSingleDocument } from './manifest-text';
import { apiServerAgent, ClusterConfig, kubeconfigConfig } from '../kubernetes/kube-connection';
import { kubeJson } from '../kubernetes/kube-request';

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
      const page = await kubeJson(config, agent, 'GET', `/api/v1/nodes?${query}`, { deadline, timeoutMs });
      items.push(...(Array.isArray(page.items) ? page.items : []));
      cont = page.metadata?.continue || undefined;
    } while (cont);
  } finally {
    agent.destroy();
  }
  return { kind: 'NodeList', items: items.map((n) => ({ kind: 'Node', ...n })) };
}
