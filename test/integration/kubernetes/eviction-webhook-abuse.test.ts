/**
 * The eviction webhook against hostile clients, with the real API server and the real controller process.
 * Any pod in the cluster can reach the webhook's port, so:
 * - a forged AdmissionReview posted straight to the port (allowing a zone-a pod, never confirmed by the API
 *   server) changes no later verdict: an eviction in zone b still passes, and the legitimate sequence still
 *   holds (a real eviction in zone a, then zone b refused with 429);
 * - a review without `resource`, a 9 MiB body and a slow-drip client get prompt clear answers (400, 413,
 *   408 within the request timeout) and the webhook keeps answering;
 * - with the controller down, its fail-closed webhook (a namespaceSelector naming only the namespace with a
 *   budget) refuses evictions there, and evictions elsewhere go on.
 */
import { randomUUID } from 'crypto';
import { budgetWhole, evict as evictIn, EvictionWebhook, readyInEveryZone, zonalStatefulSet } from './evictions';
import { deleteNamespace } from './examples';
import { testCluster, uniqueName } from './scheduling';
import { slowDrip, stall, TIMED_OUT } from '../../../controller/test/http-clients';
import { EVICTION_WEBHOOK_PATH } from '../../../src/contract/rollout';

const { client, info } = testCluster();
/** The namespace with a ZoneDisruptionBudget, the only one the webhook configuration names. */
const ns = uniqueName('zdb-abuse');
/** A namespace without a budget. */
const free = uniqueName('zdb-free');
/** The controller's --request-timeout, in seconds. */
const REQUEST_TIMEOUT_S = 2;
/** "Prompt", generously: a loaded 2-core machine, still far below Node's defaults (minutes). */
const PROMPT_MS = 15_000;
let webhook: EvictionWebhook;

beforeAll(async () => {
  await zonalStatefulSet(client, info, ns, 'db', 2);
  await zonalStatefulSet(client, info, free, 'web');
  webhook = await EvictionWebhook.start(client, info, [ns], ['--request-timeout', `${REQUEST_TIMEOUT_S}s`]);
  await budgetWhole(client, ns, 'db', 6);
  await webhook.waitUntilCalled(ns, (await readyInEveryZone(client, info, ns, 'db'))['zone-a'][0]);
});

afterAll(async () => {
  await webhook?.stop();
  await Promise.all([deleteNamespace(client, ns), deleteNamespace(client, free)]);
  client.close();
});

const evict = (name: string) => evictIn(client, ns, name);

/** What the API server would send about evicting `pod` of `ns`, with a fresh uid. */
function reviewOf(pod: string, dryRun = false) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'eviction',
      name: pod,
      namespace: ns,
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:elsewhere:default' },
      object: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: ns } },
      oldObject: null,
      dryRun,
    },
  };
}

test('a forged review posted straight to the webhook changes no later verdict; the legitimate sequence still holds', async () => {
  let byZone = await readyInEveryZone(client, info, ns, 'db');
  const forged = reviewOf(byZone['zone-a'][0]);
  // the webhook cannot tell a forged review from the API server's: it allows it, and only reserves
  expect(await webhook.post(forged)).toMatchObject({
    status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: forged.request.uid, allowed: true } },
  });
  // zone b, as without the forgery: allowed (after the forged reservation expired unconfirmed)
  expect(await evict(byZone['zone-b'][0])).toEqual({ status: 201, message: 'allowed' });
  expect((await client.get<any>('v1', 'Pod', byZone['zone-a'][0], ns)).metadata.deletionTimestamp).toBeUndefined();
  const expired = 'cdk8s_zones_decisions_total{reconciler="zone-disruption-budget",decision="reservation-expired"}';
  expect(await webhook.controller.metric(expired)).toBe(1);

  // The real thing: an eviction in zone a, then zone b is refused while zone a is disrupted.
  byZone = await readyInEveryZone(client, info, ns, 'db');
  await budgetWhole(client, ns, 'db', 6);
  expect(await evict(byZone['zone-a'][0])).toEqual({ status: 201, message: 'allowed' });
  expect(await evict(byZone['zone-b'][1])).toEqual({ status: 429, message: expect.stringMatching(/zone\(s\) zone-a \(1 unavailable\) already disrupted/) });
});

test('malformed reviews, a body too large and a slow-drip client get prompt clear answers; the webhook keeps answering', async () => {
  const pod = (await readyInEveryZone(client, info, ns, 'db'))['zone-a'][0];
  const { resource, ...noResource } = reviewOf(pod).request;
  expect(resource.resource).toBe('pods');
  expect(await webhook.post({ ...reviewOf(pod), request: noResource })).toMatchObject({
    status: 400, body: { error: 'malformed AdmissionReview: request.resource must be an object with string group, version, resource' },
  });
  expect(await webhook.post('{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionRev')).toMatchObject({
    status: 400, body: { error: 'malformed AdmissionReview: the body is not JSON' },
  });
  expect(await webhook.post(Buffer.alloc(9 * 1024 * 1024, ' '))).toMatchObject({
    status: 413,
    body: { error: `the body is larger than ${8 * 1024 * 1024} bytes` },
  });

  // A client that promises 100 bytes and sends 10 holds its connection until the request timeout, no
  // longer; the webhook answers others meanwhile and afterwards.
  const dripping = stall(webhook.port, slowDrip(EVICTION_WEBHOOK_PATH), webhook.ca);
  const dryRun = reviewOf(pod, true);
  expect(await webhook.post(dryRun)).toMatchObject({
    status: 200,
    body: { response: { uid: dryRun.request.uid, allowed: true } },
  });
  const cut = await dripping;
  expect(cut.text).toBe(TIMED_OUT);
  expect(cut.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_S * 1000 - 100);
  expect(cut.ms).toBeLessThan(PROMPT_MS);
  const after = reviewOf(pod, true);
  expect(await webhook.post(after)).toMatchObject({
    status: 200,
    body: { response: { uid: after.request.uid, allowed: true } },
  });
  webhook.controller.assertRunning();
});

test('with the controller down, the fail-closed webhook refuses evictions in the namespace it names only', async () => {
  const guarded = await readyInEveryZone(client, info, ns, 'db');
  const elsewhere = await readyInEveryZone(client, info, free, 'web');
  expect(await webhook.controller.stop()).toBe(0);
  // no budget there, and the webhook configuration does not name the namespace: the API server never asks
  expect(await evictIn(client, free, elsewhere['zone-a'][0])).toEqual({ status: 201, message: 'allowed' });
  expect(await evictIn(client, free, elsewhere['zone-b'][0])).toEqual({ status: 201, message: 'allowed' });
  // the guarded namespace: the API server cannot reach the webhook, and failurePolicy Fail refuses
  const refused = await evict(guarded['zone-c'][0]);
  expect(refused.status).toBe(500);
  expect(refused.message).toMatch(/failed calling webhook "pods-eviction\.cdk8s-zones\.dev"/);
  expect((await client.get<any>('v1', 'Pod', guarded['zone-c'][0], ns)).metadata.deletionTimestamp).toBeUndefined();
});
