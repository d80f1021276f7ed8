/**
 * The lost-zone-recovery reconciler over the in-memory API server: each pod it brings back is recorded on the shift
 * before its claim and then the pod are deleted (a restart between the two deletes again, never more at once), only
 * that very pod (its uid), one at a time as the opt-in says, with an Event on its StatefulSet. A zone group's pods
 * pinned to the lost zone: the other zones' nodes are labelled for their stand-ins before they are deleted, and
 * the labels go only once no stand-in pod or claim is away from its zone.
 */
import { until } from './until';
import { MemoryKubeApi } from '../../test/memory-kube-api';
import { KubeApi, resourcePath } from '../src/kube/api';
import { createLogger } from '../src/log';
import { createMetrics } from '../src/metrics';
import { ReconcilerContext } from '../src/reconciler';
import { lostZoneRecoverer } from '../src/reconcilers/lost-zone-recovery';
import { CLAIMS, NODES, PODS, STATEFULSETS, VOLUMES, ZONE_SHIFTS } from '../src/resources';

const NS = 'db';
const ZONE_KEY = 'topology.kubernetes.io/zone';

const node = (name: string, zone: string, ready: boolean) => ({
  metadata: { name, labels: { [ZONE_KEY]: zone } },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'Unknown' }] },
});
const pod = (i: number, uid: string, nodeName: string, ready: boolean) => ({
  metadata: {
    name: `cache-${i}`,
    namespace: NS,
    uid,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'cache', uid: 'sts', controller: true }],
  },
  spec: { nodeName },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const volume = (name: string, zone: string) => ({
  metadata: { name, labels: { [ZONE_KEY]: zone } }, spec: {},
});
const claim = (i: number, volumeName: string) => ({ metadata: { name: `data-cache-${i}`, namespace: NS }, spec: { volumeName } });

/** The reconciler's context over `api`, recording its Events in `events`. */
function contextOf(api: MemoryKubeApi, events: string[]): ReconcilerContext {
  return {
    log: createLogger({ write: () => undefined }),
    metrics: createMetrics({ defaultMetrics: false }),
    kube: api as unknown as KubeApi,
    events: {
      record: async (obj, _type, reason, message) => { events.push(`${obj.kind}/${obj.metadata.name} ${reason}: ${message}`); },
    },
    settings: { topologyKeys: [ZONE_KEY], namespace: 'zones', identity: 'test', zoneShifts: true },
  };
}

/** A ZoneShift declaring zone-a lost, in force for an hour. */
function lostShift(now: number) {
  return {
    apiVersion: 'cdk8s-zones.dev/v1alpha1',
    kind: 'ZoneShift',
    metadata: { name: 'lost', creationTimestamp: new Date(now - 1000).toISOString() },
    spec: { zone: 'zone-a', expiresAt: new Date(now + 3600_000).toISOString(), lost: true },
  };
}


test('records, then deletes the claim and the pod (its uid), one at a time; the next once the first is back', async () => {
  const api = new MemoryKubeApi();
  api.put(resourcePath(NODES), node('a1', 'zone-a', false));
  api.put(resourcePath(NODES), node('b1', 'zone-b', true));
  api.put(resourcePath(STATEFULSETS, NS), {
    metadata: { name: 'cache', namespace: NS, uid: 'sts', annotations: { 'cdk8s-zones.dev/lost-zone-recovery': '1' } },
    spec: { replicas: 4, volumeClaimTemplates: [{ metadata: { name: 'data' } }] },
  });
  for (const [i, zone] of [[0, 'zone-a'], [1, 'zone-b'], [2, 'zone-a'], [3, 'zone-b']] as const) {
    api.put(resourcePath(PODS, NS), pod(i, `u${i}`, zone === 'zone-a' ? 'a1' : 'b1', zone === 'zone-b'));
    api.put(resourcePath(VOLUMES), volume(`pv-${i}`, zone));
    api.put(resourcePath(CLAIMS, NS), claim(i, `pv-${i}`));
  }
  api.put(resourcePath(ZONE_SHIFTS), lostShift(Date.now()));
  const events: string[] = [];
  const stop = new AbortController();
  const running = lostZoneRecoverer().run(contextOf(api, events), stop.signal);
  const exists = async (path: string) => api.get(path).then(() => true, () => false);
  try {
    await until('cache-0 deleted', () => exists(resourcePath(PODS, NS, 'cache-0')), (there) => !there);
    const order = api.calls.filter((c) => /^(PATCH .*zoneshifts\/lost\/status|DELETE )/.test(c));
    expect(order.slice(0, 3)).toEqual([
      `PATCH ${resourcePath(ZONE_SHIFTS, undefined, 'lost', 'status')}`,
      `DELETE ${resourcePath(CLAIMS, NS, 'data-cache-0')}`,
      `DELETE ${resourcePath(PODS, NS, 'cache-0')}`,
    ]);
    expect(await exists(resourcePath(CLAIMS, NS, 'data-cache-0'))).toBe(false);
    expect(events).toEqual(['StatefulSet/cache LostZoneRecovery: zone zone-a is lost: pod cache-0 deleted with its claims data-cache-0, ' +
      'to come back in a surviving zone']);

    // cache-0 made again in zone-b, not Ready yet: cache-2 waits (at most 1 at once)
    api.put(resourcePath(PODS, NS), pod(0, 'u0-again', 'b1', false));
    await new Promise((r) => setTimeout(r, 300));
    expect(await exists(resourcePath(PODS, NS, 'cache-2'))).toBe(true);
    const shift = await api.get(resourcePath(ZONE_SHIFTS, undefined, 'lost'));
    expect(shift.status.recovery).toMatchObject({
      phase: 'Recovering',
      held: ['StatefulSet db/cache: 1 pod(s) wait: at most 1 at once'],
      recovered: [{ namespace: NS, statefulSet: 'cache', pod: 'cache-0', uid: 'u0', claims: ['data-cache-0'] }],
    });

    // Ready: cache-2 goes, and only the cache-2 of uid u2
    api.put(resourcePath(PODS, NS), pod(0, 'u0-again', 'b1', true));
    await until('cache-2 deleted', () => exists(resourcePath(PODS, NS, 'cache-2')), (there) => !there);
    expect((await api.get(resourcePath(ZONE_SHIFTS, undefined, 'lost'))).status.recovery.recovered.map((r: any) => r.uid))
      .toEqual(['u0', 'u2']);
  } finally {
    stop.abort();
    await running;
  }
});

test('a deleted pod its cache still lists is not deleted again by the same run; a restarted run deletes it', async () => {
  const api = new MemoryKubeApi();
  api.put(resourcePath(NODES), node('a1', 'zone-a', false));
  api.put(resourcePath(NODES), node('b1', 'zone-b', true));
  api.put(resourcePath(STATEFULSETS, NS), {
    metadata: { name: 'cache', namespace: NS, uid: 'sts', annotations: { 'cdk8s-zones.dev/lost-zone-recovery': '1' } },
    spec: { replicas: 2, volumeClaimTemplates: [{ metadata: { name: 'data' } }] },
  });
  for (const [i, zone] of [[0, 'zone-a'], [1, 'zone-b']] as const) {
    api.put(resourcePath(PODS, NS), pod(i, `u${i}`, zone === 'zone-a' ? 'a1' : 'b1', zone === 'zone-b'));
    api.put(resourcePath(VOLUMES), volume(`pv-${i}`, zone));
    api.put(resourcePath(CLAIMS, NS), claim(i, `pv-${i}`));
  }
  api.put(resourcePath(ZONE_SHIFTS), lostShift(Date.now()));
  const podDeletions = () => api.calls.filter((c) => c === `DELETE ${resourcePath(PODS, NS, 'cache-0')}`).length;
  const exists = async (path: string) => api.get(path).then(() => true, () => false);
  const events: string[] = [];
  let stop = new AbortController();
  let running = lostZoneRecoverer().run(contextOf(api, events), stop.signal);
  try {
    await until('cache-0 deleted', () => exists(resourcePath(PODS, NS, 'cache-0')), (there) => !there);
    // listed again, as a late watch would show it: this run deleted that uid, it leaves it
    api.put(resourcePath(PODS, NS), pod(0, 'u0', 'a1', false));
    await new Promise((r) => setTimeout(r, 300));
    expect(podDeletions()).toBe(1);
    expect(events).toHaveLength(1);
  } finally {
    stop.abort();
    await running;
  }
  // a run that starts with it still there (a restart between the record and the deletion) deletes it
  stop = new AbortController();
  running = lostZoneRecoverer().run(contextOf(api, events), stop.signal);
  try {
    await until('cache-0 deleted again', () => exists(resourcePath(PODS, NS, 'cache-0')), (there) => !there);
    expect(podDeletions()).toBe(2);
    const shift = await api.get(resourcePath(ZONE_SHIFTS, undefined, 'lost'));
    expect(shift.status.recovery.recovered.map((r: any) => r.uid)).toEqual(['u0']);
  } finally {
    stop.abort();
    await running;
  }
});

test('a zone group pinned per zone: the other zones\' nodes labelled for the stand-ins first; the labels kept while one is away', async () => {
  const api = new MemoryKubeApi();
  const STAND_IN = 'stand-in.cdk8s-zones.dev/zone-a';
  for (const [name, zone, ready] of [['a1', 'zone-a', false], ['b1', 'zone-b', true], ['c1', 'zone-c', true]] as const) {
    api.put(resourcePath(NODES), node(name, zone, ready));
  }
  const pinnedTo = (zone: string) => ({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] },
          { matchExpressions: [{ key: `stand-in.cdk8s-zones.dev/${zone}`, operator: 'Exists' }] },
        ],
      },
    },
  });
  for (const zone of ['zone-a', 'zone-b']) {
    const name = `ingester-${zone}`;
    api.put(resourcePath(STATEFULSETS, NS), {
      metadata: {
        name,
        namespace: NS,
        uid: name,
        annotations: { 'cdk8s-zones.dev/lost-zone-recovery': '1', 'cdk8s-zones.dev/zone-group': 'ingester' },
      },
      spec: {
        replicas: 1,
        volumeClaimTemplates: [{ metadata: { name: 'data' } }],
        template: { spec: { affinity: pinnedTo(zone) } },
      },
    });
    const owner = [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name, uid: name, controller: true }];
    api.put(resourcePath(PODS, NS), {
      metadata: { name: `${name}-0`, namespace: NS, uid: `${name}-u`, ownerReferences: owner },
      spec: { nodeName: zone === 'zone-a' ? 'a1' : 'b1' },
      status: { conditions: [{ type: 'Ready', status: zone === 'zone-a' ? 'False' : 'True' }] },
    });
    api.put(resourcePath(VOLUMES), volume(`pv-${zone}`, zone));
    api.put(resourcePath(CLAIMS, NS), { metadata: { name: `data-${name}-0`, namespace: NS }, spec: { volumeName: `pv-${zone}` } });
  }
  api.put(resourcePath(ZONE_SHIFTS), lostShift(Date.now()));
  const stop = new AbortController();
  const running = lostZoneRecoverer().run(contextOf(api, []), stop.signal);
  const labelOf = async (n: string) => (await api.get(resourcePath(NODES, undefined, n))).metadata.labels[STAND_IN];
  const labels = async () => Promise.all(['a1', 'b1', 'c1'].map(labelOf));
  const exists = async (path: string) => api.get(path).then(() => true, () => false);
  try {
    await until('ingester-zone-a-0 deleted', () => exists(resourcePath(PODS, NS, 'ingester-zone-a-0')), (there) => !there);
    const order = api.calls.filter((c) => /^(PATCH \/api\/v1\/nodes|DELETE )/.test(c));
    expect(order).toEqual([
      `PATCH ${resourcePath(NODES, undefined, 'b1')}`,
      `PATCH ${resourcePath(NODES, undefined, 'c1')}`,
      `DELETE ${resourcePath(CLAIMS, NS, 'data-ingester-zone-a-0')}`,
      `DELETE ${resourcePath(PODS, NS, 'ingester-zone-a-0')}`,
    ]);
    expect(await labels()).toEqual([undefined, 'true', 'true']);

    // it comes back on c1 with a claim there; the shift ends: the labels stay (a restart must find a node there)
    api.put(resourcePath(VOLUMES), volume('pv-new', 'zone-c'));
    api.put(resourcePath(CLAIMS, NS), { metadata: { name: 'data-ingester-zone-a-0', namespace: NS }, spec: { volumeName: 'pv-new' } });
    api.put(resourcePath(PODS, NS), {
      metadata: {
        name: 'ingester-zone-a-0',
        namespace: NS,
        uid: 'again',
        ownerReferences: [{ kind: 'StatefulSet', name: 'ingester-zone-a', uid: 'x', controller: true }],
      },
      spec: { nodeName: 'c1' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    await api.delete(resourcePath(ZONE_SHIFTS, undefined, 'lost'));
    await new Promise((r) => setTimeout(r, 300));
    expect(await labels()).toEqual([undefined, 'true', 'true']);

    // moved home (its pod and claim gone): no stand-in away, the labels go
    await api.delete(resourcePath(PODS, NS, 'ingester-zone-a-0'));
    await api.delete(resourcePath(CLAIMS, NS, 'data-ingester-zone-a-0'));
    await until('the stand-in labels gone', labels, (now) => now.every((l) => l === undefined));
  } finally {
    stop.abort();
    await running;
  }
});
