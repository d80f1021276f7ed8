/**
 * The autoshift's inputs, gathered from its caches (as the Informers hold them: transformed) and from Prometheus (a
 * real HTTP server speaking the query API): nodes NotReady or with stale Leases, opted-in pods, the fail-safe's
 * verdict, the per-zone query and the practice runs' outcome query; a query that fails counts as no signal.
 */
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { ZoneAutoshiftSpec } from '../../src/contract/zone-autoshift';
import { KubeObject } from '../src/kube/api';
import { instantQuery } from '../src/prometheus-query';
import { autoshiftSignals, practiceOutcome } from '../src/reconcilers/zone-autoshift-signals';
import { autoshiftWatches } from '../src/reconcilers/zone-autoshift-watches';
import { cachesOf } from '../src/watches';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const ZONE_KEY = 'topology.kubernetes.io/zone';
const SPEC: ZoneAutoshiftSpec = {
  dryRun: false,
  nodes: { unhealthyShare: 0.5, leaseStaleSeconds: 40 },
  pods: { failingShare: 0.5, minPods: 2, startupSeconds: 300 },
  impairedForSeconds: 20,
  recoveredForSeconds: 60,
  minDurationSeconds: 120,
  maxDurationSeconds: 3600,
};

const node = (name: string, zone: string, ready = 'True'): KubeObject => ({
  metadata: { name, labels: { [ZONE_KEY]: zone }, resourceVersion: '1' },
  status: { conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: ready }] },
});
const lease = (name: string, ageS: number): KubeObject => ({
  metadata: { name, namespace: 'kube-node-lease' },
  spec: { holderIdentity: name, renewTime: new Date(NOW - ageS * 1000).toISOString().replace('Z', '000Z') },
});
const pod = (name: string, nodeName: string, ready: boolean, owner = 'web'): KubeObject => ({
  metadata: {
    name,
    namespace: 'shop',
    creationTimestamp: new Date(NOW - 3600_000).toISOString(),
    labels: { 'cdk8s-zones.dev/zone-annotation': 'enabled', 'app': owner },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: owner, uid: 'u', controller: true }],
  },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }] },
  status: {
    phase: 'Running',
    conditions: [{ type: 'ContainersReady', status: ready ? 'True' : 'False' }, { type: 'Ready', status: ready ? 'True' : 'False' }],
    containerStatuses: [{ name: 'c', restartCount: 0, image: 'i', ready }],
  },
});

const NODES = [node('a1', 'zone-a'), node('a2', 'zone-a', 'Unknown'), node('b1', 'zone-b'), node('b2', 'zone-b'), node('c1', 'zone-c')];
const LEASES = [lease('a1', 45), lease('a2', 60), lease('b1', 5), lease('b2', 41), lease('c1', 1)];
const zoneOf = (n: KubeObject) => n.metadata.labels?.[ZONE_KEY];
const failed: string[] = [];
const onFailure = (what: string, err: unknown) => failed.push(`${what}: ${(err as Error).message}`);

function caches(pods: KubeObject[], services: KubeObject[] = []) {
  return cachesOf(autoshiftWatches('zones'), { nodes: NODES, leases: LEASES, pods, services });
}

test('nodes NotReady or with stale Leases and pods failing while their workload serves elsewhere, per zone', async () => {
  const pods = [pod('w-0', 'a1', false), pod('w-1', 'a2', false), pod('w-2', 'b1', true), pod('w-3', 'c1', true)];
  const signals = await autoshiftSignals(caches(pods), SPEC, zoneOf, NOW, onFailure);
  expect(signals.zones).toEqual(['zone-a', 'zone-b', 'zone-c']);
  expect(signals.impaired).toEqual(new Map([
    ['zone-a', [
      '2 of 2 nodes not answering (NotReady: a2; Lease not renewed for over 40 s: a1)',
      '2 of 2 pods failing readiness while their workloads serve in other zones (StatefulSet/web in shop)',
    ]],
    ['zone-b', ['1 of 2 nodes not answering (Lease not renewed for over 40 s: b2)']],
  ]));
  expect(failed).toEqual([]);
});

test('the fail-safe\'s verdict (a workload or Service served only from the zone) and a practice run\'s outcome', async () => {
  const pods = [pod('w-0', 'a1', true), pod('w-1', 'b1', false), pod('solo-0', 'c1', true, 'solo')];
  const service = { metadata: { name: 'solo', namespace: 'shop' }, spec: { selector: { app: 'solo' } } };
  const signals = await autoshiftSignals(caches(pods, [service]), SPEC, zoneOf, NOW, onFailure);
  expect(signals.lastServingIn('zone-a')).toEqual(['StatefulSet/web in shop']);
  expect(signals.lastServingIn('zone-c')).toEqual(['Service shop/solo', 'StatefulSet/solo in shop']);
  expect(signals.lastServingIn('zone-b')).toEqual([]);
  expect(practiceOutcome(signals, SPEC, 'zone-a')).toEqual(['StatefulSet/web in shop: no pod serving outside zone-a']);
});

describe('Prometheus', () => {
  let server: http.Server;
  let url = '';
  const answers = new Map<string, { status: number; body: unknown }>();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const query = new URL(req.url!, 'http://x').searchParams.get('query') ?? '';
      const answer = req.url!.startsWith('/api/v1/query?') ? answers.get(query) : undefined;
      res.writeHead(answer?.status ?? 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer?.body ?? { status: 'error', error: 'no such path' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  const vector = (samples: Array<[Record<string, string>, string]>) => ({
    status: 'success', data: { resultType: 'vector', result: samples.map(([metric, v]) => ({ metric, value: [NOW / 1000, v] })) },
  });

  test('the per-zone query and the outcome query, each sample read with its labels', async () => {
    answers.set('errors_by_zone', { status: 200, body: vector([[{ az: 'zone-a' }, '0.3'], [{ az: 'zone-b' }, '0.01'], [{}, '9'], [{ az: 'zone-c' }, 'NaN']]) });
    answers.set('outcome', { status: 200, body: vector([[{ job: 'checkout' }, '2']]) });
    const spec: ZoneAutoshiftSpec = {
      ...SPEC,
      pods: undefined,
      nodes: { unhealthyShare: 1, leaseStaleSeconds: 3600 },
      prometheus: { url, query: 'errors_by_zone', zoneLabel: 'az', threshold: 0.1 },
      practiceRuns: { everySeconds: 100, durationSeconds: 10, outcomeQuery: 'outcome', outcomeThreshold: 1 },
    };
    const signals = await autoshiftSignals(caches([]), spec, zoneOf, NOW, onFailure);
    expect(signals.impaired).toEqual(new Map([['zone-a', ['prometheus.query "errors_by_zone" = 0.3 > 0.1']]]));
    expect(practiceOutcome(signals, spec, 'zone-b')).toEqual(['practiceRuns.outcomeQuery {"job":"checkout"} = 2 > 1']);
  });

  test('a query that fails (PromQL error, not a vector, unreachable) is no signal, and says why', async () => {
    answers.set('bad(', { status: 400, body: { status: 'error', errorType: 'bad_data', error: 'parse error: unclosed left parenthesis' } });
    answers.set('scalar(1)', { status: 200, body: { status: 'success', data: { resultType: 'scalar', result: [NOW / 1000, '1'] } } });
    await expect(instantQuery(url, 'bad(')).rejects.toThrow(/HTTP 400: parse error: unclosed left parenthesis/);
    await expect(instantQuery(url, 'scalar(1)')).rejects.toThrow('query "scalar(1)" returned a scalar, not an instant vector');
    await expect(instantQuery('http://127.0.0.1:1', 'up')).rejects.toThrow();
    failed.length = 0;
    const spec: ZoneAutoshiftSpec = { ...SPEC, prometheus: { url, query: 'bad(', zoneLabel: 'zone', threshold: 0 } };
    const signals = await autoshiftSignals(caches([]), spec, zoneOf, NOW, onFailure);
    expect(signals.impaired.get('zone-c')).toBeUndefined();
    expect(failed).toEqual([expect.stringMatching(/^prometheus\.query: .*HTTP 400: parse error/)]);
  });
});

test('a node under a drill, as the API server serves it: an outage drill is a node signal, any drill is named; its changes queue the policy', async () => {
  const record = JSON.stringify({ zone: 'zone-c', mode: 'outage', startedAt: 't', unschedulableBefore: null });
  const drilled: KubeObject = {
    ...node('c1', 'zone-c'),
    metadata: { ...node('c1', 'zone-c').metadata, annotations: { 'cdk8s-zones.dev/drill': record, 'other': 'x' } },
    spec: { taints: [{ key: 'dedicated', effect: 'NoSchedule' }, { key: 'cdk8s-zones.dev/drill-outage', value: 'zone-c', effect: 'NoExecute' }] },
  };
  const nodes = [...NODES.filter((n) => n.metadata.name !== 'c1'), drilled];
  const held = cachesOf(autoshiftWatches('zones'), { nodes, leases: LEASES, pods: [], services: [] });
  const signals = await autoshiftSignals(held, SPEC, zoneOf, NOW, onFailure);
  expect(signals.impaired.get('zone-c')).toEqual(['1 of 1 nodes not answering (under an outage drill: c1)']);
  expect(signals.drills).toEqual(['outage drill of zone-c']);
  expect(signals.silentZones.has('zone-c')).toBe(false);

  const keys = (obj: KubeObject, old: KubeObject) => [...autoshiftWatches('zones').nodes!.keys!({ obj, old } as any, held)];
  const plain = node('c1', 'zone-c');
  expect(keys(drilled, plain)).toEqual(['zones']);
  expect(keys(plain, drilled)).toEqual(['zones']);
  const otherTaint = { ...plain, spec: { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] } };
  expect(keys(otherTaint, plain)).toEqual([]);
});
