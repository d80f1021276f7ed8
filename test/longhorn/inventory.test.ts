import { Size } from 'cdk8s';
import { LonghornDiskType, LonghornInventory, LonghornNodeInventory } from '../../src';

const disk = { name: 'sda', capacity: Size.gibibytes(100) };

describe('LonghornInventory', () => {
  test('normalizes nodes and disks: sorted by name, bytes, defaults filled in', () => {
    const inventory = new LonghornInventory({
      nodes: [
        {
          name: 'n2',
          zone: 'b',
          disks: [{
            name: 'sdb',
            capacity: Size.tebibytes(1),
            available: Size.gibibytes(800),
            reserved: Size.gibibytes(10),
            scheduled: Size.gibibytes(300),
            tags: ['ssd'],
          }, disk],
        },
        { name: 'n1', tags: ['storage'], allowScheduling: false, disks: [] },
      ],
    });
    expect(inventory.nodeNames).toEqual(['n1', 'n2']);
    expect(inventory.zones).toEqual(['b']);
    expect(inventory.diskCount).toBe(2);
    expect(inventory._nodes[0]).toEqual({ name: 'n1', zone: '', tags: ['storage'], allowScheduling: false, disks: [] });
    expect(inventory._nodes[1].disks).toEqual([
      {
        node: 'n2',
        zone: 'b',
        name: 'sda',
        type: LonghornDiskType.FILESYSTEM,
        capacity: 100 * 2 ** 30,
        available: 100 * 2 ** 30,
        reserved: 0,
        scheduled: 0,
        tags: [],
        allowScheduling: true,
      },
      {
        node: 'n2',
        zone: 'b',
        name: 'sdb',
        type: LonghornDiskType.FILESYSTEM,
        capacity: 2 ** 40,
        available: 800 * 2 ** 30,
        reserved: 10 * 2 ** 30,
        scheduled: 300 * 2 ** 30,
        tags: ['ssd'],
        allowScheduling: true,
      },
    ]);
  });

  test.each<[string, LonghornNodeInventory[], string]>([
    ['no node', [], 'LonghornInventory: nodes=[] must be a list of at least one node'],
    ['duplicate node names', [{ name: 'n1', disks: [] }, { name: 'n1', disks: [] }],
      'LonghornInventory: nodes[1].name="n1" duplicates nodes[0].name: every node must be listed once'],
    ['duplicate disk names on a node', [{ name: 'n1', disks: [disk, disk] }],
      'LonghornInventory: nodes[0].disks[1].name="sda" duplicates nodes[0].disks[0].name: disk names must be unique on a node'],
    ['an empty node name', [{ name: '', disks: [] }], 'nodes[0].name="" must be a non-empty string'],
    ['negative capacity', [{ name: 'n1', disks: [{ name: 'sda', capacity: Size.gibibytes(Infinity) }] }],
      'LonghornInventory: nodes[0].disks[0].capacity=[Size InfinityGi] must be a finite, non-negative size'],
    ['a fraction of a byte', [{ name: 'n1', disks: [{ ...disk, reserved: Size.kibibytes(0.5005) }] }], 'nodes[0].disks[0].reserved=[Size 0.5005Ki] is not a whole number of bytes'],
    ['a capacity that is a string', [{ name: 'n1', disks: [{ name: 'sda', capacity: '100Gi' as any }] }], 'capacity="100Gi" must be a cdk8s Size'],
    ['more free space than capacity', [{ name: 'n1', disks: [{ ...disk, available: Size.gibibytes(200) }] }],
      'nodes[0].disks[0].available=[Size 200Gi] exceeds the capacity 100Gi'],
    ['a reservation above capacity', [{ name: 'n1', disks: [{ ...disk, reserved: Size.gibibytes(101) }] }], 'reserved=[Size 101Gi] exceeds the capacity 100Gi'],
    ['an empty zone', [{ name: 'n1', zone: '', disks: [] }], 'nodes[0].zone="" must not be empty (omit it for a node without a zone label)'],
    ['an invalid zone label value', [{ name: 'n1', zone: 'eu west', disks: [] }], 'nodes[0].zone="eu west" is not a valid label value'],
    ['a tag with a comma', [{ name: 'n1', tags: ['a,b'], disks: [] }], 'nodes[0].tags[0]="a,b" must be a non-empty tag without commas or whitespace'],
    ['a duplicate disk tag', [{ name: 'n1', disks: [{ ...disk, tags: ['ssd', 'ssd'] }] }], 'nodes[0].disks[0].tags[1]="ssd" duplicates nodes[0].disks[0].tags[0]'],
    ['an unknown disk type', [{ name: 'n1', disks: [{ ...disk, diskType: 'tape' as any }] }], 'diskType="tape" must be one of LonghornDiskType.FILESYSTEM ("filesystem"), LonghornDiskType.BLOCK ("block")'],
  ])('refuses %s', (_what, nodes, message) => {
    expect(() => new LonghornInventory({ nodes })).toThrow(message);
  });
});
