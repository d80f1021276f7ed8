/**
 * The test API server holds kwok to what a kubelet does (api-server-policies.ts): kwok may finish a terminating pod,
 * never delete one that is not terminating (what its late deletes by name did to pods a StatefulSet had just made
 * again under the same name). Asked as kwok's own identity, with its own client certificate.
 */
import * as fs from 'fs';
import * as path from 'path';
import { KWOK_DELETE_GUARD } from './api-server-policies';
import { deleteNamespace, restrictedNamespace } from './examples';
import { KubeClient, KubeObject } from './kube-client';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';

const { client, info } = testCluster();
const ns = uniqueName('kwok-guard');
let asKwok: KubeClient;

beforeAll(async () => {
  await restrictedNamespace(client, ns);
  const kubeconfig = JSON.parse(fs.readFileSync(path.join(info.runDir, 'kwok.kubeconfig'), 'utf8'));
  const user = kubeconfig.users[0].user;
  asKwok = new KubeClient({ server: info.server, ca: info.ca, cert: user['client-certificate'], key: user['client-key'] });
});

afterAll(async () => {
  asKwok.close();
  await deleteNamespace(client, ns);
  client.close();
});

/**
 * A pod on a kwok node (`onNode`), or one no node takes (kwok leaves it alone: it finishes only the pods of its
 * nodes); a finalizer keeps it terminating once deleted, until the test removes it.
 */
function pod(name: string, onNode: boolean): KubeObject {
  const where = onNode ? { nodeName: info.nodes[0].name } : { nodeSelector: { 'cdk8s-zones.test/no-such-node': 'true' } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, finalizers: ['cdk8s-zones.test/hold'] },
    spec: { ...RESTRICTED_PAUSE_POD, ...where },
  };
}

test('kwok\'s delete of a pod that is not terminating is refused, and the pod stays; a terminating one it finishes', async () => {
  await client.create(pod('running', true));
  const refused = await asKwok.request('DELETE', `/api/v1/namespaces/${ns}/pods/running`, { gracePeriodSeconds: 0 })
    .then(() => undefined, (err: Error) => err.message);
  expect(refused).toContain(`ValidatingAdmissionPolicy '${KWOK_DELETE_GUARD}'`);
  expect(refused).toContain('kwok deletes only terminating pods');
  expect((await client.get<any>('v1', 'Pod', 'running', ns)).metadata.deletionTimestamp).toBeUndefined();

  await client.patch('v1', 'Pod', 'running', { metadata: { finalizers: null } }, ns);

  // terminating (the finalizer holds it): kwok may delete it, as it finishes a pod
  await client.create(pod('leaving', false));
  await client.request('DELETE', `/api/v1/namespaces/${ns}/pods/leaving`, { gracePeriodSeconds: 30 });
  const leaving = await client.get<any>('v1', 'Pod', 'leaving', ns);
  expect(leaving.metadata.deletionTimestamp).toBeDefined();
  const finished = await asKwok.request('DELETE', `/api/v1/namespaces/${ns}/pods/leaving`, { gracePeriodSeconds: 0 });
  expect(finished.status).toBe(200);
  // the finalizer still holds it; removed, the pod goes
  await client.patch('v1', 'Pod', 'leaving', { metadata: { finalizers: null } }, ns);
  await waitFor('the pod gone', async () => ({ done: !(await client.find('v1', 'Pod', 'leaving', ns)) }));
});
