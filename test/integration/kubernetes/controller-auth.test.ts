/**
 * The controller's own API client against the real API server, in each way it authenticates: client
 * certificates as base64 data in a YAML kubeconfig (the admin kubeconfig of every other controller test has
 * them as files), a ServiceAccount token in a kubeconfig's tokenFile, and in-cluster mode (the service
 * account's token, CA and namespace files in a folder, KUBERNETES_SERVICE_HOST/PORT naming the API server).
 * Each time the zone annotator annotates a pod. The token is rotated under the running controller: the
 * file gets a new token and the old one is revoked (the Secret it is bound to deleted); the next patch is
 * refused once, the client reads the file again and the pod is annotated without a failed reconcile.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ControllerProcess } from './controller-process';
import { deleteNamespace, restrictedNamespace } from './examples';
import { KubeObject } from './kube-client';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { KubeApiError, resourcePath } from '../../../controller/src/kube/api';
import { kubeApi } from '../../../controller/src/kube/connect';
import { PODS } from '../../../controller/src/resources';
import { ZONE_ANNOTATOR_RULES } from '../../../src/contract/reconcilers';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { staticToken } from '../../../src/kubernetes/kube-connection';

const { client, info } = testCluster();
const ns = uniqueName('auth');
const SA = 'zones';
const role = `${ns}-controller`;
const node = info.nodes[0];
const controllers: ControllerProcess[] = [];
const dir = path.join(info.runDir, ns);

/** A pod bound to `node` that opts in (no scheduler involved). */
function pod(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE } },
    spec: { ...RESTRICTED_PAUSE_POD, nodeName: node.name, tolerations: [{ operator: 'Exists' }] },
  };
}

async function annotated(name: string): Promise<void> {
  await client.create(pod(name));
  await waitFor(`${name} annotated with its node's zone`, async () => {
    controllers.forEach((c) => c.assertRunning());
    const p = await client.get<any>('v1', 'Pod', name, ns);
    const value = p.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION];
    return { done: value === node.zone, state: `annotation ${value}` };
  });
}

/** A token of the ServiceAccount bound to a new Secret `secret`: deleting the Secret revokes the token. */
async function boundToken(secret: string): Promise<string> {
  const s = await client.create<any>({ apiVersion: 'v1', kind: 'Secret', metadata: { name: secret, namespace: ns } });
  const request = await client.request<any>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${SA}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: secret, uid: s.metadata.uid } },
  });
  return request.body.status.token;
}

/**
 * Deletes the Secret `token` is bound to and waits until the API server refuses the token (its cache holds it
 * ~10 s).
 */
async function revoke(secret: string, token: string): Promise<void> {
  await client.delete('v1', 'Secret', secret, ns);
  const api = kubeApi({
    server: new URL(info.server),
    ca: fs.readFileSync(info.ca),
    token: staticToken(token),
    source: 'test',
  });
  await waitFor('the old token refused', async () => {
    const status = await api.list(resourcePath(PODS, ns), { limit: 1 }).then(
      () => 200,
      (err) => (err instanceof KubeApiError ? err.status : 0),
    );
    return { done: status === 401, state: `HTTP ${status}` };
  }, { timeoutMs: 60_000, intervalMs: 1000 });
}

/** The controller's failed reconciles (the series is absent until one fails): a rotated token must cost none. */
const failures = async (c: ControllerProcess) => (await c.metric('cdk8s_zones_reconcile_errors_total{reconciler="zone-annotator"}')) ?? 0;

/** Writes `text` to `file` as the kubelet does: a new file renamed over the old one. */
function replaceFile(file: string, text: string): void {
  fs.writeFileSync(`${file}.new`, text);
  fs.renameSync(`${file}.new`, file);
}

beforeAll(async () => {
  fs.mkdirSync(dir, { recursive: true });
  await restrictedNamespace(client, ns);
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: ns } });
  // the annotator's rules, and the leader election Lease (in-cluster mode takes its namespace from the files)
  const rules = [...ZONE_ANNOTATOR_RULES, { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }]
    .map(({ apiGroups, resources, verbs }) => ({ apiGroups, resources, verbs }));
  await client.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules });
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: SA, namespace: ns }],
  });
});

afterEach(async () => {
  await Promise.all(controllers.splice(0).map((c) => c.stop()));
});

afterAll(async () => {
  await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', role);
  await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRole', role);
  await deleteNamespace(client, ns);
  client.close();
});

test('client certificate, key and CA as base64 data in a YAML kubeconfig', async () => {
  const data = (file: string) => fs.readFileSync(file).toString('base64');
  const kubeconfig = path.join(dir, 'inline.yaml');
  fs.writeFileSync(kubeconfig, [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: test',
    '    cluster:',
    `      server: ${info.server}`,
    `      certificate-authority-data: ${data(info.ca)}`,
    'users:',
    '  - name: admin',
    '    user:',
    `      client-certificate-data: ${data(info.cert)}`,
    `      client-key-data: ${data(info.key)}`,
    'contexts:',
    '  - name: test',
    '    context: { cluster: test, user: admin }',
    'current-context: test',
    '',
  ].join('\n'));
  controllers.push(await ControllerProcess.start(info, 'auth-inline-cert', ['--reconcilers', 'zone-annotator'], {}, kubeconfig));
  await annotated('inline-cert');
});

test('a ServiceAccount token in a kubeconfig\'s tokenFile, rotated while the controller runs', async () => {
  const tokenFile = path.join(dir, 'kubeconfig-token');
  const first = await boundToken('kubeconfig-token-1');
  fs.writeFileSync(tokenFile, first);
  const kubeconfig = path.join(dir, 'token.json');
  fs.writeFileSync(kubeconfig, JSON.stringify({
    'clusters': [{ name: 'test', cluster: { 'server': info.server, 'certificate-authority': info.ca } }],
    'users': [{ name: SA, user: { tokenFile: path.basename(tokenFile) } }], // relative to the kubeconfig
    'contexts': [{ name: 'test', context: { cluster: 'test', user: SA } }],
    'current-context': 'test',
  }));
  const controller = await ControllerProcess.start(info, 'auth-token-file', ['--reconcilers', 'zone-annotator'], {}, kubeconfig);
  controllers.push(controller);
  await annotated('token-file-1');

  replaceFile(tokenFile, await boundToken('kubeconfig-token-2'));
  await revoke('kubeconfig-token-1', first);
  await annotated('token-file-2');
  expect(await failures(controller)).toBe(0);
});

test('in-cluster: KUBERNETES_SERVICE_HOST/PORT and the service account files; the namespace file names the Lease\'s namespace', async () => {
  const saDir = path.join(dir, 'serviceaccount');
  fs.mkdirSync(saDir, { recursive: true });
  const first = await boundToken('in-cluster-token-1');
  fs.writeFileSync(path.join(saDir, 'token'), first);
  fs.copyFileSync(info.ca, path.join(saDir, 'ca.crt'));
  fs.writeFileSync(path.join(saDir, 'namespace'), ns);
  const server = new URL(info.server);
  const identity = 'auth-in-cluster';
  const controller = await ControllerProcess.start(info, identity, ['--reconcilers', 'zone-annotator', '--leader-elect'], {},
    { inCluster: { host: server.hostname, port: server.port, dir: saDir } });
  controllers.push(controller);
  await annotated('in-cluster-1');
  const lease = await client.get<any>('coordination.k8s.io/v1', 'Lease', 'cdk8s-zones-controller', ns);
  expect(lease.spec.holderIdentity).toBe(identity);

  replaceFile(path.join(saDir, 'token'), await boundToken('in-cluster-token-2'));
  await revoke('in-cluster-token-1', first);
  await annotated('in-cluster-2');
  expect(await failures(controller)).toBe(0);
});
