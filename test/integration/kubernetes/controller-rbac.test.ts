/**
 * The controller runs on exactly the RBAC `ZoneController` synthesizes: its ServiceAccount's token (not the
 * admin's certificate) against the real API server's RBAC authorizer. With every feature on, the leader
 * takes its Lease, self-managed TLS makes its Secret and patches its own webhook configuration, the zone
 * annotator annotates a pod, the budget and rollout reconcilers write their status in the served
 * namespace, and the Redis manager (its rules by object name) watches its layout ConfigMap by name, reads
 * its Secret, scales its StatefulSets and writes its status, with no request refused. And the API server
 * confirms what it may not do: Secrets and writes elsewhere, another webhook configuration.
 */
import { Chart, Testing } from 'cdk8s';
import { tokenKubeconfig } from './cli-user';
import { ControllerProcess } from './controller-process';
import { deleteNamespace, restrictedNamespace } from './examples';
import { KubeObject } from './kube-client';
import { crds, statefulSet } from './rollout-fixtures';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import {
  RolloutTarget,
  WebhookTls,
  ZonalRedisCluster,
  ZoneAwareUpdate,
  ZoneController,
  ZoneDisruptionBudget,
  ZoneTopology,
} from '../../../src';
import { layoutConfigMapName, redisStatefulSetNames, statusConfigMapName } from '../../../src/contract/redis';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { freePort } from '../processes';

const { client, info } = testCluster();
const zonesNs = uniqueName('rbac-zones');
const appsNs = uniqueName('rbac-apps');
const NAME = 'zones';
const REDIS = 'cache';
let controller: ControllerProcess | undefined;
let applied: KubeObject[] = [];

/** The controller and, in the served namespace, a budget and a rollout of one StatefulSet. */
function synthesize(): { objects: KubeObject[]; controller: ZoneController } {
  const app = Testing.app();
  const zones = new ZoneController(new Chart(app, 'platform'), 'zones', {
    namespace: zonesNs,
    name: NAME,
    zoneAwareUpdate: true,
    zoneDisruptionBudget: true,
    redisManager: true,
    webhookTls: WebhookTls.selfManaged(),
    installCrds: false,
  });
  const apps = new Chart(app, 'apps', { namespace: appsNs });
  new ZoneDisruptionBudget(apps, 'db-budget', { controller: zones, name: 'db', selector: { app: 'db' }, maxUnavailable: 1 });
  new ZoneAwareUpdate(apps, 'db-rollout', {
    controller: zones,
    name: 'db',
    target: RolloutTarget.statefulSetName('db'),
    maxUnavailable: 1,
  });
  new ZonalRedisCluster(apps, 'cache', {
    controller: zones,
    name: REDIS,
    topology: new ZoneTopology({ zones: [...info.zones] }),
    masters: 3,
    replicasPerMaster: 1,
    password: { name: 'cache-password', key: 'password' },
  });
  return { objects: app.charts.flatMap((c) => Testing.synth(c)), controller: zones };
}

/** A kubeconfig that authenticates as the controller's ServiceAccount, with a token from the TokenRequest API. */
const serviceAccountKubeconfig = () => tokenKubeconfig(client, info, zonesNs, NAME);

/** Whether the API server's authorizer lets the controller's ServiceAccount do `attributes`. */
async function allowed(attributes: {
  verb: string;
  resource: string;
  group?: string;
  namespace?: string;
  name?: string;
}): Promise<boolean> {
  const review = await client.request<any>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: `system:serviceaccount:${zonesNs}:${NAME}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${zonesNs}`, 'system:authenticated'],
      resourceAttributes: { group: '', ...attributes },
    },
  });
  return review.body.status.allowed === true;
}

beforeAll(async () => {
  await restrictedNamespace(client, zonesNs);
  await restrictedNamespace(client, appsNs);
});

afterAll(async () => {
  await controller?.stop();
  const clusterScoped = applied.filter((x) => !x.metadata.namespace && x.kind !== 'Namespace');
  for (const o of clusterScoped) await client.delete(o.apiVersion, o.kind, o.metadata.name);
  await deleteNamespace(client, appsNs);
  await deleteNamespace(client, zonesNs);
  client.close();
});

test('with its own ServiceAccount the controller does all its work and is refused nothing', async () => {
  const { objects, controller: zones } = synthesize();
  // The pods are not run here (the controller runs as a process): everything else, the webhook configuration
  // included (its Service is unreachable, so Ignore keeps the test cluster's evictions working).
  applied = objects.filter((o) => !['Deployment', 'Namespace'].includes(o.kind)).map((o) => (o.kind !== 'ValidatingWebhookConfiguration' ? o : {
    ...o, webhooks: o.webhooks.map((w: any) => ({ ...w, failurePolicy: 'Ignore' })),
  }));
  const password = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cache-password', namespace: appsNs },
    stringData: { password: 'not-used' },
  };
  for (const o of [...crds(), ...applied, statefulSet('db', appsNs, 3, { type: 'OnDelete' }), password]) await client.apply(o);

  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  const args: string[] = deployment.spec.template.spec.containers[0].args.slice(1); // after `run`
  const keep = args.filter((_, i) => !['--metrics-port'].includes(args[i]) && !['--metrics-port'].includes(args[i - 1]));
  const identity = uniqueName('sa-controller');
  controller = await ControllerProcess.start(info, identity,
    [...keep, '--lease-namespace', zonesNs, '--webhook-port', String(await freePort())], {}, await serviceAccountKubeconfig());

  // Leader election: its Lease, by name.
  await waitFor('the Lease held by the controller', async () => {
    const lease = await client.find<any>('coordination.k8s.io/v1', 'Lease', NAME, zonesNs);
    return { done: lease?.spec.holderIdentity === identity, state: JSON.stringify(lease?.spec) };
  });
  // Self-managed TLS: its Secret, and the caBundle of its own webhook configuration.
  const configName = objects.find((o) => o.kind === 'ValidatingWebhookConfiguration')!.metadata.name;
  await waitFor('the caBundle patched', async () => {
    const config = await client.get<any>('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', configName);
    return { done: (config.webhooks[0].clientConfig.caBundle ?? '').length > 0 };
  });
  expect(await client.find('v1', 'Secret', `${NAME}-webhook-tls`, zonesNs)).toBeDefined();
  // The budget's and the rollout's status, in the served namespace.
  await waitFor('the ZoneDisruptionBudget status', async () => {
    const zdb = await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneDisruptionBudget', 'db', appsNs);
    return { done: zdb.status?.expectedPods === 3, state: JSON.stringify(zdb.status) };
  });
  await waitFor('the ZoneAwareUpdate status', async () => {
    const zau = await client.get<any>('cdk8s-zones.dev/v1alpha1', 'ZoneAwareUpdate', 'db', appsNs);
    return { done: zau.status !== undefined, state: JSON.stringify(zau.status) };
  });
  // The zone annotator: a pod on a node, in any namespace.
  const node = info.nodes[0];
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'annotated', namespace: appsNs, labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE } },
    spec: { ...RESTRICTED_PAUSE_POD, nodeName: node.name, tolerations: [{ operator: 'Exists' }] },
  });
  await waitFor('the pod annotated with its zone', async () => {
    const pod = await client.get<any>('v1', 'Pod', 'annotated', appsNs);
    return { done: pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION] === node.zone };
  });

  // The Redis manager: no redis-server answers here, but it scales its StatefulSets (they have no replicas of their
  // own), reads its Secret and layout, and writes its status ConfigMap.
  await waitFor('the Redis StatefulSets scaled by the manager and its status written', async () => {
    const statefulSets = redisStatefulSetNames(REDIS, [...info.zones]);
    const replicasOf = async (n: string) => (await client.get<any>('apps/v1', 'StatefulSet', n, appsNs)).spec.replicas;
    const replicas = await Promise.all(statefulSets.map(replicasOf));
    const status = await client.find<any>('v1', 'ConfigMap', statusConfigMapName(REDIS), appsNs);
    return { done: replicas.every((r) => r === 2) && status !== undefined, state: JSON.stringify(replicas) };
  });
  // Its layout is watched by name (a Role rule with resourceNames authorizes list and watch only with that field
  // selector).
  expect(controller.logs.filter((l) => l.level === 'warn' || l.level === 'error').map((l) => l.msg)).not.toContain('watch failed, retrying');

  const refused = controller.logs.filter((l) => /forbidden|\b403\b/i.test(JSON.stringify(l)));
  expect(refused).toEqual([]);
  expect(zones.reconcilers).toEqual(['zone-annotator', 'zone-aware-update', 'zone-disruption-budget', 'redis']);
});

test('the API server refuses it what it does not need: Secrets, writes outside the served namespaces, other webhooks', async () => {
  // what it does
  expect(await allowed({ verb: 'create', group: 'apps', resource: 'replicasets', namespace: appsNs })).toBe(true);
  expect(await allowed({ verb: 'get', resource: 'secrets', namespace: zonesNs, name: `${NAME}-webhook-tls` })).toBe(true);
  expect(await allowed({ verb: 'list', resource: 'pods', namespace: 'kube-system' })).toBe(true); // reads are cluster-wide
  expect(await allowed({ verb: 'watch', resource: 'configmaps', namespace: appsNs, name: layoutConfigMapName(REDIS) })).toBe(true);
  const firstRedisPod = `${redisStatefulSetNames(REDIS, [...info.zones])[0]}-0`;
  expect(await allowed({ verb: 'delete', resource: 'pods', namespace: appsNs, name: firstRedisPod })).toBe(true);
  // what it may not
  expect(await allowed({ verb: 'watch', resource: 'configmaps', namespace: appsNs })).toBe(false);
  expect(await allowed({ verb: 'create', group: 'apps', resource: 'replicasets', namespace: 'default' })).toBe(false);
  expect(await allowed({ verb: 'delete', resource: 'pods', namespace: 'kube-system' })).toBe(false);
  expect(await allowed({ verb: 'get', resource: 'secrets', namespace: 'kube-system', name: 'anything' })).toBe(false);
  expect(await allowed({ verb: 'get', resource: 'secrets', namespace: zonesNs, name: 'another-secret' })).toBe(false);
  expect(await allowed({ verb: 'list', resource: 'secrets', namespace: zonesNs })).toBe(false);
  expect(await allowed({ verb: 'patch', group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', name: 'someone-elses' }))
    .toBe(false);
  expect(await allowed({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system', name: 'kube-scheduler' })).toBe(false);
});
