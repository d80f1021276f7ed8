import { inventoryFromPods } from '../src/redis/pods';

const ZONE = 'topology.kubernetes.io/zone';
const pod = (name: string, extra: any = {}) => ({
  metadata: { name, namespace: 'ns', labels: { 'cdk8s-zones.dev/redis-cluster': 'redis', 'cdk8s-zones.dev/zone': 'zone-a' }, ...extra.metadata },
  spec: { nodeName: extra.nodeName, containers: [{ name: 'redis', env: extra.env ?? [] }] },
  status: { podIP: extra.ip },
});
const node = (name: string, zone?: string) => ({ metadata: { name, labels: zone ? { [ZONE]: zone } : {} } });

describe('Redis pods -> manager inventory', () => {
  test('name from the pod name, zone from the node (else the pinned StatefulSet\'s label), address from the pod IP', () => {
    const pods = [
      pod('redis-zone-b-1', { nodeName: 'n2', ip: '10.0.0.2' }),
      pod('redis-zone-a-0', { nodeName: 'n1', ip: '10.0.0.1' }),
      pod('redis-zone-a-1', { nodeName: 'n3', ip: 'fd00::3' }),
      pod('redis-zone-c-0', { nodeName: 'n4' }),
      pod('redis-zone-c-1', { nodeName: 'n4', ip: '10.0.0.5', metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }),
      pod('other-0', { ip: '10.0.0.9' }),
    ];
    const nodes = new Map([['n1', node('n1', 'zone-a')], ['n2', node('n2', 'zone-b')], ['n3', node('n3')]]);
    const inv = inventoryFromPods('redis', pods as any, nodes as any, ZONE);
    expect(inv.nodes).toEqual([
      { name: 'zone-a-0', zone: 'zone-a', address: '10.0.0.1:6379' },
      { name: 'zone-a-1', zone: 'zone-a', address: '[fd00::3]:6379' },
      { name: 'zone-b-1', zone: 'zone-b', address: '10.0.0.2:6379' },
    ]);
    expect(inv.skipped).toEqual([
      'other-0: not named redis-<zone>-<ordinal>', 'redis-zone-c-0: no pod IP yet', 'redis-zone-c-1: terminating',
    ]);
    expect(inv.passwordSecret).toBeUndefined();
  });

  test('the password Secret key is read from the pod spec', () => {
    const env = [{ name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'pw', key: 'password' } } }];
    expect(inventoryFromPods('redis', [pod('redis-zone-a-0', { ip: '10.0.0.1', env })] as any, new Map(), ZONE).passwordSecret)
      .toEqual({ name: 'pw', key: 'password' });
  });
});
