import * as http from 'http';
import { AddressInfo } from 'net';
import { KubeObject } from '../src/kube/api';
import { readyCheckFailures } from '../src/reconcilers/zone-aware-update';

/** Answers /ready with the status the test sets per path; /slow never answers. */
let server: http.Server;
let port: number;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/slow') return;
    res.writeHead(req.url === '/ready' ? 200 : req.url === '/moved' ? 302 : 503, { Location: '/ready' }).end('x');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const pod = (name: string, extra: { ip?: string; ready?: boolean; terminating?: boolean } = {}): KubeObject => ({
  metadata: { name, ...(extra.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  status: { podIP: extra.ip, conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }] },
});

test('a pod passes only with a 2xx answer in time; pods not Ready or terminating are not asked', async () => {
  const pods = [
    pod('ok', { ip: '127.0.0.1' }),
    pod('no-ip'),
    pod('not-ready', { ip: '127.0.0.1', ready: false }),
    pod('going', { ip: '127.0.0.1', terminating: true }),
  ];
  expect(await readyCheckFailures({ path: '/ready', port }, pods, 1000)).toEqual(new Map([['no-ip', 'no pod IP']]));
  const failing = await readyCheckFailures({ path: '/not-yet', port }, [pod('ok', { ip: '127.0.0.1' })], 1000);
  expect(failing).toEqual(new Map([['ok', `GET http://127.0.0.1:${port}/not-yet: HTTP 503`]]));
  // A redirect is not followed (it could point anywhere) and is no pass.
  expect((await readyCheckFailures({ path: '/moved', port }, [pod('ok', { ip: '127.0.0.1' })], 1000)).get('ok')).toContain('HTTP 302');
  const slow = await readyCheckFailures({ path: '/slow', port }, [pod('ok', { ip: '127.0.0.1' })], 200);
  expect(slow.get('ok')).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/slow: .*(timeout|aborted)/i);
});
