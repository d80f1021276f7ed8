/**
 * Certificates for a test control plane, made with the openssl CLI (Node.js can parse certificates but
 * not issue them): one CA that signs the API server's serving certificate and every client certificate,
 * and the key pair that signs service account tokens. EC P-256 keys: fast to generate, accepted by every
 * component. Valid for 30 days; a control plane lives for one test run.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/** A certificate and its key, as file paths. */
export interface CertFiles {
  readonly cert: string;
  readonly key: string;
}

/** The client identities of a control plane: the user name (CN) and groups (O) in each certificate. */
const CLIENTS = {
  'admin': { cn: 'cdk8s-zones-test-admin', groups: ['system:masters'] },
  'kube-controller-manager': { cn: 'system:kube-controller-manager', groups: [] },
  'kube-scheduler': { cn: 'system:kube-scheduler', groups: [] },
  // kwok writes node and pod status and node leases for every fake node: it acts for all of them.
  'kwok': { cn: 'kwok', groups: ['system:masters'] },
} as const;
export type ClientName = keyof typeof CLIENTS;

export interface Pki {
  readonly ca: CertFiles;
  readonly apiserver: CertFiles;
  readonly clients: Record<ClientName, CertFiles>;
  /** Signs service account tokens (kube-apiserver) and verifies them (kube-apiserver, controller-manager). */
  readonly serviceAccount: { readonly key: string; readonly pub: string };
}

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err: any) {
    if (err.code === 'ENOENT') {
      throw new Error('openssl is not installed: run `npm run test:integration:setup` (it installs it), or install Debian\'s openssl package');
    }
    throw new Error(`openssl ${args.join(' ')} failed: ${err.stderr?.toString().trim() ?? err.message}`);
  }
}

function newKey(file: string): void {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file]);
}

function issue(dir: string, name: string, ca: CertFiles, subject: string, extensions: string[]): CertFiles {
  const files = { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
  const csr = path.join(dir, `${name}.csr`);
  const ext = path.join(dir, `${name}.ext`);
  newKey(files.key);
  openssl(['req', '-new', '-key', files.key, '-subj', subject, '-out', csr]);
  fs.writeFileSync(ext, ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', ...extensions].join('\n') + '\n');
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-set_serial', `0x${crypto.randomBytes(16).toString('hex')}`,
    '-days', '30', '-sha256', '-extfile', ext, '-out', files.cert]);
  fs.rmSync(csr);
  fs.rmSync(ext);
  return files;
}

/**
 * Writes a fresh CA, the API server's certificate, one client certificate per `CLIENTS` entry and the service account
 * key pair into `dir`.
 */
export function createPki(dir: string, serviceClusterIp: string): Pki {
  fs.mkdirSync(dir, { recursive: true });
  const ca = { cert: path.join(dir, 'ca.crt'), key: path.join(dir, 'ca.key') };
  newKey(ca.key);
  openssl(['req', '-x509', '-new', '-key', ca.key, '-subj', '/CN=cdk8s-zones-test-ca', '-days', '30', '-sha256',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', ca.cert]);

  const names = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const apiserver = issue(dir, 'apiserver', ca, '/CN=kube-apiserver', [
    'extendedKeyUsage=serverAuth',
    `subjectAltName=${['IP:127.0.0.1', `IP:${serviceClusterIp}`, ...names.map((n) => `DNS:${n}`)].join(',')}`,
  ]);

  const clients = Object.fromEntries(Object.entries(CLIENTS).map(([name, id]) => {
    const subject = `/CN=${id.cn}${id.groups.map((g) => `/O=${g}`).join('')}`;
    return [name, issue(dir, name, ca, subject, ['extendedKeyUsage=clientAuth'])];
  })) as Record<ClientName, CertFiles>;

  const serviceAccount = { key: path.join(dir, 'service-account.key'), pub: path.join(dir, 'service-account.pub') };
  newKey(serviceAccount.key);
  openssl(['ec', '-in', serviceAccount.key, '-pubout', '-out', serviceAccount.pub]);
  return { ca, apiserver, clients, serviceAccount };
}

/** A kubeconfig for one client of the control plane, with absolute paths to its files. */
export function kubeconfig(server: string, ca: string, user: string, client: CertFiles): string {
  // JSON is YAML: no YAML writer needed, and every Kubernetes client reads it.
  return JSON.stringify({
    'apiVersion': 'v1',
    'kind': 'Config',
    'clusters': [{ name: 'cdk8s-zones-test', cluster: { 'server': server, 'certificate-authority': ca } }],
    'users': [{ name: user, user: { 'client-certificate': client.cert, 'client-key': client.key } }],
    'contexts': [{ name: 'cdk8s-zones-test', context: { cluster: 'cdk8s-zones-test', user } }],
    'current-context': 'cdk8s-zones-test',
  }, null, 2) + '\n';
}
