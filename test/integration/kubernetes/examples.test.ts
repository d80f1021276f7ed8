/**
 * Every example, applied for real: the API server accepts every object (strict field validation, CEL
 * rules of the CRDs, Pod Security "restricted"), says nothing to warn about, and every workload's pods are
 * admitted, scheduled by the real scheduler and Ready.
 */
import { applyExample, deleteNamespace, exampleNames, RESTRICTED_LABELS, RolloutRejected, synthesizeExample, waitForRollout } from './examples';
import { KubeObject } from './kube-client';
import { testCluster, uniqueName } from './scheduling';

const { client } = testCluster();
afterAll(() => client.close());

const names = exampleNames();

test('the examples are found', () => {
  expect(names).toContain('web-3-zones');
});

describe.each(names)('example %s', (name) => {
  const namespace = `example-${name}`;
  afterAll(() => deleteNamespace(client, namespace));

  test('is applied with zero rejections and zero warnings, and every workload rolls out', async () => {
    const objects = synthesizeExample(name);
    expect(objects.length).toBeGreaterThan(0);

    const result = await applyExample(client, name, namespace);
    expect(result.rejections).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.applied.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(expect.arrayContaining(objects.map((o) => `${o.kind}/${o.metadata.name}`)));
    expect(result.applied).toHaveLength(objects.filter((o) => o.kind !== 'CustomResourceDefinition').length);

    const ns: any = await client.get('v1', 'Namespace', namespace);
    expect(ns.metadata.labels).toMatchObject(RESTRICTED_LABELS);
    await waitForRollout(client, result.applied);
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
