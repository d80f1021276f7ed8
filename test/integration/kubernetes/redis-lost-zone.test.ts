/**
 * A zone lost under a ZonalRedisCluster with `lostZoneRecovery` (3 masters x 1 replica over the tier's 3 zones), on
 * the real API server, scheduler, StatefulSet and PVC controllers and a zonal volume provisioner, its pods run as
 * real redis-server processes on their kwok pod IPs (redis-on-kwok.ts: the data in a folder per claim, so a claim
 * made again starts empty), and the real controller process (the Redis manager, the zone annotator, the zone shift
 * and the lost-zone recovery), under continuous writes each acknowledged by `WAIT 1`. Zone-a is declared lost: the
 * shift moves its master out gracefully. Then the zone goes: its redis-servers die at once (SIGKILL) and its nodes are
 * deleted. The controller labels the other zones' nodes for zone-a's stand-ins and brings zone-a's pods back there,
 * on new, empty claims; the manager reads their real zone (the zone annotation) and attaches each as a replica of a
 * master in another zone than its own. Every write acknowledged before, during and after the loss is still readable,
 * and every shard again has a copy outside its master's zone.
 */
import { Chart, Testing } from 'cdk8s';
import { ControllerProcess, runArgsOf } from './controller-process';
import { applyManifests } from './examples';
import { KubeObject } from './kube-client';
import { claimUidOf, endLostZone } from './lost-zone-tests';
import { RedisOnKwok, RedisStatus } from './redis-on-kwok';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { WaitAckedWriter } from './wait-acked-writer';
import { OutageMode, zoneOutage, ZoneOutage } from './zone-outage';
import { ZoneController } from '../../../src';
import { missingKeys } from '../redis/redis-keys';
import { AWKWARD_PASSWORD } from '../redis/redis-processes';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('redis-lost');
const NAME = 'cache';
const PASSWORD = AWKWARD_PASSWORD;
const ZONES = [...info.zones];
const LOST = ZONES[0];
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const SHIFT = 'redis-zone-lost';
const redis = new RedisOnKwok(client, info, ns, {
  name: NAME, password: PASSWORD, nodeTimeoutMs: 2000, lostZoneRecovery: true,
});

/** The controller's CRDs and its `run` arguments as a ZoneController synthesizes them (it runs as a process). */
function controllerParts(): { crds: KubeObject[]; args: string[] } {
  const chart = new Chart(Testing.app(), 'platform');
  const features = { redisManager: true, zoneShift: true, lostZoneRecovery: true };
  new ZoneController(chart, 'controller', { ...features, workloadNamespaces: [ns] });
  const objects = Testing.synth(chart);
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  return { crds, args: [...runArgsOf(objects), '--redis-interval', '1s'] };
}

let controller: ControllerProcess | undefined;
let kubelet: { stop(): Promise<void> } | undefined;
let outage: ZoneOutage | undefined;

afterAll(async () => {
  await outage?.restore().catch(() => undefined);
  await kubelet?.stop();
  await endLostZone(client, SHIFT, ns, LOST);
  await controller?.stop();
  await redis.close();
  client.close();
});

/** Each planned node's role and its master's zone (a replica), as the status says. */
const roles = (s: RedisStatus) => s.nodes.map((n) => {
  const master = s.nodes.find((m) => m.name === n.master);
  return { name: n.name, zone: n.zone, role: n.role, masterZone: master?.zone };
});

test('a zone lost: its nodes stand in on the other zones, empty, each a replica of a master in another zone; no acknowledged write lost', async () => {
  const { crds, args } = controllerParts();
  for (const crd of crds) await client.apply(crd);
  const { applied, rejections } = await applyManifests(client, redis.manifests(), ns);
  expect(rejections).toEqual([]);
  const started = new Date();
  controller = await ControllerProcess.start(info, 'redis-lost-zone', args);
  await redis.untilScaled(applied, controller);
  kubelet = redis.kubelet(claimUidOf(client, ns));
  await redis.statusWhere('a healthy cluster', started, (s) => s.healthy, controller, 180_000);
  const lostNodes = redis.layout.nodes.filter((n) => n.zone === LOST).map((n) => n.name);

  const writer = await WaitAckedWriter.start({
    seeds: () => redis.redis.live().map((n) => n.address),
    password: PASSWORD,
    ranges: redis.layout.shards.map((s) => [s.slotStart, s.slotEnd]),
    prefix: 'lost',
  });
  try {
    await writer.untilMoreAcked(300);
    await client.create({
      apiVersion: GROUP,
      kind: 'ZoneShift',
      metadata: { name: SHIFT },
      spec: { zone: LOST, expiresAt: new Date(Date.now() + 3600_000).toISOString(), lost: true, reason: 'zone lost (test)' },
    });
    // declared lost while its nodes answer: only the shift's graceful failover, nothing deleted
    await redis.statusWhere(`no master in ${LOST}`, new Date(), (s) => s.mastersPerZone[LOST] === 0, controller);
    await writer.untilMoreAcked(300);

    // the zone goes: its redis-servers die at once, its nodes are deleted, their pods with them
    const lostPods = (await client.list<any>('v1', 'Pod', { namespace: ns }))
      .filter((p) => zoneOfNode(info, p.spec.nodeName) === LOST).map((p) => [p.metadata.name, p.metadata.uid]);
    expect(lostPods.map(([name]) => name).sort()).toEqual(lostNodes.map((n) => `${NAME}-${n}`).sort());
    const gone = Date.now();
    await redis.killZone(LOST);
    outage = await zoneOutage(cluster, LOST, OutageMode.DELETE_NODES, { namespaces: [ns] });

    // zone-a's nodes back on the other zones, replicas of masters in other zones than theirs, in sync
    const settled = await redis.statusWhere('the stand-ins in sync, every slot served', new Date(gone), (s) =>
      s.slotsServed === 16384 && s.nextSteps.length === 0
      && lostNodes.every((n) => s.nodes.some((x) => x.name === n && x.reachable && x.zone !== LOST && x.role === 'replica'))
      && !s.issues.some((i) => ['replica-syncing', 'absent', 'unreachable', 'converging'].includes(i.kind)),
    controller, 240_000);
    const back = Date.now() - gone;
    const standIns = roles(settled).filter((n) => lostNodes.includes(n.name));
    for (const n of standIns) expect([n.name, n.zone !== LOST, n.masterZone !== n.zone]).toEqual([n.name, true, true]);
    expect(settled.issues.filter((i) => i.kind === 'stand-in').length).toBe(lostNodes.length);
    const pods = await client.list<any>('v1', 'Pod', { namespace: ns });
    for (const [name, uid] of lostPods) {
      const now = pods.find((p) => p.metadata.name === name)!;
      const elsewhere = zoneOfNode(info, now.spec.nodeName) !== LOST;
      expect([name, now.metadata.uid !== uid, elsewhere]).toEqual([name, true, true]);
    }
    const recovery = (await client.get<any>(GROUP, 'ZoneShift', SHIFT)).status.recovery;
    expect(new Set(recovery.recovered.map((r: any) => r.pod))).toEqual(new Set(lostPods.map(([name]) => name)));
    expect(recovery.phase).toBe('Recovered');
    // every shard keeps a copy outside its master's zone, as its real processes say
    const views = [...await redis.selfViews()];
    const runsIn = (name: string) => redis.redis.inventory.find((n) => n.name === name)!.zone;
    const zoneById = new Map(views.map(([name, e]) => [e.id, runsIn(name)]));
    for (const [name, e] of views.filter(([, x]) => x.flags.includes('master') && x.slots.length > 0)) {
      const replicaZones = views.filter(([, r]) => r.masterId === e.id).map(([n]) => runsIn(n));
      expect([name, replicaZones.some((z) => z !== zoneById.get(e.id))]).toEqual([name, true]);
    }
    await writer.untilMoreAcked(300);
    console.log(`redis lost zone: ${LOST}'s ${lostNodes.length} nodes standing in on ` +
      `${standIns.map((n) => `${n.name} in ${n.zone}`).join(', ')}, in sync ${(back / 1000).toFixed(1)} s after the zone went`);
  } finally {
    await writer.stop();
  }
  controller!.assertRunning();
  const failures = redis.kubeletFailures();
  if (failures.length > 0) console.log(`redis lost zone: processes started again:\n${failures.join('\n')}`);
  const missing = await missingKeys(redis.redis.live(), writer.acked, PASSWORD);
  console.log(`redis lost zone: ${writer.summary()}; acknowledged writes lost: ${missing.length}`);
  expect(writer.acked.size).toBeGreaterThan(0);
  expect(missing).toEqual([]);
});
