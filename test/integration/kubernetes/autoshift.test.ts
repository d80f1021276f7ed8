/**
 * The autoshift on the real API server, controller-manager (its node lifecycle controller, node monitor grace period
 * 50 s) and EndpointSlice controller, with the real controller running on exactly the RBAC `ZoneController`
 * synthesizes (its ServiceAccount's token): a zone whose kubelets fall silent (their node Leases stop) is shifted
 * within twice the node monitor grace period, its opted-in pods leave their Service's endpoints, its nodes take the
 * shift's taint; the Leases back, the shift ends once the zone has been healthy for the hysteresis, and everything
 * is as before. Every decision is an Event and in the ZoneAutoshift's status, and `cdk8s-zones shift status`, as the
 * runbook's least-privileged user, shows it. An outage drill (`cdk8s-zones drill`, as its runbook's user) is an
 * outage to the autoshift: the zone is shifted, the drill's observations agree with its prediction, and once the
 * drill restored the zone the shift ends and every node is as before.
 *
 * As in zone-shift.test.ts: the test's nodes get routable pod IPs, the cluster's own are cordoned meanwhile, and
 * `playKubeletReadiness` plays the kubelet's readiness-gate rule that kwok leaves out.
 */
import { Chart, Duration, Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { cliUserKubeconfig, runCliAs, tokenKubeconfig } from './cli-user';
import { ControllerProcess, withoutMetricsPort } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { playKubeletReadiness } from './kubelet-readiness';
import { addNodes, planNodes, ZONES } from './nodes';
import { PodWatch } from './pod-watch';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { silenceZone, ZoneOutage } from './zone-outage';
import { ZoneController } from '../../../src';
import { DRILL_RULES, SHIFT_RULES } from '../../../src/cli/cli-rbac';
import { AUTOSHIFT_POLICY_LABEL } from '../../../src/contract/zone-autoshift';
import { ZONE_IN_SERVICE_CONDITION, ZONE_SHIFT_TAINT_KEY } from '../../../src/contract/zone-shift';
import { DrillResult } from '../../../src/drill/drill-run';

const cluster = testCluster();
const { client, info } = cluster;
const appsNs = uniqueName('autoshift');
const controllerNs = uniqueName('autoshift-controller');
const NAME = 'autoshift';
const GROUP = 'cdk8s-zones.dev/v1alpha1';
/** The controller-manager's default node monitor grace period (the tier leaves it as is). */
const NODE_MONITOR_GRACE_MS = 50_000;
const RECOVERED_FOR_S = 20;
const nodes = planNodes({ nodesPerZone: 2, namePrefix: 'kwok-auto', podCidrOctet: 247, routablePodIps: true });
const zoneOfNode = new Map([...info.nodes, ...nodes].map((n) => [n.name, n.zone]));
const ZONE = ZONES[0];
/** The cluster's namespaces the controller gets a Role in (its nodes' Leases, its policy's Events). */
const CLUSTER_NAMESPACES = ['kube-node-lease', 'default'];

/** The controller (its ServiceAccount, RBAC and ZoneAutoshift: every object but its Deployment) and `web`. */
function objects(): { platform: KubeObject[]; shop: KubeObject[]; args: string[] } {
  const app = Testing.app();
  const platformChart = new Chart(app, 'platform');
  const controller = new ZoneController(platformChart, 'controller', {
    namespace: controllerNs,
    name: NAME,
    replicas: 1,
    zoneShift: true,
    autoshift: { recoveredFor: Duration.seconds(RECOVERED_FOR_S), minDuration: Duration.seconds(30) },
  });
  const chart = new Chart(app, 'shop', { namespace: appsNs });
  const labels = { app: 'web' };
  const web = new k8s.KubeDeployment(chart, 'web', {
    metadata: { name: 'web' },
    spec: {
      replicas: 6,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...RESTRICTED_PAUSE_POD,
          topologySpreadConstraints: [{
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: labels },
          }],
        } as any,
      },
    },
  });
  ZoneController.addZoneShiftGate(web, controller);
  new k8s.KubeService(chart, 'web-service', { metadata: { name: 'web' }, spec: { selector: labels, ports: [{ port: 80 }] } });
  const platform = Testing.synth(platformChart);
  const deployment = platform.find((o) => o.kind === 'Deployment')!;
  const args: string[] = deployment.spec.template.spec.containers[0].args.slice(1); // after `run`
  return { platform: platform.filter((o) => o.kind !== 'Deployment'), shop: Testing.synth(chart), args };
}

interface Endpoint { pod: string; zone: string; ready: boolean }

async function endpoints(): Promise<Endpoint[]> {
  const slices = await client.list<any>('discovery.k8s.io/v1', 'EndpointSlice', { namespace: appsNs, labelSelector: 'kubernetes.io/service-name=web' });
  return slices.flatMap((s) => s.endpoints ?? [])
    .map((e: any) => ({ pod: e.targetRef?.name, zone: e.zone, ready: e.conditions?.ready === true }))
    .sort((a: Endpoint, b: Endpoint) => a.pod.localeCompare(b.pod));
}

/** Until web's 6 endpoints are ready exactly outside `outZone`. */
const untilEndpoints = (outZone: string | undefined, timeoutMs = 30_000) => waitFor(`web's endpoints ready but in ${outZone ?? 'no zone'}`, async () => {
  const now = await endpoints();
  return { done: now.length === 6 && now.every((e) => e.ready === (e.zone !== outZone)), state: JSON.stringify(now) };
}, { timeoutMs, intervalMs: 200 });

async function taints(): Promise<Record<string, any[]>> {
  const all = await client.list<any>('v1', 'Node');
  const ours = all.filter((n) => zoneOfNode.has(n.metadata.name));
  return Object.fromEntries(ours.map((n) => [n.metadata.name, n.spec.taints ?? []]));
}

const policy = () => client.get<any>(GROUP, 'ZoneAutoshift', NAME);
const autoshifts = async () => (client.list<any>(GROUP, 'ZoneShift', { labelSelector: `${AUTOSHIFT_POLICY_LABEL}=${NAME}` }));

let controller: ControllerProcess | undefined;
let kubelet: PodWatch | undefined;
let outage: ZoneOutage | undefined;
let applied: KubeObject[] = [];
let cordoned: string[] = [];
const cordon = (unschedulable: boolean) =>
  Promise.all(cordoned.map((n) => client.patch('v1', 'Node', n, { spec: { unschedulable } })));

beforeAll(async () => {
  cordoned = (await client.list('v1', 'Node')).map((n) => n.metadata.name);
  await cordon(true);
  await addNodes(client, nodes);
  const { platform, shop, args } = objects();
  applied = platform;
  // CRDs first, then the rest; kube-node-lease and default are the cluster's, left as they are (no Pod Security label)
  const theClusters = (o: KubeObject) => CLUSTER_NAMESPACES.includes(o.metadata.namespace ?? '');
  expect((await applyManifests(client, platform.filter((o) => !theClusters(o)), controllerNs)).rejections).toEqual([]);
  for (const o of platform.filter(theClusters)) await client.apply(o);
  expect((await applyManifests(client, shop, appsNs)).rejections).toEqual([]);
  kubelet = await playKubeletReadiness(client, info, appsNs);
  const runArgs = [...withoutMetricsPort(args), '--lease-namespace', controllerNs];
  const kubeconfig = await tokenKubeconfig(client, info, controllerNs, NAME);
  controller = await ControllerProcess.start(info, 'autoshift', runArgs, {}, kubeconfig);
  await untilEndpoints(undefined, 120_000);
});

afterAll(async () => {
  await outage?.restore().catch(() => undefined);
  kubelet?.stop();
  await controller?.stop();
  for (const s of await autoshifts()) await client.delete(GROUP, 'ZoneShift', s.metadata.name).catch(() => undefined);
  await deleteNamespace(client, appsNs);
  for (const o of applied.filter((x) => !x.metadata.namespace && x.kind !== 'CustomResourceDefinition')) {
    await client.delete(o.apiVersion, o.kind, o.metadata.name).catch(() => undefined);
  }
  for (const o of applied.filter((x) => CLUSTER_NAMESPACES.includes(x.metadata.namespace ?? ''))) {
    await client.delete(o.apiVersion, o.kind, o.metadata.name, o.metadata.namespace).catch(() => undefined);
  }
  await cordon(false);
  await Promise.all(nodes.map((n) => client.delete('v1', 'Node', n.name)));
  client.close();
});

/** Until the policy watches every zone, none impaired and nothing shifted. */
const untilWatchingAllHealthy = () => waitFor('the policy watching every zone, all healthy', async () => {
  const s = (await policy()).status;
  const healthy = s?.phase === 'Watching' && s.zones.length === 3 && s.zones.every((z: any) => !z.impaired);
  return { done: healthy, state: JSON.stringify(s) };
}, { timeoutMs: 60_000 });

test('a zone whose kubelets fall silent is shifted within 2x the node monitor grace period, and given back once healthy', async () => {
  await untilWatchingAllHealthy();
  const before = await taints();

  const silenced = Date.now();
  outage = await silenceZone(cluster, ZONE, { poolNodes: nodes.filter((n) => n.zone === ZONE).map((n) => n.name) });
  const shift = await waitFor('an autoshift of the zone', async () => {
    const found = await autoshifts();
    return { done: found.length > 0, value: found[0], state: JSON.stringify((await policy()).status?.zones) };
  }, { timeoutMs: 3 * NODE_MONITOR_GRACE_MS, intervalMs: 250 });
  const tookMs = Date.now() - silenced;
  console.log(`autoshift: zone ${ZONE} shifted ${(tookMs / 1000).toFixed(1)} s after its kubelets fell silent ` +
    `(${(tookMs / NODE_MONITOR_GRACE_MS).toFixed(2)}x the node monitor grace period)`);
  expect(tookMs).toBeLessThan(2 * NODE_MONITOR_GRACE_MS);
  expect(shift.spec.zone).toBe(ZONE);
  expect(shift.spec.reason).toMatch(/^autoshift: impaired for \d+ s: 5 of 5 nodes not answering/);

  // the shift acts: the opted-in pods of the zone out of the endpoints, its nodes tainted
  await untilEndpoints(ZONE);
  await waitFor('the zone\'s nodes tainted by the shift', async () => {
    const now = await taints();
    const tainted = Object.entries(now)
      .filter(([, t]) => t.some((x) => x.key === ZONE_SHIFT_TAINT_KEY))
      .map(([n]) => zoneOfNode.get(n));
    return { done: tainted.length === 5 && tainted.every((z) => z === ZONE), state: JSON.stringify(tainted) };
  });
  const status = (await policy()).status;
  expect(status).toMatchObject({ phase: 'Shifted', active: { cause: 'autoshift', zone: ZONE, shift: shift.metadata.name } });
  expect(status.zones.find((z: any) => z.zone === ZONE).signals[0]).toMatch(/^5 of 5 nodes not answering/);

  const cliKubeconfig = await cliUserKubeconfig(client, info, 'cdk8s-zones-shift', SHIFT_RULES);
  const shown = await runCliAs(cliKubeconfig, 'shift', 'status');
  expect(shown).toMatchObject({ code: 0, stderr: '' });
  expect(shown.stdout).toContain(`zoneshift/${shift.metadata.name}: zone ${ZONE}, cluster-wide, started by zoneautoshift/${NAME} (autoshift), Active`);
  expect(shown.stdout).toContain(`zoneautoshift/${NAME}: Shifted`);
  expect(shown.stdout).toMatch(new RegExp(`zone ${ZONE}: impaired since [^:]+:\\d\\d:\\d\\d[^:]*: 5 of 5 nodes not answering`));

  // the kubelets back: the shift ends once the zone has been healthy for recoveredFor, everything as before
  await outage.restore();
  const back = Date.now();
  outage = undefined;
  await waitFor('the autoshift ended and undone', async () => ({ done: (await autoshifts()).length === 0 }), { timeoutMs: 120_000 });
  const heldMs = Date.now() - back;
  console.log(`autoshift: the shift ended ${(heldMs / 1000).toFixed(1)} s after the zone's kubelets came back (recoveredFor ${RECOVERED_FOR_S} s)`);
  expect(heldMs).toBeGreaterThanOrEqual((RECOVERED_FOR_S - 5) * 1000);
  await untilEndpoints(undefined);
  expect(await taints()).toEqual(before);
  const pods = await client.list<any>('v1', 'Pod', { namespace: appsNs, labelSelector: 'app=web' });
  const gates = pods.map((p) => p.status.conditions.find((c: any) => c.type === ZONE_IN_SERVICE_CONDITION)?.status);
  expect(gates).toEqual(Array(6).fill('True'));
  const after = (await policy()).status;
  const recovered = { cause: 'autoshift', zone: ZONE, outcome: 'Recovered', shift: shift.metadata.name };
  expect(after).toMatchObject({ phase: 'Watching', history: [recovered] });

  // every decision an Event on the policy (in default, where the API server takes a cluster-scoped object's Events);
  // the controller was refused nothing
  const events = await client.list<any>('v1', 'Event', { namespace: 'default' });
  const ours = (e: any) => e.involvedObject.kind === 'ZoneAutoshift' && e.involvedObject.name === NAME;
  const reasons = events.filter(ours).map((e) => e.reason);
  expect(reasons).toEqual(expect.arrayContaining(['ZoneImpaired', 'AutoshiftStarted', 'ZoneHealthy', 'AutoshiftRecovered']));
  const refused = controller!.logs.filter((l) => /forbidden|HTTP 403/i.test(JSON.stringify(l)));
  expect(refused).toEqual([]);
});

test('an outage drill with the autoshift on: the zone is shifted as in an outage, the drill agrees with its prediction, and all is as before', async () => {
  await untilWatchingAllHealthy();
  await untilEndpoints(undefined);
  const before = await nodeStates();
  const drilled = ZONES[1];
  const drillKubeconfig = await cliUserKubeconfig(client, info, 'cdk8s-zones-drill', DRILL_RULES);
  // the watch lasts until nothing changed for 45 s: the autoshift (impairedFor 20 s) acts within it
  const drillStarted = Date.now();
  const drill = runCliAs(drillKubeconfig, 'drill', '--zone', drilled, '--mode', 'outage', '--yes', '--format', 'json',
    '--settle', '45s', '--timeout', '3m');
  const shift = await waitFor('an autoshift of the drilled zone', async () => {
    const found = (await autoshifts()).find((x) => x.spec.zone === drilled);
    return { done: found !== undefined, value: found, state: JSON.stringify((await policy()).status?.zones) };
  }, { timeoutMs: 60_000, intervalMs: 250 });
  const shiftedAfterMs = Date.now() - drillStarted;
  expect(shift.spec.reason).toMatch(/^autoshift: impaired for \d+ s: (\d+) of \1 nodes not answering \(under an outage drill: /);
  expect(shift.spec.lost).toBeUndefined();

  const run = await drill;
  expect(run.stderr).not.toMatch(/forbidden|denied/i);
  const result: DrillResult = JSON.parse(run.stdout);
  const contradicted = result.verdicts.filter((v) => v.contradictions.length > 0)
    .map((v) => `${v.name}: ${v.contradictions.join('; ')}`);
  expect(contradicted).toEqual([]);
  const web = result.verdicts.find((v) => v.namespace === appsNs && v.name === 'web')!;
  expect(web.predicted).toBeDefined();
  expect(web.observed.before.inZone).toBeGreaterThan(0);
  expect(web.observed.minReady).toBe(6 - web.observed.before.inZone);
  // the zone's pods come back only once the autoshift ended its shift, recoveredFor after the drill's restore
  expect(result.settledAfterMs).toBeGreaterThanOrEqual((RECOVERED_FOR_S - 5) * 1000);
  expect(result.shiftsAtEnd).toEqual([]);
  expect(run.code).toBe(0);
  console.log(`drill with the autoshift on: zone ${drilled} shifted ${(shiftedAfterMs / 1000).toFixed(1)} s after the drill started ` +
    `(impairedFor 20 s); the cluster settled ${(result.settledAfterMs! / 1000).toFixed(1)} s after the drill's restore`);

  await waitFor('the autoshift ended and undone', async () => ({ done: (await autoshifts()).length === 0 }), { timeoutMs: 60_000 });
  expect(await nodeStates()).toEqual(before);
  const history = (await policy()).status.history;
  expect(history[0]).toMatchObject({ cause: 'autoshift', zone: drilled, outcome: 'Recovered', shift: shift.metadata.name });
});

/** What a drill or a shift may change on the test's nodes: annotations, taints, unschedulable. */
async function nodeStates(): Promise<Record<string, string>> {
  const all = await client.list<any>('v1', 'Node');
  const state = (n: any) => JSON.stringify({
    annotations: n.metadata.annotations, taints: n.spec.taints ?? [], unschedulable: n.spec.unschedulable ?? null,
  });
  return Object.fromEntries(all.filter((n) => zoneOfNode.has(n.metadata.name)).map((n) => [n.metadata.name, state(n)]));
}

/** Sets the ContainersReady condition of `pods` (kwok writes a pod's status once, at its start, and never again). */
async function containersReady(pods: readonly any[], status: 'True' | 'False'): Promise<void> {
  for (const p of pods) {
    const conditions = [{ type: 'ContainersReady', status, lastTransitionTime: new Date().toISOString() }];
    await client.request('PATCH', `/api/v1/namespaces/${appsNs}/pods/${p.metadata.name}/status`,
      { status: { conditions } }, 'application/strategic-merge-patch+json');
  }
}

test('practice runs shift the zones in turn, Succeeded; one during which a workload suffers ends early, Failed, naming it', async () => {
  // the practice runs' shifts in force (an expired one is Ended, then deleted by the controller)
  const practices = async () => (await autoshifts()).filter((x) => x.metadata.labels['cdk8s-zones.dev/shift-cause'] === 'practice'
    && !x.metadata.deletionTimestamp && x.status?.phase === 'Active');
  // the policy edited as `kubectl edit` would: practice runs every 30 s, 10 s each; pods start within 5 s
  await client.patch(GROUP, 'ZoneAutoshift', NAME, {
    spec: {
      practiceRuns: { everySeconds: 30, durationSeconds: 10 },
      pods: { failingShare: 0.5, minPods: 2, startupSeconds: 5 },
    },
  });
  const first = await waitFor('the first practice run', async () => {
    const found = await practices();
    return { done: found.length > 0, value: found[0] };
  }, { timeoutMs: 60_000, intervalMs: 250 });
  expect(first.spec.zone).toBe(ZONES[0]);
  await untilEndpoints(ZONES[0]);
  await waitFor('the first run Succeeded', async () => {
    const last = (await policy()).status.history[0];
    return { done: last?.cause === 'practice' && last.outcome === 'Succeeded', state: JSON.stringify(last) };
  }, { timeoutMs: 60_000 });
  await untilEndpoints(undefined);
  await waitFor('the ended run\'s shift deleted by the controller', async () => ({
    done: !(await client.find(GROUP, 'ZoneShift', first.metadata.name)),
  }));

  // the next run (zone-b) starts; then web's pods in zone-c fail readiness: the run ends early, Failed
  const second = await waitFor('the second practice run', async () => {
    const found = await practices();
    return { done: found.length > 0, value: found[0] };
  }, { timeoutMs: 60_000, intervalMs: 250 });
  expect(second.spec.zone).toBe(ZONES[1]);
  const web = await client.list<any>('v1', 'Pod', { namespace: appsNs, labelSelector: 'app=web' });
  const inZoneC = web.filter((p) => zoneOfNode.get(p.spec.nodeName) === ZONES[2]);
  try {
    await containersReady(inZoneC, 'False');
    const failed = await waitFor('the second run Failed', async () => {
      const last = (await policy()).status.history[0];
      return { done: last?.zone === ZONES[1] && last.outcome !== undefined, value: last, state: JSON.stringify(last) };
    }, { timeoutMs: 30_000 });
    expect(failed).toMatchObject({ cause: 'practice', outcome: 'Failed' });
    expect(failed.message).toContain(`Deployment/web in ${appsNs}: 2 of 4 pods outside ${ZONES[1]} failing readiness`);
    expect(Date.parse(failed.endedAt) - Date.parse(failed.startedAt)).toBeLessThan(10_000);
    await waitFor('the failed run\'s shift gone', async () => ({ done: (await practices()).length === 0 }));
  } finally {
    await client.patch(GROUP, 'ZoneAutoshift', NAME, { spec: { practiceRuns: null } });
    await containersReady(inZoneC, 'True');
  }
  const events = await client.list<any>('v1', 'Event', { namespace: 'default' });
  const reasons = events.filter((e) => e.involvedObject.name === NAME).map((e) => e.reason);
  expect(reasons).toEqual(expect.arrayContaining(['PracticeRunStarted', 'PracticeRunSucceeded', 'PracticeRunFailed']));
});
