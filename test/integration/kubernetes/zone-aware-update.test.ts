/**
 * A ZoneAwareUpdate rolls a 12-pod OnDelete StatefulSet over 3 zones with the real controller process:
 * the deletions seen on a pod watch, grouped into batches, are exactly the planner's sequence (zone by
 * zone, highest ordinal first, 1, 2, 4... pods, never two zones at once), including across a controller
 * crash mid-rollout (the new process resumes the ramp from the persisted step instead of restarting it).
 */
import { planUpdate, RolloutPod, RolloutState } from '../../../src/rollout/update-plan';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace, restrictedNamespace } from './examples';
import { watchPods } from './pod-watch';
import { Batch, crds, isReady, RolloutObserver, statefulSet } from './rollout-fixtures';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';

const { client, info } = testCluster();
const ns = uniqueName('zau');
const REPLICAS = 12;
let controller: ControllerProcess | undefined;
afterAll(async () => {
  await controller?.stop();
  await deleteNamespace(client, ns);
  client.close();
});

/** The planner's batches for pods that all start on the old revision, each batch coming back updated. */
function plannedBatches(zones: Map<string, string>, maxUnavailable: number, exponentialFactor: number): Batch[] {
  let pods: RolloutPod[] = [...zones].map(([name, zone]) => ({
    name, zone, order: Number(name.split('-').pop()), revision: 'old', ready: true, terminating: false,
  }));
  const batches: Batch[] = [];
  let state: RolloutState | undefined;
  for (;;) {
    const d = planUpdate({ pods, replicas: pods.length, updateRevision: 'new', maxUnavailable, exponentialFactor, state });
    if (d.action !== 'delete') return batches;
    state = d.state;
    batches.push({ zone: d.zone, pods: d.pods });
    pods = pods.map((p) => (d.pods.includes(p.name) ? { ...p, revision: 'new' } : p));
  }
}

test('rolls 12 pods over 3 zones in the planned batches, across a controller crash', async () => {
  await restrictedNamespace(client, ns);
  const applied = await applyManifests(client, [...crds(), statefulSet('db', ns, REPLICAS, { type: 'OnDelete' })], ns);
  expect(applied.rejections).toEqual([]);
  expect(applied.warnings).toEqual([]);
  const initial = await waitFor('12 Ready pods', async () => {
    const pods = (await client.list('v1', 'Pod', { namespace: ns })).filter((p: any) => isReady(p) && !p.metadata.deletionTimestamp);
    return { done: pods.length === REPLICAS, value: pods, state: `${pods.length} Ready` };
  });
  const zones = new Map<string, string>(initial.map((p: any) => [p.metadata.name, zoneOfNode(info, p.spec.nodeName)!]));
  expect(new Set(zones.values()).size).toBe(3);

  const recorder = new RolloutObserver(zones, new Set(initial.map((p: any) => p.metadata.uid)), REPLICAS);
  const watch = await watchPods(info, ns, (e) => recorder.onEvent(e.type, e.pod));
  try {
    controller = await ControllerProcess.start(info, { name: 'zau-1', reconcilers: ['zone-aware-update'] });
    await client.apply({ apiVersion: 'cdk8s-zones.dev/v1alpha1', kind: 'ZoneAwareUpdate', metadata: { name: 'db', namespace: ns }, spec: { statefulset: 'db', maxUnavailable: 4, exponentialFactor: 2 } });
    const zauStatus = async () => (await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneAwareUpdate', 'db', ns)).status ?? {};
    const first = await waitFor('the ZoneAwareUpdate to report Done before any change', async () => {
      const s = await zauStatus();
      return { done: s.phase === 'Done', value: s, state: JSON.stringify(s) };
    });
    expect(first).toMatchObject({ step: 0, oldReplicas: 0 });

    // A new revision: change the pod template.
    await client.patch('apps/v1', 'StatefulSet', 'db', { spec: { template: { metadata: { annotations: { 'example.com/revision': '2' } } } } }, ns);
    await waitFor('two batches deleted (status.step 2)', async () => {
      const s = await zauStatus();
      return { done: s.step >= 2 && s.updateRevision !== first.updateRevision, state: JSON.stringify(s) };
    }, { timeoutMs: 180_000 });
    await controller.stop('SIGKILL');
    controller = await ControllerProcess.start(info, { name: 'zau-2', reconcilers: ['zone-aware-update'] });

    const done = await waitFor('the rollout to finish', async () => {
      const s = await zauStatus();
      return { done: s.phase === 'Done' && s.updateRevision !== first.updateRevision, value: s, state: JSON.stringify(s) };
    }, { timeoutMs: 300_000 });
    expect(done).toMatchObject({ oldReplicas: 0, zones: [], currentRevision: done.updateRevision });
    const pods = await client.list<any>('v1', 'Pod', { namespace: ns });
    expect(pods.filter((p) => p.metadata.labels['controller-revision-hash'] === done.updateRevision)).toHaveLength(REPLICAS);

    const planned = plannedBatches(zones, 4, 2);
    expect(planned.map((b) => b.pods.length)).toEqual([1, 2, 1, 4, 4]);
    // Within a batch the pods are deleted at once, in no particular order.
    const sorted = (batches: Batch[]) => batches.map((b) => ({ zone: b.zone, pods: [...b.pods].sort() }));
    expect(sorted(recorder.batches)).toEqual(sorted(planned));
    expect(recorder.maxZonesDisrupted).toBe(1);
    // The controllers' own account (the first one's log, then the second one's) says the same.
    const logged = ['zau-1', 'zau-2'].flatMap((name) => ControllerProcess.logOf(info, name))
      .filter((l) => l.msg === 'deleted a batch').map((l) => ({ zone: l.zone, pods: l.pods }));
    expect(logged).toEqual(planned);
    // The step counts the batches; a batch deleted just before the crash may not have been counted (the
    // controller deletes, then writes the step: a crash in between repeats a batch size, never skips one).
    expect(done.step).toBeGreaterThanOrEqual(planned.length - 1);
    expect(done.step).toBeLessThanOrEqual(planned.length);
  } finally {
    watch.stop();
  }
});
