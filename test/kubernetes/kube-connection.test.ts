/**
 * The one kubeconfig reading of the zone check and the controller: every auth form of a kubeconfig (client
 * certificate as files or data, token, tokenFile), in-cluster files, the refused forms (each message names
 * the kubeconfig and the user or cluster), malformed files, which source wins, token rotation, and the
 * HTTPS agent and request options built from the result. Each caller's parser is tested with its caller
 * (test/check/cluster-nodes.test.ts, controller/test/kube-config.test.ts); here YAML is read with `yaml`.
 */
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import {
  apiServerAgent, ClusterConfig, ConfigSelection, fileToken, inClusterConfig, kubeconfigConfig as readWith,
  loadClusterConfig as selectWith,
  requestOptions, SERVICE_ACCOUNT_DIR_ENV, serviceAccountDir, staticToken,
} from '../../src/kubernetes/kube-connection';

const parseYaml = (_file: string, text: string): unknown => parse(text);
const kubeconfigConfig = (files: readonly string[]) => readWith(files, parseYaml);
const loadClusterConfig = (opts: ConfigSelection) => selectWith(opts, parseYaml);

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
  fs.writeFileSync(path.join(dir, 'ca.crt'), CERT);
  fs.writeFileSync(path.join(dir, 'client.crt'), CERT);
  fs.writeFileSync(path.join(dir, 'client.key'), KEY);
  fs.writeFileSync(path.join(dir, 'token'), 'file-token\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A kubeconfig in YAML (as kubectl writes it) with one cluster, one user and a current context. */
function kubeconfig(user: string, cluster = '      server: https://127.0.0.1:6443\n      certificate-authority: ca.crt', name = 'config'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `apiVersion: v1
kind: Config
clusters:
  - name: test
    cluster:
${cluster}
users:
  - name: me
    user:
${user}
contexts:
  - name: ctx
    context:
      cluster: test
      user: me
current-context: ctx
`);
  return file;
}

describe('kubeconfig', () => {
  test('client certificate and key as files, relative to the kubeconfig; the CA file; the server', () => {
    const file = kubeconfig('      client-certificate: client.crt\n      client-key: client.key');
    const c = kubeconfigConfig([file]);
    expect(c.server.href).toBe('https://127.0.0.1:6443/');
    expect([c.ca?.toString(), c.cert?.toString(), c.key?.toString(), c.token]).toEqual([CERT, CERT, KEY, undefined]);
    expect(c.source).toBe(`kubeconfig ${file} (context ctx, user me)`);
  });

  test('client certificate, key and CA as base64 data; tls-server-name', () => {
    const file = kubeconfig(`      client-certificate-data: ${b64(CERT)}\n      client-key-data: ${b64(KEY)}`,
      `      server: https://10.0.0.1:443\n      certificate-authority-data: ${b64(CERT)}\n      tls-server-name: kubernetes.default`);
    const c = kubeconfigConfig([file]);
    expect([c.ca?.toString(), c.cert?.toString(), c.key?.toString(), c.serverName]).toEqual([CERT, CERT, KEY, 'kubernetes.default']);
  });

  test('a bearer token inline', () => {
    const c = kubeconfigConfig([kubeconfig('      token: inline-token')]);
    expect([c.token?.current(), c.cert, c.key]).toEqual(['inline-token', undefined, undefined]);
  });

  test('a tokenFile: read at start, and again when the server refuses the token', () => {
    const c = kubeconfigConfig([kubeconfig('      tokenFile: token')]);
    expect(c.token?.current()).toBe('file-token');
    fs.writeFileSync(path.join(dir, 'token'), 'rotated');
    expect(c.token?.refresh()).toBe(true);
    expect(c.token?.current()).toBe('rotated');
    expect(c.token?.refresh()).toBe(false); // nothing new: no retry
  });

  test('an IPv6 server; the parser\'s error named with the file', () => {
    const file = kubeconfig('      token: t', '      server: https://[::1]:6443\n      certificate-authority: ca.crt');
    const c = kubeconfigConfig([file]);
    expect([c.server.hostname, c.server.port, c.token?.current()]).toEqual(['[::1]', '6443', 't']);
    const failing = () => { throw new Error('line 3: bad indentation'); };
    expect(() => readWith([file], failing)).toThrow(`kubeconfig ${file}: line 3: bad indentation`);
  });

  test.each([
    ['exec', '      exec:\n        command: aws\n        apiVersion: client.authentication.k8s.io/v1', 'runs an exec credential plugin, which is not supported (it would run a program)'],
    ['auth-provider', '      auth-provider:\n        name: gcp', 'uses an auth-provider plugin, which is not supported'],
    ['basic auth', '      username: admin\n      password: secret', 'uses basic authentication (username/password), which Kubernetes removed'],
    ['a password alone', '      password: secret', 'uses basic authentication (username/password), which Kubernetes removed'],
    ['impersonation', '      token: t\n      as: someone', 'impersonates another user (as), which is not supported'],
    ['group impersonation', '      token: t\n      as-groups: [admins]', 'impersonates groups (as-groups), which is not supported'],
  ])('%s is refused, naming the kubeconfig and the user', (_form, user, why) => {
    const file = kubeconfig(user);
    expect(() => kubeconfigConfig([file])).toThrow(`kubeconfig ${file}: user me ${why}; give it a client certificate, a token or a tokenFile`);
  });

  test('insecure-skip-tls-verify (anything but false) and proxies are refused, naming the cluster', () => {
    for (const value of ['true', '"true"', 'yes']) {
      const insecure = kubeconfig('      token: t', `      server: https://127.0.0.1:6443\n      insecure-skip-tls-verify: ${value}`);
      expect(() => kubeconfigConfig([insecure])).toThrow(`kubeconfig ${insecure}: cluster test: insecure-skip-tls-verify is set; the API server must be verified`);
    }
    const verified = kubeconfig('      token: t', '      server: https://127.0.0.1:6443\n      insecure-skip-tls-verify: false');
    expect(kubeconfigConfig([verified]).server.host).toBe('127.0.0.1:6443');
    const proxied = kubeconfig('      token: t', '      server: https://127.0.0.1:6443\n      proxy-url: http://proxy:3128');
    expect(() => kubeconfigConfig([proxied])).toThrow(`kubeconfig ${proxied}: cluster test: proxy-url is set; proxies are not supported`);
  });

  test('a tokenFile wins over an inline token (client-go sends the file\'s token); a context without a user sends none', () => {
    const both = kubeconfigConfig([kubeconfig('      token: inline-token\n      tokenFile: token')]);
    expect(both.token?.current()).toBe('file-token');
    const file = path.join(dir, 'anonymous');
    fs.writeFileSync(file, 'clusters: [{name: c, cluster: {server: "https://h"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n');
    const anonymous = kubeconfigConfig([file]);
    expect([anonymous.token, anonymous.cert, anonymous.source]).toEqual([undefined, undefined, `kubeconfig ${file} (context x, user none)`]);
  });

  test.each([
    ['not YAML', 'clusters: [\n', /kubeconfig .*\/bad: .*/],
    ['not a mapping', '- a\n- b\n', /kubeconfig .*\/bad: not a kubeconfig/],
    ['no current context', 'clusters: []\nusers: []\ncontexts: []\n', /kubeconfig .*\/bad: no current-context/],
    ['an unknown current context', 'contexts: []\ncurrent-context: nope\n', /current-context nope is not among its contexts/],
    ['a context naming no cluster', 'contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n', /context x names cluster c, which is not among its clusters/],
    ['a context naming an unknown user', 'clusters: [{name: c, cluster: {server: "https://h"}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
      /context x names user u, which is not among its users/],
    ['a list that is not a list', 'clusters: {}\ncurrent-context: x\n', /clusters must be a list/],
    ['an entry without a name', 'clusters: [{cluster: {}}]\ncurrent-context: x\n', /clusters\[0\] must have a name and a cluster object/],
    ['no server', 'clusters: [{name: c, cluster: {}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n', /cluster c: no server/],
    ['a plain-HTTP server', 'clusters: [{name: c, cluster: {server: "http://h:8080"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n',
      /cluster c: server http:\/\/h:8080 must be https:\/\//],
    ['a server that is not a URL', 'clusters: [{name: c, cluster: {server: "https://h:99999"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n',
      /cluster c: server "https:\/\/h:99999" is not a URL/],
  ])('malformed: %s', (_case, text, message) => {
    const file = path.join(dir, 'bad');
    fs.writeFileSync(file, text);
    expect(() => kubeconfigConfig([file])).toThrow(message);
  });

  test('credentials that are not what they say: named with the field and the file', () => {
    const missing = kubeconfig('      client-certificate: nope.crt\n      client-key: client.key');
    expect(() => kubeconfigConfig([missing])).toThrow(`kubeconfig ${missing}: user me: client-certificate ${path.join(dir, 'nope.crt')}: ENOENT`);
    const swapped = kubeconfig('      client-certificate: client.key\n      client-key: client.crt');
    expect(() => kubeconfigConfig([swapped])).toThrow(`user me: client-certificate ${path.join(dir, 'client.key')} is not a PEM certificate`);
    const garbage = kubeconfig(`      client-certificate-data: ${b64('hello')}\n      client-key-data: ${b64(KEY)}`);
    expect(() => kubeconfigConfig([garbage])).toThrow('user me: client-certificate-data is not base64 of a PEM certificate');
    const halfPair = kubeconfig('      client-certificate: client.crt');
    expect(() => kubeconfigConfig([halfPair])).toThrow('user me: a client certificate needs its key and a key its certificate');
    const noToken = kubeconfig('      tokenFile: absent');
    expect(() => kubeconfigConfig([noToken])).toThrow(`user me: tokenFile ${path.join(dir, 'absent')}: ENOENT`);
    fs.writeFileSync(path.join(dir, 'empty'), '\n');
    const emptyToken = kubeconfig('      tokenFile: empty');
    expect(() => kubeconfigConfig([emptyToken])).toThrow(`token file ${path.join(dir, 'empty')} is empty`);
  });

  test('several files (KUBECONFIG): the first to name an entry or a current context wins', () => {
    const first = kubeconfig('      token: first', undefined, 'a');
    const second = path.join(dir, 'b');
    fs.writeFileSync(second, 'users: [{name: me, user: {token: second}}]\ncurrent-context: ctx\n');
    const merged = kubeconfigConfig([second, first]);
    expect([merged.token?.current(), merged.server.host]).toEqual(['second', '127.0.0.1:6443']);
    expect(merged.source).toBe(`kubeconfig ${second}:${first} (context ctx, user me)`);
    expect(kubeconfigConfig([first, second]).token?.current()).toBe('first');
    fs.writeFileSync(second, 'current-context: elsewhere\n');
    expect(() => kubeconfigConfig([second, first])).toThrow('current-context elsewhere is not among its contexts');
  });
});

describe('in-cluster', () => {
  test('KUBERNETES_SERVICE_HOST/PORT, the token and CA files of the service account directory', () => {
    const c = inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir);
    expect([c.server.href, c.ca?.toString(), c.token?.current()]).toEqual(['https://[fd00::1]/', CERT, 'file-token']);
    expect(c.source).toBe(`in-cluster (service account files in ${dir})`);
  });

  test('missing pieces are named', () => {
    expect(() => inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, dir)).toThrow('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set');
    fs.rmSync(path.join(dir, 'token'));
    expect(() => inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir))
      .toThrow(`in-cluster (service account files in ${dir}): ENOENT`);
  });

  test('the directory: the pod\'s mount, unless a test points it elsewhere', () => {
    expect(serviceAccountDir({})).toBe('/var/run/secrets/kubernetes.io/serviceaccount');
    expect(serviceAccountDir({ [SERVICE_ACCOUNT_DIR_ENV]: dir })).toBe(dir);
  });
});

describe('which source', () => {
  const inCluster = () => ({
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: '6443',
    [SERVICE_ACCOUNT_DIR_ENV]: dir,
  });

  test('--kubeconfig, else in-cluster without KUBECONFIG, else KUBECONFIG, else ~/.kube/config', () => {
    const file = kubeconfig('      token: from-file');
    expect(loadClusterConfig({ kubeconfig: file, env: inCluster() }).token?.current()).toBe('from-file');
    expect(loadClusterConfig({ env: inCluster() }).source).toMatch(/^in-cluster/);
    expect(loadClusterConfig({ env: { ...inCluster(), KUBECONFIG: file } }).token?.current()).toBe('from-file');
    fs.mkdirSync(path.join(dir, '.kube'));
    fs.copyFileSync(file, path.join(dir, '.kube', 'config'));
    fs.copyFileSync(path.join(dir, 'ca.crt'), path.join(dir, '.kube', 'ca.crt'));
    expect(loadClusterConfig({ env: {}, home: dir }).source).toBe(`kubeconfig ${path.join(dir, '.kube', 'config')} (context ctx, user me)`);
  });

  test('nothing configured: says where it looked', () => {
    expect(() => loadClusterConfig({ env: {}, home: dir }))
      .toThrow(`no Kubernetes cluster configured: no kubeconfig at ${path.join(dir, '.kube', 'config')} and not in a pod (KUBERNETES_SERVICE_HOST unset)`);
  });
});

describe('a token file rotating', () => {
  test('re-read once its refresh period has passed, not before; a failed read keeps the last token', () => {
    const file = path.join(dir, 'token');
    let now = 0;
    const token = fileToken(file, 60_000, () => now);
    fs.writeFileSync(file, 'second');
    now = 59_999;
    expect(token.current()).toBe('file-token');
    now = 60_000;
    expect(token.current()).toBe('second');
    fs.rmSync(file); // the kubelet swaps the file
    now = 120_000;
    expect(token.current()).toBe('second');
    fs.writeFileSync(file, 'third');
    now = 180_000;
    expect(token.current()).toBe('third');
  });
});

describe('HTTPS', () => {
  const config = (server: string, token?: string): ClusterConfig => ({
    server: new URL(server),
    ca: Buffer.from('CA'),
    cert: Buffer.from('CERT'),
    key: Buffer.from('KEY'),
    serverName: 'api.internal',
    token: token === undefined ? undefined : staticToken(token),
    source: 'test',
  });

  test('the agent carries the TLS side: CA, client certificate and key, the name to verify; and the caller\'s options', () => {
    const agent = apiServerAgent(config('https://10.0.0.1:6443'), { keepAlive: true, maxSockets: 4 });
    const { ca, cert, key, servername, keepAlive, maxSockets } = agent.options as https.AgentOptions;
    expect([ca?.toString(), cert?.toString(), key?.toString(), servername, keepAlive, maxSockets])
      .toEqual(['CA', 'CERT', 'KEY', 'api.internal', true, 4]);
    agent.destroy();
  });

  test('a request: host without IPv6 brackets, port (443 by default), the server\'s own path as prefix, JSON, the token', () => {
    const agent = apiServerAgent(config('https://[fd00::1]'));
    const proxied = requestOptions(config('https://[fd00::1]/k8s/clusters/c-1/', 't0'), 'GET', '/api/v1/nodes?limit=500', agent, { 'User-Agent': 'ua' });
    expect([proxied.hostname, proxied.port, proxied.method, proxied.path, proxied.agent])
      .toEqual(['fd00::1', 443, 'GET', '/k8s/clusters/c-1/api/v1/nodes?limit=500', agent]);
    expect(proxied.headers).toEqual({ 'Accept': 'application/json', 'Authorization': 'Bearer t0', 'User-Agent': 'ua' });
    const plain = requestOptions(config('https://10.0.0.1:6443'), 'PATCH', '/api/v1/pods', agent);
    expect([plain.hostname, plain.port, plain.path, plain.headers]).toEqual(['10.0.0.1', '6443', '/api/v1/pods', { Accept: 'application/json' }]);
    agent.destroy();
  });
});
