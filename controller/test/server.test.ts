import * as https from 'https';
import * as net from 'net';
import { denyZoneB, evictionReview } from './admission-fixtures';
import { post, slowDrip, stall, TIMED_OUT } from './http-clients';
import { createLogger } from '../src/log';
import { createMetrics } from '../src/metrics';
import { Certificate, ServerLimits, serverLimits, ServerOptions, Servers, startServers } from '../src/server';
import { createWebhookPki } from '../src/tls/certificates';

const log = createLogger({ write: () => {} });

const reviewOf = evictionReview;

/** A serving certificate for 127.0.0.1 whose common name is `cn`, and the CA a client trusts it by. */
function certificateFor(cn: string): Certificate & { readonly ca: string } {
  const { ca, serving } = createWebhookPki([cn, '127.0.0.1']);
  return { ...serving, ca: ca.cert };
}

/** Made once per file, outside every test's time: natively, in tens of milliseconds. */
const first = certificateFor('first');
const second = certificateFor('second');

/**
 * The servers each test started, closed after it. A test owns its servers (no variable shared between
 * tests): one that ran over its time and goes on cannot touch the servers of the test after it.
 */
const started: Servers[] = [];
async function start(opts: ServerOptions): Promise<Servers> {
  const servers = await startServers(opts);
  started.push(servers);
  return servers;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** A connection that sent a whole request and got its answer (so the server counts it), then stays idle. */
function hold(port: number): { served: Promise<void>; closed: Promise<void> } {
  const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
  socket.on('error', () => undefined);
  return {
    served: new Promise((resolve) => socket.once('data', () => resolve())),
    closed: new Promise((resolve) => socket.on('close', () => resolve())),
  };
}

/** Generous: "prompt" on a loaded 2-core machine, still far below Node's defaults (minutes). */
const PROMPT_MS = 15_000;
// Tests wait for the servers' own timeouts (0.5-1 s): PROMPT_MS bounds them, not jest's 5 s default.
jest.setTimeout(2 * PROMPT_MS);

describe('servers', () => {
  test('/healthz, /readyz follows readiness, /metrics, and webhooks over HTTPS with a replaceable certificate', async () => {
    const metrics = createMetrics();
    let notReady: string | undefined = 'waiting for the API server';
    const servers = await start({
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      metrics,
      log,
      notReady: () => notReady,
      webhook: { port: 0, host: '127.0.0.1', certificate: first, webhooks: [denyZoneB] },
    });
    const get = async (path: string) => {
      const r = await fetch(`http://127.0.0.1:${servers.metricsPort}${path}`);
      return { status: r.status, text: await r.text() };
    };
    expect(await get('/healthz')).toEqual({ status: 200, text: 'ok\n' });
    expect(await get('/readyz')).toEqual({ status: 503, text: 'not ready: waiting for the API server\n' });
    notReady = undefined;
    expect(await get('/readyz')).toEqual({ status: 200, text: 'ok\n' });
    const denied = await post(servers.webhookPort!, first.ca, '/validate/test', reviewOf('u9', 'b'));
    expect(denied).toMatchObject({ status: 200, peer: 'first', body: { response: { uid: 'u9', allowed: false } } });
    expect(await post(servers.webhookPort!, first.ca, '/other', reviewOf('u9', 'b')))
      .toMatchObject({ status: 404, body: { error: 'no webhook at /other' } });
    const m = await get('/metrics');
    expect(m.text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="zone-b",verdict="denied"} 1');
    expect(m.text).toContain('cdk8s_zones_controller_process_resident_memory_bytes');

    servers.setCertificate(second);
    expect((await post(servers.webhookPort!, second.ca, '/validate/test', reviewOf('u10', 'a'))).peer).toBe('second');
  });

  test('defaults: 8 MiB bodies, 10 s per request, 5 s for headers, 256 connections', () => {
    expect(serverLimits()).toEqual({
      maxBodyBytes: 8 * 1024 * 1024,
      requestTimeoutMs: 10_000,
      headersTimeoutMs: 5_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 256,
    });
    // Node refuses a headers timeout above the request timeout
    expect(serverLimits({ requestTimeoutMs: 1_000 }))
      .toMatchObject({ requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 });
  });

  describe('against hostile clients', () => {
    const limits = { requestTimeoutMs: 1_000, headersTimeoutMs: 500 };
    const startHardened = (hostileLimits: ServerLimits = limits) => start({
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      metrics: createMetrics({ defaultMetrics: false }),
      log,
      notReady: () => undefined,
      limits: hostileLimits,
      webhook: { port: 0, host: '127.0.0.1', certificate: first, webhooks: [denyZoneB] },
    });
    const valid = async (servers: Servers) => {
      const answer = await post(servers.webhookPort!, first.ca, '/validate/test', reviewOf('ok', 'a'));
      return answer.body.response;
    };

    test('malformed reviews get 400 and what is wrong; a handler that throws gets 500', async () => {
      const servers = await startHardened();
      const { request, ...noRequest } = reviewOf('u', 'a');
      const { resource, ...noResource } = request;
      for (const [body, error] of [
        ['{"apiVersion":', 'malformed AdmissionReview: the body is not JSON'],
        [noRequest, 'malformed AdmissionReview: request must be an object'],
        [{ ...noRequest, request: noResource }, 'malformed AdmissionReview: request.resource must be an object with string group, version, resource'],
      ] as const) {
        expect(await post(servers.webhookPort!, first.ca, '/validate/test', body)).toMatchObject({ status: 400, body: { error } });
      }
      expect(await post(servers.webhookPort!, first.ca, '/validate/test', reviewOf('u', 'a', 'boom')))
        .toMatchObject({ status: 500, body: { error: 'cache not synced' } });
      expect(await valid(servers)).toEqual({ uid: 'ok', allowed: true });
    });

    test('a 9 MiB body gets 413, whether announced by Content-Length or streamed; the server answers afterwards', async () => {
      // the default request timeout (10 s): 9 MiB over TLS can take longer than 1 s on a loaded machine, and the
      // server would then cut the upload (the client saw "socket hang up" or EPIPE), which this test is not about
      const servers = await startHardened({});
      const big = Buffer.alloc(9 * 1024 * 1024, ' ');
      const error = `the body is larger than ${8 * 1024 * 1024} bytes`;
      // a client that closes its connection after the answer (Node's without an agent) once saw it closed under its
      // writes
      for (let i = 0; i < 3; i++) {
        expect(await post(servers.webhookPort!, first.ca, '/validate/test', big))
          .toEqual({ status: 413, body: { error }, peer: 'first' });
      }
      const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const options = {
          host: '127.0.0.1',
          port: servers.webhookPort,
          path: '/validate/test',
          method: 'POST',
          ca: first.ca,
          agent: false as const,
        };
        const req = https.request(options, (res) => {
          let body = '';
          res.on('data', (c) => { body += c; });
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        for (let i = 0; i < 9; i++) req.write(big.subarray(0, 1024 * 1024));
        req.end();
      });
      expect(streamed).toEqual({ status: 413, body: JSON.stringify({ error }) });
      expect(await valid(servers)).toEqual({ uid: 'ok', allowed: true });
    });

    test('a slow-drip client is cut after the request timeout, on both listeners, while others are served', async () => {
      const servers = await startHardened();
      const webhookDrip = stall(servers.webhookPort!, slowDrip('/validate/test'), first.ca);
      const metricsDrip = stall(servers.metricsPort, slowDrip('/metrics'));
      // served meanwhile
      expect(await valid(servers)).toEqual({ uid: 'ok', allowed: true });
      expect((await fetch(`http://127.0.0.1:${servers.metricsPort}/healthz`)).status).toBe(200);
      const [webhookCut, metricsCut] = [await webhookDrip, await metricsDrip];
      expect(webhookCut.text).toBe(TIMED_OUT);
      // the metrics listener answers a POST at once (405), then closes the connection when the body does not come
      expect(metricsCut.text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n[^]*\r\n\r\nmethod not allowed\n$/);
      expect(Math.max(webhookCut.ms, metricsCut.ms)).toBeLessThan(PROMPT_MS);
      expect(await valid(servers)).toEqual({ uid: 'ok', allowed: true });
    });

    test('headers that never finish are cut after the headers timeout', async () => {
      const servers = await startHardened();
      const cut = await stall(servers.metricsPort, 'GET /metrics HTTP/1.1\r\nHost: x\r\n');
      expect(cut.text).toBe(TIMED_OUT);
      expect(cut.ms).toBeLessThan(PROMPT_MS);
      // a TLS client that never says hello
      const silent = await stall(servers.webhookPort!, '');
      expect(silent.ms).toBeLessThan(PROMPT_MS);
      expect(await valid(servers)).toEqual({ uid: 'ok', allowed: true });
    });

    /** Metrics and probes only, at most 2 connections, idle ones closed after `keepAliveTimeoutMs`. */
    const startCapped = (keepAliveTimeoutMs: number) => start({
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      metrics: createMetrics({ defaultMetrics: false }),
      log,
      notReady: () => undefined,
      limits: { ...limits, maxConnections: 2, keepAliveTimeoutMs },
    });

    test('connections over the cap are closed at once', async () => {
      // idle connections stay far longer than the test: the two held are still open when the third comes
      const port = (await startCapped(600_000)).metricsPort;
      const held = [hold(port), hold(port)];
      await Promise.all(held.map((h) => h.served));
      const refused = await stall(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(refused.text).toBe('');
    });

    test('idle connections close after the keep-alive timeout, and free their places under the cap', async () => {
      const port = (await startCapped(500)).metricsPort;
      const held = [hold(port), hold(port)];
      await Promise.all(held.map((h) => h.served));
      await Promise.all(held.map((h) => h.closed));
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    });
  });
});
