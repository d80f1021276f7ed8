/**
 * The test cluster itself: what the other Kubernetes tests rely on is really there, and fails when it
 * should (Pod Security enforcement, zone labels on nodes and pods, zonal volumes).
 */
import { restrictedNamespace } from './examples';
import { KubeApiError, KubeObject } from './kube-client';
import { HOSTNAME_KEY, isReady, NODE_SIZES, REGION_KEY, ZONE_KEY, ZONES } from './nodes';
import { PROVISIONER, STORAGE_CLASS } from './provisioner';
import { podsByZone, testCluster, uniqueName, waitForScheduled, waitForUnschedulable } from './scheduling';
import { waitFor } from './wait';
import { OutageMode, zoneOutage } from './zone-outage';

const cluster = testCluster();
const { client, info } = cluster;
afterAll(() => client.close());

/** A container that passes Pod Security "restricted". */
const restrictedContainer = {
  name: 'app',
  image: 'registry.k8s.io/pause:3.10',
  resources: { requests: { cpu: '10m', memory: '16Mi' } },
  securityContext: {
    runAsNonRoot: true,
    runAsUser: 65532,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  },
};

describe('the nodes', () => {
  test('three zones of three kwok nodes, Ready, with zone, region and hostname labels and two sizes', async () => {
    const nodes = await client.list('v1', 'Node');
    expect(info.zones).toEqual(ZONES);
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual(info.nodes.map((n) => n.name).sort());
    expect(nodes.every(isReady)).toBe(true);
    for (const zone of ZONES) {
      const inZone = nodes.filter((n) => n.metadata.labels[ZONE_KEY] === zone);
      expect(inZone).toHaveLength(3);
      expect(new Set(inZone.map((n) => n.status.allocatable.cpu))).toEqual(new Set(NODE_SIZES.map((s) => s.cpu)));
    }
    for (const n of nodes) {
      expect(n.metadata.labels[HOSTNAME_KEY]).toBe(n.metadata.name);
      expect(n.metadata.labels[REGION_KEY]).toBe('region-1');
    }
  });

  test('the API server is the pinned release (1.35 or newer)', () => {
    const [, minor] = /^v1\.(\d+)\./.exec(info.kubernetesVersion) ?? [];
    expect(Number(minor)).toBeGreaterThanOrEqual(35);
  });
});

describe('admission', () => {
  const ns = uniqueName('cluster-admission');
  beforeAll(() => restrictedNamespace(client, ns));

  test('Pod Security "restricted" rejects a privileged pod: a zero-rejection apply means something', async () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'privileged', namespace: ns },
      spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', securityContext: { privileged: true } }] },
    };
    const err: unknown = await client.apply(pod).then(() => undefined, (e) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(403);
    expect((err as KubeApiError).detail).toMatch(/violates PodSecurity "restricted:latest": privileged/);
  });

  test('PodTopologyLabels (KEP-4742): binding copies the node\'s zone and region labels onto the pod', async () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'zone-labelled', namespace: ns, labels: { app: 'zone-labelled' } },
      spec: { nodeSelector: { [ZONE_KEY]: 'zone-b' }, containers: [restrictedContainer] },
    };
    expect((await client.apply(pod)).body.metadata.labels?.[ZONE_KEY]).toBeUndefined();
    const [bound] = await waitForScheduled(client, ns, 'app=zone-labelled', 1);
    expect(info.nodes.find((n) => n.name === bound.spec.nodeName)?.zone).toBe('zone-b');
    expect(bound.metadata.labels).toMatchObject({ [ZONE_KEY]: 'zone-b', [REGION_KEY]: 'region-1' });
  });
});

describe('zonal volumes', () => {
  const ns = uniqueName('cluster-volumes');
  const labels = { app: 'store' };
  const statefulSet: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'store', namespace: ns },
    spec: {
      replicas: 3,
      serviceName: 'store',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          topologySpreadConstraints: [{
            maxSkew: 1,
            topologyKey: ZONE_KEY,
            whenUnsatisfiable: 'DoNotSchedule',
            minDomains: 3,
            labelSelector: { matchLabels: labels },
          }],
          containers: [{ ...restrictedContainer, volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        },
      },
      volumeClaimTemplates: [{
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      }],
    },
  };
  beforeAll(() => restrictedNamespace(client, ns));

  test('a StatefulSet\'s claims get volumes in the zone the scheduler chose, and its pods stay in that zone through an outage', async () => {
    await client.apply(statefulSet);
    const pods = await waitForScheduled(client, ns, 'app=store', 3);
    expect(podsByZone(info, pods)).toEqual({ 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 });

    const claims = await waitFor('the claims to be bound', async () => {
      const list = await client.list('v1', 'PersistentVolumeClaim', { namespace: ns });
      return {
        done: list.length === 3 && list.every((c: any) => c.status.phase === 'Bound'),
        value: list,
        state: JSON.stringify(list.map((c: any) => c.status.phase)),
      };
    });
    const zoneOfPod = Object.fromEntries(pods.map((p) => {
      const node = info.nodes.find((n) => n.name === p.spec.nodeName)!;
      return [p.metadata.name, node.zone];
    }));
    for (const claim of claims) {
      expect(claim.spec.storageClassName).toBe(STORAGE_CLASS); // the default class
      const pv: any = await client.get('v1', 'PersistentVolume', claim.spec.volumeName);
      expect(pv.metadata.annotations['pv.kubernetes.io/provisioned-by']).toBe(PROVISIONER);
      const zone = zoneOfPod[claim.metadata.name.replace(/^data-/, '')];
      expect(pv.spec.nodeAffinity.required.nodeSelectorTerms)
        .toEqual([{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }]);
    }

    const lost = pods.find((p) => zoneOfPod[p.metadata.name] === 'zone-a')!;
    const outage = await zoneOutage(cluster, 'zone-a', OutageMode.DELETE_NODES);
    try {
      const { pending } = await waitForUnschedulable(client, ns, 'app=store', { total: 3, pending: 1 }, /didn't match PersistentVolume's node affinity/);
      expect(pending.map((p) => p.metadata.name)).toEqual([lost.metadata.name]);
    } finally {
      await outage.restore();
    }
    const back = await waitForScheduled(client, ns, 'app=store', 3);
    expect(podsByZone(info, back.filter((p) => p.metadata.name === lost.metadata.name))['zone-a']).toBe(1);
  });
});
