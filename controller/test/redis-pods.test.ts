import { REDIS_CLUSTER_LABEL } from '../../src/contract/redis';
import { MemoryKubeApi } from '../../test/memory-kube-api';
import { KubeApi } from '../src/kube/api';
import { passwordOf } from '../src/reconcilers/redis-prepare';
import { listRedisPods } from '../src/reconcilers/redis-watching';
import { passwordFromBytes } from '../src/redis/password';
import { inventoryFromPods, withoutDeletedPods } from '../src/redis/pods';

const ZONES = ['zone-a', 'Zone_B', 'zone-c'];
/** The StatefulSet of Zone_B is named after its slug, as the construct names it. */
const ZONE_B_SET = 'redis-zone-b-88e8a8';

const passwordVolume = (secretName: string, key: string) => ({
  name: 'redis-password',
  secret: { secretName, items: [{ key, path: 'password' }] },
});
const owner = (name: string, extra: any = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  name,
  uid: 'u',
  controller: true,
  ...extra,
});

/**
 * A pod of StatefulSet `set` (its controller, as the StatefulSet controller makes them), unless `extra.owners` says
 * otherwise.
 */
const pod = (set: string, ordinal: number, extra: any = {}) => ({
  metadata: {
    name: `${set}-${ordinal}`,
    namespace: 'ns',
    labels: { 'cdk8s-zones.dev/redis-cluster': 'redis', ...(extra.zone ? { 'cdk8s-zones.dev/zone': extra.zone } : {}) },
    ownerReferences: extra.owners ?? [owner(set)],
    ...extra.metadata,
  },
  spec: { containers: [{ name: 'redis' }], volumes: extra.volumes ?? [passwordVolume('pw', 'password')] },
  status: { podIP: extra.ip },
});

describe('pods the manager deleted are away until a listing shows their successors', () => {
  const withUid = (ordinal: number, uid: string, ip = '10.0.0.1') => pod('redis-zone-a', ordinal, { zone: 'zone-a', ip, metadata: { uid } });
  const planned = new Set(['zone-a-0', 'zone-a-1']);

  test('the deleted pod, still listed as it was (its process may still answer), is not counted', () => {
    const r = withoutDeletedPods('redis', [withUid(0, 'old'), withUid(1, 'other', '10.0.0.2')] as any, new Map([['zone-a-0', 'old']]), planned);
    expect(r.pods.map((p) => p.metadata.name)).toEqual(['redis-zone-a-1']);
    expect(r.skipped).toEqual(['redis-zone-a-0: deleted by the manager, its successor not listed yet']);
    expect([...r.pending]).toEqual([['zone-a-0', 'old']]);
  });

  test('no pod listed for it yet: still pending', () => {
    const r = withoutDeletedPods('redis', [] as any, new Map([['zone-a-0', 'old']]), planned);
    expect([...r.pending]).toEqual([['zone-a-0', 'old']]);
  });

  test('its successor (another uid), even at the same IP, is counted and the deletion forgotten', () => {
    const r = withoutDeletedPods('redis', [withUid(0, 'new')] as any, new Map([['zone-a-0', 'old']]), planned);
    expect(r.pods.map((p) => p.metadata.uid)).toEqual(['new']);
    expect(r.skipped).toEqual([]);
    expect(r.pending.size).toBe(0);
  });

  test('a node the layout no longer plans is forgotten (scaled down)', () => {
    expect(withoutDeletedPods('redis', [] as any, new Map([['zone-a-5', 'old']]), planned).pending.size).toBe(0);
  });
});

describe('Redis pods -> manager inventory', () => {
  test('name from the pod name, zone from the pod\'s own zone label (as the topology names it), address from the pod IP', () => {
    const pods = [
      pod(ZONE_B_SET, 1, { zone: 'Zone_B', ip: '10.0.0.2' }),
      pod('redis-zone-a', 0, { zone: 'zone-a', ip: '10.0.0.1' }),
      pod('redis-zone-a', 1, { zone: 'zone-a', ip: 'fd00::3' }),
      pod('redis-zone-c', 0, { zone: 'zone-c' }),
      pod('redis-zone-c', 1, { zone: 'zone-c', ip: '10.0.0.5', metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }),
      pod('redis-zone-c', 2, { ip: '10.0.0.6' }),
      pod('other', 0, { ip: '10.0.0.9' }),
    ];
    const inv = inventoryFromPods('redis', ZONES, pods as any);
    expect(inv.nodes).toEqual([
      { name: 'zone-a-0', zone: 'zone-a', address: '10.0.0.1:6379' },
      { name: 'zone-a-1', zone: 'zone-a', address: '[fd00::3]:6379' },
      { name: `${ZONE_B_SET.slice('redis-'.length)}-1`, zone: 'Zone_B', address: '10.0.0.2:6379' },
    ]);
    expect(inv.skipped).toEqual([
      'other-0: not named redis-<zone>-<ordinal>', 'redis-zone-c-0: no pod IP yet', 'redis-zone-c-1: terminating',
      'redis-zone-c-2: zone unknown (no cdk8s-zones.dev/zone label)',
    ]);
  });

  test('a pod that opts in to the zone annotator (lostZoneRecovery: it may stand in elsewhere) is in its node\'s zone, ' +
    'and not counted before the annotator wrote it', () => {
    const optIn = (zone: string | undefined) => ({
      labels: { 'cdk8s-zones.dev/redis-cluster': 'redis', 'cdk8s-zones.dev/zone': 'zone-a', 'cdk8s-zones.dev/zone-annotation': 'enabled' },
      annotations: zone === undefined ? {} : { 'cdk8s-zones.dev/zone': zone },
    });
    const pods = [
      pod('redis-zone-a', 0, { ip: '10.0.0.1', metadata: optIn('zone-c') }),
      pod('redis-zone-a', 1, { ip: '10.0.0.2', metadata: optIn(undefined) }),
      pod('redis-zone-a', 2, { ip: '10.0.0.3', metadata: optIn('zone-a') }),
    ];
    const inv = inventoryFromPods('redis', ZONES, pods as any);
    expect(inv.nodes).toEqual([
      { name: 'zone-a-0', zone: 'zone-c', address: '10.0.0.1:6379' },
      { name: 'zone-a-2', zone: 'zone-a', address: '10.0.0.3:6379' },
    ]);
    expect(inv.skipped).toEqual([
      'redis-zone-a-1: zone not annotated yet (the zone annotator writes cdk8s-zones.dev/zone once it is bound)',
    ]);
  });

  test('the password Secret and key come from the pod\'s password volume (its item at path "password"), not from env', () => {
    const p = pod('redis-zone-a', 0, { zone: 'zone-a', ip: '10.0.0.1', volumes: [{ name: 'tmp', emptyDir: {} }, passwordVolume('redis-pw', 'secret')] });
    expect(inventoryFromPods('redis', ZONES, [p] as any).passwordSecret).toEqual({ name: 'redis-pw', key: 'secret' });
    const env = pod('redis-zone-a', 0, { zone: 'zone-a', ip: '10.0.0.1', volumes: [] });
    const passwordFromSecret = { name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'pw', key: 'password' } } };
    env.spec.containers[0] = { name: 'redis', env: [passwordFromSecret] } as any;
    expect(inventoryFromPods('redis', ZONES, [env] as any).passwordSecret).toBeUndefined();
  });

  test('a labelled pod that is not a pod of one of the cluster\'s StatefulSets is never counted (nor sent the password)', () => {
    const evil = { ...passwordVolume('someone-elses', 'token') };
    const pods = [
      pod('redis-zone-a', 0, { zone: 'zone-a', ip: '10.0.0.1' }),
      pod('redis-zone-a', 1, { zone: 'zone-a', ip: '10.0.0.2', owners: [], volumes: [evil] }), // a bare pod
      pod('redis-zone-a', 2, { zone: 'zone-a', ip: '10.0.0.3', owners: [owner('redis-zone-a', { kind: 'ReplicaSet' })] }),
      pod('redis-zone-a', 3, { zone: 'zone-a', ip: '10.0.0.4', owners: [owner('redis-zone-a', { controller: false })] }),
      pod('redis-zone-d', 0, { zone: 'zone-a', ip: '10.0.0.5', volumes: [evil] }), // a StatefulSet of no planned zone
      pod('redis-zone-a', 4, { zone: 'zone-a', ip: '10.0.0.6', owners: [owner('redis-zone')] }), // not named <owner>-<ordinal>
    ];
    const inv = inventoryFromPods('redis', ZONES, pods as any);
    expect(inv.nodes.map((n) => n.address)).toEqual(['10.0.0.1:6379']);
    const sets = `redis-zone-a, ${ZONE_B_SET}, redis-zone-c`;
    expect(inv.skipped).toEqual([
      'redis-zone-a-1: not controlled by a StatefulSet: not sent the password',
      'redis-zone-a-2: not controlled by a StatefulSet (but by ReplicaSet redis-zone-a): not sent the password',
      'redis-zone-a-3: not controlled by a StatefulSet: not sent the password',
      `redis-zone-a-4: controlled by StatefulSet redis-zone, not one of ${sets}: not sent the password`,
      `redis-zone-d-0: controlled by StatefulSet redis-zone-d, not one of ${sets}: not sent the password`,
    ]);
    expect(inv.passwordSecret).toEqual({ name: 'pw', key: 'password' });
  });

  test('pods that mount different password Secrets: an error naming them, so no password is sent anywhere', () => {
    const pods = [
      pod('redis-zone-a', 0, { zone: 'zone-a', ip: '10.0.0.1' }),
      pod('redis-zone-c', 0, { zone: 'zone-c', ip: '10.0.0.2', volumes: [passwordVolume('pw-2', 'password')] }),
    ];
    expect(() => inventoryFromPods('redis', ZONES, pods as any)).toThrow(
      'the pods of cluster redis mount different password Secrets: Secret pw key password (redis-zone-a-0); Secret pw-2 key password (redis-zone-c-0)');
  });
});

describe('the password from its Secret', () => {
  const base64 = (data: Record<string, string>) =>
    Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  const secret = (data: Record<string, string>) => ({ metadata: { name: 'pw' }, data: base64(data) });

  test('every byte of the key, a trailing newline and awkward bytes included', () => {
    const awkward = 'a "quoted" \\ $HOME é 🔑\n';
    expect(passwordOf('ns', { name: 'pw', key: 'password' }, secret({ password: awkward }))).toBe(awkward);
  });

  test.each([
    [{}, 'Secret ns/pw key "password" does not exist: the Redis pods read their password from it'],
    [{ password: '' }, 'Secret ns/pw key "password" is empty: the Redis pods refuse to start without a password'],
    [{ password: 'a\0b' }, 'Secret ns/pw key "password" holds a NUL byte, which the Redis pods refuse'],
  ])('refused with the reason: %j', (data, message) => {
    expect(() => passwordOf('ns', { name: 'pw', key: 'password' }, secret(data))).toThrow(message);
  });

  test('bytes that are not UTF-8 are refused (the manager could never send them)', () => {
    expect(() => passwordFromBytes(Buffer.from([0x61, 0xff, 0x62]), '--password-file p')).toThrow('--password-file p is not valid UTF-8');
  });
});

describe('listing the labelled pods', () => {
  /** The in-memory API with pods by namespace; a namespace in `forbidden` answers 403; `paths`: the lists asked for. */
  function fakeKube(pods: Record<string, string[]>, forbidden: string[] = []): { kube: KubeApi; paths: string[] } {
    const kube = new MemoryKubeApi();
    for (const [ns, names] of Object.entries(pods)) {
      for (const name of names) {
        kube.put(`/api/v1/namespaces/${ns}/pods`, { metadata: { name, namespace: ns, labels: { [REDIS_CLUSTER_LABEL]: 'r' } } });
      }
    }
    const paths: string[] = [];
    kube.beforeCall = (call) => {
      if (call.startsWith('LIST ')) paths.push(call.slice('LIST '.length));
      const ns = /\/namespaces\/([^/]+)\//.exec(call)?.[1];
      if (ns && forbidden.includes(ns)) throw new Error(`pods is forbidden in ${ns}`);
    };
    return { kube, paths };
  }

  test('no namespaces: one list over every namespace', async () => {
    const { kube, paths } = fakeKube({ a: ['a-0'], b: ['b-0'] });
    expect((await listRedisPods(kube, [])).pods.map((p) => p.metadata.name)).toEqual(['a-0', 'b-0']);
    expect(paths).toEqual(['/api/v1/pods?labelSelector=cdk8s-zones.dev/redis-cluster']);
  });

  test('--redis-namespaces: one list per namespace, and a namespace that cannot be listed does not hide the others', async () => {
    const { kube, paths } = fakeKube({ a: ['a-0'], b: ['b-0'], c: ['c-0'] }, ['b']);
    const { pods, failures } = await listRedisPods(kube, ['a', 'b', 'c']);
    expect(pods.map((p) => p.metadata.name)).toEqual(['a-0', 'c-0']);
    expect(failures.map(([ns, err]) => [ns, String(err)])).toEqual([['b', 'Error: pods is forbidden in b']]);
    expect(paths).toEqual(['a', 'b', 'c'].map((ns) => `/api/v1/namespaces/${ns}/pods?labelSelector=cdk8s-zones.dev/redis-cluster`));
  });
});
