/**
 * A ZonalRedisCluster's disruption budget against the real eviction API: no eviction may take a master and
 * its own replica (in another zone) down together, while a drain may still take the pods of one zone.
 *
 * - With a ZoneController that enforces zone disruption budgets, the cluster gets a ZoneDisruptionBudget: the
 *   real controller process answers the API server's webhook calls. Evicting a master, then its replica in
 *   another zone, is refused; a second pod of the master's zone is allowed.
 * - Without the webhook it falls back to a PodDisruptionBudget of one pod at a time (kube-controller-manager
 *   keeps its status): the replica is refused just the same.
 *
 * Pod creation is blocked once the pods run, so an evicted pod stays gone (kwok would make a new one Ready at
 * once) and its zone stays disrupted for the next eviction.
 */
import { App, Chart, Testing } from 'cdk8s';
import { blockPodCreation, evict, EvictionWebhook } from './evictions';
import { applyManifests, deleteNamespace, operatorSecrets, waitForRollout } from './examples';
import { KubeObject } from './kube-client';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { WebhookTls, ZonalRedisCluster, ZoneController, ZoneControllerProps, ZoneTopology } from '../../../src';
import { redisPodName } from '../../../src/contract/redis';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';

const { client, info } = testCluster();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  client.close();
});

/** The cluster's chart, in an app whose platform chart installs the controller with `controller` features. */
function redis(ns: string, controller: ZoneControllerProps): { objects: KubeObject[]; cluster: ZonalRedisCluster } {
  const app = new App();
  const zones = new ZoneController(new Chart(app, 'platform'), 'controller', controller);
  const chart = new Chart(app, 'redis', { namespace: ns, disableResourceNameHashes: true });
  const cluster = new ZonalRedisCluster(chart, 'redis', {
    controller: zones,
    name: 'redis',
    topology: new ZoneTopology({ zones: [...info.zones] }),
    masters: 3,
    replicasPerMaster: 1,
    password: { name: 'redis-password', key: 'password' },
  });
  return { objects: Testing.synth(chart), cluster };
}

/**
 * Applies the cluster (and its password Secret, as an operator makes it) into a fresh namespace, waits for its
 * pods.
 */
interface Deployed {
  readonly ns: string;
  readonly cluster: ZonalRedisCluster;
  readonly objects: KubeObject[];
}

async function deploy(controller: ZoneControllerProps, extra: KubeObject[] = []): Promise<Deployed> {
  const ns = uniqueName('redis-evictions');
  cleanups.push(() => deleteNamespace(client, ns));
  const { objects, cluster } = redis(ns, controller);
  const result = await applyManifests(client, [...extra, ...operatorSecrets(objects), ...objects], ns);
  expect(result.rejections).toEqual([]);
  // the StatefulSets hold no replicas: the Redis manager (not run here) scales them to the layout; the test does it
  // for it
  for (const s of objects.filter((o) => o.kind === 'StatefulSet')) {
    const zone = s.metadata.labels!['cdk8s-zones.dev/zone'];
    await client.patch('apps/v1', 'StatefulSet', s.metadata.name, { spec: { replicas: cluster.layout.nodesPerZone[zone] } }, ns);
  }
  await waitForRollout(client, result.applied);
  return { ns, cluster, objects };
}

/** A master and its replica (in another zone), and another pod of the master's zone, by pod name. */
function shardPods(cluster: ZonalRedisCluster): { master: string; replica: string; sameZone: string } {
  const shard = cluster.layout.shards[0];
  const master = cluster.layout.node(shard.master);
  const replica = cluster.layout.node(shard.replicas[0]);
  expect(replica.zone).not.toBe(master.zone);
  const other = cluster.layout.nodesInZone(master.zone).find((n) => n.name !== master.name)!;
  return {
    master: redisPodName('redis', master.name),
    replica: redisPodName('redis', replica.name),
    sameZone: redisPodName('redis', other.name),
  };
}

async function allReady(ns: string): Promise<void> {
  await waitFor('6 Ready Redis pods', async () => {
    const ready = (await client.list<any>('v1', 'Pod', { namespace: ns })).filter((p) => isReady(p) && !isTerminating(p));
    return { done: ready.length === 6, state: `${ready.length} Ready` };
  });
}

test('with the eviction webhook: a ZoneDisruptionBudget; a master then its replica is refused, two pods of one zone pass', async () => {
  // The CRD that the app's ZoneController installs is applied too; the controller itself is the process started below.
  const { ns, cluster, objects } = await deploy(
    { redisManager: true, zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged() },
    zdbCrd(),
  );
  expect(objects.filter((o) => o.kind.endsWith('DisruptionBudget')).map((o) => o.kind)).toEqual(['ZoneDisruptionBudget']);
  await allReady(ns);
  const webhook = await EvictionWebhook.start(client, info, ns);
  cleanups.push(() => webhook.stop());
  const { master, replica, sameZone } = shardPods(cluster);
  await waitFor('the budget to count every pod healthy', async () => {
    const status = (await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneDisruptionBudget', 'redis', ns)).status ?? {};
    return { done: status.expectedPods === 6 && status.healthyPods === 6, state: JSON.stringify(status) };
  });
  await webhook.waitUntilCalled(ns, master);
  cleanups.push(await blockPodCreation(client, ns, RESTRICTED_PAUSE_POD));

  expect(await evict(client, ns, master)).toEqual({ status: 201, message: 'allowed' });
  const refused = await evict(client, ns, replica);
  expect(refused.status).toBe(429);
  expect(refused.message).toMatch(/already disrupted; only evictions in the same zone may proceed/);
  expect(await evict(client, ns, sameZone)).toEqual({ status: 201, message: 'allowed' });
});

test('without it: a PodDisruptionBudget of one pod at a time; the replica of an evicted master is refused', async () => {
  const { ns, cluster, objects } = await deploy({ redisManager: true });
  const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget')!;
  expect(pdb.spec.maxUnavailable).toBe(1);
  await allReady(ns);
  await waitFor('the PodDisruptionBudget to allow one disruption', async () => {
    const status = (await client.get<any>('policy/v1', 'PodDisruptionBudget', pdb.metadata.name, ns)).status ?? {};
    return { done: status.currentHealthy === 6 && status.disruptionsAllowed === 1, state: JSON.stringify(status) };
  });
  const { master, replica } = shardPods(cluster);
  cleanups.push(await blockPodCreation(client, ns, RESTRICTED_PAUSE_POD));

  expect(await evict(client, ns, master)).toEqual({ status: 201, message: 'allowed' });
  const refused = await evict(client, ns, replica);
  expect(refused.status).toBe(429);
  expect(refused.message).toMatch(/would violate the pod's disruption budget/);
});

/** The ZoneDisruptionBudget CRD, as a ZoneController with the feature installs it. */
function zdbCrd(): KubeObject[] {
  const chart = new Chart(Testing.app(), 'crds');
  new ZoneController(chart, 'controller', {
    zoneDisruptionBudget: true,
    webhookTls: WebhookTls.selfManaged(),
    workloadNamespaces: ['any'],
  });
  return Testing.synth(chart).filter((o) => o.kind === 'CustomResourceDefinition');
}
