/**
 * The controller's side of the shared kubeconfig reading (src/kubernetes/kube-connection.ts, tested in
 * test/kubernetes/kube-connection.test.ts): its parser (JSON as JSON, YAML with `yaml`) and the cluster
 * `loadClusterConfig` selects with it.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SERVICE_ACCOUNT_DIR_ENV } from '../../src/kubernetes/kube-connection';
import { loadClusterConfig, parseKubeconfig } from '../src/kube/config';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
  fs.writeFileSync(path.join(dir, 'ca.crt'), CERT);
  fs.writeFileSync(path.join(dir, 'token'), 'file-token\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the parser: JSON as JSON, YAML with yaml, the same data', () => {
  const json = '{"current-context": "x", "users": [{"name": "u", "user": {"token": "t"}}]}';
  const yaml = 'current-context: x\nusers:\n  - name: u\n    user:\n      token: t\n';
  expect(parseKubeconfig('k', json)).toEqual(parseKubeconfig('k', yaml));
  expect(() => parseKubeconfig('k', '{"a": ')).toThrow(SyntaxError);
});

test('JSON is YAML too (the test tier writes its kubeconfigs as JSON)', () => {
  const file = path.join(dir, 'json');
  fs.writeFileSync(file, JSON.stringify({
    'clusters': [{ name: 'c', cluster: { 'server': 'https://[::1]:6443', 'certificate-authority': path.join(dir, 'ca.crt') } }],
    'users': [{ name: 'u', user: { token: 't' } }],
    'contexts': [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  }));
  const c = loadClusterConfig({ kubeconfig: file, env: {} });
  expect([c.server.hostname, c.server.port, c.token?.current()]).toEqual(['[::1]', '6443', 't']);
});

test('a YAML kubeconfig, a YAML error named with the file; in-cluster without one', () => {
  const file = path.join(dir, 'config');
  fs.writeFileSync(file, 'clusters: [{name: c, cluster: {server: "https://h", certificate-authority: ca.crt}}]\n'
    + 'users: [{name: u, user: {tokenFile: token}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
  expect(loadClusterConfig({ kubeconfig: file, env: {} }).token?.current()).toBe('file-token');
  fs.writeFileSync(file, 'clusters: [\n');
  expect(() => loadClusterConfig({ kubeconfig: file, env: {} })).toThrow(`kubeconfig ${file}: `);
  const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '6443', [SERVICE_ACCOUNT_DIR_ENV]: dir };
  expect(loadClusterConfig({ env }).source).toBe(`in-cluster (service account files in ${dir})`);
});
