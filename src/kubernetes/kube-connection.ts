/**
 * Where the Kubernetes API server is, who the caller is to it, and the HTTPS options to reach it: one reading
 * for both programs that talk to a live cluster, the zone check (`cdk8s-zones check --kubeconfig`) and the
 * runtime controller, so they accept and refuse the same kubeconfigs with the same messages.
 *
 * In a pod: its service account (token file re-read as the kubelet rotates it, CA file,
 * KUBERNETES_SERVICE_HOST/PORT). Elsewhere: a kubeconfig's current context (several files merged as kubectl
 * merges KUBECONFIG; relative paths from the file that names them): client certificate and key as files or
 * base64 data, a bearer token inline or as a file, the CA as a file or data, `tls-server-name`. Credentials
 * that cannot be used safely are refused with the kubeconfig and the user or cluster named: credential
 * plugins (`exec`, `auth-provider`), basic auth, impersonation, proxies, `insecure-skip-tls-verify` and
 * plain http.
 *
 * Node.js built-ins only: each caller brings its YAML parser (the library ships js-yaml, the controller's
 * image `yaml`), so neither package gains a dependency. Internal: not exported from index.ts.
 */
import * as fs from 'fs';
import type * as https from 'https';
import * as os from 'os';
import * as path from 'path';

/** Where a pod's service account token, CA and namespace are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Points the in-cluster files elsewhere: only tests set it (a pod has them at SERVICE_ACCOUNT_DIR). */
export const SERVICE_ACCOUNT_DIR_ENV = 'CDK8S_ZONES_SERVICE_ACCOUNT_DIR';
/** How long a token read from a file is used before the file is read again (client-go's period). */
export const TOKEN_REFRESH_MS = 60_000;

/** A kubeconfig's text as data (YAML or JSON); it may throw, and the message is given with the file named. */
export type KubeconfigParser = (file: string, text: string) => unknown;

/** A bearer token: fixed, or a file read again every TOKEN_REFRESH_MS and at once when the server refuses it. */
export interface TokenSource {
  /** The token to send now (cheap: a file is read at most once per refresh period). */
  current(): string;
  /** The server answered 401: reads the file again now; true when that gave another token (worth a retry). */
  refresh(): boolean;
}

export interface ClusterConfig {
  /** `https://host:port`, maybe with a path the API is served under. */
  readonly server: URL;
  /** PEM: the CA the server's certificate must chain to; without it, the system's CAs. */
  readonly ca?: Buffer;
  /** PEM client certificate and key, always both or neither. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /**
   * The name the server's certificate is checked against when it differs from the server's host (`tls-server-name`).
   */
  readonly serverName?: string;
  readonly token?: TokenSource;
  /** Where this came from, for messages: `in-cluster (...)` or `kubeconfig FILE (context C, user U)`. */
  readonly source: string;
}

export function staticToken(token: string): TokenSource {
  return { current: () => token, refresh: () => false };
}

/** The token in `file`, read now (so a missing or empty file fails at start) and again as it ages. */
export function fileToken(file: string, refreshMs = TOKEN_REFRESH_MS, now: () => number = Date.now): TokenSource {
  const read = () => {
    const token = fs.readFileSync(file, 'utf8').trim();
    if (token === '') throw new Error(`token file ${file} is empty`);
    return token;
  };
  let token = read();
  let readAt = now();
  /** Reads the file again; a failed read (the kubelet swapping the file) keeps the last token until the next try. */
  const reread = () => {
    readAt = now();
    try {
      const fresh = read();
      const changed = fresh !== token;
      token = fresh;
      return changed;
    } catch {
      return false;
    }
  };
  return {
    current() {
      if (now() - readAt >= refreshMs) reread();
      return token;
    },
    refresh: reread,
  };
}

/** The directory of the in-cluster files: SERVICE_ACCOUNT_DIR unless a test points it elsewhere. */
export function serviceAccountDir(env: NodeJS.ProcessEnv = process.env): string {
  return env[SERVICE_ACCOUNT_DIR_ENV] || SERVICE_ACCOUNT_DIR;
}

/** `host` in a URL: an IPv6 address in brackets. */
const urlHost = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** The pod's service account: the API server at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT. */
export function inClusterConfig(env: NodeJS.ProcessEnv = process.env, dir = serviceAccountDir(env)): ClusterConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set');
  const source = `in-cluster (service account files in ${dir})`;
  try {
    return {
      server: new URL(`https://${urlHost(host)}:${port}`),
      ca: fs.readFileSync(path.join(dir, 'ca.crt')),
      token: fileToken(path.join(dir, 'token')),
      source,
    };
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`);
  }
}

type Fields = Record<string, unknown>;

/** A named entry of a kubeconfig with the file it came from (its relative paths resolve against that file). */
interface Entry {
  readonly fields: Fields;
  readonly file: string;
}

/** One kubeconfig's named entries, or several merged. */
interface KubeconfigEntries {
  currentContext?: string;
  readonly clusters: Map<string, Entry>;
  readonly users: Map<string, Entry>;
  readonly contexts: Map<string, Entry>;
}

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `name`d entries of a kubeconfig list (`clusters`, `users`, `contexts`), each one's `field` object. */
function namedEntries(file: string, doc: Fields, list: string, field: string): Map<string, Entry> {
  const raw = doc[list] ?? [];
  if (!Array.isArray(raw)) throw new Error(`kubeconfig ${file}: ${list} must be a list`);
  const entries = new Map<string, Entry>();
  raw.forEach((entry: unknown, i) => {
    if (!isFields(entry) || typeof entry.name !== 'string' || !isFields(entry[field] ?? {})) {
      throw new Error(`kubeconfig ${file}: ${list}[${i}] must have a name and a ${field} object`);
    }
    if (!entries.has(entry.name)) entries.set(entry.name, { fields: (entry[field] ?? {}) as Fields, file });
  });
  return entries;
}

/** Reads one kubeconfig file with the caller's parser. */
function readKubeconfig(file: string, parse: KubeconfigParser): KubeconfigEntries {
  let doc: unknown;
  try {
    doc = parse(file, fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`kubeconfig ${file}: ${(err as Error).message}`);
  }
  if (!isFields(doc)) throw new Error(`kubeconfig ${file}: not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`);
  const current = doc['current-context'];
  return {
    currentContext: typeof current === 'string' && current !== '' ? current : undefined,
    clusters: namedEntries(file, doc, 'clusters', 'cluster'),
    users: namedEntries(file, doc, 'users', 'user'),
    contexts: namedEntries(file, doc, 'contexts', 'context'),
  };
}

/** Several kubeconfig files as kubectl merges them: the first file to name an entry (or a current context) wins. */
function mergeKubeconfigs(files: readonly string[], parse: KubeconfigParser): KubeconfigEntries {
  const merged: KubeconfigEntries = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    const one = readKubeconfig(file, parse);
    merged.currentContext ??= one.currentContext;
    for (const list of ['clusters', 'users', 'contexts'] as const) {
      for (const [name, entry] of one[list]) if (!merged[list].has(name)) merged[list].set(name, entry);
    }
  }
  return merged;
}

/** PEM blocks: a certificate, or a private key of any type (`RSA PRIVATE KEY`, `EC PRIVATE KEY`, `PRIVATE KEY`). */
type Pem = 'CERTIFICATE' | 'PRIVATE KEY';
const holdsPem = (bytes: Buffer, pem: Pem) => new RegExp(`-----BEGIN [A-Z ]*${pem}-----`).test(bytes.toString('latin1'));

/**
 * A credential given as a file (relative to its kubeconfig) or as base64 `<field>-data` (which wins, as in
 * kubectl); undefined when neither is set. Checked to be PEM now, so a wrong file fails here rather than
 * as a TLS error at the first request.
 */
function material(where: string, entry: Entry, field: string, pem: Pem): Buffer | undefined {
  const data = entry.fields[`${field}-data`];
  const file = entry.fields[field];
  const what = pem.toLowerCase();
  if (data !== undefined && data !== '') {
    if (typeof data !== 'string') throw new Error(`${where}: ${field}-data must be a string (base64)`);
    const bytes = Buffer.from(data, 'base64');
    if (!holdsPem(bytes, pem)) throw new Error(`${where}: ${field}-data is not base64 of a PEM ${what}`);
    return bytes;
  }
  if (file === undefined || file === '') return undefined;
  if (typeof file !== 'string') throw new Error(`${where}: ${field} must be a file name`);
  const resolved = path.resolve(path.dirname(entry.file), file);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(resolved);
  } catch (err) {
    throw new Error(`${where}: ${field} ${resolved}: ${(err as Error).message}`);
  }
  if (!holdsPem(bytes, pem)) throw new Error(`${where}: ${field} ${resolved} is not a PEM ${what}`);
  return bytes;
}

/** User fields that need what neither caller does (run programs, send passwords, act as another user). */
const REFUSED_USER_FIELDS: ReadonlyArray<[string, string]> = [
  ['exec', 'runs an exec credential plugin, which is not supported (it would run a program)'],
  ['auth-provider', 'uses an auth-provider plugin, which is not supported'],
  ['username', 'uses basic authentication (username/password), which Kubernetes removed'],
  ['password', 'uses basic authentication (username/password), which Kubernetes removed'],
  ['as', 'impersonates another user (as), which is not supported'],
  ['as-groups', 'impersonates groups (as-groups), which is not supported'],
];

function clusterOf(where: string, cluster: Entry): Pick<ClusterConfig, 'server' | 'ca' | 'serverName'> {
  const { fields } = cluster;
  const insecure = fields['insecure-skip-tls-verify'];
  // anything but absent or false is refused: a string "true" must not slip through as "not the boolean true"
  if (insecure !== undefined && insecure !== null && insecure !== false) {
    throw new Error(`${where}: insecure-skip-tls-verify is set; the API server must be verified: give certificate-authority or certificate-authority-data`);
  }
  if (fields['proxy-url'] !== undefined) throw new Error(`${where}: proxy-url is set; proxies are not supported (the API server is connected to directly)`);
  const server = fields.server;
  if (typeof server !== 'string' || server === '') throw new Error(`${where}: no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new Error(`${where}: server ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new Error(`${where}: server ${server} must be https://`);
  const serverName = fields['tls-server-name'];
  return {
    server: url,
    ca: material(where, cluster, 'certificate-authority', 'CERTIFICATE'),
    ...(typeof serverName === 'string' && serverName !== '' ? { serverName } : {}),
  };
}

/** The bearer token: a tokenFile wins over an inline token (client-go sends the file's token when it can read it). */
function tokenOf(where: string, user: Entry): TokenSource | undefined {
  const { tokenFile, token } = user.fields;
  if (typeof tokenFile === 'string' && tokenFile !== '') {
    const resolved = path.resolve(path.dirname(user.file), tokenFile);
    try {
      return fileToken(resolved);
    } catch (err) {
      throw new Error(`${where}: tokenFile ${resolved}: ${(err as Error).message}`);
    }
  }
  return typeof token === 'string' && token !== '' ? staticToken(token) : undefined;
}

function credentialsOf(where: string, user: Entry): Pick<ClusterConfig, 'cert' | 'key' | 'token'> {
  for (const [field, why] of REFUSED_USER_FIELDS) {
    if (user.fields[field] !== undefined) throw new Error(`${where} ${why}; give it a client certificate, a token or a tokenFile`);
  }
  const cert = material(where, user, 'client-certificate', 'CERTIFICATE');
  const key = material(where, user, 'client-key', 'PRIVATE KEY');
  if ((cert === undefined) !== (key === undefined)) throw new Error(`${where}: a client certificate needs its key and a key its certificate`);
  return { cert, key, token: tokenOf(where, user) };
}

/** The current context of the kubeconfig file(s) `files` (several: merged as kubectl does), read with `parse`. */
export function kubeconfigConfig(files: readonly string[], parse: KubeconfigParser): ClusterConfig {
  const name = files.join(path.delimiter);
  const kc = mergeKubeconfigs(files, parse);
  if (!kc.currentContext) throw new Error(`kubeconfig ${name}: no current-context`);
  const context = kc.contexts.get(kc.currentContext);
  if (!context) throw new Error(`kubeconfig ${name}: current-context ${kc.currentContext} is not among its contexts`);
  const clusterName = context.fields.cluster;
  const cluster = typeof clusterName === 'string' ? kc.clusters.get(clusterName) : undefined;
  if (!cluster) throw new Error(`kubeconfig ${name}: context ${kc.currentContext} names cluster ${String(clusterName)}, which is not among its clusters`);
  const userName = context.fields.user;
  const user = typeof userName === 'string' && userName !== '' ? kc.users.get(userName) : undefined;
  if (typeof userName === 'string' && userName !== '' && !user) {
    throw new Error(`kubeconfig ${name}: context ${kc.currentContext} names user ${userName}, which is not among its users`);
  }
  return {
    ...clusterOf(`kubeconfig ${cluster.file}: cluster ${clusterName}`, cluster),
    ...(user ? credentialsOf(`kubeconfig ${user.file}: user ${userName}`, user) : {}),
    source: `kubeconfig ${name} (context ${kc.currentContext}, user ${userName || 'none'})`,
  };
}

export interface ConfigSelection {
  /** `--kubeconfig`. */
  readonly kubeconfig?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The home directory (for ~/.kube/config). */
  readonly home?: string;
}

/**
 * Where to connect, as kubectl and client-go decide: the kubeconfig given; else in-cluster when
 * KUBERNETES_SERVICE_HOST is set and KUBECONFIG is not; else the files of KUBECONFIG; else ~/.kube/config.
 */
export function loadClusterConfig(opts: ConfigSelection, parse: KubeconfigParser): ClusterConfig {
  const env = opts.env ?? process.env;
  if (opts.kubeconfig) return kubeconfigConfig([opts.kubeconfig], parse);
  if (env.KUBERNETES_SERVICE_HOST && !env.KUBECONFIG) return inClusterConfig(env);
  const listed = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
  const files = listed.length > 0 ? listed : [path.join(opts.home ?? os.homedir(), '.kube', 'config')];
  const existing = files.filter((f) => fs.existsSync(f));
  if (existing.length === 0) throw new Error(`no Kubernetes cluster configured: no kubeconfig at ${files.join(', ')} and not in a pod (KUBERNETES_SERVICE_HOST unset)`);
  return kubeconfigConfig(existing, parse);
}

/**
 * node:https, loaded when a first connection is made: `cdk8s-zones check` of files never connects, and loading https
 * (and tls) at its start was a measurable part of it (bench/check.ts, "Zone check").
 */
export function httpsLazily(): typeof https {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('https');
}

/** An agent for connections to the API server: its TLS side (CA, client certificate, name to verify) and `options`. */
export function apiServerAgent(config: ClusterConfig, options: https.AgentOptions = {}): https.Agent {
  return new (httpsLazily().Agent)({
    ca: config.ca,
    cert: config.cert,
    key: config.key,
    servername: config.serverName,
    ...options,
  });
}

/**
 * A request to the API server through `agent`: host (an IPv6 address without the URL's brackets) and port,
 * `pathAndQuery` under the server URL's own path (a proxy such as Rancher serves a cluster at
 * https://host/k8s/clusters/ID), JSON accepted, and the bearer token as its source holds it now.
 */
export function requestOptions(
  config: ClusterConfig, method: string, pathAndQuery: string, agent: https.Agent, headers: Record<string, string> = {},
): https.RequestOptions {
  const { hostname, port, pathname } = config.server;
  return {
    hostname: hostname.replace(/^\[(.*)\]$/, '$1'),
    port: port || 443,
    method,
    path: `${pathname.replace(/\/$/, '')}${pathAndQuery}`,
    agent,
    headers: {
      Accept: 'application/json',
      ...(config.token ? { Authorization: `Bearer ${config.token.current()}` } : {}),
      ...headers,
    },
  };
}
