/**
 * The scheduling proof of examples/web-3-zones on the real kube-scheduler: the spread it synthesizes puts
 * 2 replicas in each zone, and when a zone is lost the replacements wait for it (Pending) instead of
 * doubling up in the surviving zones. The same Deployment without `minDomains` is the control: it packs.
 */
import { applyExample, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { ZONE_KEY } from './nodes';
import {
  labelSelectorOf, livePods, podsByNode, podsByZone, testCluster, uniqueName, waitForScheduled, waitForUnschedulable,
  zoneOfNode,
} from './scheduling';
import { OutageMode, zoneOutage } from './zone-outage';

const cluster = testCluster();
const { client, info } = cluster;
const SPREAD_REFUSED = /didn't match pod topology spread constraints/;

const ns = uniqueName('web');
const controlNs = uniqueName('web-no-min-domains');
let selector: string;

/** The example with `minDomains` removed from its zone spread: what a hand-written spread often looks like. */
function withoutMinDomains(objects: KubeObject[]): KubeObject[] {
  return objects.map((o) => {
    if (o.kind !== 'Deployment') return o;
    const copy = structuredClone(o);
    for (const c of copy.spec.template.spec.topologySpreadConstraints) delete c.minDomains;
    return copy;
  });
}

beforeAll(async () => {
  const [web, control] = await Promise.all([
    applyExample(client, 'web-3-zones', ns),
    applyExample(client, 'web-3-zones', controlNs, withoutMinDomains),
  ]);
  expect([...web.rejections, ...control.rejections]).toEqual([]);
  selector = labelSelectorOf(web.applied.find((o) => o.kind === 'Deployment')!);
});

afterAll(async () => {
  await Promise.all([deleteNamespace(client, ns), deleteNamespace(client, controlNs)]);
  client.close();
});

test('6 replicas land 2 per zone, at most one per node, each pod labelled with its node\'s zone', async () => {
  const pods = await waitForScheduled(client, ns, selector, 6);
  expect(podsByZone(info, pods)).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
  expect(Math.max(...Object.values(podsByNode(pods)))).toBe(1);
  for (const p of pods) expect(p.metadata.labels[ZONE_KEY]).toBe(zoneOfNode(info, p.spec.nodeName));
});

test('losing zone-a: the replacements stay Pending (DoNotSchedule + minDomains) while the control packs into the surviving zones; restored, the zone gets its 2 back', async () => {
  expect(podsByZone(info, await waitForScheduled(client, controlNs, selector, 6))).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });

  const outage = await zoneOutage(cluster, 'zone-a', OutageMode.DELETE_NODES);
  try {
    const count = { total: 6, pending: 2 };
    const { scheduled, pending } = await waitForUnschedulable(client, ns, selector, count, SPREAD_REFUSED);
    expect(podsByZone(info, scheduled)).toEqual({ 'zone-a': 0, 'zone-b': 2, 'zone-c': 2 });
    expect(pending).toHaveLength(2);

    // Without minDomains the two surviving zones are the only domains, so their minimum (2) allows a 3rd pod each.
    expect(podsByZone(info, await waitForScheduled(client, controlNs, selector, 6))).toEqual({ 'zone-a': 0, 'zone-b': 3, 'zone-c': 3 });
    // Meanwhile (the scheduler has had every chance the control had), the example's replacements still wait.
    expect((await livePods(client, ns, selector)).filter((p) => !p.spec.nodeName)).toHaveLength(2);
  } finally {
    await outage.restore();
  }
  expect(podsByZone(info, await waitForScheduled(client, ns, selector, 6))).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
});

test('a zone tainted NoExecute as an outage drill taints it (nodes still there): its pods go and their replacements wait for it', async () => {
  const outage = await zoneOutage(cluster, 'zone-b', OutageMode.TAINT);
  try {
    const { scheduled } = await waitForUnschedulable(client, ns, selector, { total: 6, pending: 2 }, SPREAD_REFUSED);
    expect(podsByZone(info, scheduled)).toEqual({ 'zone-a': 2, 'zone-b': 0, 'zone-c': 2 });
  } finally {
    await outage.restore();
  }
  expect(podsByZone(info, await waitForScheduled(client, ns, selector, 6))).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
});
