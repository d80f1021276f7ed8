import { Size } from 'cdk8s';
import { HARD, SOFT, inventory, locations, plan } from './planner-fixtures';
import { LonghornReplicaAutoBalance } from '../../src';

describe('the seed: disk anti-affinity on one node with several disks (Longhorn LEP 20230718)', () => {
  // One disk has far more free space: without disk anti-affinity, the old scheduler put two replicas on it.
  const oneNode = inventory([{
    name: 'n1',
    disks: [
      { name: 'big', capacity: Size.tebibytes(2) },
      { name: 'sdb', capacity: Size.gibibytes(200) },
      { name: 'sdc', capacity: Size.gibibytes(200) },
    ],
  }]);

  test('replicas = disks with disk anti-affinity soft: one replica per disk, even with one much larger disk', () => {
    const p = plan(oneNode, {
      numberOfReplicas: 3,
      size: Size.gibibytes(10),
      replicaSoftAntiAffinity: SOFT,
      replicaDiskSoftAntiAffinity: SOFT,
    });
    expect(p.complete).toBe(true);
    expect(locations(p)).toEqual(['n1/big', 'n1/sdb', 'n1/sdc']);
    expect(p.replicas.map((r) => r.relaxed)).toEqual([[], ['zone', 'node'], ['zone', 'node']]);
    expect(p.warnings).toEqual([]);
  });

  test('replicas = disks + 1 with disk anti-affinity hard: one replica is unschedulable, and the failure names the disk level', () => {
    const p = plan(oneNode, {
      numberOfReplicas: 4,
      size: Size.gibibytes(10),
      replicaSoftAntiAffinity: SOFT,
      replicaDiskSoftAntiAffinity: HARD,
    });
    expect(p.complete).toBe(false);
    expect(locations(p)).toEqual(['n1/big', 'n1/sdb', 'n1/sdc', '-']);
    expect(p.failure).toBe('replica 4 of 4 cannot be scheduled: 4 replicas need 4 disks without a replica of this volume ' +
      '(disk anti-affinity is hard: replicaDiskSoftAntiAffinity=disabled); node n1 has 3 disks; ' +
      'set replicaDiskSoftAntiAffinity to ENABLED to let replicas share a disk, lower numberOfReplicas, or add disks');
  });

  test('replicas = disks + 1 with disk anti-affinity soft: all scheduled, two share a disk, and that is a warning', () => {
    const p = plan(oneNode, { numberOfReplicas: 4, size: Size.gibibytes(10), replicaSoftAntiAffinity: SOFT });
    expect(p.complete).toBe(true);
    expect(locations(p)).toEqual(['n1/big', 'n1/sdb', 'n1/sdc', 'n1/big']);
    expect(p.replicas[3].relaxed).toEqual(['zone', 'node', 'disk']);
    expect(p.warnings).toEqual(['degraded placement: disk n1/big holds replicas 1, 4 (disk anti-affinity is soft: ' +
      'the global replica-disk-soft-anti-affinity=true); losing that disk loses 2 of 4 replicas']);
    // A single node (and no zone) cannot be avoided: noted, not warned.
    expect(p.notes).toContain('node n1 holds replicas 1, 2, 3, 4: the inventory has 1 node for this volume, so sharing it is unavoidable');
    expect(p.notes).toContain('no node has a zone label: Longhorn counts all nodes as one zone');
  });

  test("Longhorn's default (node anti-affinity hard) fails on one node, and says it is the node level", () => {
    const p = plan(oneNode, { numberOfReplicas: 3, size: Size.gibibytes(10) });
    expect(p.failure).toBe('replica 2 of 3 cannot be scheduled: 3 replicas need 3 nodes without a replica of this volume ' +
      '(node anti-affinity is hard: the global replica-soft-anti-affinity=false); only 1 node has a disk that can hold a replica: n1; ' +
      'set replicaSoftAntiAffinity to ENABLED to let replicas share a node, lower numberOfReplicas, or add nodes');
    expect(locations(p)).toEqual(['n1/big', '-', '-']);
  });
});

describe("node and zone combinations of Longhorn's scheduler tests (in our words)", () => {
  /** Decimal sizes, as a disk's status reports them (5 GB, 3 GB free). */
  const gb = (n: number) => Size.kibibytes(n * 1e9 / 1024);
  const disk5g = (name: string, extra: object = {}) => ({ name, capacity: gb(5), available: gb(3), ...extra });

  test('only one of three nodes may be scheduled to: both replicas go to it (node soft)', () => {
    const inv = inventory([
      { name: 'n1', zone: 'z1', disks: [disk5g('d1')] },
      { name: 'n2', zone: 'z1', allowScheduling: false, disks: [disk5g('d1')] },
      { name: 'n3', zone: 'z1', allowScheduling: false, disks: [disk5g('d1')] },
    ]);
    const p = plan(inv, { numberOfReplicas: 2, size: Size.gibibytes(1), replicaSoftAntiAffinity: SOFT });
    expect(locations(p)).toEqual(['n1/d1', 'n1/d1']);
  });

  test('nodes without disks: the first replica is unschedulable, and the failure says why', () => {
    const inv = inventory([{ name: 'n1', zone: 'z1', disks: [] }, { name: 'n2', zone: 'z1', disks: [] }]);
    const p = plan(inv, { numberOfReplicas: 2, size: Size.gibibytes(1) });
    expect(locations(p)).toEqual(['-', '-']);
    expect(p.failure).toBe('replica 1 of 2 cannot be scheduled: no disk can hold a replica of this volume: node(s) n1, n2 have no disk');
  });

  test('replicas go to different nodes, skipping a fully reserved disk and a disk closed to scheduling', () => {
    const inv = inventory([
      { name: 'n1', zone: 'z1', disks: [disk5g('d1'), disk5g('d2', { reserved: gb(5) })] },
      { name: 'n2', zone: 'z1', disks: [disk5g('d1'), disk5g('d2', { allowScheduling: false })] },
    ]);
    const p = plan(inv, { numberOfReplicas: 2, size: Size.gibibytes(1) });
    expect(locations(p)).toEqual(['n1/d1', 'n2/d1']);
    expect(p.replicas[1].relaxed).toEqual(['zone']);
  });

  test('no disk passes the capacity checks (over-provisioning 0%, minimal available 100%)', () => {
    const inv = inventory([
      { name: 'n1', zone: 'z1', disks: [disk5g('d1')] },
      { name: 'n2', zone: 'z1', disks: [disk5g('d1'), disk5g('d2')] },
    ]);
    const p = plan(inv, {
      numberOfReplicas: 2,
      size: Size.gibibytes(1),
      settings: { storageOverProvisioningPercentage: 0, storageMinimalAvailablePercentage: 100 },
    });
    expect(locations(p)).toEqual(['-', '-']);
    expect(p.failure).toBe('replica 1 of 2 cannot be scheduled: no disk has room for another 1Gi replica: ' +
      ['n1/d1', 'n2/d1', 'n2/d2'].map((d) => `${d} has 3G free, at or below the minimal 5G (storage-minimal-available-percentage 100% of 5G)`).join(', '));
  });

  test('each replica goes to the disk with the most usable space on its node', () => {
    const inv = inventory([
      { name: 'n1', zone: 'z1', disks: [disk5g('d1'), disk5g('d2', { available: gb(1.5) })] },
      { name: 'n2', zone: 'z1', disks: [disk5g('d1', { available: gb(1.5) }), disk5g('d2')] },
    ]);
    expect(locations(plan(inv, { numberOfReplicas: 2, size: Size.gibibytes(1) }))).toEqual(['n1/d1', 'n2/d2']);
  });

  test('a second replica on the same node takes the other disk even when the first has more free space (node soft)', () => {
    const inv = inventory([{
      name: 'n1',
      zone: 'z1',
      disks: [disk5g('d1', { available: gb(5) }), disk5g('d2', { available: gb(1.5) })],
    }]);
    const p = plan(inv, { numberOfReplicas: 2, size: Size.gibibytes(1), replicaSoftAntiAffinity: SOFT });
    expect(locations(p)).toEqual(['n1/d1', 'n1/d2']);
  });

  test('disk anti-affinity hard on a node with one disk: the second replica is unschedulable', () => {
    const inv = inventory([{ name: 'n1', zone: 'z1', disks: [disk5g('d1')] }]);
    const p = plan(inv, {
      numberOfReplicas: 2,
      size: Size.gibibytes(1),
      replicaSoftAntiAffinity: SOFT,
      replicaDiskSoftAntiAffinity: HARD,
    });
    expect(locations(p)).toEqual(['n1/d1', '-']);
    expect(p.failure).toContain('2 replicas need 2 disks without a replica of this volume (disk anti-affinity is hard: ' +
      'replicaDiskSoftAntiAffinity=disabled); node n1 has 1 disk');
  });

  test('zone anti-affinity hard with two nodes in one zone: the second replica is unschedulable even with node soft', () => {
    const inv = inventory([{ name: 'n1', zone: 'z1', disks: [disk5g('d1')] }, { name: 'n2', zone: 'z1', disks: [disk5g('d1')] }]);
    const p = plan(inv, {
      numberOfReplicas: 2,
      size: Size.gibibytes(1),
      replicaSoftAntiAffinity: SOFT,
      replicaZoneSoftAntiAffinity: HARD,
    });
    expect(p.replicas[1].scheduled).toBe(false);
    expect(p.failure).toContain('2 replicas need 2 zones without a replica of this volume (zone anti-affinity is hard: ' +
      'replicaZoneSoftAntiAffinity=disabled); only 1 zone has a disk that can hold a replica: z1; set replicaZoneSoftAntiAffinity to ENABLED');
  });

  test('with a replica already on n1, node and disk hard and zone soft: the new one takes the roomier disk of n2', () => {
    const inv = inventory([
      { name: 'n1', zone: 'z1', disks: [disk5g('d1', { scheduled: Size.gibibytes(1) }), disk5g('d2')] },
      { name: 'n2', zone: 'z1', disks: [disk5g('d1', { available: gb(1.4) }), disk5g('d2', { available: gb(1.5) })] },
    ]);
    const p = plan(inv, {
      numberOfReplicas: 2,
      size: Size.gibibytes(1),
      existingReplicas: [{ node: 'n1', disk: 'd1' }],
      replicaSoftAntiAffinity: HARD,
      replicaDiskSoftAntiAffinity: HARD,
      replicaZoneSoftAntiAffinity: SOFT,
      // Best-effort auto-balance is what exposed a scheduler bug upstream; the plan stays on n2.
      replicaAutoBalance: LonghornReplicaAutoBalance.BEST_EFFORT,
    });
    expect(locations(p)).toEqual(['n1/d1', 'n2/d2']);
    expect(p.replicas[0]).toMatchObject({ existing: true, reason: 'already there' });
    expect(p.warnings.join('\n')).toContain('longhorn/longhorn#11189');
  });

  describe('disks that already hold a replica of the volume', () => {
    const twoNodes = inventory([{ name: 'n1', disks: [disk5g('d1')] }, { name: 'n2', disks: [disk5g('d2')] }]);
    const both = [{ node: 'n1', disk: 'd1' }, { node: 'n2', disk: 'd2' }];
    const all = { replicaSoftAntiAffinity: SOFT, size: Size.gibibytes(1), existingReplicas: both, numberOfReplicas: 3 };

    test('disk anti-affinity hard and every disk used: unschedulable', () => {
      expect(locations(plan(twoNodes, { ...all, replicaDiskSoftAntiAffinity: HARD }))).toEqual(['n1/d1', 'n2/d2', '-']);
    });

    test('disk anti-affinity soft and every disk used: any disk may take it', () => {
      const p = plan(twoNodes, { ...all, replicaDiskSoftAntiAffinity: SOFT });
      expect(locations(p)).toEqual(['n1/d1', 'n2/d2', 'n1/d1']);
      expect(p.replicas[2].relaxed).toEqual(['zone', 'node', 'disk']);
    });

    test('only the disk without a replica is a candidate, however much room the others have', () => {
      const inv = inventory([
        { name: 'n1', disks: [disk5g('d1', { available: gb(5) })] },
        {
          name: 'n2',
          disks: ['d2', 'd3', 'd4'].map((d) => disk5g(d, { available: gb(5) })).concat(disk5g('d5', { available: gb(2) })),
        },
      ]);
      const p = plan(inv, {
        ...all,
        numberOfReplicas: 5,
        replicaDiskSoftAntiAffinity: SOFT,
        existingReplicas: [
          { node: 'n1', disk: 'd1' },
          { node: 'n2', disk: 'd2' },
          { node: 'n2', disk: 'd3' },
          { node: 'n2', disk: 'd4' },
        ],
      });
      expect(locations(p)[4]).toBe('n2/d5');
      expect(p.replicas[4].relaxed).toEqual(['zone', 'node']);
    });
  });
});
