import { Size, SizeRoundingBehavior } from 'cdk8s';
import { HARD, SOFT, inventory, locations, plan } from './planner-fixtures';
import {
  AntiAffinityLevel, LonghornDataEngine, LonghornDataLocality, LonghornDiskType, LonghornPlacementRequest,
} from '../../src';

describe('zones', () => {
  const node = (name: string, zone?: string) => ({ name, zone, disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] });

  test('one replica per zone while there are unused zones, then a new node in a used zone (zone soft)', () => {
    const inv = inventory([node('a1', 'a'), node('a2', 'a'), node('b1', 'b'), node('b2', 'b')]);
    const p = plan(inv, { numberOfReplicas: 3, size: Size.gibibytes(10) });
    expect(locations(p)).toEqual(['a1/sda', 'b1/sda', 'a2/sda']);
    expect(p.replicas.map((r) => r.relaxed)).toEqual([[], [], ['zone']]);
    expect(p.warnings).toEqual(['degraded placement: zone a holds replicas 1, 3 (zone anti-affinity is soft: ' +
      'the global replica-zone-soft-anti-affinity=true); losing that zone loses 2 of 3 replicas']);
  });

  test('zone hard with fewer zones than replicas fails and names the zones', () => {
    const inv = inventory([node('a1', 'a'), node('a2', 'a'), node('b1', 'b'), node('b2', 'b')]);
    const p = plan(inv, { numberOfReplicas: 3, size: Size.gibibytes(10), replicaZoneSoftAntiAffinity: HARD });
    expect(p.failure).toContain('3 replicas need 3 zones without a replica of this volume (zone anti-affinity is hard: ' +
      'replicaZoneSoftAntiAffinity=disabled); only 2 zones have a disk that can hold a replica: a, b');
  });

  test('nodes without a zone label form one zone: hard zone anti-affinity puts only one replica on all of them', () => {
    const inv = inventory([node('n1'), node('n2'), node('z1', 'z')]);
    const p = plan(inv, { numberOfReplicas: 3, size: Size.gibibytes(10), replicaZoneSoftAntiAffinity: HARD });
    expect(locations(p)).toEqual(['n1/sda', 'z1/sda', '-']);
    expect(p.failure).toContain('only 2 zones have a disk that can hold a replica: (no zone label), z; nodes without a zone label count as one zone');
    expect(p.warnings).toContain('node(s) n1, n2 have no zone label: Longhorn counts them as one more zone next to z, so zone ' +
      'anti-affinity treats them as a single failure domain; label them with their zone');
  });

  test('three zones, three replicas: one per zone, the emptiest node of each zone first', () => {
    const inv = inventory([
      { name: 'a1', zone: 'a', disks: [{ name: 'sda', capacity: Size.gibibytes(100), scheduled: Size.gibibytes(50) }] },
      { name: 'a2', zone: 'a', disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] },
      node('b1', 'b'),
      node('c1', 'c'),
    ]);
    const p = plan(inv, { numberOfReplicas: 3, size: Size.gibibytes(10), replicaZoneSoftAntiAffinity: HARD });
    expect(new Set(p.replicas.map((r) => r.zone))).toEqual(new Set(['a', 'b', 'c']));
    expect(locations(p)).toContain('a2/sda');
    expect(p.warnings).toEqual([]);
  });
});

describe('capacity', () => {
  test('over-provisioning lets a disk take more than its size; a lower percentage refuses it', () => {
    const inv = inventory([{ name: 'n1', disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] }]);
    const big = { numberOfReplicas: 1, size: Size.gibibytes(150) };
    expect(plan(inv, { ...big, settings: { storageOverProvisioningPercentage: 200 } }).complete).toBe(true);
    expect(plan(inv, big).failure).toBe('replica 1 of 1 cannot be scheduled: no disk has room for another 150Gi replica: n1/sda has 0 ' +
      'scheduled; another 150Gi exceeds the 100Gi allowed (storage-over-provisioning-percentage 100% of capacity 100Gi minus reserved 0)');
  });

  test('reserved space comes off the over-provisioning limit', () => {
    const inv = inventory([{
      name: 'n1',
      disks: [{ name: 'sda', capacity: Size.gibibytes(100), reserved: Size.gibibytes(30) }],
    }]);
    expect(plan(inv, { numberOfReplicas: 1, size: Size.gibibytes(70) }).complete).toBe(true);
    expect(plan(inv, { numberOfReplicas: 1, size: Size.gibibytes(72) }).complete).toBe(false);
  });

  test('a disk at or below the minimal available percentage takes nothing, whatever the size', () => {
    const inv = inventory([{
      name: 'n1',
      disks: [{ name: 'sda', capacity: Size.gibibytes(100), available: Size.gibibytes(25) }],
    }]);
    const p = plan(inv, { numberOfReplicas: 1 });
    expect(p.failure).toContain('n1/sda has 25Gi free, at or below the minimal 25Gi (storage-minimal-available-percentage 25% of 100Gi)');
    expect(plan(inv, { numberOfReplicas: 1, settings: { storageMinimalAvailablePercentage: 20 } }).complete).toBe(true);
  });

  test('hard node level with a node out of room: the failure separates used nodes from full ones', () => {
    const inv = inventory([
      { name: 'n1', disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] },
      { name: 'n2', disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] },
      { name: 'n3', disks: [{ name: 'sda', capacity: Size.gibibytes(100), scheduled: Size.gibibytes(90) }] },
    ]);
    const p = plan(inv, { numberOfReplicas: 3, size: Size.gibibytes(20) });
    expect(p.failure).toBe('replica 3 of 3 cannot be scheduled: 3 replicas need 3 nodes without a replica of this volume (node ' +
      'anti-affinity is hard: the global replica-soft-anti-affinity=false); of the 3 nodes that could hold one, 2 already hold a ' +
      'replica and the other 1 have no room for a 20Gi replica: n3/sda has 90Gi scheduled; another 20Gi exceeds the 100Gi allowed ' +
      '(storage-over-provisioning-percentage 100% of capacity 100Gi minus reserved 0)');
  });

  test('sizes are rounded up to 2 MiB as Longhorn does', () => {
    const inv = inventory([{ name: 'n1', disks: [{ name: 'sda', capacity: Size.gibibytes(100) }] }]);
    const rounded = plan(inv, { numberOfReplicas: 1, size: Size.kibibytes(1000000 / 1024) }).replicaSize;
    expect(rounded).toBeInstanceOf(Size);
    expect(rounded.toKibibytes({ rounding: SizeRoundingBehavior.NONE })).toBe(2 * 1024);
    expect(plan(inv, { numberOfReplicas: 1, size: Size.mebibytes(4) }).replicaSize.toMebibytes()).toBe(4);
    expect(plan(inv, { numberOfReplicas: 1 }).replicaSize.toMebibytes()).toBe(0);
  });

  test("warns when Longhorn's counting of the volume's other replicas on the node would refuse a disk (longhorn#12653)", () => {
    const inv = inventory([{ name: 'n1', disks: ['a', 'b', 'c'].map((name) => ({ name, capacity: Size.gibibytes(100) })) }]);
    const p = plan(inv, {
      numberOfReplicas: 3,
      size: Size.gibibytes(60),
      replicaSoftAntiAffinity: SOFT,
      replicaDiskSoftAntiAffinity: HARD,
    });
    expect(p.complete).toBe(true);
    expect(p.warnings).toEqual([
      "replica 2: Longhorn also counts the replica of this volume on n1's other disks against n1/b (longhorn/longhorn#12653) and may " +
      'refuse it: in its view n1/b has 60Gi scheduled; another 60Gi exceeds the 100Gi allowed (storage-over-provisioning-percentage ' +
      '100% of capacity 100Gi minus reserved 0); give the disk room for 2 replicas or run a Longhorn release with the fix',
      expect.stringContaining("replica 3: Longhorn also counts the 2 replicas of this volume on n1's other disks against n1/c"),
    ]);
    const request: LonghornPlacementRequest = {
      numberOfReplicas: 3,
      size: Size.gibibytes(30),
      replicaSoftAntiAffinity: SOFT,
    };
    expect(plan(inv, request).warnings).toEqual([]);
  });
});

describe('eligibility', () => {
  const inv = inventory([
    {
      name: 'n1',
      tags: ['storage'],
      disks: [
        { name: 'ssd', capacity: Size.gibibytes(100), tags: ['fast'] },
        { name: 'hdd', capacity: Size.tebibytes(1) },
      ],
    },
    {
      name: 'n2',
      disks: [
        { name: 'ssd', capacity: Size.gibibytes(100), tags: ['fast'] },
        { name: 'nvme', capacity: Size.gibibytes(100), diskType: LonghornDiskType.BLOCK },
      ],
    },
  ]);

  test('selectors keep replicas on tagged nodes and disks', () => {
    expect(locations(plan(inv, { numberOfReplicas: 1, nodeSelector: ['storage'], diskSelector: ['fast'] }))).toEqual(['n1/ssd']);
    expect(locations(plan(inv, { numberOfReplicas: 2, diskSelector: ['fast'] }))).toEqual(['n1/ssd', 'n2/ssd']);
  });

  test('the v2 data engine uses block disks only', () => {
    expect(locations(plan(inv, { numberOfReplicas: 1, dataEngine: LonghornDataEngine.V2 }))).toEqual(['n2/nvme']);
  });

  test('with allow-empty-*-selector-volume false, a volume without selectors avoids tagged nodes and disks', () => {
    const p = plan(inv, {
      numberOfReplicas: 1,
      settings: { allowEmptyNodeSelectorVolume: false, allowEmptyDiskSelectorVolume: false },
    });
    expect(locations(p)).toEqual(['n2/nvme'].map(() => '-'));
    expect(p.failure).toBe('replica 1 of 1 cannot be scheduled: no disk can hold a replica of this volume: node(s) n1 are tagged and ' +
      'allow-empty-node-selector-volume is false; disk(s) n2/nvme are not filesystem disks, which the v1 data engine needs; ' +
      'disk(s) n2/ssd are tagged and allow-empty-disk-selector-volume is false');
  });

  test.each([
    [{ nodeSelector: ['gpu'] }, 'LonghornPlacement.plan: nodeSelector[0]="gpu" is a tag no node of the inventory has (node tags: storage): no replica could ever be scheduled'],
    [{ diskSelector: ['fast', 'nvme'] }, 'diskSelector[1]="nvme" is a tag no disk of the inventory has (disk tags: fast)'],
    [{ numberOfReplicas: 0 }, 'LonghornPlacement.plan: numberOfReplicas=0 must be an integer from 1 to 20'],
    [{ numberOfReplicas: 2, dataLocality: LonghornDataLocality.STRICT_LOCAL }, 'numberOfReplicas=2 must be 1 with dataLocality strict-local'],
    [{ existingReplicas: [{ node: 'n9', disk: 'ssd' }] }, 'existingReplicas[0]={"node":"n9","disk":"ssd"} is not a disk of the inventory'],
    [{ numberOfReplicas: 1, existingReplicas: [{ node: 'n1', disk: 'ssd' }, { node: 'n2', disk: 'ssd' }] }, 'lists 2 replicas but numberOfReplicas is 1'],
    [{ size: '1Gi' as any }, 'size="1Gi" must be a cdk8s Size'],
    [{ size: Size.kibibytes(0.1) }, 'size=[Size 0.1Ki] is not a whole number of bytes'],
  ])('refuses %j', (request, message) => {
    expect(() => plan(inv, request as LonghornPlacementRequest)).toThrow(message);
  });

  test('data locality best-effort is noted: the attached node is unknown at synth time', () => {
    const p = plan(inv, { numberOfReplicas: 1, dataLocality: LonghornDataLocality.BEST_EFFORT });
    expect(p.notes.join('\n')).toContain('ignores locality');
  });
});

test('replicas that cannot be placed after the first failure carry the same reason', () => {
  const inv = inventory([{ name: 'n1', disks: [{ name: 'sda', capacity: Size.gibibytes(10) }] }]);
  const p = plan(inv, { numberOfReplicas: 3 });
  expect(p.replicas.map((r) => r.scheduled)).toEqual([true, false, false]);
  expect(p.replicas[2].reason).toBe(`unschedulable: ${p.failure}`);
  expect(p.replicas[0].relaxed).toEqual([]);
  expect(Object.values(AntiAffinityLevel)).toEqual(['zone', 'node', 'disk']);
});
