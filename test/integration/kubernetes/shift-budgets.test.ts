/**
 * Budgets during a zonal shift (docs/rollouts.md#budgets-during-a-zonal-shift), with the real controller (its zonal
 * shift in one process, its eviction webhook in another), the real API server's Eviction API and
 * PodDisruptionBudget controller: a drain of a zone-b node during a shift of zone-a goes on, paced by the
 * ZoneDisruptionBudget, and the pods the shift took out may go at any time; a PodDisruptionBudget over pods of the
 * same shape counts the shifted pods as disrupted and refuses the drain.
 *
 * kwok sets a pod's Ready condition once; `playKubeletReadiness` recomputes it from the gates as a kubelet does.
 */
import { ControllerProcess } from './controller-process';
import { evict as evictIn, EvictionWebhook, readyInEveryZone } from './evictions';
import { applyManifests, deleteNamespace, restrictedNamespace } from './examples';
import { KubeObject } from './kube-client';
import { playKubeletReadiness } from './kubelet-readiness';
import { PodWatch } from './pod-watch';
import { crds, statefulSet } from './rollout-fixtures';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { ZONE_IN_SERVICE_CONDITION } from '../../../src/contract/zone-shift';
import { zoneShiftCrd } from '../../../src/contract/zone-shift-crd';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';

const { client, info } = testCluster();
const ns = uniqueName('shift-budgets');
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const SHIFT = uniqueName('shift');
const [ZONE_A, ZONE_B] = info.zones;

/** StatefulSet `app`: 2 pods per zone, opted in to the zonal shift (its readiness gate and the annotator's label). */
function optedIn(app: string): KubeObject {
  const sts = statefulSet(app, ns, 2 * info.zones.length, { type: 'RollingUpdate' });
  const template = sts.spec.template;
  template.metadata.labels[ZoneAnnotation.OPT_IN_LABEL] = 'enabled';
  template.spec.readinessGates = [{ conditionType: ZONE_IN_SERVICE_CONDITION }];
  return sts;
}

const zdb = {
  apiVersion: GROUP,
  kind: 'ZoneDisruptionBudget',
  metadata: { name: 'db', namespace: ns },
  spec: { selector: { matchLabels: { app: 'db' } }, maxUnavailable: 1 },
};
const pdb = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: ns },
  spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
};

let webhook: EvictionWebhook | undefined;
let shifter: ControllerProcess | undefined;
let kubelet: PodWatch | undefined;

beforeAll(async () => {
  await restrictedNamespace(client, ns);
  const objects = [...crds(), zoneShiftCrd() as KubeObject, optedIn('db'), optedIn('web'), zdb, pdb];
  const applied = await applyManifests(client, objects, ns);
  expect(applied.rejections).toEqual([]);
  kubelet = await playKubeletReadiness(client, info, ns);
  shifter = await ControllerProcess.start(info, uniqueName('shifter'), ['--reconcilers', 'zone-annotator,zone-shift']);
  webhook = await EvictionWebhook.start(client, info, ns);
  await readyInEveryZone(client, info, ns, 'db');
  await readyInEveryZone(client, info, ns, 'web');
});

afterAll(async () => {
  await client.delete(GROUP, 'ZoneShift', SHIFT).catch(() => undefined);
  await waitFor('the shift undone', async () => ({ done: !(await client.find(GROUP, 'ZoneShift', SHIFT)) }))
    .catch(() => undefined);
  kubelet?.stop();
  await webhook?.stop();
  await shifter?.stop();
  await deleteNamespace(client, ns);
  client.close();
});

const evict = (pod: string) => evictIn(client, ns, pod);

/** The pods of `app`, by zone: Ready ones and the others, not terminating. */
async function podsByZone(app: string): Promise<Record<string, { ready: string[]; notReady: string[] }>> {
  const pods = (await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` }))
    .filter((p) => !isTerminating(p) && p.spec.nodeName);
  const byZone: Record<string, { ready: string[]; notReady: string[] }> = {};
  for (const p of pods) {
    const zone = (byZone[zoneOfNode(info, p.spec.nodeName)!] ??= { ready: [], notReady: [] });
    (isReady(p) ? zone.ready : zone.notReady).push(p.metadata.name);
  }
  return byZone;
}

test('a drain in zone-b during a shift of zone-a: the ZoneDisruptionBudget paces it, a PodDisruptionBudget refuses it', async () => {
  await client.create({
    apiVersion: GROUP,
    kind: 'ZoneShift',
    metadata: { name: SHIFT },
    spec: { zone: ZONE_A, expiresAt: new Date(Date.now() + 3600_000).toISOString(), reason: 'test' },
  });
  const shifted = await waitFor('both workloads\' zone-a pods out of service, the budget saying so', async () => {
    const [db, web] = [await podsByZone('db'), await podsByZone('web')];
    const status = (await client.get<any>(GROUP, 'ZoneDisruptionBudget', 'db', ns)).status;
    const zoneA = status?.zones?.find((z: any) => z.zone === ZONE_A);
    const out = db[ZONE_A]?.notReady.length === 2 && web[ZONE_A]?.notReady.length === 2;
    return { done: out && zoneA?.outByShift === 2, value: { db, status }, state: JSON.stringify({ db, web, status }) };
  }, { timeoutMs: 30_000 });
  expect(shifted.status.zones).toEqual(info.zones.map((zone) => (zone === ZONE_A
    ? { zone, expected: 2, healthy: 0, disruptionsAllowed: 1, shifted: true, outByShift: 2 }
    : { zone, expected: 2, healthy: 2, disruptionsAllowed: 1 })));

  // The ZoneDisruptionBudget: zone-b's first pod goes, its second waits for the first to be back
  const [first, second] = shifted.db[ZONE_B].ready.sort();
  expect(await evict(first)).toEqual({ status: 201, message: 'allowed' });
  const refused = await evict(second);
  expect(refused.status).toBe(429);
  expect(refused.message).toContain(`zone ${ZONE_B} has 1 unavailable pod(s), maxUnavailable 1: no disruption allowed`);
  // meanwhile a pod the shift took out may go: it serves nothing
  const [outOfService] = shifted.db[ZONE_A].notReady;
  expect(await evict(outOfService)).toEqual({ status: 201, message: 'allowed' });
  await waitFor(`${first} back and Ready, ${second} evicted`, async () => {
    const db = await podsByZone('db');
    if (db[ZONE_B]?.ready.length === 2 && !db[ZONE_B].ready.includes(second)) return { done: true };
    if (db[ZONE_B]?.ready.length === 2) await evict(second); // as kubectl drain retries a refused eviction
    return { done: false, state: JSON.stringify(db) };
  }, { timeoutMs: 60_000, intervalMs: 250 });

  // A PodDisruptionBudget counts the shift's 2 pods as disrupted: no eviction in zone-b; and under its default
  // unhealthyPodEvictionPolicy (IfHealthyBudget) not even of a shifted pod
  const web = await podsByZone('web');
  const pdbStatus = await waitFor('the PodDisruptionBudget counting 4 of 6 healthy', async () => {
    const s = (await client.get<any>('policy/v1', 'PodDisruptionBudget', 'web', ns)).status;
    return { done: s?.currentHealthy === 4, value: s, state: JSON.stringify(s) };
  });
  expect([pdbStatus.desiredHealthy, pdbStatus.disruptionsAllowed]).toEqual([5, 0]);
  expect((await evict(web[ZONE_B].ready[0])).message).toContain('would violate the pod\'s disruption budget');
  expect((await evict(web[ZONE_A].notReady[0])).status).toBe(429);
  // with unhealthyPodEvictionPolicy AlwaysAllow, the shifted pods may go (docs/rollouts.md recommends it)
  await client.patch('policy/v1', 'PodDisruptionBudget', 'web', { spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } }, ns);
  await waitFor('a shifted web pod evicted', async () => ({ done: (await evict(web[ZONE_A].notReady[0])).status === 201 }));
  expect((await evict(web[ZONE_B].ready[0])).status).toBe(429);
});
