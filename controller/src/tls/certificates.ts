/**
 * The self-managed webhook PKI: a CA the controller makes for itself and a serving certificate it
 * signs for the webhook Service's DNS names. Pure, so it is unit-tested without a cluster: node-forge lays
 * out the certificates, Node's native crypto makes the keys and computes the signatures (forge's arithmetic
 * in JavaScript takes seconds per signature inside jest's sandbox, and blocks the event loop meanwhile).
 */
import * as crypto from 'crypto';
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

/** The DER prefix of a SHA-256 DigestInfo (RFC 8017 section 9.2): what RSASSA-PKCS1-v1_5 signs, digest appended. */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * `pem` as a forge key whose signatures Node computes: RSASSA-PKCS1-v1_5 is the RSA private operation on
 * the DigestInfo with type 1 padding, which is what `privateEncrypt` does.
 */
function nativeSigningKey(pem: string): forge.pki.rsa.PrivateKey {
  return Object.assign(forge.pki.privateKeyFromPem(pem), {
    sign(md: forge.md.MessageDigest | forge.Bytes): forge.Bytes {
      if (typeof md === 'string') throw new Error('expected a message digest to sign');
      const digest = Buffer.from(md.digest().getBytes(), 'binary');
      const info = Buffer.concat([SHA256_DIGEST_INFO, digest]);
      return crypto.privateEncrypt({ key: pem, padding: crypto.constants.RSA_PKCS1_PADDING }, info).toString('binary');
    },
  });
}

interface KeyPair {
  readonly publicKey: forge.pki.PublicKey;
  /** PEM, PKCS#1 ("RSA PRIVATE KEY"), as forge writes it */
  readonly privateKey: string;
}

function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { publicKey: forge.pki.publicKeyFromPem(publicKey), privateKey };
}

/** Signs `cert` with SHA-256 and RSA (the algorithm `SHA256_DIGEST_INFO` names). */
function sign(cert: forge.pki.Certificate, privateKeyPem: string): void {
  cert.sign(nativeSigningKey(privateKeyPem), forge.md.sha256.create());
}

const SERIAL_BYTES = 16;

/**
 * A certificate serial from `random` (SERIAL_BYTES bytes), as hex: positive (the top bit clear) as RFC 5280
 * asks, and its first byte never 0, so its DER INTEGER is minimal. OpenSSL refuses a padded one ("illegal
 * padding"): a CA with such a serial cannot be loaded, and every TLS client of the webhook then fails with
 * "unable to verify the first certificate" (1 PKI in about 128 before this rule).
 */
export function serialNumber(random: Buffer): string {
  if (random.length !== SERIAL_BYTES) throw new Error(`serialNumber: ${SERIAL_BYTES} random bytes needed, got ${random.length}`);
  const bytes = Buffer.from(random);
  // eslint-disable-next-line no-bitwise -- the first byte's top bits make the DER INTEGER positive and minimal
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function newCertificate(
  subjectCn: string,
  publicKey: forge.pki.PublicKey,
  nowMs: number,
  validDays: number,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber(crypto.randomBytes(SERIAL_BYTES));
  cert.validity.notBefore = new Date(nowMs - 5 * 60 * 1000); // tolerate clocks a little behind
  cert.validity.notAfter = new Date(nowMs + validDays * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: subjectCn }]);
  return cert;
}

/** A fresh CA and a serving certificate for `hosts` (DNS names or IP addresses), signed by it. */
export function createWebhookPki(
  hosts: readonly string[],
  opts: { nowMs?: number; caDays?: number; servingDays?: number } = {},
): WebhookPki {
  const now = opts.nowMs ?? Date.now();
  const caKeys = newKeyPair();
  const caCert = newCertificate('cdk8s-zones-controller-ca', caKeys.publicKey, now, opts.caDays ?? 3650);
  caCert.setIssuer(caCert.subject.attributes);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  sign(caCert, caKeys.privateKey);
  const ca = { cert: forge.pki.certificateToPem(caCert), key: caKeys.privateKey };
  return { ca, serving: issueServing(ca, hosts, now, opts.servingDays ?? 365) };
}

/** A serving certificate for `hosts`, signed by `ca`. */
export function issueServing(ca: Pem, hosts: readonly string[], nowMs = Date.now(), validDays = 365): Pem {
  if (hosts.length === 0) throw new Error('a serving certificate needs at least one host name');
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const keys = newKeyPair();
  const cert = newCertificate(hosts[0], keys.publicKey, nowMs, validDays);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hosts.map((h) => (net.isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
  ]);
  sign(cert, ca.key);
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}

/** Whether the certificate `pem` names `caPem` as its issuer and carries its signature (checked natively). */
function signedBy(pem: string, caPem: string): boolean {
  try {
    const ca = new crypto.X509Certificate(caPem);
    const cert = new crypto.X509Certificate(pem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
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
  if (!signedBy(pki.serving.cert, pki.ca.cert)) return 'the serving certificate is not signed by the CA';
  const renewAt = nowMs + renewBeforeDays * DAY_MS;
  if (ca.validity.notAfter.getTime() < renewAt) return `the CA expires ${ca.validity.notAfter.toISOString()}`;
  if (serving.validity.notAfter.getTime() < renewAt) return `the serving certificate expires ${serving.validity.notAfter.toISOString()}`;
  const san = serving.getExtension('subjectAltName') as { altNames?: Array<{ type: number; value?: string; ip?: string }> } | null;
  const covered = new Set((san?.altNames ?? []).map((n) => (n.type === 7 ? n.ip : n.value)));
  const missing = hosts.filter((h) => !covered.has(h));
  if (missing.length > 0) return `the serving certificate does not cover ${missing.join(', ')}`;
  return undefined;
}
