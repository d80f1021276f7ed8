/**
 * The direct Loki output's ingesters on the real kube-scheduler (Kubernetes 1.35, kwok nodes in 3 zones):
 * - ZoneSource.perZoneStatefulSets(): each `<name>-ingester-<zone>` StatefulSet's pods land in its zone,
 *   the zone its arguments name;
 * - ZoneSource.podTopologyLabels(): one StatefulSet spread 2 per zone, and every pod carries the label
 *   `topology.kubernetes.io/zone` of its node (KEP-4742, copied at binding), which is the field its
 *   INSTANCE_AVAILABILITY_ZONE environment variable reads through the downward API.
 */
import { Chart, Testing } from 'cdk8s';
import { applyManifests, deleteNamespace } from './examples';
import { ZONE_KEY } from './nodes';
import { podsByZone, testCluster, uniqueName, waitForScheduled, zoneOfNode } from './scheduling';
import { LokiOutput, ZoneAwareLokiStack, ZoneSource, ZoneTopology } from '../../../src';

const { client, info } = testCluster();
const namespaces: string[] = [];
afterAll(async () => {
  await Promise.all(namespaces.map((ns) => deleteNamespace(client, ns)));
  client.close();
});

function lokiObjects(zoneSource: ZoneSource): any[] {
  const chart = new Chart(Testing.app(), 'loki', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    output: LokiOutput.DIRECT,
    topology: new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] }),
    zoneSource,
    kubernetesVersion: '1.35',
    ingesterReplicasPerZone: 2,
    s3: { bucket: 'logs', endpoint: 'minio:9000' },
  });
  return Testing.synth(chart);
}

async function apply(zoneSource: ZoneSource): Promise<{ ns: string; objects: any[] }> {
  const ns = uniqueName('loki');
  namespaces.push(ns);
  const objects = lokiObjects(zoneSource);
  const result = await applyManifests(client, objects, ns);
  expect(result.rejections).toEqual([]);
  expect(result.warnings).toEqual([]);
  return { ns, objects };
}

test('per-zone StatefulSets: every ingester runs in the zone its arguments name', async () => {
  const { ns, objects } = await apply(ZoneSource.perZoneStatefulSets());
  for (const sts of objects.filter((o) => o.kind === 'StatefulSet')) {
    const zone = sts.spec.template.spec.containers[0].args.at(-1).split('=')[1];
    const selector = Object.entries(sts.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
    const pods = await waitForScheduled(client, ns, selector, 2);
    expect(pods.map((p) => zoneOfNode(info, p.spec.nodeName))).toEqual([zone, zone]);
  }
});

test('pod topology labels: 2 ingesters per zone, each labelled with its node\'s zone, the field its zone variable reads', async () => {
  const { ns, objects } = await apply(ZoneSource.podTopologyLabels());
  const sts = objects.find((o) => o.kind === 'StatefulSet');
  const env = sts.spec.template.spec.containers[0].env.find((e: any) => e.name === 'INSTANCE_AVAILABILITY_ZONE');
  expect(env.valueFrom.fieldRef.fieldPath).toBe(`metadata.labels['${ZONE_KEY}']`);
  const selector = Object.entries(sts.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
  const pods = await waitForScheduled(client, ns, selector, 6);
  expect(podsByZone(info, pods)).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
  for (const p of pods) expect(p.metadata.labels[ZONE_KEY]).toBe(zoneOfNode(info, p.spec.nodeName));
});
