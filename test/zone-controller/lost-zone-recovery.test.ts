/**
 * ZoneController's lostZoneRecovery and `ZoneController.recoverFromLostZone`: the feature's rights (read cluster-wide,
 * delete only in the opted-in StatefulSets' namespaces), the opt-in annotation, and every bad input refused.
 */
import { ApiObject, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { ZoneController } from '../../src';

const ANNOTATION = 'cdk8s-zones.dev/lost-zone-recovery';

function app(controllerProps = { zoneShift: true, lostZoneRecovery: true }) {
  const a = Testing.app();
  const platform = new Chart(a, 'platform');
  const chart = new Chart(a, 'db', { namespace: 'db' });
  const controller = new ZoneController(platform, 'controller', controllerProps);
  return { a, platform, chart, controller };
}

function statefulSet(chart: Chart, replicas = 3): kplus.StatefulSet {
  return new kplus.StatefulSet(chart, 'cache', {
    replicas,
    containers: [{ image: 'redis:7.4', portNumber: 6379 }],
  });
}

const rulesOf = (objects: any[], kind: string) => objects.filter((o) => o.kind === kind).flatMap((o) => o.rules);

describe('ZoneController with lostZoneRecovery', () => {
  test('runs the reconciler; reads cluster-wide, deletes pods and claims only where an opted-in StatefulSet is', () => {
    const { platform, chart, controller } = app();
    const sts = statefulSet(chart);
    ZoneController.recoverFromLostZone(sts, controller, 1);
    const objects = Testing.synth(platform);
    const args = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args.join(' ');
    expect(args).toMatch(/--reconcilers zone-annotator,zone-shift,lost-zone-recovery\b/);
    const cluster = rulesOf(objects, 'ClusterRole');
    const clusterVerbs = (resource: string) => cluster
      .filter((r: any) => r.resources.includes(resource))
      .flatMap((r: any) => r.verbs);
    for (const resource of ['statefulsets', 'persistentvolumes', 'persistentvolumeclaims']) {
      expect(clusterVerbs(resource).sort()).toEqual(['get', 'list', 'watch']);
    }
    expect(clusterVerbs('pods')).not.toContain('delete');
    expect(cluster.flatMap((r: any) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'db')!;
    const deletes = role.rules.filter((r: any) => r.verbs.includes('delete')).flatMap((r: any) => r.resources).sort();
    expect(deletes).toEqual(['persistentvolumeclaims', 'pods']);
    const leases = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'kube-node-lease')!;
    expect(leases.rules).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'watch'] }]);
    expect(Testing.synth(chart).find((o) => o.kind === 'StatefulSet')!.metadata.annotations).toEqual({ [ANNOTATION]: '1' });
  });

  test('the opt-in works on a raw StatefulSet too', () => {
    const { chart, controller } = app();
    const raw = new ApiObject(chart, 'raw', {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'raw', annotations: { keep: 'me' } }, spec: { replicas: 5 },
    });
    ZoneController.recoverFromLostZone(raw, controller, 2);
    expect(Testing.synth(chart)[0].metadata.annotations).toEqual({ keep: 'me', [ANNOTATION]: '2' });
  });

  test('needs zoneShift: a zone is declared lost by a ZoneShift', () => {
    expect(() => app({ zoneShift: false, lostZoneRecovery: true })).toThrow(
      "ZoneController 'platform/controller': lostZoneRecovery=true needs zoneShift: true (a zone is declared lost by a ZoneShift, " +
      'whose CRD and undoing the zonal shift brings)');
  });

  test('a controller without it, a Deployment, atOnce that is not a whole number or not below the replicas: refused', () => {
    const without = app({ zoneShift: true, lostZoneRecovery: false });
    expect(() => ZoneController.recoverFromLostZone(statefulSet(without.chart), without.controller, 1)).toThrow(
      'ZoneController.recoverFromLostZone: controller="ZoneController \'platform/controller\'" runs no lost-zone-recovery ' +
      '(lostZoneRecovery is off): a zone declared lost keeps its pods Pending there until a person deletes their claims. ' +
      'Turn lostZoneRecovery on for it');
    const { chart, controller } = app();
    const deployment = new kplus.Deployment(chart, 'web', { containers: [{ image: 'nginx:1.27' }] });
    expect(() => ZoneController.recoverFromLostZone(deployment, controller, 1)).toThrow(
      "ZoneController.recoverFromLostZone: statefulSet 'db/web' is a Deployment, not one of StatefulSet");
    expect(() => ZoneController.recoverFromLostZone(statefulSet(chart), controller, 1.5)).toThrow(/atOnce/);
    const { chart: c2, controller: k2 } = app();
    ZoneController.recoverFromLostZone(statefulSet(c2, 2), k2, 2);
    expect(() => Testing.synth(c2)).toThrow(
      "ZoneController.recoverFromLostZone 'db/cache': atOnce=2 cdk8s-zones.dev/lost-zone-recovery 2 must be below its replicas (2): " +
      'at least one replica must hold the data while the others come back empty');
  });

  test('JavaScript callers get the same checks', () => {
    const { chart, controller } = app();
    const sts = statefulSet(chart);
    expect(() => ZoneController.recoverFromLostZone(sts, controller, '1' as any)).toThrow(/atOnce/);
    expect(() => ZoneController.recoverFromLostZone(sts, {} as any, 1)).toThrow(/controller/);
    expect(() => ZoneController.recoverFromLostZone(undefined as any, controller, 1)).toThrow(/statefulSet/);
  });

  test('a controller installed by another app must serve the namespace', () => {
    const { chart } = app();
    const installed = ZoneController.fromInstalled({
      workloadNamespaces: ['other'], zoneShift: true, lostZoneRecovery: true,
    });
    expect(() => ZoneController.recoverFromLostZone(statefulSet(chart), installed, 1)).toThrow(/serves the namespaces other .* not db/);
  });
});

describe('a StatefulSet pinned to a zone (one of a zone group)', () => {
  const GROUP = 'cdk8s-zones.dev/zone-group';
  const IN_GROUP = { [GROUP]: 'ingester' };
  const requiredTerms = (json: any) =>
    json.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
  function pinned(chart: Chart, zone: string, annotations: Record<string, string> = IN_GROUP, how: 'affinity' | 'selector' = 'affinity') {
    const pin = { key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] };
    const required = { nodeSelectorTerms: [{ matchExpressions: [pin] }] };
    const placement = how === 'affinity'
      ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } }
      : { nodeSelector: { 'topology.kubernetes.io/zone': zone } };
    return new ApiObject(chart, `ingester-${zone}`, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: `ingester-${zone}`, annotations },
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'i' }], ...placement } } },
    });
  }

  test('gets its zone\'s stand-in term ORed with its own, once, and may bring all its pods back at once', () => {
    const { chart, controller } = app();
    const sts = pinned(chart, 'eu-west-1a');
    ZoneController.recoverFromLostZone(sts, controller, 2);
    ZoneController.recoverFromLostZone(sts, controller, 2); // twice: still one stand-in term
    const json = Testing.synth(chart)[0];
    expect(json.metadata.annotations).toEqual({ 'cdk8s-zones.dev/zone-group': 'ingester', [ANNOTATION]: '2' });
    expect(requiredTerms(json)).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] }] },
      { matchExpressions: [{ key: 'stand-in.cdk8s-zones.dev/eu-west-1a', operator: 'Exists' }] },
    ]);
  });

  test.each([
    ['no zone group', {}, 'affinity', 1,
      "ZoneController.recoverFromLostZone 'db/ingester-zone-a': statefulSet=\"ingester-zone-a\" its pods are pinned to zone zone-a and their " +
      "data lives on only in the other zones' StatefulSets of their zone group, but it names none"],
    ['a nodeSelector pin', { [GROUP]: 'ingester' }, 'selector', 1, 'its pods are pinned to zone zone-a by a nodeSelector, which a stand-in term cannot widen'],
    ['more at once than it has', { [GROUP]: 'ingester' }, 'affinity', 3, 'atOnce=3 cdk8s-zones.dev/lost-zone-recovery 3 must be at most its replicas (2)'],
  ] as const)('%s: refused at synth time, naming the StatefulSet and the rule', (_, annotations, how, atOnce, message) => {
    const { chart, controller } = app();
    ZoneController.recoverFromLostZone(pinned(chart, 'zone-a', annotations, how), controller, atOnce);
    expect(() => Testing.synth(chart)).toThrow(message);
  });
});
