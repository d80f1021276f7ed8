/**
 * The default inventory admits what real nodes admit (the labels every node has), takes more labels and taints
 * from the CLI and the inventory props, and a `pending` finding names what in the manifest matched no node.
 */
import { Readable } from 'stream';
import { ZoneInventory, ZoneReport } from '../../src';
import { regionOf } from '../../src/check/inventory';
import { main } from '../../src/cli/main';

const ZONE_KEY = 'topology.kubernetes.io/zone';

/** A Deployment of 3 with a hard zone spread and `pod` merged into its pod spec. */
function deployment(name: string, pod: any = {}): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'c', image: 'x' }],
          topologySpreadConstraints: [{
            topologyKey: ZONE_KEY,
            maxSkew: 1,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: name } },
          }],
          ...pod,
        },
      },
    },
  };
}
const nodeAffinity = (key: string, operator: string, values?: string[]) => {
  const term = { matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] };
  const required = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } };
  return { affinity: { nodeAffinity: required } };
};

describe('the labels every node has', () => {
  const inventory = ZoneInventory.equalNodes(['eu-west-1a', 'eu-west-1b', 'eu-west-1c'], 2);

  test.each([
    ['nodeSelector kubernetes.io/os: linux', { nodeSelector: { 'kubernetes.io/os': 'linux' } }],
    ['the deprecated beta.kubernetes.io/os: linux', { nodeSelector: { 'beta.kubernetes.io/os': 'linux' } }],
    ['node affinity on kubernetes.io/arch In [amd64, arm64]', nodeAffinity('kubernetes.io/arch', 'In', ['amd64', 'arm64'])],
    ['node affinity on the region', nodeAffinity('topology.kubernetes.io/region', 'In', ['eu-west-1'])],
    ['node affinity: the hostname exists', nodeAffinity('kubernetes.io/hostname', 'Exists')],
  ])('%s admits every node: nothing pending, survives', (_, pod) => {
    const w = ZoneReport.analyze([deployment('web', pod)], inventory).workloads[0];
    expect(w).toMatchObject({ pendingWorstCase: 0, survives: { 'eu-west-1a': true, 'eu-west-1b': true, 'eu-west-1c': true } });
    expect(w.findings).toEqual([]);
  });

  test.each([
    ['eu-west-1a', 'eu-west-1'], ['us-central1-a', 'us-central1'], ['westeurope-1', 'westeurope'], ['zone-a', 'zone'], ['a', 'region'],
  ])('the region of %s is %s', (zone, region) => {
    expect(regionOf(zone)).toBe(region);
  });
});

describe('pending names what matched no node', () => {
  const inventory = ZoneInventory.equalNodes(['a', 'b', 'c'], 2);
  const pending = (pod: any, inv = inventory) => ZoneReport.analyze([deployment('web', pod)], inv)
    .workloads[0].findings.find((f) => f.rule === 'pending')?.message;

  test.each([
    ['a nodeSelector no node has', { nodeSelector: { 'kubernetes.io/os': 'windows' } }, '6 of 6 by nodeSelector kubernetes.io/os=windows'],
    ['a required node affinity term', nodeAffinity('node-pool', 'In', ['gpu']), '6 of 6 by required node affinity'],
    ['requests over allocatable', { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '64' } } }] }, '6 of 6 by requests over allocatable (cpu 64 > 4)'],
  ])('%s', (_, pod, reason) => {
    const nodes = ['a', 'b', 'c'].flatMap((zone) => [0, 1].map((i) => ({ name: `${zone}-${i}`, zone, allocatableCpu: '4' })));
    const inv = new ZoneInventory({ zones: ['a', 'b', 'c'], nodes });
    expect(pending(pod, inv)).toMatch(new RegExp(`3 of 3 replicas can stay Pending .*; nodes it cannot use: ${reason.replace(/[()]/g, '\\$&')}$`));
  });

  test('a taint it does not tolerate, on some nodes: counted per reason', () => {
    const inv = new ZoneInventory({
      zones: ['a', 'b', 'c'],
      nodes: [
        { name: 'a-0', zone: 'a', taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] },
        { name: 'b-0', zone: 'b', taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] },
        { name: 'c-0', zone: 'c', labels: { 'kubernetes.io/os': 'windows' } },
      ],
    });
    expect(pending({ nodeSelector: { 'kubernetes.io/os': 'linux' } }, inv))
      .toMatch(/; nodes it cannot use: 2 of 3 by taint dedicated=db:NoSchedule, not tolerated, 1 of 3 by nodeSelector kubernetes.io\/os=linux$/);
  });

  test('nothing pending with the nodes it needs given as node labels and taints', () => {
    const inv = new ZoneInventory({
      zones: ['a', 'b', 'c'], nodesPerZone: 1, nodeLabels: { 'node-pool': 'gpu' }, nodeTaints: [{ key: 'gpu', effect: 'NoSchedule' }],
    });
    const tolerating = { ...nodeAffinity('node-pool', 'In', ['gpu']), tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] };
    expect(pending(tolerating, inv)).toBeUndefined();
    expect(pending(nodeAffinity('node-pool', 'In', ['gpu']), inv)).toMatch(/3 of 3 by taint gpu:NoSchedule, not tolerated$/);
  });

  test('nodeLabels and nodeTaints are for the nodesPerZone nodes only', () => {
    expect(() => new ZoneInventory({ zones: ['a'], nodes: [{ name: 'n', zone: 'a' }], nodeLabels: { x: 'y' } }))
      .toThrow('ZoneInventory: nodeLabels={"x":"y"} applies to the nodesPerZone nodes: with nodes, give each node its own');
  });
});

describe('the CLI: --node-labels and --node-taints', () => {
  async function run(argv: string[], stdin: string): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await main(argv, {
      stdin: Readable.from([stdin]),
      stdout: (s) => { out += s; },
      stderr: (s) => { err += s; },
    });
    return { code, out, err };
  }
  const onArm = { ...nodeAffinity('kubernetes.io/arch', 'In', ['arm64']), tolerations: [{ key: 'arm', operator: 'Exists' }] };
  const manifest = JSON.stringify(deployment('web', onArm));

  test('an arm64 node pool: pending on the default nodes, placed on nodes labelled and tainted as the flags say', async () => {
    const plain = await run(['check', '--zones', 'a,b,c', '--format', 'json', '-'], manifest);
    expect(plain.code).toBe(1);
    expect(JSON.parse(plain.out).workloads[0].findings[0].message).toMatch(/9 of 9 by required node affinity$/);
    const pool = await run(['check', '--zones', 'a,b,c', '--node-labels', 'kubernetes.io/arch=arm64,pool=arm', '--node-taints', 'arm=true:NoSchedule', '-'], manifest);
    expect(pool).toMatchObject({ code: 0, err: '' });
  });

  test.each([
    [['--node-labels', 'arch'], '--node-labels="arch": "arch" is not key=value'],
    [['--node-taints', 'arm:NoWay'], '--node-taints="arm:NoWay": "arm:NoWay" is not key[=value]:NoSchedule|PreferNoSchedule|NoExecute'],
    [['--node-labels', 'a=b', '--inventory', 'x.yaml'], '--node-labels and --node-taints describe the --nodes-per-zone nodes'],
  ])('%j is refused, saying why', async (flags, message) => {
    const r = await run(['check', '--zones', 'a,b,c', ...flags, '-'], manifest);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });
});

describe('host ports', () => {
  const inventory = ZoneInventory.equalNodes(['a', 'b', 'c'], 1);
  const withPort = (pod: any) => deployment('web', pod);
  test.each([
    ['a container hostPort', { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: 80 }] }] }],
    ['hostNetwork with a container port', { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] }],
  ])('%s: at most one of its pods per node (4 replicas on 3 nodes: one stays Pending)', (_, pod) => {
    const fourReplicas = { ...withPort(pod), spec: { ...withPort(pod).spec, replicas: 4 } };
    const w = ZoneReport.analyze([fourReplicas], inventory).workloads[0];
    expect(w.pendingWorstCase).toBe(1);
    expect(w.findings.map((f) => f.rule)).toContain('pending');
  });
  test('no host port: no such limit', () => {
    const fourReplicas = { ...deployment('web'), spec: { ...deployment('web').spec, replicas: 4 } };
    const w = ZoneReport.analyze([fourReplicas], inventory).workloads[0];
    expect(w.pendingWorstCase).toBe(0);
  });
});
