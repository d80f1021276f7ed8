import { Testing } from 'cdk8s';
import { ZoneAnnotation, ZoneController } from '../../src';
import { build } from './main';

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

  test('the controller runs the annotator with leader election in its own namespace', () => {
    const controller = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'cdk8s-zones-controller');
    expect(controller.metadata.namespace).toBe('cdk8s-zones-system');
    expect(controller.spec.template.spec.containers[0].args.slice(0, 4)).toEqual(['run', '--reconcilers', 'zone-annotator', '--leader-elect']);
  });
});
