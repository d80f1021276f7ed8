import * as https from 'https';
import * as forge from 'node-forge';
import { AdmissionWebhook, review } from '../src/admission';
import { parseRun } from '../src/commands/run';
import { createLogger } from '../src/log';
import { createMetrics } from '../src/metrics';
import { RECONCILERS } from '../src/reconcilers';
import { startServers } from '../src/server';

const log = createLogger({ write: () => {} });

describe('run flags', () => {
  test('defaults, and POD_NAME / POD_NAMESPACE from the environment', () => {
    const o = parseRun([], { POD_NAME: 'ctl-0', POD_NAMESPACE: 'zones' });
    expect(o).toMatchObject({
      reconcilers: [RECONCILERS.find((r) => r.name === 'zone-annotator')],
      leaderElect: false,
      leaseNamespace: 'zones',
      leaseName: 'cdk8s-zones-controller',
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      identity: 'ctl-0',
      topologyKeys: ['topology.kubernetes.io/zone'],
      metricsPort: 8080,
      webhookPort: 9443,
      tlsMode: 'files',
      host: '0.0.0.0',
    });
    expect(parseRun([], {}, 'from-sa')).toMatchObject({ leaseNamespace: 'from-sa' });
    expect(parseRun(['--help'])).toBe('help');
  });

  test('every flag', () => {
    expect(parseRun([
      '--reconcilers', 'zone-annotator', '--leader-elect', '--lease-namespace', 'ns', '--lease-name', 'l', '--lease-duration', '4',
      '--renew-deadline', '3', '--retry-period', '0.5', '--identity', 'me', '--topology-keys', 'topology.kubernetes.io/region, topology.kubernetes.io/zone',
      '--metrics-port', '0', '--webhook-port', '9444', '--tls-mode', 'files', '--tls-cert-file', 'c', '--tls-key-file', 'k', '--kubeconfig', 'kc',
      '--bind-address', '127.0.0.1',
    ], { POD_NAME: 'ignored' })).toMatchObject({
      leaderElect: true,
      leaseNamespace: 'ns',
      leaseName: 'l',
      leaseDurationSeconds: 4,
      renewDeadlineMs: 3000,
      retryPeriodMs: 500,
      identity: 'me',
      topologyKeys: ['topology.kubernetes.io/region', 'topology.kubernetes.io/zone'],
      metricsPort: 0,
      webhookPort: 9444,
      tlsCertFile: 'c',
      tlsKeyFile: 'k',
      kubeconfig: 'kc',
      host: '127.0.0.1',
    });
  });

  test('self-managed TLS: the Secret, the Service names (plus --tls-hosts) and the webhook configurations', () => {
    expect(parseRun(['--tls-mode', 'self-managed', '--lease-name', 'ctl', '--tls-hosts', '127.0.0.1', '--webhook-configurations', 'a,b'], { POD_NAMESPACE: 'zones' }))
      .toMatchObject({
        tlsMode: 'self-managed',
        tlsSecret: 'ctl-webhook-tls',
        webhookConfigurations: ['a', 'b'],
        tlsHosts: ['ctl.zones.svc', 'ctl.zones.svc.cluster.local', 'ctl.zones', 'ctl', '127.0.0.1'],
      });
    expect(parseRun(['--tls-mode', 'self-managed', '--tls-secret', 's', '--webhook-service', 'svc'], { POD_NAMESPACE: 'ns' }))
      .toMatchObject({ tlsSecret: 's', tlsHosts: ['svc.ns.svc', 'svc.ns.svc.cluster.local', 'svc.ns', 'svc'] });
    expect(() => parseRun(['--tls-mode', 'self-managed', '--tls-cert-file', 'c', '--tls-key-file', 'k'])).toThrow('are for --tls-mode files');
    expect(() => parseRun(['--tls-secret', 's'])).toThrow('--tls-secret is for --tls-mode self-managed');
  });

  test('bad flags name the flag, the value and the rule', () => {
    expect(() => parseRun(['--reconcilers', 'nope'])).toThrow('run: --reconcilers: unknown reconciler "nope"; known: zone-annotator');
    expect(() => parseRun(['--reconcilers', 'zone-annotator,zone-annotator'])).toThrow('names a reconciler twice');
    expect(() => parseRun(['--reconcilers', ' , '])).toThrow('--reconcilers names no reconciler');
    expect(() => parseRun(['--topology-keys', ''])).toThrow('--topology-keys names no label key');
    expect(() => parseRun(['--tls-mode', 'none'])).toThrow('--tls-mode="none" must be files or self-managed');
    expect(() => parseRun(['--tls-cert-file', 'c'])).toThrow('--tls-cert-file and --tls-key-file go together');
    expect(() => parseRun(['--metrics-port', '70000'])).toThrow('--metrics-port="70000" must be a port number');
    expect(() => parseRun(['--lease-duration', '1.5'])).toThrow('--lease-duration="1.5" must be an integer > 0');
    expect(() => parseRun(['--renew-deadline', '20'])).toThrow('need --retry-period (2) < --renew-deadline (20) < --lease-duration (15)');
    expect(() => parseRun(['--bogus'])).toThrow(/Unknown option '--bogus'/);
  });
});

const denyZoneB: AdmissionWebhook = {
  name: 'test',
  path: '/validate/test',
  async handle(req) {
    if (req.name === 'boom') throw new Error('cache not synced');
    const zone = req.namespace === 'b' ? 'zone-b' : 'zone-a';
    return zone === 'zone-b' ? { allowed: false, code: 429, message: 'zone-a is disrupted', zone } : { allowed: true, zone };
  },
};
const reviewOf = (uid: string, namespace: string, name = 'p') => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid, namespace, name, operation: 'CREATE', kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, resource: { group: '', version: 'v1', resource: 'pods' }, subResource: 'eviction' },
});

describe('admission', () => {
  test('verdicts become AdmissionReview responses with the request uid, and are counted per zone', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    expect(await review(denyZoneB, reviewOf('u1', 'a'), metrics)).toEqual({
      status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } },
    });
    expect(await review(denyZoneB, reviewOf('u2', 'b'), metrics)).toEqual({
      status: 200,
      body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u2', allowed: false, status: { code: 429, message: 'zone-a is disrupted', reason: 'TooManyRequests' } } },
    });
    expect((await review(denyZoneB, reviewOf('u3', 'a', 'boom'), metrics)).status).toBe(500);
    expect((await review(denyZoneB, { kind: 'Pod' }, metrics)).status).toBe(400);
    const text = await metrics.registry.metrics();
    expect(text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="zone-a",verdict="allowed"} 1');
    expect(text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="zone-b",verdict="denied"} 1');
    expect(text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="none",verdict="error"} 1');
  });
});

function selfSigned(cn: string): { cert: string; key: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 3600_000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer([{ name: 'commonName', value: cn }]);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

function post(port: number, ca: string, path: string, body: unknown): Promise<{ status: number; body: any; peer: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'POST', ca, agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      const peer = (res.socket as any).getPeerCertificate().subject.CN;
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: any = text;
        try { parsed = JSON.parse(text); } catch { /* plain text */ }
        resolve({ status: res.statusCode!, body: parsed, peer });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('servers', () => {
  test('/healthz, /readyz follows readiness, /metrics, and webhooks over HTTPS with a replaceable certificate', async () => {
    const metrics = createMetrics();
    let ready = false;
    const first = selfSigned('first');
    const servers = await startServers({
      metricsPort: 0,
      host: '127.0.0.1',
      metrics,
      log,
      ready: () => ready,
      webhook: { port: 0, certificate: first, webhooks: [denyZoneB] },
    });
    try {
      const get = async (path: string) => { const r = await fetch(`http://127.0.0.1:${servers.metricsPort}${path}`); return { status: r.status, text: await r.text() }; };
      expect(await get('/healthz')).toEqual({ status: 200, text: 'ok\n' });
      expect((await get('/readyz')).status).toBe(503);
      ready = true;
      expect((await get('/readyz')).status).toBe(200);
      const denied = await post(servers.webhookPort!, first.cert, '/validate/test', reviewOf('u9', 'b'));
      expect(denied).toMatchObject({ status: 200, peer: 'first', body: { response: { uid: 'u9', allowed: false } } });
      expect((await post(servers.webhookPort!, first.cert, '/other', reviewOf('u9', 'b'))).status).toBe(404);
      const m = await get('/metrics');
      expect(m.text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="zone-b",verdict="denied"} 1');
      expect(m.text).toContain('cdk8s_zones_controller_process_resident_memory_bytes');

      const second = selfSigned('second');
      servers.setCertificate(second);
      expect((await post(servers.webhookPort!, second.cert, '/validate/test', reviewOf('u10', 'a'))).peer).toBe('second');
    } finally {
      await servers.close();
    }
  });
});
