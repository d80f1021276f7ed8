/**
 * The zonal shift (docs/runbooks/zone-impaired.md) on the real API server, scheduler and EndpointSlice controller,
 * with the real controller (`--reconcilers zone-annotator,zone-shift`): a ZoneShift takes its zone's opted-in pods
 * out of their Services' endpoints within seconds and no other pod, taints the zone's nodes so new pods go
 * elsewhere; deleting it or its expiry restores the nodes, the conditions and the endpoints exactly; a leader
 * change (the leader killed) and a restart mid-shift flip no pod.
 *
 * Two things of the tier are played by the test. The nodes get routable pod IPs (the EndpointSlice controller
 * refuses loopback endpoints), and the cluster's own nodes are cordoned meanwhile. And kwok sets a pod's Ready
 * condition and its readiness gates True once, at start, and never again, where a kubelet recomputes Ready from
 * the gates whenever one changes (its status manager): `playKubeletReadiness` (kubelet-readiness.ts) applies that
 * rule, and only it.
 */
import { Chart, Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { cliUserKubeconfig, runCliAs } from './cli-user';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { KubeObject } from './kube-client';
import { playKubeletReadiness } from './kubelet-readiness';
import { addNodes, planNodes, ZONES } from './nodes';
import { PodWatch, watchPods } from './pod-watch';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { ZoneController, Zonal, ZoneTopology } from '../../../src';
import { SHIFT_RULES } from '../../../src/cli/cli-rbac';
import { ZONE_IN_SERVICE_CONDITION, ZONE_SHIFT_TAINT_KEY } from '../../../src/contract/zone-shift';
import { zoneShiftCrd } from '../../../src/contract/zone-shift-crd';

const { client, info } = testCluster();
const ns = uniqueName('zone-shift');
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const nodes = planNodes({ nodesPerZone: 2, namePrefix: 'kwok-shift', podCidrOctet: 246, routablePodIps: true });
/** Every node of the cluster (its own, cordoned during the test, and the test's): a shift taints all of a zone's. */
const zoneOfNode = new Map([...info.nodes, ...nodes].map((n) => [n.name, n.zone]));
const nodesOf = (zone: string) => [...zoneOfNode].filter(([, z]) => z === zone).map(([name]) => name).sort();
/**
 * How soon a shift's start or end must show in the endpoints (the controller's pass, the EndpointSlice controller's
 * sync).
 */
const BOUND_MS = 10_000;

/** `web` (opted in, 6 pods) and `plain` (not opted in, 3 pods), each with its Service. */
function objects(): KubeObject[] {
  const app = Testing.app();
  const platform = new Chart(app, 'platform');
  const controller = new ZoneController(platform, 'controller', { zoneShift: true });
  const chart = new Chart(app, 'shop', { namespace: ns });
  for (const [name, replicas, gated] of [['web', 6, true], ['plain', 3, false]] as const) {
    const labels = { app: name };
    const deployment = new k8s.KubeDeployment(chart, name, {
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            ...RESTRICTED_PAUSE_POD,
            topologySpreadConstraints: [{
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: labels },
            }],
          } as any,
        },
      },
    });
    if (gated) ZoneController.addZoneShiftGate(deployment, controller);
    new k8s.KubeService(chart, `${name}-service`, { metadata: { name }, spec: { selector: labels, ports: [{ port: 80 }] } });
  }
  return Testing.synth(chart);
}

interface Endpoint { pod: string; zone: string; ready: boolean }

/** The endpoints of Service `service`, as its EndpointSlices list them. */
async function endpointsOf(service: string): Promise<Endpoint[]> {
  const slices = await client.list<any>('discovery.k8s.io/v1', 'EndpointSlice', { namespace: ns, labelSelector: `kubernetes.io/service-name=${service}` });
  return slices
    .flatMap((s) => s.endpoints ?? [])
    .map((e: any) => ({ pod: e.targetRef?.name, zone: e.zone, ready: e.conditions?.ready === true }))
    .sort((a: Endpoint, b: Endpoint) => a.pod.localeCompare(b.pod));
}

/** Until Service `service`'s endpoints are `count`, ready exactly outside `outZone`; the time it took. */
async function untilEndpoints(
  service: string,
  count: number,
  outZone: string | undefined,
  timeoutMs = BOUND_MS,
): Promise<number> {
  const started = Date.now();
  await waitFor(`${service}'s endpoints: ${count}, ready but in ${outZone ?? 'no zone'}`, async () => {
    const endpoints = await endpointsOf(service);
    const right = endpoints.length === count && endpoints.every((e) => e.ready === (e.zone !== outZone));
    return { done: right, state: JSON.stringify(endpoints) };
  }, { timeoutMs, intervalMs: 100 });
  return Date.now() - started;
}

/** The taints of every node, by name. */
async function taints(): Promise<Record<string, any[]>> {
  const all = await client.list<any>('v1', 'Node');
  return Object.fromEntries(all
    .filter((n) => zoneOfNode.has(n.metadata.name))
    .map((n) => [n.metadata.name, n.spec.taints ?? []]));
}

/** The gate conditions of the opted-in pods, by pod. */
async function gates(): Promise<Record<string, string | undefined>> {
  const pods = await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' });
  const gateOf = (p: any) => p.status.conditions?.find((c: any) => c.type === ZONE_IN_SERVICE_CONDITION)?.status;
  return Object.fromEntries(pods.map((p) => [p.metadata.name, gateOf(p)]));
}

const shift = (name: string, zone: string, expiresAt: string, extra: object = {}): KubeObject => ({
  apiVersion: GROUP, kind: 'ZoneShift', metadata: { name }, spec: { zone, expiresAt, reason: 'test', ...extra },
});
const inHours = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

/** The shift's user: the runbook's ClusterRole and nothing else (set in beforeAll). */
let kubeconfig = '';

/** The program in this process as that user. */
const cli = (...args: string[]) => runCliAs(kubeconfig, ...args);

/** Every controller started (leader-elected candidates on one Lease), stopped after. */
const controllers: ControllerProcess[] = [];
const LEASE = 'zone-shift-lease';
const startController = async (name: string): Promise<ControllerProcess> => {
  const c = await ControllerProcess.start(info, name, ['--reconcilers', 'zone-annotator,zone-shift', '--leader-elect', '--lease-namespace', ns,
    '--lease-name', LEASE, '--lease-duration', '4s', '--renew-deadline', '3s', '--retry-period', '500ms']);
  controllers.push(c);
  return c;
};
const leaseHolder = async () => (await client.find<any>('coordination.k8s.io/v1', 'Lease', LEASE, ns))?.spec?.holderIdentity as string | undefined;
/** Until `c` holds the Lease and runs its reconcilers. */
const untilLeading = (c: ControllerProcess) => waitFor(`${c.name} to lead`, async () => {
  c.assertRunning();
  const holder = await leaseHolder();
  return { done: holder === c.name && c.hasLogged('running reconcilers'), state: `holder ${holder}` };
}, { timeoutMs: 60_000 });
let kubelet: PodWatch | undefined;
let cordoned: string[] = [];
const cordon = (unschedulable: boolean) => Promise.all(
  cordoned.map((n) => client.patch('v1', 'Node', n, { spec: { unschedulable } })),
);

beforeAll(async () => {
  kubeconfig = await cliUserKubeconfig(client, info, 'cdk8s-zones-shift', SHIFT_RULES);
  cordoned = (await client.list('v1', 'Node')).map((n) => n.metadata.name);
  await cordon(true);
  await addNodes(client, nodes);
  const applied = await applyManifests(client, [zoneShiftCrd() as KubeObject, ...objects()], ns);
  expect(applied.rejections).toEqual([]);
  kubelet = await playKubeletReadiness(client, info, ns);
  await untilLeading(await startController('zone-shift-a'));
  await startController('zone-shift-b'); // the follower
  await untilEndpoints('web', 6, undefined, 120_000);
  await untilEndpoints('plain', 3, undefined, 120_000);
});

afterAll(async () => {
  kubelet?.stop();
  for (const c of controllers) await c.stop();
  for (const name of ['zone-a', 'zone-b', 'brief', 'scale-up']) await client.delete(GROUP, 'ZoneShift', name).catch(() => undefined);
  await deleteNamespace(client, ns);
  await cordon(false);
  await Promise.all(nodes.map((n) => client.delete('v1', 'Node', n.name)));
  client.close();
});

test('a shift takes the zone\'s opted-in pods out of their endpoints within seconds, and no other pod; its cancellation restores exactly', async () => {
  const before = { taints: await taints(), gates: await gates() };
  expect(Object.values(before.gates).every((s) => s === 'True')).toBe(true);

  // `cdk8s-zones shift start`, as the runbook's least-privileged user: it returns once the controller answered
  const starting = cli('shift', 'start', '--zone', ZONES[0], '--expires-in', '1h', '--name', 'zone-a', '--reason', 'test');
  const outMs = await untilEndpoints('web', 6, ZONES[0]);
  console.log(`shift start: web's zone-a endpoints not ready after ${outMs} ms`);
  const started = await starting;
  expect(started).toMatchObject({ code: 0, stderr: '' });
  expect(started.stdout).toContain(`zoneshift/zone-a: zone ${ZONES[0]}, cluster-wide, Active`);
  await untilEndpoints('plain', 3, undefined); // not opted in: untouched
  const shifted = await waitFor('the zone\'s nodes tainted', async () => {
    const now = await taints();
    const ours = Object.entries(now)
      .filter(([, t]) => (t as any[]).some((x) => x.key === ZONE_SHIFT_TAINT_KEY))
      .map(([n]) => n)
      .sort();
    return { done: JSON.stringify(ours) === JSON.stringify(nodesOf(ZONES[0])), value: now, state: ours.join(', ') };
  });
  for (const [name, zone] of zoneOfNode) {
    const ours = { key: ZONE_SHIFT_TAINT_KEY, value: ZONES[0], effect: 'NoSchedule' };
    const others = (before.taints[name] as any[]).filter((t) => t.key !== ZONE_SHIFT_TAINT_KEY);
    expect([name, shifted[name]]).toEqual([name, zone === ZONES[0] ? [...others, ours] : before.taints[name]]);
  }
  const status = await waitFor('the shift\'s status', async () => {
    const s = (await client.get<any>(GROUP, 'ZoneShift', 'zone-a')).status;
    const pods = (s?.changed ?? []).filter((c: any) => c.kind === 'Pod').length;
    return { done: s?.phase === 'Active' && pods === 2, value: s, state: JSON.stringify(s) };
  });
  expect(status.changed.filter((c: any) => c.kind === 'Node').map((c: any) => c.name)).toEqual(nodesOf(ZONES[0]));

  // new pods go elsewhere: plain scaled up, none of the new ones in the zone
  const plainPods = () => client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=plain' });
  const plainBefore = new Set((await plainPods()).map((p) => p.metadata.name));
  await client.patch('apps/v1', 'Deployment', 'plain', { spec: { replicas: 9 } }, ns);
  await untilEndpoints('plain', 9, undefined, 60_000);
  const added = (await plainPods()).filter((p) => !plainBefore.has(p.metadata.name));
  expect(added.map((p) => zoneOfNode.get(p.spec.nodeName))).not.toContain(ZONES[0]);

  // leader changes and restarts mid-shift flip nothing
  const flips: string[] = [];
  const watch = await watchPods(info, ns, ({ pod }) => {
    const gate = pod.status?.conditions?.find((c: any) => c.type === ZONE_IN_SERVICE_CONDITION)?.status;
    const wanted = zoneOfNode.get(pod.spec.nodeName) === ZONES[0] ? 'False' : 'True';
    const gated = (pod.spec.readinessGates ?? []).length > 0;
    if (gate !== undefined && gate !== wanted && gated) flips.push(`${pod.metadata.name}: ${gate}`);
  });
  // and no node loses the shift's taint meanwhile, even for a moment (a new leader deciding before it has read the
  // shifts)
  const taintGaps: string[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const now = await taints();
      for (const name of nodesOf(ZONES[0])) {
        const taintsNow = JSON.stringify(now[name]);
        if (taintsNow !== JSON.stringify(shifted[name])) taintGaps.push(`${name}: ${taintsNow}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const [leader, follower] = controllers;
  leader.signal('SIGKILL'); // a leader change: the follower takes the Lease over once it expires
  await leader.exited;
  await untilLeading(follower);
  const restarted = await startController('zone-shift-c');
  await follower.stop(); // a restart: the new process takes over from the one stopped
  await untilLeading(restarted);
  await new Promise((r) => setTimeout(r, 5_000));
  watch.stop();
  polling = false;
  await poller;
  expect(flips).toEqual([]);
  expect(taintGaps).toEqual([]);
  expect(await taints()).toEqual(shifted);

  const listed = JSON.parse((await cli('shift', 'status', '--zone', ZONES[0], '--format', 'json')).stdout);
  expect(listed.shifts.map((s: any) => [s.name, s.status.phase])).toEqual([['zone-a', 'Active']]);

  // cancelled (`shift cancel` returns once the controller has undone it): the nodes, the gates and the endpoints as
  // before
  expect(await cli('shift', 'cancel', '--zone', ZONES[0])).toMatchObject({ code: 0, stdout: 'zoneshift/zone-a cancelled: what it changed is undone\n' });
  expect(await client.find(GROUP, 'ZoneShift', 'zone-a')).toBeFalsy();
  const backMs = await untilEndpoints('web', 6, undefined);
  console.log(`shift cancel: web's endpoints all ready after ${backMs} ms`);
  expect(await taints()).toEqual(before.taints);
  expect(await gates()).toEqual(before.gates);
});

test('a shift ends by itself at its expiry, undone exactly; one scoped to other namespaces changes nothing here', async () => {
  const before = { taints: await taints(), gates: await gates() };
  await client.create(shift('zone-b', ZONES[1], inHours(1), { namespaces: ['elsewhere'] }));
  await client.create(shift('brief', ZONES[2], new Date(Date.now() + 8_000).toISOString()));
  await untilEndpoints('web', 6, ZONES[2]);
  const tainted = async () => Object.entries(await taints())
    .filter(([, x]) => x.some((y) => y.key === ZONE_SHIFT_TAINT_KEY))
    .map(([n]) => n)
    .sort();
  await waitFor('zone-c\'s nodes tainted, no other', async () => ({ done: JSON.stringify(await tainted()) === JSON.stringify(nodesOf(ZONES[2])) }));
  await untilEndpoints('web', 6, undefined, 8_000 + BOUND_MS);
  const ended = await waitFor('the expired shift Ended and undone', async () => {
    const s = (await client.get<any>(GROUP, 'ZoneShift', 'brief')).status;
    return { done: s?.phase === 'Ended' && s.changed.length === 0, value: s, state: JSON.stringify(s) };
  });
  expect(ended.message).toMatch(/everything it changed is undone$/);
  expect(await taints()).toEqual(before.taints);
  expect(await gates()).toEqual(before.gates);
  expect((await client.get<any>(GROUP, 'ZoneShift', 'zone-b')).status).toMatchObject({ phase: 'Active', changed: [] });
});

/**
 * `pinned`: 2 opted-in pods pinned to `zone` (a nodeSelector), with its Service; `minReadySeconds` slows its
 * rollouts.
 */
function pinned(zone: string): KubeObject[] {
  const labels = { app: 'pinned' };
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'pinned', namespace: ns },
    spec: {
      replicas: 2,
      // a new pod is Ready 10 s before the rollout counts it available and deletes an old one: the fail-safe's window
      minReadySeconds: 10,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, 'cdk8s-zones.dev/zone-annotation': 'enabled' } },
        spec: {
          ...RESTRICTED_PAUSE_POD,
          nodeSelector: { 'topology.kubernetes.io/zone': zone },
          readinessGates: [{ conditionType: ZONE_IN_SERVICE_CONDITION }],
        },
      },
    },
  };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'pinned', namespace: ns },
    spec: { selector: labels, ports: [{ port: 80 }] },
  };
  return [deployment, service];
}

test('the fail-safe: a shift keeps a workload\'s last serving pods in service, saying so, until one serves elsewhere', async () => {
  for (const o of pinned(ZONES[0])) await client.apply(o);
  await untilEndpoints('pinned', 2, undefined, 60_000);
  try {
    const started = await cli('shift', 'start', '--zone', ZONES[0], '--expires-in', '1h', '--name', 'zone-a', '--reason', 'test');
    expect(started).toMatchObject({ code: 0, stderr: '' });
    const kept = started.stdout.split('\n').filter((l) => l.includes('stays in service (the fail-safe)'));
    expect(kept).toHaveLength(2);
    // the last of their Deployment and of their Service both
    const why = `the last pods that can serve Deployment/pinned in ${ns} and Service ${ns}/pinned`;
    expect(kept.map((l) => l.slice(l.indexOf('it is one of ') + 'it is one of '.length))).toEqual([why, why]);

    // web's zone-a pods are out; pinned's stay: both its endpoints Ready in zone-a
    await untilEndpoints('web', 6, ZONES[0]);
    expect((await endpointsOf('pinned')).map((e) => [e.zone, e.ready])).toEqual([[ZONES[0], true], [ZONES[0], true]]);
    const status = await waitFor('the shift\'s status lists the two pods kept', async () => {
      const s = (await client.get<any>(GROUP, 'ZoneShift', 'zone-a')).status;
      const keptPods = (s?.changed ?? [])
        .filter((c: any) => c.kind === 'Pod' && c.change.startsWith('kept in service by the fail-safe'));
      return { done: keptPods.length === 2, value: keptPods, state: JSON.stringify(s) };
    });
    expect(status.map((c: any) => c.change)).toEqual([0, 1].map(() => expect.stringContaining(`Deployment/pinned in ${ns}`)));

    // moved to zone-b: once a new pod is Ready there, the zone-a ones leave the endpoints (before the rollout
    // deletes them)
    const toZoneB = { spec: { template: { spec: { nodeSelector: { 'topology.kubernetes.io/zone': ZONES[1] } } } } };
    await client.patch('apps/v1', 'Deployment', 'pinned', toZoneB, ns);
    await waitFor('a Ready endpoint in zone-b, none Ready in zone-a', async () => {
      const endpoints = await endpointsOf('pinned');
      const inB = endpoints.some((e) => e.zone === ZONES[1] && e.ready);
      const inA = endpoints.filter((e) => e.zone === ZONES[0]);
      return { done: inB && inA.length > 0 && inA.every((e) => !e.ready), state: JSON.stringify(endpoints) };
    }, { timeoutMs: 30_000, intervalMs: 100 });
  } finally {
    await cli('shift', 'cancel', '--zone', ZONES[0]);
    await client.delete('apps/v1', 'Deployment', 'pinned', ns);
    await client.delete('v1', 'Service', 'pinned', ns);
  }
});

/**
 * `name`: 3 pods spread by `Zonal.spread` on a topology of `kubernetesVersion` (from 1.33: nodeTaintsPolicy Honor,
 * minDomains 2; before: every node counts, minDomains 3).
 */
function zonalSpread(name: string, kubernetesVersion: string | undefined): KubeObject[] {
  const chart = new Chart(Testing.app(), name, { namespace: ns });
  const labels = { app: name };
  const deployment = new k8s.KubeDeployment(chart, name, {
    metadata: { name },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: RESTRICTED_PAUSE_POD as any },
    },
  });
  Zonal.spread(deployment, { topology: new ZoneTopology({ zones: [...ZONES], kubernetesVersion }) });
  return Testing.synth(chart);
}

test('a scale-up during a shift places every new pod outside the zone where spreads honor the shift\'s taint (1.33+)', async () => {
  const podsOf = async (app: string) => (await client.list<any>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` }))
    .filter((p) => !p.metadata.deletionTimestamp);
  const zonesOf = async (app: string) => (await podsOf(app)).map((p) => zoneOfNode.get(p.spec.nodeName) ?? 'Pending').sort();
  const untilPlaced = (app: string, want: readonly string[]) => waitFor(`${app}'s pods in ${want.join(', ')}`, async () => {
    const now = await zonesOf(app);
    return { done: JSON.stringify(now) === JSON.stringify(want), state: now.join(', ') };
  }, { timeoutMs: 60_000 });
  const applied = await applyManifests(client, [...zonalSpread('honors', '1.35'), ...zonalSpread('ignores', '1.32')], ns);
  expect(applied.rejections).toEqual([]);
  try {
    await untilPlaced('honors', [...ZONES]);
    await untilPlaced('ignores', [...ZONES]);
    await client.create(shift('scale-up', ZONES[0], inHours(1)));
    await waitFor('zone-a\'s nodes tainted', async () => {
      const now = await taints();
      return { done: nodesOf(ZONES[0]).every((n) => now[n].some((t: any) => t.key === ZONE_SHIFT_TAINT_KEY)) };
    });
    for (const app of ['honors', 'ignores']) await client.patch('apps/v1', 'Deployment', app, { spec: { replicas: 6 } }, ns);
    // the shifted zone leaves the skew: zones b and c take the 3 new pods, b one more than c at most
    const honors = await waitFor('honors\' 6 pods all placed', async () => {
      const now = await zonesOf('honors');
      return { done: now.length === 6 && !now.includes('Pending'), value: now, state: now.join(', ') };
    }, { timeoutMs: 60_000 });
    const count = (zone: string) => honors.filter((z) => z === zone).length;
    expect(count(ZONES[0])).toBe(1);
    expect([count(ZONES[1]) + count(ZONES[2]), Math.abs(count(ZONES[1]) - count(ZONES[2])) <= 1]).toEqual([5, true]);
    // the control: zone-a's one pod holds the others at 2, and the sixth waits
    await untilPlaced('ignores', ['Pending', ZONES[0], ZONES[1], ZONES[1], ZONES[2], ZONES[2]].sort());
    const pending = (await podsOf('ignores')).find((p) => !p.spec.nodeName);
    const scheduled = pending.status.conditions.find((c: any) => c.type === 'PodScheduled');
    expect([scheduled.status, scheduled.reason]).toEqual(['False', 'Unschedulable']);
    expect(scheduled.message).toContain("didn't match pod topology spread constraints");
  } finally {
    await client.delete(GROUP, 'ZoneShift', 'scale-up').catch(() => undefined);
    for (const app of ['honors', 'ignores']) await client.delete('apps/v1', 'Deployment', app, ns);
  }
});
