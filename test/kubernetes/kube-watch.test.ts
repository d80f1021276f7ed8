/**
 * The CLI's watch (`httpsKubeApi(...).watch`, the drill's): events split across chunks arrive whole and in order, under
 * the server URL's path with the token; an ERROR event ends it with the API server's status (410: the version is too
 * old); a refused watch is a KubeApiError; an abort ends it quietly.
 */
import * as fs from 'fs';
import * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { clusterConnection } from '../../src/check/cluster-nodes';
import { KubeApiError, WatchEvent } from '../../src/kubernetes/kube-api';
import { httpsKubeApi } from '../../src/kubernetes/kube-request';
import { createPki } from '../integration/kubernetes/pki';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-watch-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const event = (type: string, name: string, rv: string) =>
  JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } });
let server: https.Server;
const seen: string[] = [];
let api: ReturnType<typeof httpsKubeApi>;

beforeAll(async () => {
  const pki = createPki(path.join(dir, 'pki'), '10.96.0.1');
  const tls = { cert: fs.readFileSync(pki.apiserver.cert), key: fs.readFileSync(pki.apiserver.key) };
  server = https.createServer(tls, (req, res) => {
    seen.push(`${req.url} ${req.headers.authorization}`);
    if (req.url!.includes('/forbidden')) {
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', reason: 'Forbidden', message: 'pods is forbidden' }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (req.url!.includes('resourceVersion=1&')) {
      const lines = `${event('ADDED', 'a', '2')}\n${event('MODIFIED', 'a', '3')}\n`;
      res.write(lines.slice(0, 30)); // a line split across two chunks
      setTimeout(() => res.end(lines.slice(30)), 20);
    } else if (req.url!.includes('resourceVersion=old')) {
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`);
    } else {
      res.write(`${event('ADDED', 'b', '4')}\n`); // then stays open
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const file = path.join(dir, 'kubeconfig');
  fs.writeFileSync(file, JSON.stringify({
    'apiVersion': 'v1',
    'kind': 'Config',
    'current-context': 'c',
    'contexts': [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'clusters': [{ name: 'c', cluster: { 'server': `https://127.0.0.1:${port}/proxy`, 'certificate-authority': path.join(dir, 'pki', 'ca.crt') } }],
    'users': [{ name: 'u', user: { token: 't' } }],
  }));
  api = httpsKubeApi(clusterConnection(file));
});
afterAll(() => {
  api.close();
  server.closeAllConnections();
  server.close();
});

test('every event whole and in order, from the version given, until the API server ends the watch', async () => {
  const events: WatchEvent[] = [];
  await api.watch('/api/v1/pods', { resourceVersion: '1', timeoutSeconds: 60 }, (e) => events.push(e), new AbortController().signal);
  expect(events.map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`)).toEqual(['ADDED a@2', 'MODIFIED a@3']);
  expect(seen[0]).toBe('/proxy/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=1&timeoutSeconds=60 Bearer t');
});

test('an ERROR event ends it with its status (410 Gone); a refused watch is a KubeApiError', async () => {
  const never = () => { throw new Error('no event expected'); };
  const gone = await api.watch('/api/v1/pods', { resourceVersion: 'old' }, never, new AbortController().signal).catch((e) => e);
  expect(gone).toBeInstanceOf(KubeApiError);
  expect([gone.status, gone.reason, gone.detail]).toEqual([410, 'Expired', 'too old resource version']);
  expect(gone.message).toMatch(/^WATCH https:\/\/127\.0\.0\.1:\d+\/proxy\/api\/v1\/pods\?watch=1&allowWatchBookmarks=true&resourceVersion=old: HTTP 410 too old resource version$/);
  const refused = await api.watch('/forbidden', {}, never, new AbortController().signal).catch((e) => e);
  expect([refused.status, refused.detail]).toEqual([403, 'pods is forbidden']);
});

test('an abort ends an open watch quietly, after the events it sent', async () => {
  const abort = new AbortController();
  const events: string[] = [];
  const watching = api.watch('/api/v1/pods', { resourceVersion: '3' }, (e) => {
    events.push(e.object.metadata.name);
    abort.abort();
  }, abort.signal);
  await expect(watching).resolves.toBeUndefined();
  expect(events).toEqual(['b']);
});
