/**
 * The self-managed webhook PKI: a CA the controller makes for itself and a serving certificate it
 * signs for the webhook Service's DNS names. Pure (node-forge), so it is unit-tested without a cluster.
 */
import * as net from 'net';
import * as forge from 'node-forge';

export interface Pem {
  /** PEM certificate */
  readonly cert: string;
  /** PEM private key */
  readonly key: string;
}

export interface WebhookPki {
  readonly ca: Pem;
  readonly serving: Pem;
}

const DAY_MS = 24 * 3600 * 1000;

function newCertificate(subjectCn: string, publicKey: forge.pki.PublicKey, nowMs: number, validDays: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // a positive random serial (the top bit clear), as RFC 5280 asks
  cert.serialNumber = '0' + forge.util.bytesToHex(forge.random.getBytesSync(15));
  cert.validity.notBefore = new Date(nowMs - 5 * 60 * 1000); // tolerate clocks a little behind
  cert.validity.notAfter = new Date(nowMs + validDays * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: subjectCn }]);
  return cert;
}

/** A fresh CA and a serving certificate for `hosts` (DNS names or IP addresses), signed by it. */
export function createWebhookPki(hosts: readonly string[], opts: { nowMs?: number; caDays?: number; servingDays?: number } = {}): WebhookPki {
  const now = opts.nowMs ?? Date.now();
  const caKeys = forge.pki.rsa.generateKeyPair(2048);
  const caCert = newCertificate('cdk8s-zones-controller-ca', caKeys.publicKey, now, opts.caDays ?? 3650);
  caCert.setIssuer(caCert.subject.attributes);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(caKeys.privateKey, forge.md.sha256.create());
  const ca = { cert: forge.pki.certificateToPem(caCert), key: forge.pki.privateKeyToPem(caKeys.privateKey) };
  return { ca, serving: issueServing(ca, hosts, now, opts.servingDays ?? 365) };
}

/** A serving certificate for `hosts`, signed by `ca`. */
export function issueServing(ca: Pem, hosts: readonly string[], nowMs = Date.now(), validDays = 365): Pem {
  if (hosts.length === 0) throw new Error('a serving certificate needs at least one host name');
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = newCertificate(hosts[0], keys.publicKey, nowMs, validDays);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hosts.map((h) => (net.isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

/**
 * Why a stored PKI cannot be used as it is (`undefined` when it can): missing parts, a serving
 * certificate not signed by the CA, not covering every host, or expiring within `renewBeforeDays`.
 */
export function pkiProblem(
  pki: Partial<WebhookPki> | undefined, hosts: readonly string[], nowMs = Date.now(), renewBeforeDays = 30,
): string | undefined {
  if (!pki?.ca?.cert || !pki.ca.key || !pki.serving?.cert || !pki.serving.key) return 'missing';
  let ca: forge.pki.Certificate;
  let serving: forge.pki.Certificate;
  try {
    ca = forge.pki.certificateFromPem(pki.ca.cert);
    serving = forge.pki.certificateFromPem(pki.serving.cert);
  } catch (err) {
    return `unreadable: ${err instanceof Error ? err.message : err}`;
  }
  try {
    if (!ca.verify(serving)) return 'the serving certificate is not signed by the CA';
  } catch {
    return 'the serving certificate is not signed by the CA';
  }
  const renewAt = nowMs + renewBeforeDays * DAY_MS;
  if (ca.validity.notAfter.getTime() < renewAt) return `the CA expires ${ca.validity.notAfter.toISOString()}`;
  if (serving.validity.notAfter.getTime() < renewAt) return `the serving certificate expires ${serving.validity.notAfter.toISOString()}`;
  const san = serving.getExtension('subjectAltName') as { altNames?: Array<{ type: number; value?: string; ip?: string }> } | null;
  const covered = new Set((san?.altNames ?? []).map((n) => (n.type === 7 ? n.ip : n.value)));
  const missing = hosts.filter((h) => !covered.has(h));
  if (missing.length > 0) return `the serving certificate does not cover ${missing.join(', ')}`;
  return undefined;
}
