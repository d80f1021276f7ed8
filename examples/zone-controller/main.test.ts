import { Testing } from 'cdk8s';
import { build } from './main';
import { ZoneAnnotation, ZoneController } from '../../src';

describe('example zone-controller', () => {
  const app = Testing.app();
  build(app);
  const manifests = app.charts.flatMap((chart) => Testing.synth(chart));
  const workload = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'zone-aware-app');

  test('snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });

  test('the app opts in, projects the zone annotation into a file and waits for it with the controller image', () => {
    const spec = workload.spec.template.spec;
    expect(workload.spec.template.metadata.labels[ZoneAnnotation.OPT_IN_LABEL]).toBe('enabled');
    expect(spec.volumes[0].downwardAPI.items).toEqual([{ path: 'zone', fieldRef: { fieldPath: "metadata.annotations['cdk8s-zones.dev/zone']" } }]);
    expect(spec.initContainers[0]).toMatchObject({
      image: ZoneController.DEFAULT_IMAGE,
      command: ['cdk8s-zones-controller', 'wait-for-zone', '--file', '/etc/zone/zone', '--timeout', '300'],
    });
  });

  test('the controller runs every reconciler with leader election in its own namespace, and serves the eviction webhook', () => {
    const controller = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'cdk8s-zones-controller');
    expect(controller.metadata.namespace).toBe('cdk8s-zones-system');
    expect(controller.spec.template.spec.containers[0].args.slice(0, 4))
      .toEqual(['run', '--reconcilers', 'zone-annotator,zone-aware-update,zone-disruption-budget', '--leader-elect']);
    expect(manifests.filter((m) => m.kind === 'CustomResourceDefinition').map((m) => m.metadata.name))
      .toEqual(['zoneawareupdates.cdk8s-zones.dev', 'zonedisruptionbudgets.cdk8s-zones.dev']);
    const webhook = manifests.find((m) => m.kind === 'ValidatingWebhookConfiguration').webhooks[0];
    expect(webhook.rules[0].resources).toEqual(['pods/eviction']);
  });

  test('the StatefulSet is rolled by the controller, zone by zone, and its evictions are budgeted per zone', () => {
    const store = manifests.find((m) => m.kind === 'StatefulSet');
    expect(store.spec.updateStrategy.type).toBe('OnDelete');
    const rollout = manifests.find((m) => m.kind === 'ZoneAwareUpdate');
    expect(rollout.spec).toMatchObject({ statefulset: store.metadata.name, maxUnavailable: 2 });
    const budget = manifests.find((m) => m.kind === 'ZoneDisruptionBudget');
    expect(budget.spec.selector.matchLabels).toEqual(store.spec.selector.matchLabels);
  });
});
