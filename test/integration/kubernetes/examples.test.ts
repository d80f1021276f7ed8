/**
 * Every example, applied for real: the API server accepts every object (strict field validation, CEL
 * rules of the CRDs, Pod Security "restricted"), says nothing to warn about, and every workload's pods are
 * admitted, scheduled by the real scheduler and Ready. Then the hostile variant of every example (zones
 * that are not DNS names; test/example-variants.ts) on nodes of those zones: the names
 * the library derives from them must pass the API server and the workload controllers (pod names, the
 * controller-revision-hash label) alike.
 */
import {
  applyExample, ApplyResult, deleteApplied, deleteNamespace, exampleNames, operatorSecrets, RESTRICTED_LABELS, RolloutRejected, synthesizeExample,
  waitForRollout,
} from './examples';
import { KubeObject } from './kube-client';
import { addNodes, planNodes } from './nodes';
import { testCluster, uniqueName } from './scheduling';
import { HOSTILE_VARIANT } from '../../example-variants';

const { client } = testCluster();
afterAll(() => client.close());

const names = exampleNames();

test('the examples are found', () => {
  expect(names).toContain('web-3-zones');
});

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
    const applied = [...operatorSecrets(objects), ...objects].filter((o) => o.kind !== 'CustomResourceDefinition').map((o) => `${o.kind}/${o.metadata.name}`);
    expect(result.applied.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(applied.sort());

    for (const ns of result.namespaces) {
      expect((await client.get('v1', 'Namespace', ns)).metadata.labels).toMatchObject(RESTRICTED_LABELS);
    }
    await waitForRollout(client, result.applied);
  });
});

describe('hostile names', () => {
  // Two nodes in each of the variant's zones, for this block only (the tests of a project run one at a time).
  const nodes = planNodes({ zones: HOSTILE_VARIANT.zones, nodesPerZone: 2, namePrefix: 'kwok-hostile', podCidrOctet: 245 });
  beforeAll(() => addNodes(client, nodes));
  afterAll(() => Promise.all(nodes.map((n) => client.delete('v1', 'Node', n.name))));

  describe.each(names)('example %s', (name) => {
    let result: ApplyResult | undefined;
    afterAll(() => result && deleteApplied(client, result));

    test('its hostile variant is applied with zero rejections and zero warnings, and every workload rolls out in those zones', async () => {
      result = await applyExample(client, name, `hostile-${name}`, undefined, HOSTILE_VARIANT);
      expect(result.rejections).toEqual([]);
      expect(result.warnings).toEqual([]);
      await waitForRollout(client, result.applied);
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
    const result = await applyExample(client, 'web-3-zones', ns(), broken((c) => { c.securityContext.allowPrivilegeEscalation = true; }));
    expect(result.rejections).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^Deployment broken-.*\/web: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/)]);
    const err = await waitForRollout(client, result.applied).then(() => undefined, (e) => e);
    expect(err).toBeInstanceOf(RolloutRejected);
    expect(err.failures).toEqual([expect.stringMatching(/^ReplicaSet broken-.*\/web-\w+: Error creating: pods is forbidden: violates PodSecurity "restricted:latest"/)]);
  });
});
