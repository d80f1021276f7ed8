import { Testing } from 'cdk8s';
import { ZoneInventory, ZoneReport } from 'cdk8s-zones';
import { MyChart } from './main';

describe('my zonal app', () => {
  const manifests = Testing.synth(new MyChart(Testing.app(), 'test-chart'));

  test('matches its snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('every workload is spread across the three zones and kept inside them', () => {
    const workloads = manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet');
    expect(workloads).toHaveLength(2);
    for (const w of workloads) {
      const pod = w.spec.template.spec;
      expect(pod.topologySpreadConstraints[0]).toMatchObject({ topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 3 });
      expect(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
        .toEqual([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a', 'zone-b', 'zone-c'] }] }]);
    }
  });
});

test('the app survives losing any one zone', () => {
  const chart = new MyChart(Testing.app(), 'test-chart');
  const report = ZoneReport.of(chart, ZoneInventory.equalNodes(['zone-a', 'zone-b', 'zone-c'], 3));
  expect(report.survivesLossOf('zone-a')).toBe(true);
  expect(report.survivesAnyZoneLoss()).toBe(true);
});
