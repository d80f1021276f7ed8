/**
 * The zone-aware-update reconciler, run over the in-memory API server, on a ZoneAwareUpdate that starts after
 * another: it must see its predecessor's status as the watch showed it when it was queued, never an older status
 * this process wrote before. The API server sends the watch event of a status write before (or apart from) its
 * answer; a follower queued by that event, which read the predecessor's status through the writer's memory of its
 * previous write, quoted the older status, found its own status unchanged, and waited for an event that never came
 * (found on the Kubernetes tier: loki-migration's ruler waited on a distributor long Done).
 */
import { until } from './until';
import { MemoryKubeApi } from '../../test/memory-kube-api';
import { KubeApi, resourcePath } from '../src/kube/api';
import { createLogger } from '../src/log';
import { createMetrics } from '../src/metrics';
import { ReconcilerContext } from '../src/reconciler';
import { zoneAwareUpdater } from '../src/reconcilers/zone-aware-update';
import { REVISION_LABEL } from '../src/reconcilers/zone-aware-update-decision';
import { NODES, PODS, STATEFULSETS, ZONE_AWARE_UPDATES } from '../src/resources';

const NS = 'ns';
const ZONE_KEY = 'topology.kubernetes.io/zone';

const statefulSet = (name: string, status: { generation: number; observed: number; revision: string }) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, namespace: NS, uid: `uid-${name}`, generation: status.generation },
  spec: { replicas: 1, updateStrategy: { type: 'OnDelete' } },
  status: { observedGeneration: status.observed, updateRevision: status.revision, currentRevision: status.revision },
});

const pod = (set: string, revision: string) => ({
  metadata: {
    name: `${set}-0`,
    namespace: NS,
    uid: `uid-${set}-0`,
    labels: { [REVISION_LABEL]: revision },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set, uid: `uid-${set}`, controller: true }],
  },
  spec: { nodeName: 'node-a' },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

const update = (name: string, spec: object) => ({
  apiVersion: 'cdk8s-zones.dev/v1alpha1',
  kind: 'ZoneAwareUpdate',
  metadata: { name, namespace: NS, generation: 1 },
  spec: { statefulset: name, maxUnavailable: 1, ...spec },
});


test('a rollout held by startAfter sees its predecessor Done, though the Done event came before the write\'s answer', async () => {
  const api = new MemoryKubeApi();
  api.put(resourcePath(NODES), { metadata: { name: 'node-a', labels: { [ZONE_KEY]: 'zone-a' } } });
  // the distributors: a generation their controller has not observed yet (the rollout waits for it)
  api.put(resourcePath(STATEFULSETS, NS), statefulSet('distributor', { generation: 2, observed: 1, revision: 'd1' }));
  api.put(resourcePath(PODS, NS), pod('distributor', 'd1'));
  // the rulers: one pod to roll, once the distributors are done and an hour has passed
  api.put(resourcePath(STATEFULSETS, NS), statefulSet('ruler', { generation: 1, observed: 1, revision: 'r2' }));
  api.put(resourcePath(PODS, NS), pod('ruler', 'r1'));
  api.put(resourcePath(ZONE_AWARE_UPDATES, NS), update('distributor', {}));
  const startAfter = { zoneAwareUpdate: 'distributor', delaySeconds: 3600 };
  api.put(resourcePath(ZONE_AWARE_UPDATES, NS), update('ruler', { startAfter }));
  // The answer to a write of the distributors' status comes late: its watch event is out before (the in-memory
  // server sends it from within the write), as the real one's may be.
  api.beforeCall = async (call) => {
    if (call.endsWith('/zoneawareupdates/distributor/status')) await new Promise((r) => setTimeout(r, 100));
  };
  const ctx: ReconcilerContext = {
    log: createLogger({ write: () => undefined }),
    metrics: createMetrics({ defaultMetrics: false }),
    kube: api as unknown as KubeApi,
    events: { record: async () => undefined },
    settings: { topologyKeys: [ZONE_KEY], namespace: 'zones', identity: 'test', zoneShifts: false },
  };
  const stop = new AbortController();
  const running = zoneAwareUpdater({ resyncMs: 0 }).run(ctx, stop.signal);
  const status = async (name: string) => (await api.get(resourcePath(ZONE_AWARE_UPDATES, NS, name))).status ?? {};
  try {
    const waiting = 'waiting for the StatefulSet controller to observe generation 2 of distributor';
    await until('the ruler quoting the distributors waiting', () => status('ruler'),
      (s: any) => typeof s.message === 'string' && s.message.includes(`(Waiting: ${waiting})`), 3_000);

    // The StatefulSet controller observes the generation: the distributors are done (one change, one event).
    api.put(resourcePath(STATEFULSETS, NS), statefulSet('distributor', { generation: 2, observed: 2, revision: 'd1' }));
    const done = await until('the distributors Done', () => status('distributor'), (s: any) => s.phase === 'Done', 3_000);
    const startsAt = new Date(Date.parse(done.doneAt) + 3600_000).toISOString();
    const ruler = await until('the ruler held until an hour after the distributors', () => status('ruler'),
      (s: any) => s.startsAt !== undefined, 3_000);
    expect(ruler).toMatchObject({ phase: 'Waiting', startsAt, message: expect.stringMatching(/^starts at .*, 3600 s after ZoneAwareUpdate distributor finished/) });
  } finally {
    stop.abort();
    await running;
  }
});
