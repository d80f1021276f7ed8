/**
 * A zone lost under the direct Loki output's ingesters, with `direct.lostZoneRecovery`, on the real API server,
 * scheduler, StatefulSet and PVC controllers and a zonal volume provisioner, the ring run by real Cortex processes
 * (ring-on-kwok.ts: an ingester per pod on its IP, its data in a folder per claim, so a new claim starts empty) and
 * the real controller process (zone shift and lost-zone recovery). 3 zones x 2 ingesters, replication factor 3; a
 * client pushes a sample every 25 ms throughout. Zone-a is declared lost, then goes: its ingesters die at once
 * (SIGKILL: nothing they held unshipped survives them) and its nodes are deleted. The controller labels the other
 * zones' nodes for zone-a's stand-ins and brings zone-a's ingesters back there, on new empty claims, under their
 * names and ring zone: the ring serves 3 ring zones again, and every sample the distributor accepted, before,
 * during and after the loss, is returned by a query.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ControllerProcess, runArgsOf } from './controller-process';
import { applyManifests } from './examples';
import { KubeObject } from './kube-client';
import { claimUidOf, endLostZone } from './lost-zone-tests';
import { PodWatch, watchPods } from './pod-watch';
import { INGESTER_PREFIX, lokiIngesterManifests, lokiObjects, RingOnKwok } from './ring-on-kwok';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { OutageMode, zoneOutage, ZoneOutage } from './zone-outage';
import { IngesterRollout, ZoneController } from '../../../src';
import { standInLabel } from '../../../src/contract/lost-zone';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('loki-lost');
const ZONES = [...info.zones];
const LOST = ZONES[0];
const PER_ZONE = 2;
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const SHIFT = 'loki-zone-lost';

/** The controller's CRDs and its `run` arguments (it runs as a process, as the cluster's admin). */
function controllerParts(): { crds: KubeObject[]; args: string[] } {
  const chart = new Chart(Testing.app(), 'platform');
  new ZoneController(chart, 'controller', { zoneShift: true, lostZoneRecovery: true, workloadNamespaces: [ns] });
  const objects = Testing.synth(chart);
  return { crds: objects.filter((o) => o.kind === 'CustomResourceDefinition'), args: runArgsOf(objects) };
}

let loki: RingOnKwok;
let controller: ControllerProcess | undefined;
let watch: PodWatch | undefined;
let outage: ZoneOutage | undefined;

beforeAll(async () => {
  const objects = lokiObjects(ns, ZONES, PER_ZONE, 'minio:9000', IngesterRollout.PARTITIONED, true);
  const root = fs.mkdtempSync(path.join(info.logsDir, 'loki-lost-zone-'));
  loki = await RingOnKwok.start(root, INGESTER_PREFIX, objects, claimUidOf(client, ns));
});

afterAll(async () => {
  await outage?.restore().catch(() => undefined);
  watch?.stop();
  await endLostZone(client, SHIFT, ns, LOST);
  await controller?.stop();
  await loki.stop();
  client.close();
});

test('a zone lost: its ingesters stand in on the other zones, empty, and every sample the distributor accepted is still returned', async () => {
  const objects = lokiObjects(ns, ZONES, PER_ZONE, 'minio:9000', IngesterRollout.PARTITIONED, true);
  const { crds, args } = controllerParts();
  for (const crd of crds) await client.apply(crd);
  expect((await applyManifests(client, lokiIngesterManifests(objects), ns)).rejections).toEqual([]);
  watch = await watchPods(info, ns, (e) => loki.onPod(e.type, e.pod));
  const serving = (zones: number) => waitFor(`${ZONES.length * PER_ZONE} ingesters ACTIVE in the ring, ${zones} ring zones`, async () => {
    loki.assertRunning();
    const active = await loki.serving();
    const done = active.length === ZONES.length * PER_ZONE && new Set(active.map((m) => m.zone)).size === zones
      && await loki.allReady();
    return { done, value: active, state: JSON.stringify(await loki.ring()) };
  }, { timeoutMs: 180_000 });
  await serving(ZONES.length);
  controller = await ControllerProcess.start(info, 'loki-lost-zone', args);

  const pusher = loki.pushEvery({ __name__: 'lost_zone_proof', run: ns }, 25);
  const { accepted, refused } = pusher;
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    const acceptedBefore = accepted.length;
    const now = Date.now();
    await client.create({
      apiVersion: GROUP,
      kind: 'ZoneShift',
      metadata: { name: SHIFT },
      spec: { zone: LOST, expiresAt: new Date(now + 3600_000).toISOString(), lost: true, reason: 'zone lost (test)' },
    });
    // the zone goes: its ingesters die with it, its nodes are deleted, their pods with them
    const lostPods = [...loki.running].filter(([, r]) => r.zone === LOST).map(([name]) => name).sort();
    expect(lostPods).toHaveLength(PER_ZONE);
    const lostUids = lostPods.map((name) => loki.running.get(name)!.uid);
    const gone = Date.now();
    await loki.killZone(LOST);
    outage = await zoneOutage(cluster, LOST, OutageMode.DELETE_NODES, { namespaces: [ns] });

    // zone-a's ingesters back on the other zones' nodes, ACTIVE in ring zone zone-a, and the ring whole again
    await waitFor(`zone ${LOST}'s ingesters made again and started`, async () => {
      loki.assertRunning();
      const again = lostPods.map((name) => loki.running.get(name));
      const done = again.every((r, i) => r !== undefined && r.uid !== lostUids[i] && r.process !== undefined);
      return { done, state: JSON.stringify(again.map((r) => r && { uid: r.uid, ip: r.ip })) };
    }, { timeoutMs: 180_000 });
    await serving(ZONES.length);
    const ringBack = Date.now() - gone;
    const pods = await client.list<any>('v1', 'Pod', { namespace: ns });
    const standIns = pods.filter((p) => lostPods.includes(p.metadata.name));
    const standInZones = standIns.map((p) => zoneOfNode(info, p.spec.nodeName));
    expect(standInZones.every((z) => z !== undefined && z !== LOST)).toBe(true);
    const labelled = (await client.list<any>('v1', 'Node')).filter((n) => n.metadata.labels?.[standInLabel(LOST)] === 'true');
    expect(labelled.map((n) => zoneOfNode(info, n.metadata.name)).sort())
      .toEqual(info.nodes.filter((n) => n.zone !== LOST).map((n) => n.zone).sort());
    const recovery = (await client.get<any>(GROUP, 'ZoneShift', SHIFT)).status.recovery;
    expect(new Set(recovery.recovered.map((r: any) => r.pod))).toEqual(new Set(lostPods));
    expect(recovery.phase).toBe('Recovered');
    await new Promise((r) => setTimeout(r, 2_000));
    expect(accepted.length).toBeGreaterThan(acceptedBefore);
    console.log(`loki lost zone: zone ${LOST}'s ${lostPods.length} ingesters standing in on ` +
      `${standInZones.join(', ')}, the ring whole again ${(ringBack / 1000).toFixed(1)} s ` +
      `after the zone went; ${accepted.length} samples accepted, ${refused.length} refused`);
  } finally {
    await pusher.stop();
  }
  controller!.assertRunning();
  loki.assertRunning();

  // every sample the distributor accepted, before, during and after the loss, is returned
  expect(await loki.missing(`{__name__="lost_zone_proof",run="${ns}"}`, accepted)).toEqual([]);
});
