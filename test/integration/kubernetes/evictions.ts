/**
 * Evictions through the real API (what `kubectl drain` does), the controller's eviction webhook registered
 * for some namespaces (and reachable straight, as any client in the cluster could), and a way to keep
 * evicted pods from coming back (so a test sees the zone stay disrupted however fast kwok would make a new
 * pod Ready).
 */
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ClusterInfo } from './control-plane';
import { ControllerProcess } from './controller-process';
import { applyManifests, restrictedNamespace } from './examples';
import { KubeApiError, KubeClient, KubeObject } from './kube-client';
import { crds, statefulSet } from './rollout-fixtures';
import { uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { Answer, post } from '../../../controller/test/http-clients';
import { WebhookTls, ZoneController } from '../../../src';
import { EVICTION_WEBHOOK_PATH } from '../../../src/contract/rollout';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import { freePort } from '../processes';

const ADMISSION = 'admissionregistration.k8s.io/v1';

/**
 * A fresh restricted namespace `ns` with a StatefulSet `app` of 2 pods per zone, and (`maxUnavailable`
 * given) a ZoneDisruptionBudget `app` over it; returns the StatefulSet once every pod is Ready.
 */
export async function zonalStatefulSet(
  client: KubeClient,
  info: ClusterInfo,
  ns: string,
  app: string,
  maxUnavailable?: number,
): Promise<KubeObject> {
  await restrictedNamespace(client, ns);
  const sts = statefulSet(app, ns, 2 * info.zones.length, { type: 'RollingUpdate' });
  const budget = {
    apiVersion: 'cdk8s-zones.dev/v1alpha1',
    kind: 'ZoneDisruptionBudget',
    metadata: { name: app, namespace: ns },
    spec: { selector: { matchLabels: { app } }, maxUnavailable },
  };
  const applied = await applyManifests(client, [...crds(), sts, ...(maxUnavailable === undefined ? [] : [budget])], ns);
  if (applied.rejections.length > 0) throw new Error(`could not apply: ${JSON.stringify(applied.rejections)}`);
  await readyInEveryZone(client, info, ns, app);
  return sts;
}

/** The names of the Ready, not terminating pods of `app` in `ns`, by zone, sorted. */
async function readyPodsByZone(
  client: KubeClient,
  info: ClusterInfo,
  ns: string,
  app: string,
): Promise<Record<string, string[]>> {
  const pods = (await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` }))
    .filter((p) => isReady(p) && !isTerminating(p));
  const byZone: Record<string, string[]> = {};
  for (const p of pods) (byZone[zoneOfNode(info, p.spec.nodeName)!] ??= []).push(p.metadata.name);
  for (const zone of Object.keys(byZone)) byZone[zone].sort();
  return byZone;
}

/** Waits until `app` has 2 Ready pods in every zone; returns them by zone. */
export async function readyInEveryZone(
  client: KubeClient,
  info: ClusterInfo,
  ns: string,
  app: string,
): Promise<Record<string, string[]>> {
  return waitFor(`2 Ready pods of ${app} per zone`, async () => {
    const byZone = await readyPodsByZone(client, info, ns, app);
    return { done: info.zones.every((z) => byZone[z]?.length === 2), value: byZone, state: JSON.stringify(byZone) };
  });
}

/** The status of ZoneDisruptionBudget `name` (empty until the controller writes one). */
export async function budgetStatus(client: KubeClient, ns: string, name: string): Promise<any> {
  return (await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneDisruptionBudget', name, ns)).status ?? {};
}

/** Waits until the controller's status of budget `name` counts every one of its `expected` pods healthy. */
export async function budgetWhole(client: KubeClient, ns: string, name: string, expected: number): Promise<any> {
  return waitFor(`budget ${name}: ${expected} of ${expected} pods healthy`, async () => {
    const s = await budgetStatus(client, ns, name);
    return { done: s.expectedPods === expected && s.healthyPods === expected, value: s, state: JSON.stringify(s) };
  });
}

/** Evicts a pod: 201 when allowed, else the API server's status code and message. */
export async function evict(
  client: KubeClient,
  ns: string,
  name: string,
  dryRun = false,
): Promise<{ status: number; message: string }> {
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
 * The eviction webhook `ZoneController` synthesizes when it serves `namespaces` (its rules, namespace
 * selector, failure policy, side effects and timeout), with a url clientConfig: the API server reaches a
 * process, not a Service.
 */
function synthesizedWebhook(namespaces: readonly string[], url: string, caBundle: string): any {
  const chart = new Chart(Testing.app(), 'zones');
  new ZoneController(chart, 'zones', {
    zoneAnnotator: false,
    zoneDisruptionBudget: true,
    webhookTls: WebhookTls.selfManaged(),
    workloadNamespaces: [...namespaces],
  });
  const [webhook] = Testing.synth(chart).find((o) => o.kind === 'ValidatingWebhookConfiguration')!.webhooks;
  return { ...webhook, clientConfig: { url, caBundle } };
}

/**
 * The controller's zone-disruption-budget reconciler as a real process (`args`: more flags of `run`), and
 * the webhook ZoneController synthesizes for `namespaces` (failure policy Fail), pointed at it. It serves TLS
 * with the API server's own certificate (127.0.0.1, signed by the cluster CA).
 */
export class EvictionWebhook {
  static async start(
    client: KubeClient, info: ClusterInfo, namespaces: string | readonly string[], args: readonly string[] = [],
  ): Promise<EvictionWebhook> {
    const pki = path.join(info.runDir, 'pki');
    const port = await freePort();
    const controller = await ControllerProcess.start(info, uniqueName('zdb'), ['--reconcilers', 'zone-disruption-budget', '--webhook-port', String(port),
      '--tls-mode', 'files', '--tls-cert-file', path.join(pki, 'apiserver.crt'), '--tls-key-file', path.join(pki, 'apiserver.key'),
      ...args]);
    const name = uniqueName('evictions');
    await client.create({
      apiVersion: ADMISSION,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [synthesizedWebhook(
        [namespaces].flat(),
        `https://127.0.0.1:${port}${EVICTION_WEBHOOK_PATH}`,
        fs.readFileSync(info.ca).toString('base64'),
      )],
    });
    return new EvictionWebhook(client, controller, name, port, fs.readFileSync(info.ca, 'utf8'));
  }

  private constructor(
    private readonly client: KubeClient, readonly controller: ControllerProcess, private readonly name: string,
    /** The webhook's HTTPS port on 127.0.0.1. */
    readonly port: number,
    /** The CA its certificate chains to. */
    readonly ca: string,
  ) {}

  /**
   * POSTs `body` (an object as JSON) to the webhook straight, as any client in the cluster could, not through the
   * API server.
   */
  post(body: unknown): Promise<Answer> {
    return post(this.port, this.ca, EVICTION_WEBHOOK_PATH, body);
  }

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
    spec: {
      policyName: name,
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
    },
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
