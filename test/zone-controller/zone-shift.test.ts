/** The zonal shift in ZoneController: the feature (CRD, cluster-wide rights) and a workload's readiness gate. */
import { ApiObject, Chart, JsonPatch, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { IZoneController, Zonal, ZoneController, ZoneTopology } from '../../src';
import { ZoneAnnotation } from '../../src/contract/zone-annotation';
import { pinnedZone } from '../../src/kubernetes/pinned-zone';
import { warningsOf } from '../../src/shared/warnings';

const GATE = 'cdk8s-zones.dev/zone-in-service';

function app() {
  const a = Testing.app();
  const platform = new Chart(a, 'platform');
  const chart = new Chart(a, 'shop', { namespace: 'shop' });
  return { a, platform, chart };
}

describe('ZoneController with zoneShift', () => {
  test('emits the ZoneShift CRD, runs the reconciler, and grants the cluster-wide rights the shift needs, no more', () => {
    const { platform } = app();
    new ZoneController(platform, 'controller', { zoneShift: true });
    const objects = Testing.synth(platform);
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual(['zoneshifts.cdk8s-zones.dev']);
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    expect(deployment.spec.template.spec.containers[0].args.join(' ')).toMatch(/--reconcilers zone-annotator,zone-shift\b/);
    const rules = objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules);
    const verbsOn = (resource: string) => rules
      .filter((r: any) => r.resources.includes(resource))
      .flatMap((r: any) => r.verbs)
      .sort();
    expect(verbsOn('zoneshifts')).toEqual(['get', 'list', 'patch', 'watch']);
    expect(verbsOn('zoneshifts/status')).toEqual(['get', 'patch', 'update']);
    expect(verbsOn('nodes')).toEqual(['get', 'list', 'patch', 'watch']);
    expect(verbsOn('pods/status')).toEqual(['patch']);
    expect(rules.flatMap((r: any) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
  });

  test('zoneShiftKarpenterNodePools: the flag and the rights on Karpenter\'s NodePools, and only with it', () => {
    const { platform } = app();
    new ZoneController(platform, 'controller', { zoneShift: true, zoneShiftKarpenterNodePools: true });
    const objects = Testing.synth(platform);
    const args = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args;
    expect(args).toContain('--shift-karpenter-node-pools');
    const rules = objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules);
    expect(rules.filter((r: any) => r.resources.includes('nodepools')))
      .toEqual([{ apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: ['get', 'list', 'watch', 'patch'] }]);
    const { platform: p2 } = app();
    new ZoneController(p2, 'controller', { zoneShift: true });
    expect(JSON.stringify(Testing.synth(p2))).not.toContain('nodepools');
    expect(() => new ZoneController(app().platform, 'c', { zoneShiftKarpenterNodePools: true })).toThrow(
      "ZoneController 'platform/c': zoneShiftKarpenterNodePools=true needs zoneShift: true (the zonal shift is what changes the NodePools)");
  });

  test('without it: no CRD, no right on nodes beyond reading, none on pods\' status', () => {
    const { platform } = app();
    new ZoneController(platform, 'controller', {});
    const objects = Testing.synth(platform);
    const rules = objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules);
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition')).toEqual([]);
    expect(rules.filter((r: any) => r.resources.includes('nodes')).flatMap((r: any) => r.verbs)).not.toContain('patch');
    expect(rules.filter((r: any) => r.resources.includes('pods/status'))).toEqual([]);
  });
});

describe('ZoneController.addZoneShiftGate', () => {
  test('a cdk8s-plus Deployment\'s pods name the gate and opt in to the zone annotator, beside their own gates and labels', () => {
    const { platform, chart } = app();
    const controller = new ZoneController(platform, 'controller', { zoneShift: true });
    const web = new kplus.Deployment(chart, 'web', { containers: [{ image: 'web:1', portNumber: 8080 }] });
    ZoneController.addZoneShiftGate(web, controller);
    ApiObject.of(web).addJsonPatch(JsonPatch.add('/spec/template/spec/readinessGates', [{ conditionType: 'example.com/warm' }]));
    const rendered = Testing.synth(chart).find((o) => o.kind === 'Deployment')!;
    expect(rendered.spec.template.spec.readinessGates).toEqual([{ conditionType: 'example.com/warm' }, { conditionType: GATE }]);
    expect(rendered.spec.template.metadata.labels).toMatchObject({
      [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE,
      'cdk8s.io/metadata.addr': expect.any(String),
    });
  });

  test('a workload pinned to one zone, or of one replica: the synth says a shift of its zone keeps it in service', () => {
    const { platform, chart } = app();
    const controller = new ZoneController(platform, 'controller', { zoneShift: true });
    const topology = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });
    const pinned = new kplus.Deployment(chart, 'pinned', { replicas: 2, containers: [{ image: 'web:1', portNumber: 8080 }] });
    Zonal.pinToZone(pinned, { topology, zone: 'zone-a' });
    ZoneController.addZoneShiftGate(pinned, controller);
    const single = new kplus.Deployment(chart, 'single', { replicas: 1, containers: [{ image: 'web:1', portNumber: 8080 }] });
    ZoneController.addZoneShiftGate(single, controller);
    const spread = new kplus.Deployment(chart, 'spread', { replicas: 3, containers: [{ image: 'web:1', portNumber: 8080 }] });
    Zonal.spread(spread, { topology });
    ZoneController.addZoneShiftGate(spread, controller);
    Testing.synth(chart);
    Testing.synth(chart);
    expect(warningsOf(chart)).toEqual([
      expect.stringMatching(/^shop\/pinned: ZoneController.addZoneShiftGate: its pods are pinned to zone zone-a, so a shift of its zone keeps its pods in service/),
      expect.stringMatching(/^shop\/single: ZoneController.addZoneShiftGate: it runs 1 replica, so a shift of its zone keeps its pods in service/),
    ]);
  });

  test('twice: one gate', () => {
    const { platform, chart } = app();
    const controller = new ZoneController(platform, 'controller', { zoneShift: true });
    const db = new kplus.StatefulSet(chart, 'db', { containers: [{ image: 'db:1', portNumber: 5432 }] });
    ZoneController.addZoneShiftGate(db, controller);
    ZoneController.addZoneShiftGate(db, controller);
    const statefulSet = Testing.synth(chart).find((o) => o.kind === 'StatefulSet')!;
    expect(statefulSet.spec.template.spec.readinessGates).toEqual([{ conditionType: GATE }]);
  });

  test('a controller without the zone annotator or the zonal shift: refused, since the pods would never be Ready', () => {
    const { platform, chart } = app();
    const web = new kplus.Deployment(chart, 'web', { containers: [{ image: 'web:1' }] });
    expect(() => ZoneController.addZoneShiftGate(web, new ZoneController(platform, 'plain', {}))).toThrow(
      "ZoneController.addZoneShiftGate: controller=\"ZoneController 'platform/plain'\" must run zone-shift (zoneShift: true): it sets the gate's condition, " +
      'without which the pods never become Ready');
    const withoutAnnotator = ZoneController.fromInstalled({
      workloadNamespaces: ['shop'],
      zoneAnnotator: false,
      zoneShift: true,
    });
    expect(() => ZoneController.addZoneShiftGate(web, withoutAnnotator))
      .toThrow(/must run zone-annotator \(zoneAnnotator: true\):/);
  });

  test('bad input from JavaScript: no controller, not a workload, a Job', () => {
    const { platform, chart } = app();
    const controller = new ZoneController(platform, 'controller', { zoneShift: true });
    const web = new kplus.Deployment(chart, 'web', { containers: [{ image: 'web:1' }] });
    expect(() => ZoneController.addZoneShiftGate(web, undefined as unknown as IZoneController))
      .toThrow('ZoneController.addZoneShiftGate: controller=undefined is required: a ZoneController of this app, or ZoneController.fromInstalled(...)');
    expect(() => ZoneController.addZoneShiftGate({} as any, controller)).toThrow(/ZoneController.addZoneShiftGate: workload=\{\} must be/);
    const job = new kplus.Job(chart, 'job', { containers: [{ image: 'job:1' }] });
    expect(() => ZoneController.addZoneShiftGate(job, controller)).toThrow(/workload 'shop\/job' is a Job, not one of Deployment, StatefulSet, DaemonSet, ReplicaSet/);
  });
});

describe('pinnedZone: the one zone a pod template confines its pods to', () => {
  const term = (...values: string[]) => ({ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values }] });
  const affinity = (...terms: object[]) => ({
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
  });

  test.each([
    ['a zone nodeSelector', { nodeSelector: { 'topology.kubernetes.io/zone': 'a' } }, 'a'],
    ['the legacy zone label', { nodeSelector: { 'failure-domain.beta.kubernetes.io/zone': 'b' } }, 'b'],
    ['one required term of one zone', affinity(term('a')), 'a'],
    ['two terms of the same zone', affinity(term('a'), term('a')), 'a'],
    ['terms of two zones', affinity(term('a'), term('b')), undefined],
    ['one term of two zones', affinity(term('a', 'b')), undefined],
    ['a term without a zone (any zone)', affinity(term('a'), { matchExpressions: [{ key: 'disk', operator: 'Exists' }] }), undefined],
    ['nothing', {}, undefined],
  ])('%s', (_, podSpec, zone) => {
    expect(pinnedZone(podSpec)).toBe(zone);
  });
});
