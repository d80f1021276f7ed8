/**
 * The ZoneDisruptionBudget eviction webhook with the real controller process, registered through a
 * ValidatingWebhookConfiguration (url clientConfig, the controller serving TLS): the API server asks it
 * about every eviction of the namespace's pods. An eviction in a second zone is denied while a first zone
 * is disrupted, a second one in the same zone passes, and (upstream bug 28) a pod that is evicted and
 * cannot come back still counts as unavailable in its zone.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace, restrictedNamespace } from './examples';
import { KubeApiError } from './kube-client';
import { crds, isReady, statefulSet } from './rollout-fixtures';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { EVICTION_WEBHOOK_PATH } from '../../../src/contract/rollout';
import { freePort } from '../processes';

const { client, info } = testCluster();
const ns = uniqueName('zdb');
const webhookName = uniqueName('zdb-evictions');
const policyName = uniqueName('zdb-block-pods');
let controller: ControllerProcess | undefined;
afterAll(async () => {
  await controller?.stop();
  await client.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', webhookName);
  await client.delete('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', policyName);
  await client.delete('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', policyName);
  await deleteNamespace(client, ns);
  client.close();
});

/** Evicts a pod: 'allowed' (201), or the API server's status code and message. */
async function evict(name: string, dryRun = false): Promise<{ status: number; message: string }> {
  try {
    await client.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction${dryRun ? '?dryRun=All' : ''}`,
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } });
    return { status: 201, message: 'allowed' };
  } catch (err) {
    if (err instanceof KubeApiError) return { status: err.status, message: err.detail };
    throw err;
  }
}

async function readyPodsByZone(): Promise<Record<string, string[]>> {
  const pods = (await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=db' })).filter((p) => isReady(p) && !p.metadata.deletionTimestamp);
  const byZone: Record<string, string[]> = {};
  for (const p of pods) (byZone[zoneOfNode(info, p.spec.nodeName)!] ??= []).push(p.metadata.name);
  for (const zone of Object.keys(byZone)) byZone[zone].sort();
  return byZone;
}

async function allReady(): Promise<Record<string, string[]>> {
  return waitFor('6 Ready pods, 2 per zone', async () => {
    const byZone = await readyPodsByZone();
    return { done: info.zones.every((z) => byZone[z]?.length === 2), value: byZone, state: JSON.stringify(byZone) };
  });
}

async function zdbStatus(): Promise<any> {
  return (await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneDisruptionBudget', 'db', ns)).status ?? {};
}

async function webhookCalls(): Promise<number> {
  const text = await controller!.metrics();
  return text.split('\n').filter((l) => l.startsWith('cdk8s_zones_webhook_admissions_total{'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

test('evictions pass in one zone at a time, and a missing pod keeps its zone disrupted', async () => {
  await restrictedNamespace(client, ns);
  const sts = statefulSet('db', ns, 6, { type: 'RollingUpdate' });
  const applied = await applyManifests(client, [...crds(), sts,
    { apiVersion: 'cdk8s-zones.dev/v1alpha1', kind: 'ZoneDisruptionBudget', metadata: { name: 'db', namespace: ns }, spec: { selector: { matchLabels: { app: 'db' } }, maxUnavailable: 2 } }], ns);
  expect(applied.rejections).toEqual([]);
  await allReady();

  const pki = path.join(info.runDir, 'pki');
  // The API server's own serving certificate (127.0.0.1, signed by the cluster CA) serves the webhook.
  const webhookPort = await freePort();
  controller = await ControllerProcess.start(info, 'zdb', ['--reconcilers', 'zone-disruption-budget', '--webhook-port', String(webhookPort),
    '--tls-mode', 'files', '--tls-cert-file', path.join(pki, 'apiserver.crt'), '--tls-key-file', path.join(pki, 'apiserver.key')]);
  await client.create({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: webhookName },
    webhooks: [{
      name: 'evictions.cdk8s-zones.dev',
      clientConfig: { url: `https://127.0.0.1:${webhookPort}${EVICTION_WEBHOOK_PATH}`, caBundle: fs.readFileSync(info.ca).toString('base64') },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'], scope: 'Namespaced' }],
      failurePolicy: 'Fail',
      sideEffects: 'NoneOnDryRun',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    }],
  });
  const status = await waitFor('the budget status', async () => {
    const s = await zdbStatus();
    return { done: s.expectedPods === 6 && s.healthyPods === 6, value: s, state: JSON.stringify(s) };
  });
  expect(status.zones).toEqual(info.zones.map((zone) => ({ zone, expected: 2, healthy: 2, disruptionsAllowed: 2 })));

  let byZone = await allReady();
  // The API server takes a moment to start calling a new webhook: dry-run evictions until it does.
  await waitFor('the API server to call the webhook', async () => {
    const before = await webhookCalls();
    expect((await evict(byZone['zone-a'][0], true)).status).toBe(201);
    return { done: (await webhookCalls()) > before };
  });

  // Zone a: the first eviction passes; zone b is then refused; a second one in zone a passes.
  expect(await evict(byZone['zone-a'][0])).toEqual({ status: 201, message: 'allowed' });
  const denied = await evict(byZone['zone-b'][0]);
  expect(denied.status).toBe(429);
  expect(denied.message).toMatch(/zone\(s\) zone-a \(1 unavailable\) already disrupted; only evictions in the same zone may proceed/);
  expect(await evict(byZone['zone-a'][1])).toEqual({ status: 201, message: 'allowed' });
  expect((await evict(byZone['zone-c'][0])).status).toBe(429);

  // Bug 28: block pod creation, evict a zone-a pod; it cannot come back. Once it is gone from the cluster
  // (and from the controller's memory of allowed evictions), it still counts as unavailable in zone a.
  byZone = await allReady();
  await client.create({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: policyName },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: 'false', message: 'pod creation blocked by the test' }],
    },
  });
  await client.create({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: policyName },
    spec: { policyName, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } } },
  });
  await waitFor('the policy to block pod creation', async () => {
    try {
      await client.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', namespace: ns }, spec: sts.spec.template.spec });
      await client.delete('v1', 'Pod', 'probe', ns, { gracePeriodSeconds: 0 });
      return { done: false, state: 'a pod was created' };
    } catch (err) {
      return { done: err instanceof KubeApiError && /blocked by the test/.test(err.detail), state: String(err) };
    }
  });
  const gone = byZone['zone-a'][0];
  expect((await evict(gone)).status).toBe(201);
  const missing = await waitFor(`${gone} gone, counted as missing in zone-a`, async () => {
    const present = await client.find('v1', 'Pod', gone, ns);
    const s = await zdbStatus();
    const zoneA = s.zones?.find((z: any) => z.zone === 'zone-a');
    return { done: !present && s.expectedPods === 6 && s.healthyPods === 5 && zoneA?.healthy === 1, value: s, state: `present ${!!present}; ${JSON.stringify(s)}` };
  });
  expect(missing.zones).toEqual([
    { zone: 'zone-a', expected: 2, healthy: 1, disruptionsAllowed: 1 },
    { zone: 'zone-b', expected: 2, healthy: 2, disruptionsAllowed: 0 },
    { zone: 'zone-c', expected: 2, healthy: 2, disruptionsAllowed: 0 },
  ]);
  const refused = await evict(byZone['zone-b'][0]);
  expect(refused).toEqual({ status: 429, message: expect.stringMatching(/zone-a \(1 unavailable\) already disrupted/) });
  expect(await evict(byZone['zone-a'][1], true)).toEqual({ status: 201, message: 'allowed' });

  // Let the pod come back: zone b may be disrupted again.
  await client.delete('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', policyName);
  await allReady();
  await waitFor('the budget to be whole again', async () => {
    const s = await zdbStatus();
    return { done: s.healthyPods === 6, state: JSON.stringify(s) };
  });
  expect(await evict(byZone['zone-b'][0], true)).toEqual({ status: 201, message: 'allowed' });
});
