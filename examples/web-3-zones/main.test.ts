import { Testing } from 'cdk8s';
import { build } from './main';

describe('example web-3-zones', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('the Deployment spreads over the three zones, hard, counting only the current revision', () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment');
    const spec = deployment.spec.template.spec;
    const [zones, hosts] = spec.topologySpreadConstraints;
    expect(zones).toMatchObject({
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
      maxSkew: 1,
      minDomains: 3,
      matchLabelKeys: ['pod-template-hash'],
    });
    expect(hosts).toMatchObject({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' });
    expect(zones.labelSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    const required = spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    expect(required.nodeSelectorTerms[0].matchExpressions)
      .toEqual([{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a', 'zone-b', 'zone-c'] }]);
  });

  test('the pods meet Pod Security "restricted"', () => {
    const spec = manifests.find((m) => m.kind === 'Deployment').spec.template.spec;
    expect(spec.securityContext.runAsNonRoot).toBe(true);
    for (const c of spec.containers) {
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' }, runAsNonRoot: true,
      });
    }
  });
});
