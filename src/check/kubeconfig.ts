/**
 * The nodes of a live cluster for the zone check's inventory (`cdk8s-zones check --kubeconfig FILE`): one
 * kubeconfig's current context, read as kubectl reads it (relative paths from the file's folder), and
 * `GET /api/v1/nodes` (paged). Only what a read-only check needs: a bearer token (`token`, `tokenFile`) or a
 * client certificate, the cluster's CA and `tls-server-name`, https only. Anything else is refused with the
 * file, the user and the reason, never ignored.
 */
import * as fs from 'fs';
import * as https from 'https';
import * as path from 'path';
import { parseSingleDocument } from './manifest-text';

/** A kubeconfig's connection for its current context. */
export interface KubeConnection {
  readonly server: URL;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly token?: string;
  readonly servername?: string;
}

/** The connection of `file`'s current context; throws an Error naming the file and the reason. */
export function kubeConnection(file: string, readFile: (file: string) => Buffer = fs.readFileSync): KubeConnection {
  const config = parseSingleDocument(file, readFile(file).toString('utf8')) as any;
  const fail = (why: string) => new Error(`kubeconfig ${file}: ${why}`);
  const contextName = config?.['current-context'];
  if (typeof contextName !== 'string' || contextName === '') throw fail('has no current-context');
  const context = named(config.contexts, contextName)?.context;
  if (!context) throw fail(`has no context ${JSON.stringify(contextName)}`);
  const cluster = named(config.clusters, context.cluster)?.cluster;
  if (!cluster) throw fail(`context ${contextName} names cluster ${JSON.stringify(context.cluster)}, which it does not define`);
  const userName = context.user;
  const user = named(config.users, userName)?.user ?? {};
  const refuse = (why: string) => fail(`user ${JSON.stringify(userName)}: ${why}`);
  for (const [field, why] of [
    ['exec', 'exec credential plugins are not supported (they run programs)'],
    ['auth-provider', 'auth providers are not supported'],
    ['username', 'basic authentication is not supported'],
    ['as', 'impersonation is not supported'],
  ] as const) {
    if (user[field] !== undefined) throw refuse(why);
  }
  if (cluster['insecure-skip-tls-verify']) throw fail(`cluster ${context.cluster}: insecure-skip-tls-verify is refused (the server must be verified)`);
  if (cluster['proxy-url'] !== undefined) throw fail(`cluster ${context.cluster}: proxy-url is not supported`);
  let server: URL;
  try {
    server = new URL(String(cluster.server));
  } catch {
    throw fail(`cluster ${context.cluster}: server ${JSON.stringify(cluster.server)} is not a URL`);
  }
  if (server.protocol !== 'https:') throw fail(`cluster ${context.cluster}: server ${server.href} is not https`);
  const dir = path.dirname(file);
  const bytes = (data: unknown, fileField: unknown): Buffer | undefined => {
    if (typeof data === 'string') return Buffer.from(data, 'base64');
    if (typeof fileField === 'string') return readFile(path.resolve(dir, fileField));
    return undefined;
  };
  const tokenFile = typeof user.tokenFile === 'string' ? readFile(path.resolve(dir, user.tokenFile)).toString('utf8').trim() : undefined;
  return {
    server,
    ca: bytes(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: bytes(user['client-certificate-data'], user['client-certificate']),
    key: bytes(user['client-key-data'], user['client-key']),
    token: typeof user.token === 'string' ? user.token : tokenFile,
    servername: typeof cluster['tls-server-name'] === 'string' ? cluster['tls-server-name'] : undefined,
  };
}

/** How long listing the nodes may take, all pages together, before the check gives up. */
export const LIST_NODES_TIMEOUT_MS = 30_000;

/** Every Node of the cluster, as a NodeList (`kubectl get nodes -o json`), within `timeoutMs` in all. */
export async function listNodes(connection: KubeConnection, timeoutMs = LIST_NODES_TIMEOUT_MS): Promise<{ kind: 'NodeList'; items: any[] }> {
  const deadline = Date.now() + timeoutMs;
  const items: any[] = [];
  let cont: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '500', ...(cont ? { continue: cont } : {}) });
    const page = await getJson(connection, `/api/v1/nodes?${query}`, deadline, timeoutMs);
    items.push(...(Array.isArray(page.items) ? page.items : []));
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { kind: 'NodeList', items: items.map((n) => ({ kind: 'Node', ...n })) };
}

/** GET as JSON; the request is cut at `deadline` whatever stage it is in (connecting, TLS, waiting, reading). */
function getJson(c: KubeConnection, pathAndQuery: string, deadline: number, timeoutMs: number): Promise<any> {
  const base = c.server.pathname.replace(/\/$/, '');
  return new Promise((resolve, reject) => {
    const req = https.request({
      protocol: 'https:',
      hostname: c.server.hostname,
      port: c.server.port || 443,
      path: `${base}${pathAndQuery}`,
      method: 'GET',
      ca: c.ca,
      cert: c.cert,
      key: c.key,
      servername: c.servername,
      headers: { Accept: 'application/json', ...(c.token ? { Authorization: `Bearer ${c.token}` } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`GET ${c.server.origin}${base}${pathAndQuery}: HTTP ${res.statusCode} ${body.slice(0, 200)}`));
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error(`GET ${c.server.origin}${base}${pathAndQuery}: the answer is not JSON`));
        }
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`GET ${c.server.origin}: no answer within ${timeoutMs / 1000} s`)), Math.max(0, deadline - Date.now()));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end();
  });
}

function named(list: unknown, name: unknown): any {
  return Array.isArray(list) ? list.find((e) => e?.name === name) : undefined;
}
