import * as crypto from 'crypto';
import { MemoryKubeApi } from '../../test/memory-kube-api';
import { KubeApi } from '../src/kube/api';
import { createLogger } from '../src/log';
import { createWebhookPki, issueServing, pkiProblem, serialNumber } from '../src/tls/certificates';
import { serviceHosts } from '../src/tls/hosts';
import { ensureWebhookPki, injectCaBundle, SelfManagedTlsOptions } from '../src/tls/self-managed';

const log = createLogger({ write: () => {} });
const hosts = serviceHosts('ctl', 'zones');
const DAY = 24 * 3600 * 1000;

describe('webhook PKI', () => {
  const pki = createWebhookPki([...hosts, '127.0.0.1']);

  test('the serving certificate is signed by the CA and covers every Service name and IP', () => {
    const ca = new crypto.X509Certificate(pki.ca.cert);
    const serving = new crypto.X509Certificate(pki.serving.cert);
    expect(ca.ca).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkIssued(ca)).toBe(true);
    for (const h of hosts) expect(serving.checkHost(h)).toBe(h);
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    expect(crypto.createPrivateKey(pki.serving.key).asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(hosts).toEqual(['ctl.zones.svc', 'ctl.zones.svc.cluster.local', 'ctl.zones', 'ctl']);
  });

  test('serials are 16 bytes, positive and minimal in DER, for every first random byte', () => {
    // OpenSSL refuses a DER INTEGER padded with a leading 0 byte ("illegal padding"): the PKI that had one
    // could not be loaded, and every client of the webhook failed to verify it
    for (let first = 0; first < 256; first++) {
      const random = Buffer.alloc(16, 0x5a);
      random[0] = first;
      const serial = serialNumber(random);
      expect(serial).toMatch(/^[4-7][0-9a-f]{31}$/); // first byte 0x40-0x7f: top bit clear, not 0
      expect(serial.slice(2)).toBe(random.subarray(1).toString('hex'));
    }
    expect(() => serialNumber(Buffer.alloc(15))).toThrow('serialNumber: 16 random bytes needed, got 15');
    for (const pem of [pki.ca.cert, pki.serving.cert]) {
      expect(new crypto.X509Certificate(pem).serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });

  test('pkiProblem: usable as is, or says why not (missing, wrong CA, expiring, hosts not covered)', () => {
    expect(pkiProblem(pki, hosts)).toBeUndefined();
    expect(pkiProblem(undefined, hosts)).toBe('missing');
    expect(pkiProblem({ ca: pki.ca }, hosts)).toBe('missing');
    const other = createWebhookPki(hosts);
    expect(pkiProblem({ ca: other.ca, serving: pki.serving }, hosts)).toBe('the serving certificate is not signed by the CA');
    expect(pkiProblem(pki, [...hosts, 'new.name'])).toBe('the serving certificate does not cover new.name');
    expect(pkiProblem(pki, hosts, Date.now() + 340 * DAY)).toMatch(/^the serving certificate expires /);
    const shortCa = createWebhookPki(hosts, { caDays: 20 });
    expect(pkiProblem(shortCa, hosts)).toMatch(/^the CA expires /);
    const renewed = { ca: pki.ca, serving: issueServing(pki.ca, hosts) };
    expect(pkiProblem(renewed, hosts)).toBeUndefined();
  });
});

/** The in-memory API server, each patch recorded as asked (its body and type, not only its effect). */
function memoryKube(): MemoryKubeApi & { patches: Array<{ path: string; body: any; type?: string }> } {
  const kube = Object.assign(new MemoryKubeApi(), { patches: [] as Array<{ path: string; body: any; type?: string }> });
  const patch = kube.patch.bind(kube);
  kube.patch = async (path, body, type) => {
    kube.patches.push({ path, body, type });
    return patch(path, body, type);
  };
  return kube;
}

const SECRET = '/api/v1/namespaces/zones/secrets/ctl-webhook-tls';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/ctl';
const opts: SelfManagedTlsOptions = { namespace: 'zones', secretName: 'ctl-webhook-tls', hosts, webhookConfigurations: ['ctl', 'absent'], log };
const decode = (b64: string) => Buffer.from(b64, 'base64').toString();

describe('self-managed TLS', () => {
  test('creates the Secret once; a second replica (or a restart) reuses it', async () => {
    const kube = memoryKube();
    const first = await ensureWebhookPki(kube as unknown as KubeApi, opts);
    const secret = kube.objects.get(SECRET)!;
    expect(Object.keys(secret.data).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(decode(secret.data['ca.crt'])).toBe(first.ca.cert);
    const second = await ensureWebhookPki(kube as unknown as KubeApi, opts);
    expect(second).toEqual(first);
    expect(kube.objects.get(SECRET)!.metadata.resourceVersion).toBe('1');
  });

  test('two replicas racing: the loser of the write uses the winner\'s certificates', async () => {
    const kube = memoryKube();
    let winner: any;
    kube.beforeCall = async (call) => {
      if (!/^(POST|PUT) /.test(call)) return;
      kube.beforeCall = () => undefined;
      winner = await ensureWebhookPki(kube as unknown as KubeApi, opts); // the other replica writes first
    };
    const loser = await ensureWebhookPki(kube as unknown as KubeApi, opts);
    expect(loser.ca.cert).toBe(winner.ca.cert);
    expect(loser.serving.cert).toBe(winner.serving.cert);
  });

  test('a Secret that no longer fits (new host) is replaced', async () => {
    const kube = memoryKube();
    const old = await ensureWebhookPki(kube as unknown as KubeApi, opts);
    const renewed = await ensureWebhookPki(kube as unknown as KubeApi, { ...opts, hosts: [...hosts, '127.0.0.1'] });
    expect(renewed.ca.cert).not.toBe(old.ca.cert);
    expect(decode(kube.objects.get(SECRET)!.data['tls.crt'])).toBe(renewed.serving.cert);
  });

  test('caBundle is patched on every webhook that lacks it, by a strategic merge on the webhook names; absent configurations are skipped', async () => {
    const kube = memoryKube();
    kube.objects.set(VWC, {
      metadata: { name: 'ctl' },
      webhooks: [
        { name: 'a.cdk8s-zones.dev', clientConfig: {} },
        { name: 'b.cdk8s-zones.dev', clientConfig: { caBundle: 'old' } },
      ],
    });
    const pki = await ensureWebhookPki(kube as unknown as KubeApi, opts);
    expect(await injectCaBundle(kube as unknown as KubeApi, opts, pki.ca.cert)).toBe(2);
    const caBundle = Buffer.from(pki.ca.cert).toString('base64');
    expect(kube.patches).toEqual([{
      path: VWC,
      type: 'strategic',
      body: { webhooks: [{ name: 'a.cdk8s-zones.dev', clientConfig: { caBundle } }, { name: 'b.cdk8s-zones.dev', clientConfig: { caBundle } }] },
    }]);
    expect(await injectCaBundle(kube as unknown as KubeApi, opts, pki.ca.cert)).toBe(0); // idempotent
  });
});
