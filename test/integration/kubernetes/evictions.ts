/**
 * Evictions through the real API (what `kubectl drain` does), the controller's eviction webhook registered
 * for one namespace, and a way to keep evicted pods from coming back (so a test sees the zone stay
 * disrupted however fast kwok would make a new pod Ready).
 */
import * as fs from 'fs';
import * as path from 'path';
import { ClusterInfo } from './control-plane';
import { ControllerProcess } from './controller-process';
import { KubeApiError, KubeClient } from './kube-client';
import { uniqueName } from './scheduling';
import { waitFor } from './wait';
import { EVICTION_WEBHOOK_PATH } from '../../../src/contract/rollout';
import { freePort } from '../processes';

const ADMISSION = 'admissionregistration.k8s.io/v1';

/** Evicts a pod: 201 when allowed, else the API server's status code and message. */
export async function evict(client: KubeClient, ns: string, name: string, dryRun = false): Promise<{ status: number; message: string }> {
  try {
    await client.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction${dryRun ? '?dryRun=All' : ''}`,
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } });
    return { status: 201, message: 'allowed' };
  } catch (err) {
    if (err instanceof KubeApiError) return { status: err.status, message: err.detail };
    throw err;
  }
}

/**
 * The controller's zone-disruption-budget reconciler as a real process, and a ValidatingWebhookConfiguration
 * (url clientConfig, failure policy Fail) that sends it the evictions of one namespace's pods. It serves
 * TLS with the API server's own certificate (127.0.0.1, signed by the cluster CA).
 */
export class EvictionWebhook {
  static async start(client: KubeClient, info: ClusterInfo, ns: string): Promise<EvictionWebhook> {
    const pki = path.join(info.runDir, 'pki');
    const port = await freePort();
    const controller = await ControllerProcess.start(info, uniqueName('zdb'), ['--reconcilers', 'zone-disruption-budget', '--webhook-port', String(port),
      '--tls-mode', 'files', '--tls-cert-file', path.join(pki, 'apiserver.crt'), '--tls-key-file', path.join(pki, 'apiserver.key')]);
    const name = uniqueName('evictions');
    await client.create({
      apiVersion: ADMISSION,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [{
        name: 'evictions.cdk8s-zones.dev',
        clientConfig: { url: `https://127.0.0.1:${port}${EVICTION_WEBHOOK_PATH}`, caBundle: fs.readFileSync(info.ca).toString('base64') },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'], scope: 'Namespaced' }],
        failurePolicy: 'Fail',
        sideEffects: 'NoneOnDryRun',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      }],
    });
    return new EvictionWebhook(client, controller, name);
  }

  private constructor(private readonly client: KubeClient, readonly controller: ControllerProcess, private readonly name: string) {}

  /** Admission reviews the controller has answered. */
  async calls(): Promise<number> {
    const text = await this.controller.metrics();
    return text.split('\n').filter((l) => l.startsWith('cdk8s_zones_webhook_admissions_total{'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  }

  /** The API server takes a moment to start calling a new webhook: dry-run evictions of `pod` until it does. */
  async waitUntilCalled(ns: string, pod: string): Promise<void> {
    await waitFor('the API server to call the webhook', async () => {
      const before = await this.calls();
      await evict(this.client, ns, pod, true);
      return { done: (await this.calls()) > before };
    });
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    await this.client.delete(ADMISSION, 'ValidatingWebhookConfiguration', this.name);
  }
}

/**
 * Refuses every new pod in `ns` (a ValidatingAdmissionPolicy), so an evicted pod stays gone; returns what
 * lifts it. Waits until the API server enforces it.
 */
export async function blockPodCreation(client: KubeClient, ns: string, pod: object): Promise<() => Promise<void>> {
  const name = uniqueName('block-pods');
  await client.create({
    apiVersion: ADMISSION,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: 'false', message: 'pod creation blocked by the test' }],
    },
  });
  await client.create({
    apiVersion: ADMISSION,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } } },
  });
  await waitFor('the policy to block pod creation', async () => {
    try {
      await client.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', namespace: ns }, spec: pod });
      await client.delete('v1', 'Pod', 'probe', ns, { gracePeriodSeconds: 0 });
      return { done: false, state: 'a pod was created' };
    } catch (err) {
      return { done: err instanceof KubeApiError && /blocked by the test/.test(err.detail), state: String(err) };
    }
  });
  return async () => {
    await client.delete(ADMISSION, 'ValidatingAdmissionPolicyBinding', name);
    await client.delete(ADMISSION, 'ValidatingAdmissionPolicy', name);
  };
}
