import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
const { k8s } = kplus;
import { WhenUnsatisfiable, Zonal, ZoneInventory, ZoneLoss, ZoneReport, ZoneTopology } from '../../src';
import { only, synth, testChart } from '../util';

const zones = new ZoneTopology({ zones: ['a', 'b', 'c'] });
const container = { image: 'nginx', portNumber: 8080 };

function podSpec(manifest: any): any {
  return manifest.spec.template.spec;
}

describe('Zonal.spread on the synthesized YAML', () => {
  test.each([
    ['Deployment', (c: any) => new kplus.Deployment(c, 'w', { containers: [container] }), ['pod-template-hash']],
    ['StatefulSet', (c: any) => new kplus.StatefulSet(c, 'w', {
      containers: [container], service: new kplus.Service(c, 'svc', { ports: [{ port: 80 }] }),
    }), ['controller-revision-hash']],
    ['Job', (c: any) => new kplus.Job(c, 'w', { containers: [container] }), undefined],
  ])('%s gets a hard zone spread, a soft host spread and zone node affinity', (kind, make, revisionKeys) => {
    const chart = testChart();
    const workload = make(chart);
    Zonal.spread(workload, { topology: zones });
    const manifest = only(synth(chart), kind);
    const spec = podSpec(manifest);
    const selector = { matchLabels: manifest.spec.template.metadata.labels };
    expect(spec.topologySpreadConstraints).toEqual([
      {
        topologyKey: 'topology.kubernetes.io/zone',
        maxSkew: 1,
        whenUnsatisfiable: 'DoNotSchedule',
        minDomains: 3,
        labelSelector: selector,
        ...(revisionKeys ? { matchLabelKeys: revisionKeys } : {}),
      },
      {
        topologyKey: 'kubernetes.io/hostname',
        maxSkew: 1,
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: selector,
        ...(revisionKeys ? { matchLabelKeys: revisionKeys } : {}),
      },
    ]);
    expect(spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b', 'c'] }] },
    ]);
  });

  test('options reach the YAML; the host spread can be turned off; no zone restriction', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    Zonal.spread(d, {
      topology: zones, maxSkew: 2, minDomains: 2, matchLabelKeys: [], spreadAcrossHosts: false, restrictToZones: false,
    });
    const spec = podSpec(only(synth(chart), 'Deployment'));
    expect(spec.topologySpreadConstraints).toHaveLength(1);
    expect(spec.topologySpreadConstraints[0]).toMatchObject({ maxSkew: 2, minDomains: 2 });
    expect(spec.topologySpreadConstraints[0].matchLabelKeys).toBeUndefined();
    expect(spec.affinity).toBeUndefined();
  });

  test('a hard host spread with its own options', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    const hostSpread = { whenUnsatisfiable: WhenUnsatisfiable.DO_NOT_SCHEDULE, maxSkew: 3 };
    Zonal.spread(d, { topology: zones, hostSpread });
    const [, hosts] = podSpec(only(synth(chart), 'Deployment')).topologySpreadConstraints;
    expect(hosts).toMatchObject({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', maxSkew: 3 });
  });

  test('the region is required too when the topology has one', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    Zonal.spread(d, { topology: new ZoneTopology({ zones: ['a', 'b'], region: 'eu-1' }) });
    const nodeAffinity = podSpec(only(synth(chart), 'Deployment')).affinity.nodeAffinity;
    const terms = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
    expect(terms).toEqual([{
      matchExpressions: [
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] },
        { key: 'topology.kubernetes.io/region', operator: 'In', values: ['eu-1'] },
      ],
    }]);
  });

  test('other cdk8s-plus scheduling is kept (pod anti-affinity from separate())', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    const other = new kplus.Deployment(chart, 'o', { containers: [container] });
    d.scheduling.separate(other);
    Zonal.spread(d, { topology: zones });
    const spec = podSpec(only(synth(chart), 'Deployment', 'test-w'));
    expect(spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution).toHaveLength(1);
    expect(spec.topologySpreadConstraints).toHaveLength(2);
  });
});

describe('Zonal.pinToZone and spreadAcrossHosts', () => {
  test('pins with node affinity In [zone] and spreads over hosts inside it', () => {
    const chart = testChart();
    const service = new kplus.Service(chart, 's', { ports: [{ port: 80 }] });
    const d = new kplus.StatefulSet(chart, 'w', { containers: [container], service });
    Zonal.pinToZone(d, { topology: zones, zone: 'b' });
    Zonal.spreadAcrossHosts(d, { topology: zones });
    const spec = podSpec(only(synth(chart), 'StatefulSet'));
    expect(spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['b'] }] },
    ]);
    expect(spec.topologySpreadConstraints).toEqual([expect.objectContaining({
      topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', matchLabelKeys: ['controller-revision-hash'],
    })]);
  });
});

describe('bad input', () => {
  test('a workload whose selector does not match its pod labels', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container], select: false });
    d.select(kplus.LabelSelector.of({ labels: { app: 'web' } }));
    Zonal.spread(d, { topology: zones });
    expect(() => synth(chart))
      .toThrow(/^Zonal.spread\(Deployment 'test\/w'\): selector=\{"matchLabels":\{"app":"web"\}\} does not match the pod labels \{"cdk8s.io\/metadata.addr":"test-w-[0-9a-f]+"\}: the constraint would count other pods and never these$/);
  });

  test('a workload without any selector', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container], select: false });
    Zonal.spread(d, { topology: zones });
    expect(() => synth(chart)).toThrow(/^Zonal.spread\(Deployment 'test\/w'\): selector=\{\} is empty/);
  });

  test('the constraints select the pods as synthesized: labels and selector changed after spreading are followed', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container], select: false });
    d.podMetadata.addLabel('app', 'web');
    Zonal.spread(d, { topology: zones });
    d.select(kplus.LabelSelector.of({ labels: { app: 'web' } }));
    const spec = podSpec(only(synth(chart), 'Deployment'));
    expect(spec.topologySpreadConstraints.map((c: any) => c.labelSelector))
      .toEqual([{ matchLabels: { app: 'web' } }, { matchLabels: { app: 'web' } }]);
  });

  test('pod labels changed after spreading so that the selector misses them are caught at synth', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container], select: false });
    d.podMetadata.addLabel('app', 'web');
    d.select(kplus.LabelSelector.of({ labels: { app: 'web' } }));
    Zonal.spread(d, { topology: zones });
    d.podMetadata.addLabel('app', 'api');
    expect(() => synth(chart)).toThrow(/^Zonal.spread\(Deployment 'test\/w'\): selector=\{"matchLabels":\{"app":"web"\}\} does not match the pod labels \{"app":"api",/);
  });

  test('validation reads the workload\'s state: a synthesis renders the workload once', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    Zonal.spread(d, { topology: zones });
    const render = jest.spyOn(ApiObject.of(d), 'toJson');
    synth(chart);
    expect(render).toHaveBeenCalledTimes(1);
  });

  test('required node affinity added after Zonal (ORed terms) gets the zone requirement in every term', () => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    Zonal.spread(d, { topology: new ZoneTopology({ zones: ['a', 'b'], region: 'eu-1' }) });
    d.scheduling.attract(kplus.Node.labeled(kplus.NodeLabelQuery.is('disk', 'ssd')));
    d.scheduling.attract(kplus.Node.labeled(kplus.NodeLabelQuery.exists('gpu')));
    const zone = [
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] },
      { key: 'topology.kubernetes.io/region', operator: 'In', values: ['eu-1'] },
    ];
    const nodeAffinity = podSpec(only(synth(chart), 'Deployment')).affinity.nodeAffinity;
    expect(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }, ...zone] },
      { matchExpressions: [{ key: 'gpu', operator: 'Exists' }, ...zone] },
    ]);
  });

  test('a spread constraint of the workload\'s own on the same key and whenUnsatisfiable is refused at synth', () => {
    const chart = testChart();
    const d = new k8s.KubeDeployment(chart, 'w', {
      spec: {
        selector: { matchLabels: { app: 'w' } },
        template: {
          metadata: { labels: { app: 'w' } },
          spec: {
            containers: [{ name: 'c', image: 'nginx' }],
            topologySpreadConstraints: [{
              topologyKey: 'kubernetes.io/hostname',
              maxSkew: 1,
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: { app: 'w' } },
            }],
          },
        },
      },
    });
    Zonal.spread(d, { topology: zones });
    expect(() => synth(chart)).toThrow("Zonal.spread(Deployment 'test/w'): the workload already has a ScheduleAnyway spread constraint on kubernetes.io/hostname of its own");
  });

  test.each([
    [{ maxSkew: 0 }, "Zonal.spread(Deployment 'test/w'): maxSkew=0 must be an integer from 1 to 2147483647"],
    [{ whenUnsatisfiable: WhenUnsatisfiable.SCHEDULE_ANYWAY, minDomains: 3 }, 'minDomains=3 is only allowed with whenUnsatisfiable=DoNotSchedule'],
    [{ minDomains: 5 }, 'minDomains=5 exceeds the 3 zone(s) of the topology'],
    [{ spreadAcrossHosts: false, hostSpread: { maxSkew: 2 } }, 'hostSpread={"maxSkew":2} is set but spreadAcrossHosts is false'],
  ])('options %j', (options, message) => {
    const chart = testChart();
    const d = new kplus.Deployment(chart, 'w', { containers: [container] });
    expect(() => Zonal.spread(d, { topology: zones, ...options })).toThrow(message);
  });

  test('spreading twice, pinning a spread workload, spreading a pinned one', () => {
    const chart = testChart();
    const spread = new kplus.Deployment(chart, 's', { containers: [container] });
    Zonal.spread(spread, { topology: zones });
    expect(() => Zonal.spread(spread, { topology: zones })).toThrow('already spread across zones; call Zonal.spread once per workload');
    expect(() => Zonal.pinToZone(spread, { topology: zones, zone: 'a' })).toThrow('it cannot also be pinned to "a"');
    expect(() => Zonal.spreadAcrossHosts(spread, { topology: zones })).toThrow('already has a ScheduleAnyway spread constraint on kubernetes.io/hostname');
    const hostsOnly = new kplus.Deployment(chart, 'h', { containers: [container] });
    expect(() => Zonal.spreadAcrossHosts(hostsOnly, { topology: zones, restrictToZones: false })).toThrow(
      'options.restrictToZones=false is an option of Zonal.spread: Zonal.spreadAcrossHosts spreads over hosts only');

    const pinned = new kplus.Deployment(chart, 'p', { containers: [container] });
    Zonal.pinToZone(pinned, { topology: zones, zone: 'a' });
    expect(() => Zonal.spread(pinned, { topology: zones })).toThrow('is pinned to zone "a" by Zonal.pinToZone');
    expect(() => Zonal.pinToZone(pinned, { topology: zones, zone: 'b' })).toThrow('already pinned to zone "a"');
    const unpinned = new kplus.Deployment(chart, 'q', { containers: [container] });
    expect(() => Zonal.pinToZone(unpinned, { topology: zones, zone: 'x' }))
      .toThrow("Zonal.pinToZone(Deployment 'test/q'): zone=\"x\" is not one of the topology's zones [a, b, c]");
  });

  test('a DaemonSet is refused with the reason', () => {
    const chart = testChart();
    const ds = new kplus.DaemonSet(chart, 'd', { containers: [container] });
    expect(() => Zonal.spread(ds, { topology: zones }))
      .toThrow("Zonal.spread: workload 'test/d' is a DaemonSet, not one of Deployment, StatefulSet, Job (a DaemonSet already runs one pod on every node)");
  });
});

describe('Zonal.spread with one zone out of service, as the zone check judges the synthesized YAML', () => {
  // a zone out of service: lost, or shifted (its nodes tainted); 6 replicas, 2 per zone, 2 nodes per zone
  const replacementsPending = (kubernetesVersion?: string) => {
    const chart = testChart();
    const web = new kplus.Deployment(chart, 'web', { replicas: 6, containers: [container] });
    Zonal.spread(web, { topology: new ZoneTopology({ zones: ['a', 'b', 'c'], kubernetesVersion }) });
    const report = ZoneReport.analyze(synth(chart), ZoneInventory.equalNodes(['a', 'b', 'c'], 2));
    return only(report.workloads, 'Deployment').zoneLoss.map((l: ZoneLoss) => l.replacementsPending);
  };

  test('Kubernetes 1.33 and newer (Honor, minDomains 2): the other zones take every replacement', () => {
    expect(replacementsPending('1.33')).toEqual([0, 0, 0]);
    expect(replacementsPending('1.35')).toEqual([0, 0, 0]);
  });

  test('older or unknown (every node counts, minDomains 3): the lost zone\'s replacements wait for it', () => {
    expect(replacementsPending('1.32')).toEqual([2, 2, 2]);
    expect(replacementsPending()).toEqual([2, 2, 2]);
  });
});
