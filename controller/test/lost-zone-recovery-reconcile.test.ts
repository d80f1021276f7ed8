/**
 * The lost-zone-recovery reconciler over the in-memory API server: each pod it brings back is recorded on the shift
 * before its claim and then the pod are deleted (a restart between the two deletes again, never more at once), only
 * that very pod (its uid), one at a time as the opt-in says, with an Event on its StatefulSet.
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
  const now = Date.now();
  api.put(resourcePath(ZONE_SHIFTS), {
    apiVersion: 'cdk8s-zones.dev/v1alpha1',
    kind: 'ZoneShift',
    metadata: { name: 'lost', creationTimestamp: new Date(now - 1000).toISOString() },
    spec: { zone: 'zone-a', expiresAt: new Date(now + 3600_000).toISOString(), lost: true },
  });
  const events: string[] = [];
  const ctx: ReconcilerContext = {
    log: createLogger({ write: () => undefined }),
    metrics: createMetrics({ defaultMetrics: false }),
    kube: api as unknown as KubeApi,
    events: {
      record: async (obj, _type, reason, message) => { events.push(`${obj.kind}/${obj.metadata.name} ${reason}: ${message}`); },
    },
    settings: { topologyKeys: [ZONE_KEY], namespace: 'zones', identity: 'test', zoneShifts: true },
  };
  const stop = new AbortController();
  const running = lostZoneRecoverer().run(ctx, stop.signal);
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
