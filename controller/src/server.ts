/**
 * The controller's two listeners: plain HTTP for /metrics, /healthz and /readyz (probes and Prometheus),
 * and HTTPS for the admission webhooks (the API server only calls webhooks over TLS). The serving
 * certificate can be replaced while running (`setCertificate`), e.g. when cert-manager renews it.
 */
import * as http from 'http';
import * as https from 'https';
import { AddressInfo } from 'net';
import { AdmissionWebhook, HttpAnswer, review } from './admission';
import { Logger } from './log';
import { Metrics } from './metrics';

/** Request bodies larger than this are refused (an AdmissionReview of a big object stays far below). */
const MAX_BODY = 8 * 1024 * 1024;

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

export interface ServerOptions {
  readonly metricsPort: number;
  /** Leave out to serve no webhooks. */
  readonly webhook?: { readonly port: number; readonly certificate: Certificate; readonly webhooks: readonly AdmissionWebhook[] };
  readonly metrics: Metrics;
  /** /readyz answers 200 only while this is true. */
  readonly ready: () => boolean;
  readonly log: Logger;
  /** @default 0.0.0.0 */
  readonly host?: string;
}

function send(res: http.ServerResponse, answer: HttpAnswer | { status: number; text: string; contentType?: string }): void {
  if ('text' in answer) {
    res.writeHead(answer.status, { 'Content-Type': answer.contentType ?? 'text/plain; charset=utf-8' });
    res.end(answer.text);
  } else {
    res.writeHead(answer.status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
      } else {chunks.push(c);}
    });
    req.on('end', () => {
      try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch { resolve(undefined); }
    });
    req.on('error', reject);
  });
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startServers(opts: ServerOptions): Promise<Servers> {
  const host = opts.host ?? '0.0.0.0';
  const plain = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, { status: 405, text: 'method not allowed\n' });
    if (path === '/healthz') return send(res, { status: 200, text: 'ok\n' });
    if (path === '/readyz') return send(res, opts.ready() ? { status: 200, text: 'ok\n' } : { status: 503, text: 'not ready\n' });
    if (path === '/metrics') {
      opts.metrics.registry.metrics().then(
        (text) => send(res, { status: 200, text, contentType: opts.metrics.registry.contentType }),
        (err) => send(res, { status: 500, text: `${err}\n` }),
      );
      return;
    }
    send(res, { status: 404, text: 'not found\n' });
  });
  const metricsPort = await listen(plain, opts.metricsPort, host);

  let secure: https.Server | undefined;
  let webhookPort: number | undefined;
  if (opts.webhook) {
    const byPath = new Map(opts.webhook.webhooks.map((w) => [w.path, w]));
    secure = https.createServer({ cert: opts.webhook.certificate.cert, key: opts.webhook.certificate.key }, (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const webhook = byPath.get(path);
      if (!webhook) return send(res, { status: 404, text: 'no webhook here\n' });
      if (req.method !== 'POST') return send(res, { status: 405, text: 'method not allowed\n' });
      readJson(req)
        .then((body) => review(webhook, body, opts.metrics))
        .then((answer) => {
          if (answer.status === 500) opts.log.error('webhook failed', { webhook: webhook.name, error: (answer.body as any).error });
          send(res, answer);
        }, (err) => send(res, { status: 400, text: `${err}\n` }));
    });
    webhookPort = await listen(secure, opts.webhook.port, host);
  }
  opts.log.info('listening', { metricsPort, webhookPort, webhooks: opts.webhook?.webhooks.map((w) => w.path) });

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
