/**
 * A zonal shift and the node autoscalers (docs/controller.md#node-autoscalers), with the real controller
 * (`--reconcilers zone-shift --shift-karpenter-node-pools`) and Karpenter's own NodePool CRD (its schema and CEL
 * rules, from the sigs.k8s.io/karpenter module: setup.d/16-karpenter-crd.sh): every NodePool leaves the shifted zone
 * out while the shift lasts, a node that joins the zone meanwhile is tainted as it arrives, and the cancelled shift
 * gives every NodePool back exactly what it had.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { ControllerProcess } from './controller-process';
import { applyManifests } from './examples';
import { KubeObject } from './kube-client';
import { addNodes, planNodes, ZONES } from './nodes';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { ZONE_SHIFT_TAINT_KEY } from '../../../src/contract/zone-shift';
import { zoneShiftCrd } from '../../../src/contract/zone-shift-crd';
import { NODE_POOL_SHIFT_ANNOTATION } from '../../../src/contract/zone-shift-node-pools';
import { REPO_ROOT } from '../shared';

const { client, info } = testCluster();
const GROUP = 'cdk8s-zones.dev/v1alpha1';
const POOLS = 'karpenter.sh/v1';
const SHIFT = uniqueName('shift');
const ZONE_KEY = 'topology.kubernetes.io/zone';
const CRD_FILE = path.join(REPO_ROOT, '.cache', 'karpenter', 'karpenter.sh_nodepools.yaml');
const joiner = planNodes({ zones: [ZONES[0]], nodesPerZone: 1, namePrefix: 'kwok-joins', podCidrOctet: 243 });

/** A NodePool with `requirements` (and what Karpenter's CRD requires besides). */
const nodePool = (name: string, requirements: object[]): KubeObject => ({
  apiVersion: POOLS,
  kind: 'NodePool',
  metadata: { name, annotations: { team: 'platform' } },
  spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements } } },
});
const POOL_SPECS = [
  nodePool('spread', [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }, { key: ZONE_KEY, operator: 'In', values: [...ZONES] }]),
  nodePool('only-a', [{ key: ZONE_KEY, operator: 'In', values: [ZONES[0]] }]),
  // the user's own requirement, identical to the one the shift adds: it stays
  nodePool('own-not-in', [{ key: ZONE_KEY, operator: 'NotIn', values: [ZONES[0]] }]),
];

let controller: ControllerProcess | undefined;

beforeAll(async () => {
  if (!fs.existsSync(CRD_FILE)) throw new Error(`${CRD_FILE} is missing: run npm run test:integration:setup (setup.d/16-karpenter-crd.sh)`);
  const karpenterCrd = parse(fs.readFileSync(CRD_FILE, 'utf8'));
  const applied = await applyManifests(client, [karpenterCrd, zoneShiftCrd() as KubeObject, ...POOL_SPECS], 'default');
  expect(applied.rejections).toEqual([]);
  controller = await ControllerProcess.start(info, uniqueName('shifter'), ['--reconcilers', 'zone-shift', '--shift-karpenter-node-pools']);
});

afterAll(async () => {
  await client.delete(GROUP, 'ZoneShift', SHIFT).catch(() => undefined);
  await waitFor('the shift undone', async () => ({ done: !(await client.find(GROUP, 'ZoneShift', SHIFT)) })).catch(() => undefined);
  await controller?.stop();
  for (const p of POOL_SPECS) await client.delete(POOLS, 'NodePool', p.metadata.name).catch(() => undefined);
  await Promise.all(joiner.map((n) => client.delete('v1', 'Node', n.name).catch(() => undefined)));
  client.close();
});

/** Each NodePool's requirements and annotations, by name. */
async function pools(): Promise<Record<string, { requirements: object[]; annotations: Record<string, string> }>> {
  const all = await client.list<any>(POOLS, 'NodePool');
  return Object.fromEntries(all
    .filter((p) => POOL_SPECS.some((s) => s.metadata.name === p.metadata.name))
    .map((p) => [p.metadata.name, {
      requirements: p.spec.template.spec.requirements,
      annotations: p.metadata.annotations ?? {},
    }]));
}

test('a shift leaves its zone out of every NodePool and taints a node that joins it; cancelled, everything exactly as before', async () => {
  const before = await pools();
  const notInA = { key: ZONE_KEY, operator: 'NotIn', values: [ZONES[0]] };
  await client.create({
    apiVersion: GROUP,
    kind: 'ZoneShift',
    metadata: { name: SHIFT },
    spec: { zone: ZONES[0], expiresAt: new Date(Date.now() + 3600_000).toISOString(), reason: 'test' },
  });
  const during = await waitFor('every NodePool without zone-a', async () => {
    const now = await pools();
    const done = Object.values(now).every((p) => p.annotations[NODE_POOL_SHIFT_ANNOTATION] !== undefined);
    return { done, value: now, state: JSON.stringify(now) };
  }, { timeoutMs: 15_000 });
  for (const spec of POOL_SPECS) {
    const name = spec.metadata.name;
    // accepted by Karpenter's schema and rules, the user's requirements kept in their order, the shift's last
    expect([name, during[name].requirements]).toEqual([name, [...before[name].requirements, notInA]]);
  }
  const status = await waitFor('the shift\'s status lists the NodePools', async () => {
    const s = (await client.get<any>(GROUP, 'ZoneShift', SHIFT)).status;
    const listed = (s?.changed ?? []).filter((c: any) => c.kind === 'NodePool');
    return { done: listed.length === POOL_SPECS.length, value: listed, state: JSON.stringify(s) };
  });
  expect(status.map((c: any) => c.change)).toEqual(POOL_SPECS.map(() => `requirement ${ZONE_KEY} NotIn [${ZONES[0]}]`));

  // a node that joins the shifted zone (another autoscaler, a person) is tainted as it arrives
  const joinedAt = Date.now();
  await addNodes(client, joiner);
  await waitFor(`${joiner[0].name} tainted`, async () => {
    const node = await client.get<any>('v1', 'Node', joiner[0].name);
    return { done: (node.spec.taints ?? []).some((t: any) => t.key === ZONE_SHIFT_TAINT_KEY && t.value === ZONES[0]) };
  }, { timeoutMs: 10_000, intervalMs: 100 });
  console.log(`a node joining the shifted zone: tainted ${Date.now() - joinedAt} ms after its creation`);

  // cancelled: the finalizer holds the shift until every NodePool is given back, exactly
  await client.delete(GROUP, 'ZoneShift', SHIFT);
  await waitFor('the cancelled shift undone and gone', async () => ({ done: !(await client.find(GROUP, 'ZoneShift', SHIFT)) }), { timeoutMs: 15_000 });
  expect(await pools()).toEqual(before);
  const node = await client.get<any>('v1', 'Node', joiner[0].name);
  expect((node.spec.taints ?? []).filter((t: any) => t.key === ZONE_SHIFT_TAINT_KEY)).toEqual([]);
});
