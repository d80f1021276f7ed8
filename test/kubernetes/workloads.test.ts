/**
 * Every API that takes a workload accepts the ones users have: cdk8s-plus-28 (the library's own), cdk8s-plus-33
 * (what `cdk8s init` installs today; a dev dependency here, so these calls are type-checked against it) and raw
 * `k8s.Kube*` objects, and refuses anything else with the construct, the prop and the rule.
 */
import { ApiObject, JsonPatch } from 'cdk8s';
import * as plus28 from 'cdk8s-plus-28';
import * as plus33 from 'cdk8s-plus-33';
import { Construct } from 'constructs';
import { RolloutTarget, ZoneAwareUpdate, ZoneDisruptionBudget, Zonal, ZoneTopology } from '../../src';
import { INSTALLED_CONTROLLER, only, SERVED_NAMESPACE, synth, testChart } from '../util';

const zones = new ZoneTopology({ zones: ['a', 'b', 'c'] });
/**
 * The controller that acts on these resources runs outside the test apps (the wiring itself:
 * test/zone-controller/requirements.test.ts).
 */
const elsewhere = { controller: INSTALLED_CONTROLLER };
const container = { image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', portNumber: 8080 };
type Kind = 'Deployment' | 'StatefulSet' | 'Job';

/** A raw pod template with labels `app: <id>`, as a user writes one with `k8s.Kube*`. */
const rawSpec = (id: string, extra: any = {}) => ({
  selector: { matchLabels: { app: id } },
  template: { metadata: { labels: { app: id } }, spec: { containers: [{ name: 'main', image: container.image }] } },
  ...extra,
});

/** Makers of each kind, per flavour of workload. */
const FLAVOURS: { [flavour: string]: (scope: Construct, id: string, kind: Kind) => Construct } = {
  'cdk8s-plus-28': (scope, id, kind) => {
    if (kind === 'Deployment') return new plus28.Deployment(scope, id, { containers: [container] });
    if (kind === 'Job') return new plus28.Job(scope, id, { containers: [container] });
    const service = new plus28.Service(scope, `${id}-svc`, { ports: [{ port: 80 }] });
    return new plus28.StatefulSet(scope, id, { containers: [container], service });
  },
  'cdk8s-plus-33': (scope, id, kind) => {
    if (kind === 'Deployment') return new plus33.Deployment(scope, id, { containers: [container] });
    if (kind === 'Job') return new plus33.Job(scope, id, { containers: [container] });
    return new plus33.StatefulSet(scope, id, { containers: [container] });
  },
  'raw k8s (cdk8s-plus-28)': (scope, id, kind) => {
    if (kind === 'Deployment') return new plus28.k8s.KubeDeployment(scope, id, { spec: rawSpec(id) });
    if (kind === 'Job') return new plus28.k8s.KubeJob(scope, id, { spec: { template: rawSpec(id).template } });
    return new plus28.k8s.KubeStatefulSet(scope, id, { spec: rawSpec(id, { serviceName: id }) });
  },
  'raw k8s (cdk8s-plus-33)': (scope, id, kind) => {
    if (kind === 'Deployment') return new plus33.k8s.KubeDeployment(scope, id, { spec: rawSpec(id) });
    if (kind === 'Job') return new plus33.k8s.KubeJob(scope, id, { spec: { template: rawSpec(id).template } });
    return new plus33.k8s.KubeStatefulSet(scope, id, { spec: rawSpec(id, { serviceName: id }) });
  },
};

const REVISION: { [kind in Kind]?: string } = { Deployment: 'pod-template-hash', StatefulSet: 'controller-revision-hash' };
const ZONE_TERM = { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b', 'c'] }] };

describe.each(Object.keys(FLAVOURS))('%s', (flavour) => {
  const make = FLAVOURS[flavour];

  test.each(['Deployment', 'StatefulSet', 'Job'] as Kind[])('Zonal.spread on a %s: both constraints select its pods as synthesized, zone affinity', (kind) => {
    const chart = testChart(SERVED_NAMESPACE);
    const w = make(chart, 'w', kind);
    Zonal.spread(w, { topology: zones });
    const manifest = only(synth(chart), kind);
    const pod = manifest.spec.template.spec;
    const selector = kind === 'Job' ? { matchLabels: manifest.spec.template.metadata.labels } : manifest.spec.selector;
    const keys = REVISION[kind] ? { matchLabelKeys: [REVISION[kind]] } : {};
    expect(pod.topologySpreadConstraints).toEqual([
      { topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', minDomains: 3, labelSelector: selector, ...keys },
      { topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: selector, ...keys },
    ]);
    const required = pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    expect(required.nodeSelectorTerms).toEqual([ZONE_TERM]);
  });

  test('Zonal.pinToZone and spreadAcrossHosts', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const w = make(chart, 'w', 'StatefulSet');
    Zonal.pinToZone(w, { topology: zones, zone: 'b' });
    Zonal.spreadAcrossHosts(w, { topology: zones, maxSkew: 2 });
    const pod = only(synth(chart), 'StatefulSet').spec.template.spec;
    expect(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
      .toEqual([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['b'] }] }]);
    expect(pod.topologySpreadConstraints).toEqual([expect.objectContaining({ topologyKey: 'kubernetes.io/hostname', maxSkew: 2 })]);
  });

  test('ZoneDisruptionBudget.workload takes its selector as synthesized', () => {
    for (const kind of ['Deployment', 'StatefulSet', 'Job'] as Kind[]) {
      const chart = testChart(SERVED_NAMESPACE);
      const w = make(chart, 'w', kind);
      new ZoneDisruptionBudget(chart, 'budget', { ...elsewhere, workload: w, maxUnavailable: 1 });
      const objects = synth(chart);
      const manifest = only(objects, kind);
      const selector = kind === 'Job' ? { matchLabels: manifest.spec.template.metadata.labels } : manifest.spec.selector;
      expect(only(objects, 'ZoneDisruptionBudget').spec.selector).toEqual(selector);
    }
  });
});

describe('RolloutTarget with cdk8s-plus-33 and raw objects', () => {
  test('a cdk8s-plus-33 OnDelete StatefulSet and a Recreate Deployment (paused)', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const sts = new plus33.StatefulSet(chart, 'db', {
      containers: [container],
      strategy: plus33.StatefulSetUpdateStrategy.onDelete(),
    });
    const web = new plus33.Deployment(chart, 'web', {
      containers: [container],
      strategy: plus33.DeploymentStrategy.recreate(),
    });
    new ZoneAwareUpdate(chart, 'r1', {
      ...elsewhere,
      target: RolloutTarget.statefulSet(sts),
      maxUnavailable: 1,
      name: 'db',
    });
    new ZoneAwareUpdate(chart, 'r2', {
      ...elsewhere,
      target: RolloutTarget.deployment(web),
      maxUnavailable: 1,
      name: 'web',
    });
    const objects = synth(chart);
    expect(only(objects, 'ZoneAwareUpdate', 'db').spec.statefulset).toBe(sts.name);
    expect(only(objects, 'ZoneAwareUpdate', 'web').spec.deployment).toBe(web.name);
    expect(only(objects, 'Deployment').spec.paused).toBe(true);
  });

  test('a group of raw KubeStatefulSets; one that is not OnDelete is refused at synth', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const onDelete = { updateStrategy: { type: 'OnDelete' } };
    const group = ['a', 'b'].map((z) => new plus33.k8s.KubeStatefulSet(chart, `ing-${z}`, {
      metadata: { name: `ing-${z}` },
      spec: rawSpec(`ing-${z}`, { serviceName: 'ing', ...onDelete }),
    }));
    new ZoneAwareUpdate(chart, 'r', { ...elsewhere, target: RolloutTarget.statefulSetGroup(group), maxUnavailable: 1 });
    expect(only(synth(chart), 'ZoneAwareUpdate').spec.statefulsets).toEqual(['ing-a', 'ing-b']);

    const bad = testChart(SERVED_NAMESPACE);
    const rolling = new plus28.k8s.KubeStatefulSet(bad, 'ing', {
      metadata: { name: 'ing' },
      spec: rawSpec('ing', { serviceName: 'ing' }),
    });
    new ZoneAwareUpdate(bad, 'r', { ...elsewhere, target: RolloutTarget.statefulSet(rolling), maxUnavailable: 1 });
    expect(() => synth(bad)).toThrow("ZoneAwareUpdate 'test/r': target=\"StatefulSet ing with updateStrategy RollingUpdate\" must use OnDelete");
  });
});

describe('composition with what is added after the call', () => {
  test('cdk8s-plus-33 node affinity added later: the zone requirement is in every required term', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const d = new plus33.Deployment(chart, 'w', { containers: [container] });
    Zonal.spread(d, { topology: zones });
    d.scheduling.attract(plus33.Node.labeled(plus33.NodeLabelQuery.is('disk', 'ssd')));
    const nodeAffinity = only(synth(chart), 'Deployment').spec.template.spec.affinity.nodeAffinity;
    expect(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
      .toEqual([{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }, ...ZONE_TERM.matchExpressions] }]);
  });

  test('a raw object\'s own affinity and JSON patches (added after the call) are kept', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const d = new plus28.k8s.KubeDeployment(chart, 'w', {
      spec: rawSpec('w', {
        template: {
          metadata: { labels: { app: 'w' } },
          spec: {
            containers: [{ name: 'main', image: container.image }],
            affinity: {
              nodeAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [{
                  weight: 5,
                  preference: { matchExpressions: [{ key: 'x', operator: 'Exists' }] },
                }],
              },
            },
          },
        },
      }),
    });
    Zonal.spread(d, { topology: zones, spreadAcrossHosts: false });
    d.addJsonPatch(JsonPatch.add('/spec/template/spec/priorityClassName', 'high'));
    const pod = only(synth(chart), 'Deployment').spec.template.spec;
    expect(pod.priorityClassName).toBe('high');
    expect(pod.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).toHaveLength(1);
    const required = pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    expect(required.nodeSelectorTerms).toEqual([ZONE_TERM]);
    expect(pod.topologySpreadConstraints).toHaveLength(1);
  });
});

describe('anything else is refused with the call, the prop and the rule', () => {
  test.each([
    ['a ConfigMap', (c: Construct) => new plus33.ConfigMap(c, 'x'), "Zonal.spread: workload 'test/x' is a ConfigMap, not one of Deployment, StatefulSet, Job"],
    ['a construct with no Kubernetes object', (c: Construct) => new Construct(c, 'x'), "Zonal.spread: workload 'test/x' ([Construct]) has no Kubernetes object of its own"],
    ['a plain object', () => ({ kind: 'Deployment' }), 'Zonal.spread: workload={"kind":"Deployment"} must be a cdk8s-plus Deployment, StatefulSet or Job'],
    ['null', () => null, 'Zonal.spread: workload=null must be'],
    ['a string', () => 'web', 'Zonal.spread: workload="web" must be'],
  ])('%s', (_what, make, message) => {
    const chart = testChart(SERVED_NAMESPACE);
    expect(() => Zonal.spread(make(chart) as any, { topology: zones })).toThrow(message);
  });

  test('the other APIs say who and which prop', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const cm = new plus28.ConfigMap(chart, 'cm');
    const deployment = new plus33.Deployment(chart, 'd', { containers: [container] });
    expect(() => RolloutTarget.statefulSet(cm)).toThrow("RolloutTarget.statefulSet: statefulSet 'test/cm' is a ConfigMap, not one of StatefulSet");
    expect(() => RolloutTarget.deployment(new plus33.StatefulSet(chart, 's', { containers: [container] })))
      .toThrow("RolloutTarget.deployment: deployment 'test/s' is a StatefulSet, not one of Deployment");
    expect(() => RolloutTarget.statefulSetGroup([deployment])).toThrow("RolloutTarget.statefulSetGroup: statefulSets[0] 'test/d' is a Deployment");
    expect(() => new ZoneDisruptionBudget(chart, 'b', { ...elsewhere, workload: cm, maxUnavailable: 1 }))
      .toThrow("ZoneDisruptionBudget 'test/b': workload 'test/cm' is a ConfigMap, not one of Deployment, StatefulSet, Job");
    expect(ApiObject.isApiObject(deployment)).toBe(false); // the construct, not its ApiObject, was passed
  });
});
