/**
 * Where the API server is and who the controller is to it: in a pod, its service account (token file
 * re-read as the kubelet rotates it, CA file, KUBERNETES_SERVICE_HOST/PORT); elsewhere a kubeconfig file
 * (its current context: client certificate and key as files or base64 data, a bearer token inline or as a
 * file, the CA as a file or data). Credentials the controller cannot use safely are refused with the
 * kubeconfig and the user named: credential plugins (`exec`, `auth-provider`), basic auth, impersonation,
 * proxies and `insecure-skip-tls-verify`.
 */
import * as fs from 'fs';
import { createRequire } from 'module';
import * as os from 'os';
import * as path from 'path';

/** Loads a package when first needed (jest, which runs this file, cannot run `import()`). */
const requireLazily = createRequire(__filename);

/** Where a pod's service account token, CA and namespace are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Points the in-cluster files elsewhere: only tests set it (a pod has them at SERVICE_ACCOUNT_DIR). */
export const SERVICE_ACCOUNT_DIR_ENV = 'CDK8S_ZONES_SERVICE_ACCOUNT_DIR';
/** How long a token read from a file is used before the file is read again (client-go's period). */
export const TOKEN_REFRESH_MS = 60_000;

/** A bearer token: fixed, or a file read again every TOKEN_REFRESH_MS and at once when the server refuses it. */
export interface TokenSource {
  /** The token to send now (cheap: a file is read at most once per refresh period). */
  current(): string;
  /** The server answered 401: reads the file again now; true when that gave another token (worth a retry). */
  refresh(): boolean;
}

export interface ClusterConfig {
  /** `https://host:port`. */
  readonly server: URL;
  /** PEM: the CA the server's certificate must chain to; without it, the system's CAs. */
  readonly ca?: Buffer;
  /** PEM client certificate and key, always both or neither. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** The name the server's certificate is checked against when it differs from the server's host (`tls-server-name`). */
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

/** One kubeconfig file's named entries, each with the file it came from (relative paths resolve against it). */
interface KubeconfigEntries {
  currentContext?: string;
  readonly clusters: Map<string, { fields: Fields; file: string }>;
  readonly users: Map<string, { fields: Fields; file: string }>;
  readonly contexts: Map<string, { fields: Fields; file: string }>;
}

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `name`d entries of a kubeconfig list (`clusters`, `users`, `contexts`), each one's `field` object. */
function namedEntries(file: string, doc: Fields, list: string, field: string): Map<string, Fields> {
  const raw = doc[list] ?? [];
  if (!Array.isArray(raw)) throw new Error(`kubeconfig ${file}: ${list} must be a list`);
  const entries = new Map<string, Fields>();
  raw.forEach((entry, i) => {
    if (!isFields(entry) || typeof entry.name !== 'string' || !isFields(entry[field] ?? {})) {
      throw new Error(`kubeconfig ${file}: ${list}[${i}] must have a name and a ${field} object`);
    }
    if (!entries.has(entry.name)) entries.set(entry.name, (entry[field] ?? {}) as Fields);
  });
  return entries;
}

/**
 * A kubeconfig's text as data. JSON (which is YAML) is parsed as JSON; the YAML parser is loaded only for
 * YAML, so a controller in a pod (no kubeconfig) or on a JSON kubeconfig never holds it in memory.
 */
function parseKubeconfig(text: string): unknown {
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  const { parse } = requireLazily('yaml') as typeof import('yaml');
  return parse(text);
}

/** Reads one kubeconfig file (YAML, or JSON). */
function readKubeconfig(file: string): KubeconfigEntries {
  let doc: unknown;
  try {
    doc = parseKubeconfig(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`kubeconfig ${file}: ${(err as Error).message}`);
  }
  if (!isFields(doc)) throw new Error(`kubeconfig ${file}: not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`);
  const current = doc['current-context'];
  const withFile = (m: Map<string, Fields>) => new Map([...m].map(([name, fields]) => [name, { fields, file }]));
  return {
    currentContext: typeof current === 'string' && current !== '' ? current : undefined,
    clusters: withFile(namedEntries(file, doc, 'clusters', 'cluster')),
    users: withFile(namedEntries(file, doc, 'users', 'user')),
    contexts: withFile(namedEntries(file, doc, 'contexts', 'context')),
  };
}

/** Several kubeconfig files as kubectl merges them: the first file to name an entry (or a current context) wins. */
function mergeKubeconfigs(files: readonly string[]): KubeconfigEntries {
  const merged: KubeconfigEntries = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    const one = readKubeconfig(file);
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
function material(where: string, entry: { fields: Fields; file: string }, field: string, pem: Pem): Buffer | undefined {
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

/** User fields that need what the controller does not do (run programs, send passwords, act as another user). */
const REFUSED_USER_FIELDS: ReadonlyArray<[string, string]> = [
  ['exec', 'runs a credential plugin (exec), which the controller does not run'],
  ['auth-provider', 'uses an auth-provider plugin, which the controller does not support'],
  ['username', 'uses basic authentication (username/password), which Kubernetes removed'],
  ['password', 'uses basic authentication (username/password), which Kubernetes removed'],
  ['as', 'impersonates another user (as), which the controller does not do'],
  ['as-groups', 'impersonates groups (as-groups), which the controller does not do'],
];

function clusterOf(where: string, cluster: { fields: Fields; file: string }): Pick<ClusterConfig, 'server' | 'ca' | 'serverName'> {
  const { fields } = cluster;
  if (fields['insecure-skip-tls-verify'] === true) {
    throw new Error(`${where}: insecure-skip-tls-verify is set; the controller only talks to an API server it can verify: give certificate-authority or certificate-authority-data`);
  }
  if (fields['proxy-url'] !== undefined) throw new Error(`${where}: proxy-url is set; the controller connects to the API server directly`);
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

function credentialsOf(where: string, user: { fields: Fields; file: string }): Pick<ClusterConfig, 'cert' | 'key' | 'token'> {
  const { fields } = user;
  for (const [field, why] of REFUSED_USER_FIELDS) {
    if (fields[field] !== undefined) throw new Error(`${where} ${why}; give it a client certificate, a token or a tokenFile`);
  }
  const cert = material(where, user, 'client-certificate', 'CERTIFICATE');
  const key = material(where, user, 'client-key', 'PRIVATE KEY');
  if ((cert === undefined) !== (key === undefined)) throw new Error(`${where}: a client certificate needs its key and a key its certificate`);
  const tokenFile = fields.tokenFile;
  const token = fields.token;
  let source: TokenSource | undefined;
  if (typeof tokenFile === 'string' && tokenFile !== '') {
    const resolved = path.resolve(path.dirname(user.file), tokenFile);
    try {
      source = fileToken(resolved);
    } catch (err) {
      throw new Error(`${where}: tokenFile ${resolved}: ${(err as Error).message}`);
    }
  } else if (typeof token === 'string' && token !== '') {
    source = staticToken(token);
  }
  return { cert, key, token: source };
}

/** The current context of the kubeconfig file(s) `files` (several: merged as kubectl does). */
export function kubeconfigConfig(files: readonly string[]): ClusterConfig {
  const name = files.join(path.delimiter);
  const kc = mergeKubeconfigs(files);
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
export function loadClusterConfig(opts: ConfigSelection = {}): ClusterConfig {
  const env = opts.env ?? process.env;
  if (opts.kubeconfig) return kubeconfigConfig([opts.kubeconfig]);
  if (env.KUBERNETES_SERVICE_HOST && !env.KUBECONFIG) return inClusterConfig(env);
  const listed = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
  const files = listed.length > 0 ? listed : [path.join(opts.home ?? os.homedir(), '.kube', 'config')];
  const existing = files.filter((f) => fs.existsSync(f));
  if (existing.length === 0) throw new Error(`no Kubernetes cluster configured: no kubeconfig at ${files.join(', ')} and not in a pod (KUBERNETES_SERVICE_HOST unset)`);
  return kubeconfigConfig(existing);
}
