/**
 * The ZoneDisruptionBudget eviction webhook with the real controller process, registered through a
 * ValidatingWebhookConfiguration (url clientConfig, the controller serving TLS): the API server asks it
 * about every eviction of the namespace's pods. An eviction in a second zone is denied while a first zone
 * is disrupted, a second one in the same zone passes, and (upstream bug 28) a pod that is evicted and
 * cannot come back still counts as unavailable in its zone.
 */
import {
  blockPodCreation, budgetStatus, budgetWhole, evict as evictIn, EvictionWebhook, readyInEveryZone, zonalStatefulSet,
} from './evictions';
import { deleteNamespace } from './examples';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';

const { client, info } = testCluster();
const ns = uniqueName('zdb');
let webhook: EvictionWebhook | undefined;
let unblock: (() => Promise<void>) | undefined;
afterAll(async () => {
  await webhook?.stop();
  await unblock?.();
  await deleteNamespace(client, ns);
  client.close();
});

const evict = (name: string, dryRun = false) => evictIn(client, ns, name, dryRun);
const allReady = () => readyInEveryZone(client, info, ns, 'db');
const zdbStatus = () => budgetStatus(client, ns, 'db');

test('evictions pass in one zone at a time, and a missing pod keeps its zone disrupted', async () => {
  const sts = await zonalStatefulSet(client, info, ns, 'db', 2);

  webhook = await EvictionWebhook.start(client, info, ns);
  const status = await budgetWhole(client, ns, 'db', 6);
  expect(status.zones).toEqual(info.zones.map((zone) => ({ zone, expected: 2, healthy: 2, disruptionsAllowed: 2 })));

  let byZone = await allReady();
  await webhook.waitUntilCalled(ns, byZone['zone-a'][0]);

  // Zone a: the first eviction passes; zone b is then refused; a second one in zone a passes.
  expect(await evict(byZone['zone-a'][0])).toEqual({ status: 201, message: 'allowed' });
  const denied = await evict(byZone['zone-b'][0]);
  expect(denied.status).toBe(429);
  expect(denied.message).toMatch(/zone\(s\) zone-a \(1 unavailable\) already disrupted; only evictions in the same zone may proceed/);
  expect(await evict(byZone['zone-a'][1])).toEqual({ status: 201, message: 'allowed' });
  expect((await evict(byZone['zone-c'][0])).status).toBe(429);

  // Bug 28: block pod creation, evict a zone-a pod; it cannot come back. Once it is gone from the cluster,
  // it still counts as unavailable in zone a.
  byZone = await allReady();
  unblock = await blockPodCreation(client, ns, sts.spec.template.spec);
  const gone = byZone['zone-a'][0];
  expect((await evict(gone)).status).toBe(201);
  const missing = await waitFor(`${gone} gone, counted as missing in zone-a`, async () => {
    const present = await client.find('v1', 'Pod', gone, ns);
    const s = await zdbStatus();
    const zoneA = s.zones?.find((z: any) => z.zone === 'zone-a');
    return {
      done: !present && s.expectedPods === 6 && s.healthyPods === 5 && zoneA?.healthy === 1,
      value: s,
      state: `present ${!!present}; ${JSON.stringify(s)}`,
    };
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
  await unblock();
  unblock = undefined;
  await allReady();
  await budgetWhole(client, ns, 'db', 6);
  expect(await evict(byZone['zone-b'][0], true)).toEqual({ status: 201, message: 'allowed' });
});
