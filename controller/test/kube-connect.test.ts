/**
 * The HTTPS client against a local TLS server that checks what the API server checks: a client
 * certificate signed by its CA, or a bearer token. Keep-alive connections shared by requests, capped;
 * watches on connections of their own; a rotated token picked up on the 401 and the request tried again.
 */
import * as fs from 'fs';
import * as https from 'https';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import * as tls from 'tls';
import { ClusterConfig, fileToken, staticToken } from '../../src/kubernetes/kube-connection';
import { createPki, Pki } from '../../test/integration/kubernetes/pki';
import { KubeApi, KubeApiError, WatchEvent } from '../src/kube/api';
import { kubeApi } from '../src/kube/connect';

let dir: string;
let pki: Pki;
let server: https.Server;
let url: URL;
/** What the server saw: TLS connections, and per request the client certificate's CN and the Authorization header. */
let connections = 0;
let seen: Array<{ path: string; cn?: string; auth?: string }> = [];
/** The token the server accepts (undefined: any). */
let validToken: string | undefined;
/** Answers each request after this long. */
let delayMs = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-'));
  pki = createPki(dir, '10.96.0.1');
  server = https.createServer({
    cert: fs.readFileSync(pki.apiserver.cert),
    key: fs.readFileSync(pki.apiserver.key),
    ca: fs.readFileSync(pki.ca.cert),
    requestCert: true,
    rejectUnauthorized: false,
  }, (req, res) => {
    const peer = (req.socket as tls.TLSSocket).getPeerCertificate();
    const cn = peer?.subject?.CN;
    seen.push({ path: req.url!, cn: typeof cn === 'string' ? cn : undefined, auth: req.headers.authorization });
    const answer = (status: number, body: object) => setTimeout(() => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    }, delayMs);
    if (validToken !== undefined && req.headers.authorization !== `Bearer ${validToken}`) {
      answer(401, { kind: 'Status', reason: 'Unauthorized', message: 'token rejected' });
      return;
    }
    if (req.url!.startsWith('/api/v1/pods?watch=1')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '2' } } }) + '\n');
      res.write(JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } }));
      setTimeout(() => res.end('\n'), 50);
      return;
    }
    if (req.url === '/api/v1/namespaces/ns/pods/missing') {
      answer(404, { kind: 'Status', reason: 'NotFound', message: 'pods "missing" not found' });
      return;
    }
    answer(200, { metadata: { name: 'p', resourceVersion: '1' } });
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  connections = 0;
  seen = [];
  validToken = undefined;
  delayMs = 0;
});

const config = (over: Partial<ClusterConfig>): ClusterConfig => ({
  server: url,
  ca: fs.readFileSync(pki.ca.cert),
  source: 'test',
  ...over,
});

test('a client certificate: presented on the connection, the server\'s certificate checked against the CA', async () => {
  const admin = pki.clients.admin;
  const api = kubeApi(config({ cert: fs.readFileSync(admin.cert), key: fs.readFileSync(admin.key) }));
  expect(await api.get('/api/v1/namespaces/ns/pods/p')).toEqual({ metadata: { name: 'p', resourceVersion: '1' } });
  expect(seen).toEqual([{ path: '/api/v1/namespaces/ns/pods/p', cn: 'cdk8s-zones-test-admin', auth: undefined }]);
  // another CA: the server is not trusted
  const untrusting = kubeApi(config({ ca: fs.readFileSync(pki.clients.admin.cert) }));
  await expect(untrusting.get('/api/v1/namespaces/ns/pods/p')).rejects.toThrow(/certificate/);
});

test('a server URL with a path (a proxy serving the cluster under it): every request goes under that path', async () => {
  const api = kubeApi(config({ server: new URL('/k8s/clusters/c-1', url), token: staticToken('t') }));
  await api.get('/api/v1/namespaces/ns/pods/p');
  expect(seen.map((s) => s.path)).toEqual(['/k8s/clusters/c-1/api/v1/namespaces/ns/pods/p']);
});

test('a bearer token on every request; a non-2xx answer is a KubeApiError with the Status reason', async () => {
  const api = kubeApi(config({ token: staticToken('t0') }));
  await api.patch('/api/v1/namespaces/ns/pods/p', { metadata: {} });
  expect(seen.map((s) => s.auth)).toEqual(['Bearer t0']);
  const err = await api.get('/api/v1/namespaces/ns/pods/missing').catch((e) => e);
  expect(err).toBeInstanceOf(KubeApiError);
  expect([err.status, err.reason, err.detail]).toEqual([404, 'NotFound', 'pods "missing" not found']);
});

test('a rotated token file: the 401 makes the client read the file again and try the request once more', async () => {
  const file = path.join(dir, 'token');
  fs.writeFileSync(file, 'old');
  const api = kubeApi(config({ token: fileToken(file) }));
  await api.get('/api/v1/namespaces/ns/pods/p');
  fs.writeFileSync(file, 'new');
  validToken = 'new';
  await api.get('/api/v1/namespaces/ns/pods/p');
  expect(seen.map((s) => s.auth)).toEqual(['Bearer old', 'Bearer old', 'Bearer new']);
  // a token nobody rotated: one try, the 401 stands
  validToken = 'newer';
  await expect(api.get('/api/v1/namespaces/ns/pods/p')).rejects.toMatchObject({ status: 401, reason: 'Unauthorized' });
  expect(seen).toHaveLength(4);
});

test('requests share keep-alive connections, at most maxSockets of them', async () => {
  delayMs = 20;
  const api = kubeApi(config({ token: staticToken('t') }), 4);
  await Promise.all(Array.from({ length: 40 }, () => api.get('/api/v1/namespaces/ns/pods/p')));
  await Promise.all(Array.from({ length: 40 }, () => api.get('/api/v1/namespaces/ns/pods/p')));
  expect(seen).toHaveLength(80);
  expect(connections).toBe(4);
});

test('a watch streams its events on a connection of its own: requests still get theirs', async () => {
  const api: KubeApi = kubeApi(config({ token: staticToken('t') }), 1);
  const events: WatchEvent[] = [];
  const watching = api.watch('/api/v1/pods', { resourceVersion: '1' }, (e) => events.push(e), new AbortController().signal);
  const got = await api.get('/api/v1/namespaces/ns/pods/p');
  await watching;
  expect(got.metadata.name).toBe('p');
  expect(events.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([['ADDED', '2'], ['BOOKMARK', '3']]);
  expect(seen.map((s) => s.path).sort()).toEqual(['/api/v1/namespaces/ns/pods/p', '/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=1']);
  expect(connections).toBe(2);
});
