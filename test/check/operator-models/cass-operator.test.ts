/**
 * cass-operator's CassandraDatacenter read through its model (rows/cass-operator.ts).
 */
import { allZones, check, errors, row, ZONE_KEY, ZONES } from './helpers';

describe('cass-operator CassandraDatacenter', () => {
  const dc = (spec: object) => ({
    apiVersion: 'cassandra.datastax.com/v1beta1',
    kind: 'CassandraDatacenter',
    metadata: { name: 'dc1', namespace: 'db' },
    spec: {
      clusterName: 'Prod_Cluster',
      serverType: 'cassandra',
      storageConfig: { cassandraDataVolumeClaimSpec: { storageClassName: 'ssd' } },
      ...spec,
    },
  });

  test('three racks, each pinned to a zone by nodeAffinityLabels: one replica of each token range per zone, survives any zone', () => {
    const racks = ZONES.map((z, i) => ({ name: `r${i + 1}`, nodeAffinityLabels: { [ZONE_KEY]: z } }));
    const r = check(dc({ size: 7, racks }));
    // 7 split 3/2/2 in rack order; names cleaned as the operator cleans them
    expect(r.workloads.filter((w) => w.kind === 'StatefulSet').map((w) => [w.name, w.replicas])).toEqual([
      ['prod-cluster-dc1-r1-sts', 3], ['prod-cluster-dc1-r2-sts', 2], ['prod-cluster-dc1-r3-sts', 2],
    ]);
    expect(row(r, 'CassandraDatacenter', 'dc1').survives).toEqual(allZones(true));
  });

  test('racks not pinned to zones: a zone may hold every rack, and all 3 replicas of a token range', () => {
    const r = check(dc({ size: 3, racks: [{ name: 'r1' }, { name: 'r2' }, { name: 'r3' }] }));
    expect(errors(row(r, 'CassandraDatacenter', 'dc1'))[0].message).toContain('may take 3 of an item\'s 3 copies');
  });

  test('no racks: one rack "default" holds every replica of a token range', () => {
    const r = check(dc({ size: 3 }));
    expect(r.workloads.map((w) => w.name)).toEqual(['prod-cluster-dc1-default-sts', 'dc1']);
    expect(row(r, 'CassandraDatacenter', 'dc1').survives).toEqual(allZones(false));
  });

  test('the required anti-affinity on the hostname keeps one Cassandra pod per node: 4 per zone on 3 nodes leave one Pending', () => {
    const racks = ZONES.map((z, i) => ({ name: `r${i + 1}`, nodeAffinityLabels: { [ZONE_KEY]: z } }));
    const r = check(dc({ size: 12, racks }));
    expect(row(r, 'StatefulSet', 'prod-cluster-dc1-r1-sts').pendingWorstCase).toBe(1);
    expect(row(check(dc({ size: 12, racks, allowMultipleNodesPerWorker: true })), 'StatefulSet', 'prod-cluster-dc1-r1-sts').pendingWorstCase).toBe(0);
  });

  test('spec.stopped scales every rack to 0; a size in the millions is counted, not built', () => {
    const stopped = check(dc({ size: 3, stopped: true }));
    expect(stopped.workloads.find((w) => w.kind === 'StatefulSet')!.replicas).toBe(0);
    const huge = check(dc({ size: 3_000_000, racks: [{ name: 'r1' }, { name: 'r2' }] }));
    expect(row(huge, 'StatefulSet', 'prod-cluster-dc1-r1-sts').replicas).toBe(1_500_000);
  });
});
