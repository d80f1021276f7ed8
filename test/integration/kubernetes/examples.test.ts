/**
 * Every example, applied for real: the API server accepts every object (strict field validation, CEL
 * rules of the CRDs, Pod Security "restricted"), says nothing to warn about, and every workload's pods are
 * admitted, scheduled by the real scheduler and Ready. Then the hostile variant of every example (zones
 * that are not DNS names; test/example-variants.ts) on nodes of those zones: the names
 * the library derives from them must pass the API server and the workload controllers (pod names, the
 * controller-revision-hash label) alike. Once an example runs, `check --live` (as the runbook's reader) judges each of
 * its workloads as the check of its manifests does on the same nodes: its pods run where its spec lets them; and
 * on the hostile variant's nodes (routable pod IPs: real endpoints), `traffic --live` routes each Service's requests
 * per zone as kube-proxy does with the hints the EndpointSlice controller wrote.
 */
import { cliUserKubeconfig, runCliAs } from './cli-user';
import {
  applyExample, ApplyResult, deleteApplied, deleteNamespace, exampleNames, operatorSecrets, RESTRICTED_LABELS,
  PLAIN_WORKLOAD_KINDS, RolloutRejected, synthesizeExample, waitForRollout,
} from './examples';
import { KubeObject } from './kube-client';
import { addNodes, planNodes } from './nodes';
import { testCluster, uniqueName } from './scheduling';
import { expectRoutesOfEndpointSlices } from './traffic-routes';
import { waitFor } from './wait';
import { analyzeManifests } from '../../../src/check/analyze';
import { inventoryProps } from '../../../src/check/cluster-nodes';
import { workloadId } from '../../../src/check/format-common';
import { ZoneInventory } from '../../../src/check/inventory';
import { WorkloadReport } from '../../../src/check/model';
import { CHECK_LIVE_RULES } from '../../../src/cli/cli-rbac';
import { isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import { HOSTILE_VARIANT } from '../../example-variants';

const { client, info } = testCluster();
afterAll(() => client.close());

let reader: Promise<string> | undefined;
/** A kubeconfig with the runbook's ClusterRole for `check --live` (made once). */
const liveReader = () => (reader ??= cliUserKubeconfig(client, info, 'cdk8s-zones-check-examples', CHECK_LIVE_RULES));

const names = exampleNames();

test('the examples are found', () => {
  expect(names).toContain('web-3-zones');
});

/** `check --live` of what an applied example runs, against the check of what was applied, on the cluster's nodes. */
async function liveAgreesWithManifests(result: ApplyResult | undefined): Promise<void> {
  expect(result).toBeDefined();
  const nodes = await client.list('v1', 'Node');
  const inventory = new ZoneInventory(inventoryProps({ kind: 'NodeList', items: nodes }, undefined));
  const offline = analyzeManifests(result!.applied, inventory).workloads
    .filter((w) => PLAIN_WORKLOAD_KINDS.includes(w.kind));
  expect(offline.length).toBeGreaterThan(0);
  const namespaces = result!.namespaces.flatMap((ns) => ['--namespace', ns]);
  const run = await runCliAs(await liveReader(), 'check', '--live', ...namespaces, '--format', 'json');
  expect(run.stderr).toBe('');
  const live = new Map((JSON.parse(run.stdout).workloads as WorkloadReport[]).map((w) => [workloadId(w), w]));
  const verdicts = (w?: WorkloadReport) => w && { survives: w.survives, replicas: w.replicas, group: w.zoneGroup };
  for (const w of offline) {
    expect([workloadId(w), verdicts(live.get(workloadId(w)))]).toEqual([workloadId(w), verdicts(w)]);
  }
}

describe.each(names)('example %s', (name) => {
  let result: ApplyResult | undefined;
  afterAll(() => result && deleteApplied(client, result));

  test('is applied into fresh namespaces with zero rejections and zero warnings, and every workload rolls out', async () => {
    const objects = synthesizeExample(name);
    expect(objects.length).toBeGreaterThan(0);
    const named = objects.map((o) => (o.kind === 'Namespace' ? o.metadata.name : o.metadata.namespace)).filter(Boolean);
    const leftovers = (await client.list('v1', 'Namespace')).map((n) => n.metadata.name).filter((n) => named.includes(n));
    expect(leftovers).toEqual([]);

    result = await applyExample(client, name, `example-${name}`);
    expect(result.rejections).toEqual([]);
    expect(result.warnings).toEqual([]);
    // plus the Secrets an operator creates by hand (the Redis password: never in an example)
    const applied = [...operatorSecrets(objects), ...objects]
      .filter((o) => o.kind !== 'CustomResourceDefinition')
      .map((o) => `${o.kind}/${o.metadata.name}`);
    expect(result.applied.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(applied.sort());

    for (const ns of result.namespaces) {
      expect((await client.get('v1', 'Namespace', ns)).metadata.labels).toMatchObject(RESTRICTED_LABELS);
    }
    await waitForRollout(client, result.applied);
  });

  // the examples made only of custom resources have nothing running here: no operator runs in the tier
  if (synthesizeExample(name).some((o) => PLAIN_WORKLOAD_KINDS.includes(o.kind))) {
    test('check --live of what runs judges every workload as the check of its manifests does: it runs where its spec says',
      () => liveAgreesWithManifests(result));
  }
});

test('the examples with Services that keep traffic in their zone are those whose topology names a version that supports it', () => {
  const withThem = names.filter((n) => zoneLocalServices(synthesizeExample(n, HOSTILE_VARIANT)).length > 0);
  expect(withThem).toEqual(['loki-direct-3-zones', 'redis-3-zones', 'redis-6-masters']);
});

/** The Services of `objects` with a trafficDistribution. */
function zoneLocalServices(objects: KubeObject[]): KubeObject[] {
  return objects.filter((o) => o.kind === 'Service' && o.spec?.trafficDistribution !== undefined);
}

/**
 * Waits until every Ready pod the Service selects is an endpoint of it, in its node's zone, hinted for that zone
 * alone.
 */
async function expectZoneHints(service: KubeObject): Promise<void> {
  const { namespace, name } = service.metadata;
  const selector = Object.entries(service.spec.selector as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',');
  const zones = new Map((await client.list('v1', 'Node')).map((n) => [n.metadata.name, n.metadata.labels?.['topology.kubernetes.io/zone']]));
  await waitFor(`Service ${namespace}/${name}: every endpoint hinted for its own zone`, async () => {
    const pods = (await client.list('v1', 'Pod', { namespace, labelSelector: selector }))
      .filter((p) => !isTerminating(p) && isReady(p));
    const endpoints = (await client.list('discovery.k8s.io/v1', 'EndpointSlice', { namespace, labelSelector: `kubernetes.io/service-name=${name}` }))
      .flatMap((s) => s.endpoints ?? []);
    const wrong = endpoints.filter((e) => e.zone === undefined || e.zone !== zones.get(e.nodeName)
      || JSON.stringify(e.hints?.forZones) !== JSON.stringify([{ name: e.zone }]));
    const missing = pods.filter((p) => !endpoints.some((e) => e.targetRef?.uid === p.metadata.uid));
    return {
      done: pods.length > 0 && wrong.length === 0 && missing.length === 0,
      state: `${pods.length} Ready pods, ${missing.length} not endpoints; endpoints not hinted for their own zone: ${JSON.stringify(wrong.slice(0, 3))}`,
    };
  }, { timeoutMs: 60_000, intervalMs: 250 });
}

describe('hostile names', () => {
  // Two nodes in each of the variant's zones, for this block only (the tests of a project run one at a time), with pod
  // IPs the EndpointSlice controller takes as endpoints (it leaves out the loopback IPs of the other nodes).
  const nodes = planNodes({
    zones: HOSTILE_VARIANT.zones,
    nodesPerZone: 2,
    namePrefix: 'kwok-hostile',
    podCidrOctet: 245,
    routablePodIps: true,
  });
  // The cluster's own nodes cordoned meanwhile, so every pod of the block gets one of those IPs.
  let cordoned: string[] = [];
  const cordon = (unschedulable: boolean) => Promise.all(
    cordoned.map((n) => client.patch('v1', 'Node', n, { spec: { unschedulable } })),
  );
  beforeAll(async () => {
    cordoned = (await client.list('v1', 'Node')).map((n) => n.metadata.name).filter((n) => !nodes.some((h) => h.name === n));
    await cordon(true);
    await addNodes(client, nodes);
  });
  afterAll(async () => {
    await cordon(false);
    await Promise.all(nodes.map((n) => client.delete('v1', 'Node', n.name)));
  });

  describe.each(names)('example %s', (name) => {
    let result: ApplyResult | undefined;
    afterAll(() => result && deleteApplied(client, result));

    test('its hostile variant is applied with zero rejections and zero warnings, and every workload rolls out in those zones', async () => {
      result = await applyExample(client, name, `hostile-${name}`, undefined, HOSTILE_VARIANT);
      expect(result.rejections).toEqual([]);
      expect(result.warnings).toEqual([]);
      await waitForRollout(client, result.applied);
    });

    test('every Service that keeps traffic in its zone (trafficDistribution): the EndpointSlice controller hints each endpoint for its own zone', async () => {
      expect(result).toBeDefined();
      for (const service of zoneLocalServices(result!.applied)) await expectZoneHints(service);
    });

    test('traffic --live: every Service\'s routes per zone are what kube-proxy makes of its EndpointSlices', async () => {
      expect(result).toBeDefined();
      const compared = await expectRoutesOfEndpointSlices(client, await liveReader(), result!.namespaces);
      const services = result!.applied.filter((o) => o.kind === 'Service' && o.spec?.selector !== undefined);
      expect(compared.sort()).toEqual(services.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort());
    });
  });
});

describe('a broken example does not pass', () => {
  /** The web example with its container changed by `change`. */
  const broken = (change: (container: any) => void) => (objects: KubeObject[]) => objects.map((o) => {
    if (o.kind !== 'Deployment') return o;
    const d = structuredClone(o);
    change(d.spec.template.spec.containers[0]);
    return d;
  });
  const namespaces: string[] = [];
  const ns = () => { namespaces.push(uniqueName('broken')); return namespaces[namespaces.length - 1]; };
  afterAll(() => Promise.all(namespaces.map((n) => deleteNamespace(client, n))));

  test('an unknown field is a rejection (strict field validation)', async () => {
    const result = await applyExample(client, 'web-3-zones', ns(), broken((c) => { c.imagePullPolcy = 'Always'; }));
    expect(result.rejections).toEqual([expect.stringMatching(/^Deployment broken-.*\/web: .*\.imagePullPolcy: field not declared in schema/)]);
  });

  test('a pod template that Pod Security "restricted" refuses: a warning at apply, then its pods are rejected', async () => {
    const allowEscalation = broken((c) => { c.securityContext.allowPrivilegeEscalation = true; });
    const result = await applyExample(client, 'web-3-zones', ns(), allowEscalation);
    expect(result.rejections).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^Deployment broken-.*\/web: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/)]);
    const err = await waitForRollout(client, result.applied).then(() => undefined, (e) => e);
    expect(err).toBeInstanceOf(RolloutRejected);
    expect(err.failures).toEqual([expect.stringMatching(/^ReplicaSet broken-.*\/web-\w+: Error creating: pods is forbidden: violates PodSecurity "restricted:latest"/)]);
  });
});
