/**
 * Clients of the controller's listeners, polite and not, for the unit tests and the Kubernetes tier: a
 * POST over HTTPS on a fresh connection, and a connection that sends a few bytes and then stalls.
 */
import * as https from 'https';
import * as net from 'net';
import * as tls from 'tls';

export interface Answer {
  readonly status: number;
  /** Parsed when it is JSON, else the text. */
  readonly body: any;
  /** The common name of the certificate the server presented. */
  readonly peer: string;
}

/** POSTs `body` (a string or Buffer as is, anything else as JSON) to https://127.0.0.1:`port``path`, trusting `ca`. */
export function post(port: number, ca: string, path: string, body: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'POST', ca, agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      const peer = String((res.socket as tls.TLSSocket).getPeerCertificate().subject?.CN);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON: the text */ }
        resolve({ status: res.statusCode!, body: parsed, peer });
      });
    });
    req.on('error', reject);
    req.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
}

/** A POST to `path` that promises 100 bytes of body and sends 10. */
export const slowDrip = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n0123456789`;

/** What Node writes before closing a connection whose request did not arrive in time. */
export const TIMED_OUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/**
 * Connects to 127.0.0.1:`port` (over TLS when `ca` is given), writes `payload` and sends nothing more;
 * resolves with what the server wrote and how long it kept the connection, once it closes it.
 */
export function stall(port: number, payload: string, ca?: string): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let text = '';
    const socket: net.Socket = ca
      ? tls.connect({ host: '127.0.0.1', port, ca }, () => socket.write(payload))
      : net.connect({ host: '127.0.0.1', port }, () => socket.write(payload));
    socket.on('data', (c) => { text += c; });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
  });
}
