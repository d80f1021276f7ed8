/**
 * The controller's two listeners: plain HTTP for /metrics, /healthz and /readyz (probes and Prometheus),
 * and HTTPS for the admission webhooks (the API server only calls webhooks over TLS), each on its own
 * port and bind address. The serving certificate can be replaced while running (`setCertificate`), e.g.
 * when cert-manager renews it.
 *
 * Anyone who reaches a port is a client, so both listeners carry the same limits: a body over the limit
 * is answered 413 (and the rest of it read and dropped, so the client sees the answer rather than a
 * reset), a request whose headers or body do not arrive in time is answered 408 and its connection
 * closed, idle connections close, and the number of connections is capped. One misbehaving client holds
 * at most one connection for at most the request timeout; the others are served meanwhile.
 */
import * as http from 'http';
import * as https from 'https';
import { AddressInfo } from 'net';
import { AdmissionWebhook, HttpAnswer, review } from './admission';
import { Logger } from './log';
import { Metrics } from './metrics';

export interface Certificate {
  /** PEM */
  readonly cert: string;
  /** PEM */
  readonly key: string;
}

export interface Servers {
  /** The ports actually bound (useful with port 0 in tests). */
  readonly metricsPort: number;
  readonly webhookPort?: number;
  setCertificate(cert: Certificate): void;
  close(): Promise<void>;
}

/** What one client may ask of a listener; both listeners share them. */
export interface ServerLimits {
  /** Larger request bodies are answered 413 (an AdmissionReview of a big object stays far below). @default 8 MiB */
  readonly maxBodyBytes?: number;
  /**
   * The whole request (headers and body) must arrive within this, else 408 and the connection closes.
   * @default 10_000
   */
  readonly requestTimeoutMs?: number;
  /**
   * The headers must arrive within this (and a TLS handshake complete).
   * @default the smaller of 5_000 and requestTimeoutMs
   */
  readonly headersTimeoutMs?: number;
  /** An idle keep-alive connection closes after this. @default 5_000 */
  readonly keepAliveTimeoutMs?: number;
  /** Open connections per listener; further ones are closed at once. @default 256 */
  readonly maxConnections?: number;
}

export interface ServerOptions {
  readonly metricsPort: number;
  /** The address the metrics and probes listener binds. @default 0.0.0.0 */
  readonly metricsHost?: string;
  /** Leave out to serve no webhooks. `host`: the address the webhook listener binds (default 0.0.0.0). */
  readonly webhook?: {
    readonly port: number;
    readonly host?: string;
    readonly certificate: Certificate;
    readonly webhooks: readonly AdmissionWebhook[];
  };
  readonly metrics: Metrics;
  /** /readyz answers 200 while this says nothing, else 503 with what it says (what the replica waits for). */
  readonly notReady: () => string | undefined;
  readonly log: Logger;
  readonly limits?: ServerLimits;
}

/** Headers per request: clients of these listeners send a handful. */
const MAX_HEADERS = 64;

/** `limits` with every default filled in. */
export function serverLimits(limits: ServerLimits = {}): Required<ServerLimits> {
  const requestTimeoutMs = limits.requestTimeoutMs ?? 10_000;
  return {
    maxBodyBytes: limits.maxBodyBytes ?? 8 * 1024 * 1024,
    requestTimeoutMs,
    headersTimeoutMs: Math.min(limits.headersTimeoutMs ?? 5_000, requestTimeoutMs),
    keepAliveTimeoutMs: limits.keepAliveTimeoutMs ?? 5_000,
    maxConnections: limits.maxConnections ?? 256,
  };
}

/** The options both `http.createServer` and `https.createServer` take for `limits`. */
function listenerOptions(limits: Required<ServerLimits>): http.ServerOptions {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts above only this often (default 30 s): check often enough to keep them.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, limits.headersTimeoutMs / 4)),
  };
}

/** What `listenerOptions` cannot set. */
function capConnections(server: http.Server, limits: Required<ServerLimits>): void {
  server.maxConnections = limits.maxConnections;
  server.maxHeadersCount = MAX_HEADERS;
}

type PlainAnswer = { status: number; text: string; contentType?: string };

/**
 * Writes the whole answer at once. While the client is still sending (a body too large, or one nobody
 * reads) the connection stays open until the rest has arrived and been dropped: a client busy writing
 * reads the answer instead of having its connection closed under it (the request timeout bounds the wait).
 */
function send(res: http.ServerResponse, answer: HttpAnswer | PlainAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const [contentType, body] = 'text' in answer
    ? [answer.contentType ?? 'text/plain; charset=utf-8', answer.text]
    : ['application/json', JSON.stringify(answer.body)];
  res.writeHead(answer.status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  if (res.req.complete) return void res.end(body);
  res.write(body);
  res.req.once('end', () => res.end());
  res.req.resume();
}

const TOO_LARGE = Symbol('too large');

/**
 * The request body as text, or TOO_LARGE as soon as it is (or says it will be) over `max` bytes; the rest
 * of a body too large is read and dropped, not kept.
 */
function readBody(req: http.IncomingMessage, max: number): Promise<string | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > max;
    if (tooLarge) resolve(TOO_LARGE);
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size <= max) return void chunks.push(c);
      tooLarge = true;
      chunks.length = 0;
      resolve(TOO_LARGE);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('close', () => reject(new Error('the client went away')));
  });
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function probesAndMetrics(opts: ServerOptions): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, { status: 405, text: 'method not allowed\n' });
    if (path === '/healthz') return send(res, { status: 200, text: 'ok\n' });
    if (path === '/readyz') {
      const why = opts.notReady();
      return send(res, why === undefined ? { status: 200, text: 'ok\n' } : { status: 503, text: `not ready: ${why}\n` });
    }
    if (path === '/metrics') {
      opts.metrics.registry.metrics().then(
        (text) => send(res, { status: 200, text, contentType: opts.metrics.registry.contentType }),
        (err) => send(res, { status: 500, text: `${err}\n` }),
      );
      return;
    }
    send(res, { status: 404, text: 'not found\n' });
  };
}

/** Every answer of the webhook listener, errors included, is JSON. */
async function answerWebhook(
  req: http.IncomingMessage,
  webhooks: ReadonlyMap<string, AdmissionWebhook>,
  opts: ServerOptions,
  limits: Required<ServerLimits>,
): Promise<HttpAnswer> {
  const path = (req.url ?? '/').split('?')[0];
  const webhook = webhooks.get(path);
  if (!webhook) return { status: 404, body: { error: `no webhook at ${path}` } };
  if (req.method !== 'POST') return { status: 405, body: { error: 'admission reviews are POSTed' } };
  const body = await readBody(req, limits.maxBodyBytes);
  if (body === TOO_LARGE) return { status: 413, body: { error: `the body is larger than ${limits.maxBodyBytes} bytes` } };
  const answer = await review(webhook, body, opts.metrics);
  const error = (answer.body as { error?: string }).error;
  if (answer.status === 500) opts.log.error('webhook failed', { webhook: webhook.name, error });
  if (answer.status === 400) opts.log.warn('malformed admission review', { webhook: webhook.name, error });
  return answer;
}

export async function startServers(opts: ServerOptions): Promise<Servers> {
  const limits = serverLimits(opts.limits);
  const plain = http.createServer(listenerOptions(limits), probesAndMetrics(opts));
  capConnections(plain, limits);
  const metricsPort = await listen(plain, opts.metricsPort, opts.metricsHost ?? '0.0.0.0');

  let secure: https.Server | undefined;
  let webhookPort: number | undefined;
  if (opts.webhook) {
    const webhooks = new Map(opts.webhook.webhooks.map((w) => [w.path, w]));
    secure = https.createServer({
      ...listenerOptions(limits),
      cert: opts.webhook.certificate.cert,
      key: opts.webhook.certificate.key,
      handshakeTimeout: limits.headersTimeoutMs,
    }, (req, res) => {
      answerWebhook(req, webhooks, opts, limits).then((answer) => send(res, answer), (err) => {
        // Only reading the body can fail here, when the client went away: nobody is left to answer.
        opts.log.debug('webhook request abandoned', { error: err });
        res.destroy();
      });
    });
    capConnections(secure, limits);
    webhookPort = await listen(secure, opts.webhook.port, opts.webhook.host ?? '0.0.0.0');
  }
  opts.log.info('listening', { metricsPort, webhookPort, webhooks: opts.webhook?.webhooks.map((w) => w.path), limits });

  const closeServer = (s: http.Server) => new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeIdleConnections();
  });
  return {
    metricsPort,
    webhookPort,
    setCertificate(cert) {
      secure?.setSecureContext({ cert: cert.cert, key: cert.key });
    },
    async close() {
      await Promise.all([closeServer(plain), ...(secure ? [closeServer(secure)] : [])]);
    },
  };
}
