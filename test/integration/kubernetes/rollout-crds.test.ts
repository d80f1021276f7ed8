/**
 * The ZoneAwareUpdate and ZoneDisruptionBudget CRDs the library synthesizes, on the real API server: they
 * are accepted (structural schema, CEL rules that compile), the constructs' custom resources validate
 * strictly, and the CEL rules refuse what the constructs refuse at synth time (for resources written by
 * hand).
 */
import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { applyManifests, deleteNamespace, restrictedNamespace } from './examples';
import { KubeApiError, KubeObject } from './kube-client';
import { crds } from './rollout-fixtures';
import { testCluster, uniqueName } from './scheduling';
import { RolloutTarget, ZoneAwareUpdate, ZoneController, ZoneDisruptionBudget } from '../../../src';

const { client } = testCluster();
const ns = uniqueName('rollout-crds');
afterAll(async () => { await deleteNamespace(client, ns); client.close(); });

function manifests(): KubeObject[] {
  const chart = new Chart(Testing.app(), 'c', { namespace: ns, disableResourceNameHashes: true });
  const db = new kplus.StatefulSet(chart, 'db', {
    replicas: 3,
    strategy: kplus.StatefulSetUpdateStrategy.onDelete(),
    containers: [{ image: 'postgres:17', portNumber: 5432, securityContext: { user: 1000 } }],
  });
  // Only the schemas are tried here: no controller acts on the resources.
  const elsewhere = {
    controller: ZoneController.fromInstalled({
      workloadNamespaces: [ns],
      zoneAwareUpdate: true,
      zoneDisruptionBudget: true,
    }),
  };
  new ZoneAwareUpdate(chart, 'update', {
    ...elsewhere,
    target: RolloutTarget.statefulSet(db),
    maxUnavailable: '34%',
    pauseCondition: { annotation: 'example.com/hold' },
  });
  new ZoneAwareUpdate(chart, 'group', {
    ...elsewhere,
    target: RolloutTarget.statefulSetGroupNames(['ingester-a', 'ingester-b']),
    maxUnavailable: 2,
    readyCheck: { path: '/ready', port: 3100 },
  });
  new ZoneDisruptionBudget(chart, 'budget', { ...elsewhere, workload: db, maxUnavailable: 1, dryRun: true });
  return [...crds(), ...Testing.synth(chart).filter((o) => o.kind !== 'StatefulSet' && o.kind !== 'Service')];
}

async function rejection(obj: KubeObject): Promise<string> {
  try {
    await client.apply({ ...obj, metadata: { ...obj.metadata, namespace: ns } });
  } catch (err) {
    if (err instanceof KubeApiError) return err.detail;
    throw err;
  }
  return 'accepted';
}

test('the CRDs install and the constructs\' resources validate strictly', async () => {
  await restrictedNamespace(client, ns);
  const result = await applyManifests(client, manifests(), ns);
  expect(result.rejections).toEqual([]);
  expect(result.warnings).toEqual([]);
  expect([...new Set(result.crds)]).toEqual(['zoneawareupdates.cdk8s-zones.dev', 'zonedisruptionbudgets.cdk8s-zones.dev']);
  const group = result.applied.find((o) => o.kind === 'ZoneAwareUpdate' && o.spec.statefulsets)!;
  expect(group.spec).toEqual({
    statefulsets: ['ingester-a', 'ingester-b'],
    maxUnavailable: 2,
    exponentialFactor: 2,
    dryRun: false,
    readyCheck: { path: '/ready', port: 3100 },
  });
  const zau = result.applied.find((o) => o.kind === 'ZoneAwareUpdate' && o.spec.statefulset)!;
  expect(zau.spec).toMatchObject({ maxUnavailable: '34%', exponentialFactor: 2, pauseCondition: { annotation: 'example.com/hold' } });
  const zdb = result.applied.find((o) => o.kind === 'ZoneDisruptionBudget')!;
  expect(zdb.spec.dryRun).toBe(true);
});

test.each([
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: 0 }, "must be a whole number >= 1 or a percentage between '1%' and '100%'"],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: '0%' }, "must be a whole number >= 1 or a percentage between '1%' and '100%'"],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: '101%' }, "must be a whole number >= 1 or a percentage between '1%' and '100%'"],
  ['ZoneAwareUpdate', { statefulset: 'db', deployment: 'web', maxUnavailable: 1 }, 'set exactly one of statefulset, statefulsets and deployment'],
  ['ZoneAwareUpdate', { statefulset: 'db', statefulsets: ['a'], maxUnavailable: 1 }, 'set exactly one of statefulset, statefulsets and deployment'],
  ['ZoneAwareUpdate', { maxUnavailable: 1 }, 'set exactly one of statefulset, statefulsets and deployment'],
  ['ZoneAwareUpdate', { statefulsets: [], maxUnavailable: 1 }, 'should have at least 1 items'],
  ['ZoneAwareUpdate', { statefulsets: ['a', 'a'], maxUnavailable: 1 }, '.spec.statefulsets: duplicate entries'],
  ['ZoneAwareUpdate', { statefulsets: Array.from({ length: 65 }, (_, i) => `s${i}`), maxUnavailable: 1 }, 'must have at most 64 items'],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: 1, readyCheck: { path: 'ready', port: 3100 } }, 'should match'],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: 1, readyCheck: { path: '/ready', port: 0 } }, 'should be greater than or equal to 1'],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: 1, readyCheck: { path: '/ready' } }, 'Required value'],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: 1, exponentialFactor: 0.5 }, 'exponentialFactor must be 0 (off) or >= 1'],
  ['ZoneAwareUpdate', { statefulset: 'db', maxUnavailable: 1, exponentialFactor: -1 }, 'should be greater than or equal to 0'],
  ['ZoneDisruptionBudget', { selector: {}, maxUnavailable: 1 }, 'an empty selector would select every pod of the namespace'],
  ['ZoneDisruptionBudget', { selector: { matchLabels: { app: 'db' } }, maxUnavailable: 'ten' }, 'must be a whole number >= 1'],
])('the API server refuses a %s with %j', async (kind, spec, message) => {
  const obj = { apiVersion: 'cdk8s-zones.dev/v1alpha1', kind, metadata: { name: uniqueName('bad') }, spec };
  expect(await rejection(obj)).toContain(message);
});

test('accepted by hand: exponentialFactor 0 and 1.5, a percentage, a group with a ready check', async () => {
  const specs = [
    { statefulset: 'db', maxUnavailable: '100%', exponentialFactor: 0 },
    { statefulset: 'db', maxUnavailable: 3, exponentialFactor: 1.5 },
    { statefulsets: ['ingester-a', 'ingester-b'], maxUnavailable: '50%', readyCheck: { path: '/ready?x=1', port: 3100 } },
  ];
  for (const [i, spec] of specs.entries()) {
    expect(await rejection({ apiVersion: 'cdk8s-zones.dev/v1alpha1', kind: 'ZoneAwareUpdate', metadata: { name: `ok-${i}` }, spec })).toBe('accepted');
  }
});
