/**
 * Step 2 of a migration to zone awareness with a controller (docs/loki.md, "Moving a running Loki to zone
 * awareness"), carried out by the real controller process (`--reconcilers zone-aware-update`) on the objects the
 * library emits: after step 1 has rolled out, the step-2 objects are applied; the controller rolls the distributors
 * to their zone-aware template once the ingesters' ZoneAwareUpdate is done, holds the queriers and rulers until the
 * lookback (3h) after the distributors are done, says so in their status, keeps saying the same across its own
 * restart, and rolls them once the delay has passed (the test shortens it to seconds in the ZoneAwareUpdates, as
 * test pacing). kwok runs the pods; a tiny HTTP server on each ingester pod's IP answers the ingesters' ready check.
 */
import * as http from 'http';
import { Chart, Testing } from 'cdk8s';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { PodWatch, watchPods } from './pod-watch';
import { crds } from './rollout-fixtures';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { LokiZoneAwarenessMigration, ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from '../../../src';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { HTTP_PORT } from '../../../src/loki/direct';

const { client, info } = testCluster();
const ns = uniqueName('loki-migration');
const ZAU = 'cdk8s-zones.dev/v1alpha1';
const LOOKBACK_SECONDS = 3 * 3600;

function objects(migration: LokiZoneAwarenessMigration): KubeObject[] {
  const chart = new Chart(Testing.app(), 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    namespace: ns,
    topology: new ZoneTopology({ zones: [...info.zones], kubernetesVersion: '1.35' }),
    replicationFactor: 3,
    direct: {
      zoneSource: ZoneSource.podTopologyLabels(),
      ruler: true,
      objectStorage: { bucket: 'logs', endpoint: 'minio:9000' },
      controller: ZoneController.fromInstalled({ workloadNamespaces: [ns], zoneAwareUpdate: true }),
      zoneAwarenessMigration: migration,
    },
  });
  return Testing.synth(chart);
}

/** The ConfigMap each pod of a component reads its Loki configuration from, by pod name. */
async function configsOf(component: string): Promise<Record<string, string>> {
  const pods = await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: `app.kubernetes.io/component=${component}` });
  return Object.fromEntries(pods.filter((p) => !isTerminating(p))
    .map((p) => [p.metadata.name, p.spec.volumes.find((v: any) => v.name === 'config').configMap.name]));
}

const status = async (name: string) => (await client.get<any>(ZAU, 'ZoneAwareUpdate', name, ns)).status ?? {};

/**
 * What the API server holds of a component's ReplicaSets: to hold beside a status that waits on them, should a wait
 * time out.
 */
async function replicaSetsOf(component: string): Promise<string> {
  const sets = await client.list<any>('apps/v1', 'ReplicaSet', { namespace: ns, labelSelector: `app.kubernetes.io/component=${component}` });
  const summary = (r: any) => ({
    name: r.metadata.name,
    spec: r.spec.replicas,
    status: r.status?.replicas,
    generation: r.metadata.generation,
  });
  return JSON.stringify(sets.map((r) => ({ ...summary(r), observed: r.status?.observedGeneration })));
}

/** Until every running pod of `component` reads `configMap` (and there are `replicas` of them). */
async function waitUntilReading(component: string, configMap: string, replicas: number): Promise<void> {
  await waitFor(`every ${component} pod reading ${configMap}`, async () => {
    const configs = await configsOf(component);
    const values = Object.values(configs);
    return { done: values.length === replicas && values.every((c) => c === configMap), state: JSON.stringify(configs) };
  }, { timeoutMs: 120_000 });
}

let controller: ControllerProcess | undefined;
let watch: PodWatch | undefined;
const servers = new Map<string, http.Server>();

afterAll(async () => {
  watch?.stop();
  await controller?.stop();
  await Promise.all([...servers.values()].map((s) => new Promise((r) => s.close(r))));
  await deleteNamespace(client, ns);
  client.close();
});

test('the controller rolls the distributors after the ingesters, and the queriers and rulers only the lookback after the distributors', async () => {
  const replicas = info.zones.length;
  // Every ingester pod answers its ready check (Loki's /ready) on its IP, as a running ingester would.
  watch = await watchPods(info, ns, (e) => {
    const ip = e.pod.status?.podIP;
    if (e.type === 'DELETED' || !ip || !e.pod.metadata.name.startsWith('logs-ingester-') || servers.has(ip)) return;
    const server = http.createServer((_, res) => res.end('ready'));
    server.listen(HTTP_PORT, ip);
    servers.set(ip, server);
  });
  // Step 1: the ingesters with their zones (the controller rolls them), the others as before.
  const one = await applyManifests(client, [...crds(), ...objects({})], ns);
  expect(one.rejections).toEqual([]);
  controller = await ControllerProcess.start(info, 'loki-migration', ['--reconcilers', 'zone-aware-update']);
  await waitFor('the ingesters rolled out', async () => ({ done: (await status('logs-ingester')).phase === 'Done' }), { timeoutMs: 120_000 });
  for (const c of ['distributor', 'querier', 'ruler']) await waitUntilReading(c, 'logs-config-before-zones', replicas);

  // Step 2, with the controller.
  const two = await applyManifests(client, objects({ ingestersRolledOutAt: new Date().toISOString() }), ns);
  expect([two.rejections, two.warnings]).toEqual([[], []]);
  await waitUntilReading('distributor', 'logs-config', replicas);
  const distributors = await waitFor('the distributors Done', async () => {
    const s = await status('logs-distributor');
    return { done: s.phase === 'Done', value: s, state: JSON.stringify(s) };
  }, { timeoutMs: 120_000 });
  const startsAt = new Date(Date.parse(distributors.doneAt) + LOOKBACK_SECONDS * 1000).toISOString();
  for (const name of ['logs-querier', 'logs-ruler']) {
    const held = await waitFor(`${name} held until the lookback has passed`, async () => {
      const s = await status(name);
      return {
        done: s.phase === 'Waiting' && s.startsAt !== undefined,
        value: s,
        state: `${JSON.stringify(s)}; distributors' ReplicaSets: ${await replicaSetsOf('distributor')}`,
      };
    });
    expect(held).toMatchObject({ startsAt, step: 0, message: expect.stringMatching(/^starts at .*, 10800 s after ZoneAwareUpdate logs-distributor finished/) });
  }
  // Their pods still read the configuration without zone awareness, also across a restart of the controller.
  await controller.stop();
  controller = await ControllerProcess.start(info, 'loki-migration-2', ['--reconcilers', 'zone-aware-update']);
  await new Promise((r) => setTimeout(r, 3_000));
  expect((await status('logs-querier')).startsAt).toBe(startsAt);
  expect((await status('logs-distributor')).doneAt).toBe(distributors.doneAt);
  for (const c of ['querier', 'ruler']) expect(new Set(Object.values(await configsOf(c)))).toEqual(new Set(['logs-config-before-zones']));

  // Test pacing: the lookback shortened to seconds; the controller then rolls them, one pod at a time.
  const delaySeconds = 5;
  for (const name of ['logs-querier', 'logs-ruler']) {
    await client.patch(ZAU, 'ZoneAwareUpdate', name, { spec: { startAfter: { zoneAwareUpdate: 'logs-distributor', delaySeconds } } }, ns);
  }
  for (const c of ['querier', 'ruler']) await waitUntilReading(c, 'logs-config', replicas);
  const batches = controller.logs.filter((l) => l.msg === 'deleted a batch');
  expect(batches.map((b) => (b.pods as string[]).length)).toEqual(Array(2 * replicas).fill(1));
  // None of the zone-aware pods before the delay after the distributors (an old pod may still be terminating).
  const pods = await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app.kubernetes.io/component in (querier,ruler)' });
  const zoneAware = pods.filter((p) => p.spec.volumes.find((v: any) => v.name === 'config').configMap.name === 'logs-config');
  expect(zoneAware).toHaveLength(2 * replicas);
  // creationTimestamp has whole seconds.
  const startsFrom = Date.parse(distributors.doneAt) + delaySeconds * 1000 - 1000;
  const early = zoneAware.filter((p) => Date.parse(p.metadata.creationTimestamp) < startsFrom);
  expect(early.map((p) => `${p.metadata.name} created ${p.metadata.creationTimestamp}`)).toEqual([]);
  for (const name of ['logs-querier', 'logs-ruler']) {
    await waitFor(`${name} Done`, async () => ({ done: (await status(name)).phase === 'Done' }));
  }
});
