/**
 * The lost-zone recovery on the real API server, controller-manager (node lifecycle, StatefulSet, PVC protection
 * and garbage collection controllers), scheduler and a zonal volume provisioner, with the real controller running on
 * exactly the RBAC `ZoneController` synthesizes (its ServiceAccount's token). A StatefulSet spread over three zones
 * with a claim per pod opts in (at most 1 pod at once); another does not. A person declares zone-a lost with
 * `cdk8s-zones shift start --lost`: nothing happens while the zone's nodes answer. Then the zone goes for good (its
 * nodes deleted, as a cloud's node controller deletes nodes whose instances are gone): the StatefulSets make their
 * pods again, Pending on claims whose volumes are in zone-a. The opted-in ones come back in the surviving zones, one
 * at a time, each on a new claim whose volume is there, every deletion recorded on the shift and as an Event; the
 * other StatefulSet's pod stays Pending on its claim in zone-a, as it was. A zone group of one StatefulSet per zone,
 * each pinned to its zone (as Loki's per-zone ingesters), opts in too: zone-a's pods stand in on the other zones'
 * nodes, which the controller labels, and the labels stay (the zone back, the shift over) until none is away.
 */
import { Chart, Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { cliUserKubeconfig, runCliAs, tokenKubeconfig } from './cli-user';
import { ControllerProcess, withoutMetricsPort } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { isReady, ZONES } from './nodes';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { OutageMode, zoneOutage, ZoneOutage } from './zone-outage';
import { Zonal, ZoneController, ZoneTopology } from '../../../src';
import { SHIFT_RULES } from '../../../src/cli/cli-rbac';
import { standInLabel } from '../../../src/contract/lost-zone';
import { ZONE_GROUP_ANNOTATION } from '../../../src/contract/zone-check';
import { ZONE_SHIFT_TAINT_KEY } from '../../../src/contract/zone-shift';

const cluster = testCluster();
const { client, info } = cluster;
const appsNs = uniqueName('lost-zone');
const controllerNs = uniqueName('lost-zone-controller');
const NAME = 'lost-zone';
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const LOST = ZONES[0];
const zoneOfNode = new Map(info.nodes.map((n) => [n.name, n.zone]));
/** The cluster's namespace the controller gets a Role in (its nodes' Leases). */
const CLUSTER_NAMESPACES = ['kube-node-lease'];

/**
 * A StatefulSet of `replicas` pause pods, a claim `data` each, spread over the zones, or pinned to `pinnedTo` (one of
 * the zone group `ingester`).
 */
function statefulSet(chart: Chart, name: string, replicas: number, pinnedTo?: string): k8s.KubeStatefulSet {
  const labels = { app: name };
  const pin = { key: 'topology.kubernetes.io/zone', operator: 'In', values: [pinnedTo] };
  const required = { nodeSelectorTerms: [{ matchExpressions: [pin] }] };
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } };
  const sts = new k8s.KubeStatefulSet(chart, name, {
    metadata: { name, ...(pinnedTo ? { annotations: { [ZONE_GROUP_ANNOTATION]: 'ingester' } } : {}) },
    spec: {
      replicas,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { ...RESTRICTED_PAUSE_POD, ...(pinnedTo ? { affinity } : {}) } as any },
      volumeClaimTemplates: [{
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: k8s.Quantity.fromString('1Gi') } } },
      }],
    },
  });
  const kubernetesVersion = /^v(\d+\.\d+)/.exec(info.kubernetesVersion)![1];
  if (!pinnedTo) Zonal.spread(sts, { topology: new ZoneTopology({ zones: [...ZONES], kubernetesVersion }) });
  return sts;
}

/** The controller (every object but its Deployment); `cache` and the zone group `ingester-*` opted in, `solo` not. */
function objects(): { platform: KubeObject[]; apps: KubeObject[]; args: string[] } {
  const app = Testing.app();
  const platformChart = new Chart(app, 'platform');
  const controller = new ZoneController(platformChart, 'controller', {
    namespace: controllerNs, name: NAME, replicas: 1, zoneShift: true, lostZoneRecovery: true,
  });
  const chart = new Chart(app, 'apps', { namespace: appsNs });
  ZoneController.recoverFromLostZone(statefulSet(chart, 'cache', 6), controller, 1);
  statefulSet(chart, 'solo', 3);
  for (const zone of ZONES) ZoneController.recoverFromLostZone(statefulSet(chart, `ingester-${zone}`, 2, zone), controller, 2);
  const platform = Testing.synth(platformChart);
  const args: string[] = platform.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args.slice(1);
  return { platform: platform.filter((o) => o.kind !== 'Deployment'), apps: Testing.synth(chart), args };
}

interface Placed { name: string; uid: string; zone?: string; ready: boolean; claimZone?: string }

/** The pods of `app`, where each runs and where its claim's volume is. */
async function placed(app: string): Promise<Placed[]> {
  const pods = await client.list<any>('v1', 'Pod', { namespace: appsNs, labelSelector: `app=${app}` });
  const claims = await client.list<any>('v1', 'PersistentVolumeClaim', { namespace: appsNs });
  const volumes = await client.list<any>('v1', 'PersistentVolume');
  const volumeZone = (claim: string) => {
    const volumeName = claims.find((c) => c.metadata.name === claim)?.spec.volumeName;
    return volumes.find((v) => v.metadata.name === volumeName)?.metadata.labels?.['topology.kubernetes.io/zone'];
  };
  return pods.map((p) => ({
    name: p.metadata.name,
    uid: p.metadata.uid,
    zone: zoneOfNode.get(p.spec.nodeName),
    ready: isReady(p) && !p.metadata.deletionTimestamp,
    claimZone: volumeZone(`data-${p.metadata.name}`),
  })).sort((a, b) => a.name.localeCompare(b.name));
}

const untilAllReady = (app: string, count: number, timeoutMs = 120_000) => waitFor(`${app}'s ${count} pods Ready`, async () => {
  const now = await placed(app);
  return { done: now.length === count && now.every((p) => p.ready), value: now, state: JSON.stringify(now) };
}, { timeoutMs });

const lostShift = () => client.get<any>(GROUP, 'ZoneShift', 'zone-a-lost');

let controller: ControllerProcess | undefined;
let outage: ZoneOutage | undefined;
let applied: KubeObject[] = [];

beforeAll(async () => {
  const { platform, apps, args } = objects();
  applied = platform;
  const theClusters = (o: KubeObject) => CLUSTER_NAMESPACES.includes(o.metadata.namespace ?? '');
  expect((await applyManifests(client, platform.filter((o) => !theClusters(o)), controllerNs)).rejections).toEqual([]);
  for (const o of platform.filter(theClusters)) await client.apply(o);
  expect((await applyManifests(client, apps, appsNs)).rejections).toEqual([]);
  controller = await ControllerProcess.start(info, 'lost-zone', [...withoutMetricsPort(args), '--lease-namespace', controllerNs], {},
    await tokenKubeconfig(client, info, controllerNs, NAME));
  await untilAllReady('cache', 6);
  await untilAllReady('solo', 3);
  for (const zone of ZONES) await untilAllReady(`ingester-${zone}`, 2);
});

/** The nodes that carry the stand-in label of the lost zone, with their zone. */
async function standInNodes(): Promise<string[]> {
  const nodes = await client.list<any>('v1', 'Node');
  return nodes.filter((n) => n.metadata.labels?.[standInLabel(LOST)] === 'true')
    .map((n) => `${n.metadata.name}@${zoneOfNode.get(n.metadata.name)}`).sort();
}

afterAll(async () => {
  await outage?.restore().catch(() => undefined);
  // the shift's finalizer is the controller's: it must still run to let the shift go
  await client.delete(GROUP, 'ZoneShift', 'zone-a-lost').catch(() => undefined);
  await waitFor('the lost zone\'s shift gone', async () => ({ done: !(await client.find(GROUP, 'ZoneShift', 'zone-a-lost')) }))
    .catch(() => undefined);
  await controller?.stop();
  await deleteNamespace(client, appsNs);
  for (const o of applied.filter((x) => !x.metadata.namespace && x.kind !== 'CustomResourceDefinition')) {
    await client.delete(o.apiVersion, o.kind, o.metadata.name).catch(() => undefined);
  }
  for (const o of applied.filter((x) => CLUSTER_NAMESPACES.includes(x.metadata.namespace ?? ''))) {
    await client.delete(o.apiVersion, o.kind, o.metadata.name, o.metadata.namespace).catch(() => undefined);
  }
  client.close();
});

test('a zone declared lost: the opted-in pods there come back in the surviving zones, one at a time, once its nodes are gone', async () => {
  const cacheBefore = await placed('cache');
  const soloBefore = await placed('solo');
  const groupBefore = await Promise.all(ZONES.map((zone) => placed(`ingester-${zone}`)));
  expect(groupBefore.map((pods) => pods.map((p) => p.zone))).toEqual(ZONES.map((zone) => [zone, zone]));
  expect(await standInNodes()).toEqual([]);
  const lostPods = cacheBefore.filter((p) => p.zone === LOST).map((p) => p.name);
  expect(lostPods).toHaveLength(2);
  expect(cacheBefore.every((p) => p.claimZone === p.zone)).toBe(true);

  // declared lost while its nodes answer: the shift holds, nothing is deleted
  const cli = await cliUserKubeconfig(client, info, 'cdk8s-zones-lost', SHIFT_RULES);
  const started = await runCliAs(cli, 'shift', 'start', '--zone', LOST, '--expires-in', '1h', '--lost', '--name', 'zone-a-lost');
  expect(started).toMatchObject({ code: 0, stderr: '' });
  await waitFor('the recovery waiting for the zone to go', async () => {
    const recovery = (await lostShift()).status?.recovery;
    return { done: recovery?.phase === 'Waiting', state: JSON.stringify(recovery) };
  });
  const waiting = (await lostShift()).status.recovery.message;
  expect(waiting).toMatch(new RegExp(`^nodes of zone ${LOST} still answer \\(.*\\): nothing is deleted while one does$`));
  expect((await placed('cache')).map((p) => p.uid)).toEqual(cacheBefore.map((p) => p.uid));

  // the zone gone for good: its opted-in pods come back elsewhere, never more than one at once
  const gone = Date.now();
  outage = await zoneOutage(cluster, LOST, OutageMode.DELETE_NODES, { namespaces: [appsNs] });
  let mostAtOnce = 0;
  const after = await waitFor('the recovery Recovered, every cache pod Ready outside the lost zone', async () => {
    const now = await placed('cache');
    const recovery = (await lostShift()).status?.recovery;
    // made again after the recovery deleted it (another uid than the one recorded), not Ready yet
    const deleted = new Set((recovery?.recovered ?? []).map((r: any) => r.pod));
    const deletedUids = new Set((recovery?.recovered ?? []).map((r: any) => r.uid));
    const comingBack = now.filter((p) => deleted.has(p.name) && !deletedUids.has(p.uid) && !p.ready);
    mostAtOnce = Math.max(mostAtOnce, comingBack.length);
    const servingElsewhere = (p: Placed) => p.ready && p.zone !== undefined && p.zone !== LOST;
    const done = recovery?.phase === 'Recovered' && now.length === 6 && now.every(servingElsewhere);
    return { done, value: now, state: JSON.stringify({ recovery, now }) };
  }, { timeoutMs: 180_000, intervalMs: 200 });
  console.log(`lost zone: ${lostPods.length} pods back in the surviving zones ${((Date.now() - gone) / 1000).toFixed(1)} s after ` +
    'the zone\'s nodes were deleted');
  expect(mostAtOnce).toBeLessThanOrEqual(1);
  for (const p of after) {
    expect(p.claimZone).toBe(p.zone);
    if (!lostPods.includes(p.name)) expect(p.uid).toBe(cacheBefore.find((b) => b.name === p.name)!.uid);
  }
  // the zone group: zone-a's ingesters stand in on the other zones' nodes, labelled for it; the others untouched
  const standIns = await untilAllReady(`ingester-${LOST}`, 2);
  expect(standIns.every((p) => p.zone !== LOST && p.claimZone === p.zone)).toBe(true);
  for (const [i, zone] of ZONES.entries()) {
    if (zone !== LOST) expect((await placed(`ingester-${zone}`)).map((p) => p.uid)).toEqual(groupBefore[i].map((p) => p.uid));
  }
  const survivors = [...zoneOfNode].filter(([, zone]) => zone !== LOST).map(([name, zone]) => `${name}@${zone}`).sort();
  expect(await standInNodes()).toEqual(survivors);
  console.log(`lost zone: the zone group's ${standIns.length} pods of ${LOST} standing in on ${standIns.map((p) => p.zone).join(', ')}, ` +
    `${((Date.now() - gone) / 1000).toFixed(1)} s after the zone's nodes were deleted`);

  const recovery = (await lostShift()).status.recovery;
  const ofCache = recovery.recovered.filter((r: any) => r.statefulSet === 'cache');
  expect(new Set(recovery.recovered.filter((r: any) => r.statefulSet !== 'cache').map((r: any) => r.pod)))
    .toEqual(new Set([`ingester-${LOST}-0`, `ingester-${LOST}-1`]));
  // each lost pod deleted with its claim; once more, alone, if the StatefulSet made it again on the claim going
  const first = lostPods.map((pod) => ofCache.find((r: any) => r.pod === pod));
  expect(first.map((r: any) => [r.statefulSet, r.pod, r.claims])).toEqual(lostPods.map((pod) => ['cache', pod, [`data-${pod}`]]));
  const again = ofCache.filter((r: any) => !first.includes(r));
  expect(again.filter((r: any) => !lostPods.includes(r.pod) || r.claims.length > 0)).toEqual([]);
  expect(recovery.held).toEqual([]);

  // the StatefulSet that did not opt in: its pod made again, Pending on its claim in the lost zone
  const soloLost = soloBefore.find((p) => p.zone === LOST)!;
  const soloNow = (await placed('solo')).find((p) => p.name === soloLost.name);
  expect(soloNow).toMatchObject({ zone: undefined, ready: false, claimZone: LOST });

  // every deletion an Event on its StatefulSet; the controller was refused nothing; `shift status` shows it
  const events = await client.list<any>('v1', 'Event', { namespace: appsNs });
  const recoveries = events.filter((e) => e.reason === 'LostZoneRecovery');
  expect(new Set(recoveries.map((e) => e.involvedObject.name))).toEqual(new Set(['cache', `ingester-${LOST}`]));
  const said = (r: any) => `zone ${LOST} is lost: pod ${r.pod} deleted` +
    `${r.claims.length > 0 ? ` with its claims ${r.claims.join(', ')}` : ''}, to come back in a surviving zone`;
  expect(new Set(recoveries.map((e) => e.message))).toEqual(new Set(recovery.recovered.map(said)));
  expect(controller!.logs.filter((l) => /forbidden|HTTP 403/i.test(JSON.stringify(l)))).toEqual([]);
  const shown = await runCliAs(cli, 'shift', 'status');
  expect(shown).toMatchObject({ code: 0, stderr: '' });
  expect(shown.stdout).toContain(`  lost zone, recovery Recovered: zone ${LOST} lost: every opted-in pod that can come back is back elsewhere (4 brought back)`);
  for (const pod of lostPods) expect(shown.stdout).toContain(`  pod/${appsNs}/${pod} of statefulset/cache brought back at `);
  // a person ends the shift: it goes (what the recovery deleted stays deleted: the pods are where they came back)
  expect(await runCliAs(cli, 'shift', 'cancel', '--zone', LOST)).toMatchObject({ code: 0, stderr: '' });
  expect(await client.find(GROUP, 'ZoneShift', 'zone-a-lost')).toBeUndefined();
  expect((await placed('cache')).map((p) => p.uid)).toEqual(after.map((p) => p.uid));

  // the zone's nodes back as they were, without the shift's taint (the cluster is shared by the next test files)
  await outage.restore();
  outage = undefined;
  const zoneNodes = (await client.list<any>('v1', 'Node')).filter((n) => zoneOfNode.get(n.metadata.name) === LOST);
  expect(zoneNodes.flatMap((n) => n.spec.taints ?? []).filter((t: any) => t.key === ZONE_SHIFT_TAINT_KEY)).toEqual([]);

  // the stand-ins stay where they came back, and so do the labels they need (the shift over, the zone back)
  expect(await standInNodes()).toEqual(survivors);
  // zone-a's ingesters moved home (the StatefulSet and its claims deleted): no stand-in is away, the labels go
  await client.delete('apps/v1', 'StatefulSet', `ingester-${LOST}`, appsNs);
  for (const i of [0, 1]) await client.delete('v1', 'PersistentVolumeClaim', `data-ingester-${LOST}-${i}`, appsNs);
  await waitFor('the stand-in labels gone from every node', async () => {
    const left = await standInNodes();
    return { done: left.length === 0, state: JSON.stringify(left) };
  }, { timeoutMs: 60_000 });
});
