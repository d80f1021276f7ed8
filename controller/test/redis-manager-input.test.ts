import { inventoryOf, three } from './redis-decide-fixtures';
import { parseClusterNodes, replicationOffset } from '../src/redis/executor';
import { parseInventory } from '../src/redis/inventory';

describe('Redis cluster manager input: CLUSTER NODES and the static inventory', () => {
  test('parses CLUSTER NODES', () => {
    expect(parseClusterNodes([
      'e7d1 127.0.0.1:30004@40004,host-a myself,slave 67ed 0 1426238317239 4 connected',
      '67ed 127.0.0.1:30002@40002 master,fail - 0 1426238316232 2 connected 0-5460 5462 [5461->-e7d1] [7000-<-c3d4]',
      'a0b1 :0@0 noaddr,master - 0 0 0 disconnected',
      'c3d4 127.0.0.1:30005@40005 master,fail? - 1426238318000 1426238316900 5 disconnected 5463-6000',
    ].join('\n'))).toEqual([
      { id: 'e7d1', address: '127.0.0.1:30004', flags: ['myself', 'slave'], masterId: '67ed', connected: true, slots: [] },
      // open slots of a resharding: migrating 5461 to e7d1, importing 7000 from c3d4
      {
        id: '67ed',
        address: '127.0.0.1:30002',
        flags: ['master', 'fail'],
        masterId: undefined,
        connected: true,
        slots: [[0, 5460], [5462, 5462]],
        migrating: [[5461, 'e7d1']],
        importing: [[7000, 'c3d4']],
      },
      { id: 'a0b1', address: ':0', flags: ['noaddr', 'master'], masterId: undefined, connected: false, slots: [] },
      // ping-sent set: a ping it has not answered yet
      {
        id: 'c3d4',
        address: '127.0.0.1:30005',
        flags: ['master', 'fail?'],
        connected: false,
        slots: [[5463, 6000]],
        pingPendingSinceMs: 1426238318000,
      },
    ]);
    // Redis prints an IPv6 host bare; the inventory (a pod's address) brackets it
    expect(parseClusterNodes('e7d1 fd00::a:6379@16379 myself,master - 0 0 1 connected 0-16383')[0].address)
      .toBe('[fd00::a]:6379');
    expect(replicationOffset('# Replication\r\nrole:slave\r\nslave_repl_offset:4242\r\nmaster_repl_offset:4242\r\n')).toBe(4242);
    expect(replicationOffset('# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_repl_offset:17\r\n')).toBe(17);
  });

  test('the static inventory: layout re-planned and checked, zones must match the plan', () => {
    const text = (nodes: object[]) => JSON.stringify({ layout: JSON.parse(three.toJson()), nodes });
    expect(parseInventory(text(inventoryOf(three))).nodes).toHaveLength(6);
    expect(() => parseInventory(text([{ name: 'a-0', zone: 'b', address: '1.2.3.4:1' }])))
      .toThrow('redis inventory: node a-0 runs in zone b but the layout plans it in a');
    expect(() => parseInventory(text([{ name: 'a-0', zone: 'a', address: 'nowhere' }]))).toThrow('must be host:port');
    expect(() => parseInventory('{}')).toThrow('expected {"layout"');
  });
});
