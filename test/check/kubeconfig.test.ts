/** `cdk8s-zones check --kubeconfig`: the connection read as kubectl reads it, and what is refused. */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { stringify } from 'yaml';
import { kubeConnection, listNodes } from '../../src/check/kubeconfig';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, config: { cluster?: any; user?: any; current?: string }): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, stringify({
    'apiVersion': 'v1',
    'kind': 'Config',
    'current-context': config.current ?? 'ctx',
    'contexts': [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'clusters': [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', ...config.cluster } }],
    'users': [{ name: 'u', user: config.user ?? {} }],
  }));
  return file;
}

test('token file and CA file relative to the kubeconfig, client certificate data, tls-server-name', () => {
  fs.writeFileSync(path.join(dir, 'token'), 'secret-token\n');
  fs.writeFileSync(path.join(dir, 'ca.pem'), 'CA');
  const file = write('a', {
    cluster: { 'certificate-authority': 'ca.pem', 'tls-server-name': 'api.internal' },
    user: { 'tokenFile': 'token', 'client-certificate-data': Buffer.from('CERT').toString('base64'), 'client-key-data': Buffer.from('KEY').toString('base64') },
  });
  const c = kubeConnection(file);
  expect({ server: c.server.href, ca: c.ca?.toString(), cert: c.cert?.toString(), key: c.key?.toString(), token: c.token, servername: c.servername })
    .toEqual({ server: 'https://10.0.0.1:6443/', ca: 'CA', cert: 'CERT', key: 'KEY', token: 'secret-token', servername: 'api.internal' });
});

test.each([
  ['exec plugins', { user: { exec: { command: 'aws' } } }, 'user "u": exec credential plugins are not supported (they run programs)'],
  ['auth providers', { user: { 'auth-provider': { name: 'gcp' } } }, 'user "u": auth providers are not supported'],
  ['basic auth', { user: { username: 'admin', password: 'x' } }, 'user "u": basic authentication is not supported'],
  ['impersonation', { user: { as: 'someone' } }, 'user "u": impersonation is not supported'],
  ['insecure-skip-tls-verify', { cluster: { 'insecure-skip-tls-verify': true } }, 'cluster c: insecure-skip-tls-verify is refused'],
  ['proxy-url', { cluster: { 'proxy-url': 'http://proxy:3128' } }, 'cluster c: proxy-url is not supported'],
  ['http', { cluster: { server: 'http://10.0.0.1:8080' } }, 'cluster c: server http://10.0.0.1:8080/ is not https'],
  ['a missing context', { current: 'other' }, 'has no context "other"'],
])('refuses %s, naming the file', (_what, config, why) => {
  const file = write('refused', config);
  expect(() => kubeConnection(file)).toThrow(`kubeconfig ${file}: ${why}`);
});

describe('an API server that never answers', () => {
  /** A TCP server on 127.0.0.1 that accepts connections and never says anything (not even TLS). */
  let server: net.Server;
  let port: number;
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    server = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => {
    sockets.forEach((s) => s.destroy());
    server.close();
  });

  test('the listing gives up at the timeout its message states, not later', async () => {
    const file = write('silent', { cluster: { 'server': `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': undefined }, user: { token: 't' } });
    const timeoutMs = 3_000;
    const started = Date.now();
    await expect(listNodes(kubeConnection(file), timeoutMs)).rejects.toThrow(`GET https://127.0.0.1:${port}: no answer within 3 s`);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(took).toBeLessThan(2 * timeoutMs); // the bug this guards against: twice the stated time
  });
});
