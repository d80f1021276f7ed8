/**
 * The few API calls the CLI's live commands (`shift`, `drill`) make, as an interface: the real one over HTTPS
 * (`httpsKubeApi`, each call cut at its own deadline) and, in unit tests, an in-memory one.
 */
import * as https from 'https';
import { apiServerAgent, ClusterConfig } from './kube-connection';
import { kubeJson } from './kube-request';

/** The patch types the CLI sends. */
export type PatchType = 'merge' | 'json';

const CONTENT_TYPES: { [type in PatchType]: string } = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

/** The API server, as the CLI uses it; every path is a full API path (`/api/v1/nodes`, `/apis/...`). */
export interface KubeApi {
  get(path: string): Promise<any>;
  /** Every item of a list (all pages), each with `kind` set from the list's kind. */
  list(path: string): Promise<any[]>;
  create(path: string, body: unknown): Promise<any>;
  patch(path: string, body: unknown, type: PatchType): Promise<any>;
  delete(path: string): Promise<any>;
  /** Closes the connections (the process may then exit). */
  close(): void;
}

/** How long one call may take before the CLI gives up on it. */
export const KUBE_CALL_TIMEOUT_MS = 30_000;

/** The API server of `config`, over one keep-alive agent. */
export function httpsKubeApi(config: ClusterConfig, timeoutMs = KUBE_CALL_TIMEOUT_MS): KubeApi {
  const agent: https.Agent = apiServerAgent(config, { keepAlive: true });
  const call = (method: string, path: string, body?: unknown, contentType?: string) =>
    kubeJson(config, agent, method, path, { deadline: Date.now() + timeoutMs, timeoutMs }, body, contentType);
  return {
    get: (path) => call('GET', path),
    list: (path) => listPages((pageAt) => call('GET', pageAt), path),
    create: (path, body) => call('POST', path, body),
    patch: (path, body, type) => call('PATCH', path, body, CONTENT_TYPES[type]),
    delete: (path) => call('DELETE', path),
    close: () => agent.destroy(),
  };
}

/** Every item of the list at `path`, page by page through `get`, each with `kind` and `apiVersion` from its list. */
export async function listPages(get: (pathAndQuery: string) => Promise<any>, path: string): Promise<any[]> {
  const items: any[] = [];
  let cont: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '500', ...(cont ? { continue: cont } : {}) });
    const page = await get(`${path}${path.includes('?') ? '&' : '?'}${query}`);
    const kind = typeof page?.kind === 'string' ? page.kind.replace(/List$/, '') : undefined;
    items.push(...(Array.isArray(page?.items) ? page.items : []).map((i: any) => ({ kind, apiVersion: page.apiVersion, ...i })));
    cont = page?.metadata?.continue || undefined;
  } while (cont);
  return items;
}
