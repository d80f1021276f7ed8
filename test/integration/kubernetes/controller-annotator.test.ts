/**
 * The runtime controller's zone annotator against the real API server: 300 opted-in pods get their
 * node's zone; a node without the zone label gives an Event and no crash, and the pod is annotated once
 * the node is labelled; with two controller processes only one leads and the other takes over when the
 * leader is killed.
 */
import { ControllerProcess } from './controller-process';
import { deleteNamespace, restrictedNamespace } from './examples';
import { KubeObject } from './kube-client';
import { HOSTNAME_KEY, KWOK_ANNOTATION, ZONE_KEY } from './nodes';
import { livePods, RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('annotator');
const OPT_IN = { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE };
const controllers: ControllerProcess[] = [];

function pod(name: string, extra: { nodeName?: string; labels?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { app: name, ...OPT_IN, ...extra.labels } },
    spec: { ...RESTRICTED_PAUSE_POD, nodeName: extra.nodeName, tolerations: [{ operator: 'Exists' }] },
  };
}

async function start(name: string, args: string[] = []): Promise<ControllerProcess> {
  const c = await ControllerProcess.start(info, name, ['--reconcilers', 'zone-annotator', ...args]);
  controllers.push(c);
  return c;
}

/** Per zone, the pods and the Ready pods of a workload. */
interface ZoneCounts {
  readonly pods: Record<string, number>;
  readonly ready: Record<string, number>;
}

/** The readiness gauges' values for the Deployment `many` of the test's namespace, by zone (series present only). */
async function manyPerZone(controller: ControllerProcess): Promise<ZoneCounts> {
  const text = await controller.metrics();
  const of = (name: string) => Object.fromEntries(text.split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes(`namespace="${ns}"`))
    .map((l) => {
      expect(l).toContain('workload="Deployment/many"'); // the pod not opted in counts nowhere
      return [/zone="([^"]+)"/.exec(l)![1], Number(l.split(' ').pop())];
    }));
  return { pods: of('cdk8s_zones_workload_zone_pods'), ready: of('cdk8s_zones_workload_zone_ready_pods') };
}

/** Waits until the readiness gauges show `expected`, running `before` ahead of each look. */
async function untilGauges(
  controller: ControllerProcess, what: string, expected: ZoneCounts, before?: () => Promise<unknown>,
): Promise<void> {
  const text = (counts: ZoneCounts) =>
    JSON.stringify([Object.entries(counts.pods).sort(), Object.entries(counts.ready).sort()]);
  await waitFor(what, async () => {
    await before?.();
    const seen = await manyPerZone(controller);
    return { done: text(seen) === text(expected), state: text(seen) };
  }, { timeoutMs: 120_000, intervalMs: 500 });
}

async function annotationOf(name: string): Promise<string | undefined> {
  const p = await client.get<any>('v1', 'Pod', name, ns);
  return p.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION];
}

beforeAll(async () => {
  await restrictedNamespace(client, ns);
});

afterAll(async () => {
  await Promise.all(controllers.map((c) => c.stop()));
  await deleteNamespace(client, ns);
  client.close();
});

test('300 opted-in pods of a Deployment all get the zone of their node; pods not opted in are left alone', async () => {
  const controller = await start('single');
  await client.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'many', namespace: ns },
    spec: {
      replicas: 300,
      selector: { matchLabels: { app: 'many' } },
      template: { metadata: { labels: { app: 'many', ...OPT_IN } }, spec: RESTRICTED_PAUSE_POD },
    },
  });
  await client.create(pod('not-opted-in', { labels: { [ZoneAnnotation.OPT_IN_LABEL]: 'disabled' } }));
  const zoneOfNode = new Map(info.nodes.map((n) => [n.name, n.zone]));
  const pods = await waitFor('300 pods bound and annotated', async () => {
    const live = await livePods(client, ns, 'app=many');
    const done = live.filter((p) => p.spec.nodeName && p.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION]);
    return { done: live.length === 300 && done.length === 300, value: live, state: `${live.length} pods, ${done.length} annotated` };
  }, { timeoutMs: 300_000, intervalMs: 1000 });
  const wrong = pods.filter((p) => {
    const annotated = p.metadata.annotations[ZoneAnnotation.VALUE_ANNOTATION];
    return annotated !== zoneOfNode.get(p.spec.nodeName);
  });
  const annotatedZone = (p: any) => p.metadata.annotations[ZoneAnnotation.VALUE_ANNOTATION];
  expect(wrong.map((p) => `${p.metadata.name} on ${p.spec.nodeName}: ${annotatedZone(p)}`)).toEqual([]);
  const zones = new Set(pods.map((p) => p.metadata.annotations[ZoneAnnotation.VALUE_ANNOTATION]));
  expect([...zones].sort()).toEqual([...info.zones].sort());

  expect(await annotationOf('not-opted-in')).toBeUndefined();
  expect(await controller.metric('cdk8s_zones_decisions_total{reconciler="zone-annotator",decision="annotated"}')).toBeGreaterThanOrEqual(300);
  expect(await controller.metric('cdk8s_zones_annotation_latency_seconds_count')).toBeGreaterThanOrEqual(300);

  // the readiness gauges count the Deployment's pods per zone, as the API server has them; not the pod not opted in
  const perZone = (of: (p: any) => boolean) => Object.fromEntries(info.zones.map((z) =>
    [z, pods.filter((p) => zoneOfNode.get(p.spec.nodeName) === z && of(p)).length]));
  // kwok makes every pod Ready, soon after it runs
  await untilGauges(controller, 'the pods of each zone counted, all Ready', { pods: perZone(() => true), ready: perZone(() => true) });
  // zone-a's pods turn not Ready: only zone-a's Ready count falls. kwok sets Ready once, at start, but its status
  // patches lag under load and may land after ours: a pod of the zone Ready again is set not Ready again.
  const [failing] = info.zones;
  const isReady = (p: any) => p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
  const notReady = (p: any) => client.request('PATCH', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}/status`,
    { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, 'application/strategic-merge-patch+json');
  const failZone = async () => {
    const live = await livePods(client, ns, 'app=many');
    await Promise.all(live.filter((p) => zoneOfNode.get(p.spec.nodeName) === failing && isReady(p)).map(notReady));
  };
  await untilGauges(controller, `zone ${failing}'s pods not Ready`, {
    pods: perZone(() => true), ready: { ...perZone(() => true), [failing]: 0 },
  }, failZone);
  await client.delete('apps/v1', 'Deployment', 'many', ns);
  // the pods gone, their series go too: a workload gone from a zone is not a zone without Ready pods
  await untilGauges(controller, 'the series gone with the pods', { pods: {}, ready: {} });
  expect(await controller.stop()).toBe(0);
  expect(controller.hasLogged('stopped')).toBe(true);
});

test('a node without the zone label: an Event on the pod and a metric, no crash; annotated once the node is labelled', async () => {
  const controller = await start('unlabelled');
  const nodeName = uniqueName('kwok-unlabelled');
  await client.create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      labels: { [HOSTNAME_KEY]: nodeName, type: 'kwok' },
      annotations: { [KWOK_ANNOTATION]: 'fake' },
    },
    // tainted, so the scheduler never puts another test's pods on a node without a zone
    spec: { taints: [{ key: 'cdk8s-zones.test/unlabelled', value: 'true', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' }, capacity: { cpu: '4', memory: '16Gi', pods: '110' } },
  });
  try {
    await client.create(pod('stranded', { nodeName }));
    const event = await waitFor('a NodeMissingTopologyLabel Event on the pod', async () => {
      const events = await client.list<any>('v1', 'Event', { namespace: ns, fieldSelector: 'involvedObject.name=stranded' });
      const e = events.find((x) => x.reason === 'NodeMissingTopologyLabel');
      return { done: !!e, value: e, state: JSON.stringify(events.map((x) => x.reason)) };
    });
    expect(event).toMatchObject({
      type: 'Warning',
      involvedObject: { kind: 'Pod', name: 'stranded', namespace: ns },
      message: `node ${nodeName} has no label ${ZONE_KEY}: ${ZoneAnnotation.VALUE_ANNOTATION} is set once the node is labelled`,
    });
    expect(await controller.metric('cdk8s_zones_nodes_missing_zone_label')).toBe(1);
    expect(await annotationOf('stranded')).toBeUndefined();
    controller.assertRunning();

    await client.patch('v1', 'Node', nodeName, { metadata: { labels: { [ZONE_KEY]: 'zone-b' } } });
    await waitFor('the pod annotated after the node got its label', async () => {
      const value = await annotationOf('stranded');
      return { done: value === 'zone-b', state: `annotation ${value}` };
    });
    await waitFor('the missing-label gauge back to 0', async () => ({ done: (await controller.metric('cdk8s_zones_nodes_missing_zone_label')) === 0 }));
  } finally {
    await client.delete('v1', 'Node', nodeName);
  }
  expect(await controller.stop()).toBe(0);
});

test('two controllers with --leader-elect: one leads; killing it hands the Lease and the work to the other', async () => {
  const lease = uniqueName('annotator-lease');
  const args = ['--leader-elect', '--lease-namespace', ns, '--lease-name', lease, '--lease-duration', '4s', '--renew-deadline', '3s', '--retry-period', '500ms'];
  const a = await start('candidate-a', args);
  const b = await start('candidate-b', args);
  const holder = async () => (await client.find<any>('coordination.k8s.io/v1', 'Lease', lease, ns))?.spec?.holderIdentity as string | undefined;
  const first = await waitFor('a leader', async () => {
    const h = await holder();
    return { done: h === 'candidate-a' || h === 'candidate-b', value: h, state: `holder ${h}` };
  });
  const [leader, follower] = first === 'candidate-a' ? [a, b] : [b, a];
  await waitFor('the leader to run the reconcilers', async () => ({ done: leader.hasLogged('running reconcilers') }));
  // both serve metrics; only the leader says it leads and runs reconcilers
  expect(await leader.metric('cdk8s_zones_leader')).toBe(1);
  expect(await follower.metric('cdk8s_zones_leader')).toBe(0);
  expect(follower.hasLogged('running reconcilers')).toBe(false);

  await client.create(pod('before-failover'));
  await waitFor('the leader to annotate a pod', async () => ({ done: (await annotationOf('before-failover')) !== undefined }));

  leader.signal('SIGKILL');
  await leader.exited;
  await waitFor('the follower to take the Lease over after it expires', async () => {
    follower.assertRunning();
    const h = await holder();
    return { done: h === follower.name && follower.hasLogged('running reconcilers'), state: `holder ${h}` };
  }, { timeoutMs: 60_000 });
  const leaseObj = await client.get<any>('coordination.k8s.io/v1', 'Lease', lease, ns);
  expect(leaseObj.spec.leaseTransitions).toBe(1);

  await client.create(pod('after-failover'));
  await waitFor('the new leader to annotate a new pod', async () => ({ done: (await annotationOf('after-failover')) !== undefined }));

  // a graceful stop releases the Lease (empty holder) for the next replica
  expect(await follower.stop()).toBe(0);
  expect(await holder()).toBe('');
  expect(follower.hasLogged('released the lease')).toBe(true);
});
