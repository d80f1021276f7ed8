import { inventoryFromPods } from '../src/redis/pods';

const pod = (name: string, extra: any = {}) => ({
  metadata: {
    name, namespace: 'ns', labels: { 'cdk8s-zones.dev/redis-cluster': 'redis', ...(extra.zone ? { 'cdk8s-zones.dev/zone': extra.zone } : {}) }, ...extra.metadata,
  },
  spec: { nodeName: extra.nodeName, containers: [{ name: 'redis', env: extra.env ?? [] }] },
  status: { podIP: extra.ip },
});

describe('Redis pods -> manager inventory', () => {
  test('name from the pod name, zone from the pod\'s own zone label (as the topology names it), address from the pod IP', () => {
    const pods = [
      pod('redis-zone-b-1', { zone: 'Zone_B', ip: '10.0.0.2' }),
      pod('redis-zone-a-0', { zone: 'zone-a', ip: '10.0.0.1' }),
      pod('redis-zone-a-1', { zone: 'zone-a', ip: 'fd00::3' }),
      pod('redis-zone-c-0', { zone: 'zone-c' }),
      pod('redis-zone-c-1', { zone: 'zone-c', ip: '10.0.0.5', metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }),
      pod('redis-zone-c-2', { ip: '10.0.0.6' }),
      pod('other-0', { ip: '10.0.0.9' }),
    ];
    const inv = inventoryFromPods('redis', pods as any);
    expect(inv.nodes).toEqual([
      { name: 'zone-a-0', zone: 'zone-a', address: '10.0.0.1:6379' },
      { name: 'zone-a-1', zone: 'zone-a', address: '[fd00::3]:6379' },
      { name: 'zone-b-1', zone: 'Zone_B', address: '10.0.0.2:6379' },
    ]);
    expect(inv.skipped).toEqual([
      'other-0: not named redis-<zone>-<ordinal>', 'redis-zone-c-0: no pod IP yet', 'redis-zone-c-1: terminating',
      'redis-zone-c-2: zone unknown (no cdk8s-zones.dev/zone label)',
    ]);
    expect(inv.passwordSecret).toBeUndefined();
  });

  test('the password Secret key is read from the pod spec', () => {
    const env = [{ name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'pw', key: 'password' } } }];
    expect(inventoryFromPods('redis', [pod('redis-zone-a-0', { zone: 'zone-a', ip: '10.0.0.1', env })] as any).passwordSecret)
      .toEqual({ name: 'pw', key: 'password' });
  });
});
