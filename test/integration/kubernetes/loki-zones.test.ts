/**
 * The direct Loki output's ingesters on the real kube-scheduler (Kubernetes 1.35, kwok nodes in 3 zones):
 * - ZoneSource.perZoneStatefulSets(): each `<name>-ingester-<zone>` StatefulSet's pods land in its zone,
 *   the zone its arguments name;
 * - ZoneSource.podTopologyLabels(): one StatefulSet spread 2 per zone, and every pod carries the label
 *   `topology.kubernetes.io/zone` of its node (KEP-4742, copied at binding), which is the field its
 *   INSTANCE_AVAILABILITY_ZONE environment variable reads through the downward API;
 * - ZoneSource.controller(): the real controller process (zone annotator) annotates every ingester pod
 *   with its node's zone, the annotation its downward-API file and environment variable read.
 */
import { Chart, Testing } from 'cdk8s';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { ZONE_KEY } from './nodes';
import { livePods, podsByZone, testCluster, uniqueName, waitForScheduled, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { ZoneAnnotation, ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from '../../../src';

const { client, info } = testCluster();
const namespaces: string[] = [];
let controller: ControllerProcess | undefined;
afterAll(async () => {
  await controller?.stop();
  await Promise.all(namespaces.map((ns) => deleteNamespace(client, ns)));
  client.close();
});

/**
 * The Loki chart's objects; `zoneSource` may add to another chart (the controller, which the test runs as a
 * process).
 */
function lokiObjects(zoneSource: (elsewhere: Chart) => ZoneSource): any[] {
  const app = Testing.app();
  const elsewhere = new Chart(app, 'controller');
  const chart = new Chart(app, 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    topology: new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'], kubernetesVersion: '1.35' }),
    direct: {
      zoneSource: zoneSource(elsewhere),
      ingesterReplicasPerZone: 2,
      objectStorage: { bucket: 'logs', endpoint: 'minio:9000' },
    },
  });
  return Testing.synth(chart);
}

async function apply(zoneSource: (elsewhere: Chart) => ZoneSource): Promise<{ ns: string; objects: any[] }> {
  const ns = uniqueName('loki');
  namespaces.push(ns);
  const objects = lokiObjects(zoneSource);
  const result = await applyManifests(client, objects, ns);
  expect(result.rejections).toEqual([]);
  expect(result.warnings).toEqual([]);
  return { ns, objects };
}

test('per-zone StatefulSets: every ingester runs in the zone its arguments name', async () => {
  const { ns, objects } = await apply(() => ZoneSource.perZoneStatefulSets());
  for (const sts of objects.filter((o) => o.kind === 'StatefulSet')) {
    const zone = sts.spec.template.spec.containers[0].args.at(-1).split('=')[1];
    const selector = Object.entries(sts.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
    const pods = await waitForScheduled(client, ns, selector, 2);
    expect(pods.map((p) => zoneOfNode(info, p.spec.nodeName))).toEqual([zone, zone]);
  }
});

test('pod topology labels: 2 ingesters per zone, each labelled with its node\'s zone, the field its zone variable reads', async () => {
  const { ns, objects } = await apply(() => ZoneSource.podTopologyLabels());
  const sts = objects.find((o) => o.kind === 'StatefulSet');
  const env = sts.spec.template.spec.containers[0].env.find((e: any) => e.name === 'INSTANCE_AVAILABILITY_ZONE');
  expect(env.valueFrom.fieldRef.fieldPath).toBe(`metadata.labels['${ZONE_KEY}']`);
  const selector = Object.entries(sts.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
  const pods = await waitForScheduled(client, ns, selector, 6);
  expect(podsByZone(info, pods)).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
  for (const p of pods) expect(p.metadata.labels[ZONE_KEY]).toBe(zoneOfNode(info, p.spec.nodeName));
});

test('controller: every ingester pod is annotated with its node\'s zone by the real zone annotator, the value its zone file and variable read', async () => {
  controller = await ControllerProcess.start(info, 'loki-zones', ['--reconcilers', 'zone-annotator']);
  const { ns, objects } = await apply((chart) => ZoneSource.controller(new ZoneController(chart, 'zones')));
  const sts = objects.find((o) => o.kind === 'StatefulSet');
  const pod = sts.spec.template;
  const annotation = `metadata.annotations['${ZoneAnnotation.VALUE_ANNOTATION}']`;
  // What the Loki container reads: the variable its config expands, from the annotation.
  const loki = pod.spec.containers[0];
  expect(loki.args).toContain('-config.expand-env=true');
  expect(loki.env.find((e: any) => e.name === 'INSTANCE_AVAILABILITY_ZONE').valueFrom.fieldRef.fieldPath).toBe(annotation);
  // What the init container waits for: the downward-API file of the same annotation.
  const [init] = pod.spec.initContainers;
  const mount = init.volumeMounts[0];
  const volume = pod.spec.volumes.find((v: any) => v.name === mount.name);
  const item = volume.downwardAPI.items[0];
  expect(item.fieldRef.fieldPath).toBe(annotation);
  expect(init.command).toEqual(['cdk8s-zones-controller', 'wait-for-zone', '--file', `${mount.mountPath}/${item.path}`, '--timeout', '600']);
  // The annotator only looks at pods that opt in, and reads the keys they name.
  expect(pod.metadata.labels[ZoneAnnotation.OPT_IN_LABEL]).toBe(ZoneAnnotation.OPT_IN_VALUE);
  expect(pod.metadata.annotations[ZoneAnnotation.KEYS_ANNOTATION]).toBe(ZONE_KEY);

  const selector = Object.entries(sts.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
  await waitForScheduled(client, ns, selector, 6);
  const pods = await waitFor('every ingester pod annotated with its zone', async () => {
    const live = await livePods(client, ns, selector);
    const missing = live.filter((p) => !p.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION]);
    return { done: live.length === 6 && missing.length === 0, value: live, state: `${missing.length} of ${live.length} not annotated` };
  });
  expect(podsByZone(info, pods)).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
  for (const p of pods) {
    expect(p.metadata.annotations[ZoneAnnotation.VALUE_ANNOTATION]).toBe(zoneOfNode(info, p.spec.nodeName));
  }
});
