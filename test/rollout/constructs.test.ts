import { Chart, Duration, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { RolloutTarget, ZoneAwareUpdate, WebhookTls, ZoneController, ZoneDisruptionBudget } from '../../src';
import { INSTALLED_CONTROLLER, only, SERVED_NAMESPACE, synth, testChart } from '../util';

/**
 * The controller that acts on these resources runs outside the test apps (the wiring itself:
 * test/zone-controller/requirements.test.ts).
 */
const elsewhere = { controller: INSTALLED_CONTROLLER };

function onDeleteStatefulSet(chart: Chart, strategy = kplus.StatefulSetUpdateStrategy.onDelete()): kplus.StatefulSet {
  return new kplus.StatefulSet(chart, 'db', {
    replicas: 12,
    strategy,
    containers: [{ image: 'postgres:17', portNumber: 5432 }],
  });
}

describe('ZoneAwareUpdate', () => {
  test('emits the custom resource for a cdk8s-plus OnDelete StatefulSet', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const sts = onDeleteStatefulSet(chart);
    new ZoneAwareUpdate(chart, 'rollout', {
      ...elsewhere,
      target: RolloutTarget.statefulSet(sts),
      maxUnavailable: '25%',
      pauseCondition: { label: 'example.com/pause', prometheusQueryUrl: 'http://prometheus:9090/api/v1/query?query=ALERTS' },
    });
    const objects = synth(chart);
    const zau = only(objects, 'ZoneAwareUpdate');
    expect(zau.apiVersion).toBe('cdk8s-zones.dev/v1alpha1');
    expect(zau.spec).toEqual({
      statefulset: sts.name,
      maxUnavailable: '25%',
      exponentialFactor: 2,
      pauseCondition: { label: 'example.com/pause', prometheusQueryUrl: 'http://prometheus:9090/api/v1/query?query=ALERTS' },
    });
    expect(objects).toMatchSnapshot();
  });

  test('a Deployment target is paused, so only the controller rolls it', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const web = new kplus.Deployment(chart, 'web', {
      replicas: 6,
      strategy: kplus.DeploymentStrategy.recreate(),
      containers: [{ image: 'nginx', portNumber: 8080 }],
    });
    new ZoneAwareUpdate(chart, 'rollout', {
      ...elsewhere,
      target: RolloutTarget.deployment(web),
      maxUnavailable: 2,
      exponentialFactor: 0,
      dryRun: true,
      name: 'web',
    });
    const objects = synth(chart);
    expect(only(objects, 'Deployment').spec.paused).toBe(true);
    expect(only(objects, 'ZoneAwareUpdate', 'web').spec)
      .toEqual({ deployment: web.name, maxUnavailable: 2, exponentialFactor: 0, dryRun: true });
  });

  test('refuses a Deployment that does not use Recreate', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const web = new kplus.Deployment(chart, 'web', { containers: [{ image: 'nginx', portNumber: 8080 }] });
    new ZoneAwareUpdate(chart, 'rollout', { ...elsewhere, target: RolloutTarget.deployment(web), maxUnavailable: 1 });
    // checked as synthesized: whatever sets the strategy (any cdk8s-plus, a raw object, a patch) is seen
    expect(() => synth(chart)).toThrow("ZoneAwareUpdate 'test/rollout': target=\"Deployment test-web with strategy RollingUpdate\" must use Recreate");
  });

  test('a StatefulSet by name, in an explicit namespace', () => {
    const chart = testChart(SERVED_NAMESPACE);
    new ZoneAwareUpdate(chart, 'rollout', {
      ...elsewhere,
      target: RolloutTarget.statefulSetName('kafka'),
      maxUnavailable: 1,
      namespace: 'data',
    });
    const zau = only(synth(chart), 'ZoneAwareUpdate');
    expect(zau.metadata.namespace).toBe('data');
    expect(zau.spec.statefulset).toBe('kafka');
  });

  test('refuses a StatefulSet that does not use OnDelete', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const sts = onDeleteStatefulSet(chart, kplus.StatefulSetUpdateStrategy.rollingUpdate());
    new ZoneAwareUpdate(chart, 'rollout', { ...elsewhere, target: RolloutTarget.statefulSet(sts), maxUnavailable: 1 });
    expect(() => synth(chart)).toThrow("ZoneAwareUpdate 'test/rollout': target=\"StatefulSet test-db with updateStrategy RollingUpdate\" must use OnDelete");
  });

  test.each([
    [{ maxUnavailable: 0 }, 'maxUnavailable=0 must be a whole number of pods >= 1'],
    [{ maxUnavailable: '101%' }, "maxUnavailable=\"101%\" must be a percentage between '1%' and '100%'"],
    [{ maxUnavailable: '0%' }, "maxUnavailable=\"0%\" must be a percentage between '1%' and '100%'"],
    [{ exponentialFactor: -1 }, 'exponentialFactor=-1 must be 0 (ramp off: batches of maxUnavailable) or at least 1'],
    [{ exponentialFactor: Number.NaN }, 'exponentialFactor=NaN must be a finite number'],
    [{ exponentialFactor: 0.5 }, 'exponentialFactor=0.5 must be 0'],
    [{ pauseCondition: { label: 'bad key!' } }, 'pauseCondition.label="bad key!" must be \'key\' or \'key=value\''],
    [{ pauseCondition: { prometheusQueryUrl: 'prometheus:9090' } }, 'pauseCondition.prometheusQueryUrl="prometheus:9090" must be an http(s)'],
    [{ namespace: 'other' }, 'namespace="other" must be the workload\'s namespace "data"'],
    [{ readyCheck: { path: 'ready', port: 3100 } }, 'readyCheck.path="ready" must be an absolute URL path'],
    [{ readyCheck: { path: '/a b', port: 3100 } }, 'readyCheck.path="/a b" must be an absolute URL path'],
    [{ readyCheck: { path: '/ready', port: 0 } }, 'readyCheck.port=0 must be an integer from 1 to 65535'],
    [{ readyCheck: { path: '/ready' } }, 'readyCheck.port=undefined is required'],
  ])('refuses %p', (override, message) => {
    const chart = testChart(SERVED_NAMESPACE);
    const sts = new kplus.StatefulSet(chart, 'db', {
      metadata: { namespace: 'data' },
      strategy: kplus.StatefulSetUpdateStrategy.onDelete(),
      containers: [{ image: 'postgres:17', portNumber: 5432 }],
    });
    const props = { ...elsewhere, target: RolloutTarget.statefulSet(sts), maxUnavailable: 1, ...override };
    expect(() => new ZoneAwareUpdate(chart, 'rollout', props as any))
      .toThrow(`ZoneAwareUpdate 'test/rollout': ${message}`);
  });
});

describe('ZoneAwareUpdate of a group of StatefulSets', () => {
  const member = (
    chart: Chart,
    zone: string,
    namespace?: string,
    strategy = kplus.StatefulSetUpdateStrategy.onDelete(),
  ) => new kplus.StatefulSet(chart, `ingester-${zone}`, {
    metadata: { namespace },
    strategy,
    containers: [{ image: 'loki:3', portNumber: 3100 }],
  });

  test('names every StatefulSet of the group and carries the ready check', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const group = ['a', 'b', 'c'].map((z) => member(chart, z, 'logs'));
    new ZoneAwareUpdate(chart, 'rollout', {
      ...elsewhere,
      target: RolloutTarget.statefulSetGroup(group),
      maxUnavailable: 2,
      readyCheck: { path: '/ready', port: 3100 },
    });
    const zau = only(synth(chart), 'ZoneAwareUpdate');
    expect(zau.metadata.namespace).toBe('logs');
    expect(zau.spec).toEqual({
      statefulsets: group.map((s) => s.name),
      maxUnavailable: 2,
      exponentialFactor: 2,
      readyCheck: { path: '/ready', port: 3100 },
    });
  });

  test('by names', () => {
    const chart = testChart(SERVED_NAMESPACE);
    new ZoneAwareUpdate(chart, 'rollout', {
      ...elsewhere,
      target: RolloutTarget.statefulSetGroupNames(['x', 'y']),
      maxUnavailable: 1,
      namespace: 'data',
    });
    expect(only(synth(chart), 'ZoneAwareUpdate').spec.statefulsets).toEqual(['x', 'y']);
  });

  test.each([
    [() => RolloutTarget.statefulSetGroupNames([]), 'RolloutTarget.statefulSetGroupNames: names=[] must name 1 to 64 distinct StatefulSets'],
    [() => RolloutTarget.statefulSetGroupNames(['x', 'x']), 'names=["x","x"] must name 1 to 64 distinct StatefulSets'],
    [() => RolloutTarget.statefulSetGroupNames(['Bad_Name']), 'names[0]="Bad_Name"'],
    [() => RolloutTarget.statefulSetGroupNames(Array.from({ length: 65 }, (_, i) => `s${i}`)), 'must name 1 to 64 distinct StatefulSets'],
    [() => RolloutTarget.statefulSetGroupNames('x' as any), 'names="x" must be a list'],
    [() => RolloutTarget.statefulSetGroup([{} as any]), 'statefulSets[0]'],
  ])('refuses a bad group %#', (make, message) => {
    expect(make).toThrow(message);
  });

  test('refuses a member that is not OnDelete, or in another namespace', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const rollingMember = member(chart, 'b', 'logs', kplus.StatefulSetUpdateStrategy.rollingUpdate());
    const rolling = [member(chart, 'a', 'logs'), rollingMember];
    new ZoneAwareUpdate(chart, 'r1', {
      ...elsewhere,
      target: RolloutTarget.statefulSetGroup(rolling),
      maxUnavailable: 1,
    });
    expect(() => synth(chart))
      .toThrow(`ZoneAwareUpdate 'test/r1': target="StatefulSet ${rolling[1].name} with updateStrategy RollingUpdate" must use OnDelete`);
    const split = [member(chart, 'c', 'logs'), member(chart, 'd', 'other')];
    const acrossNamespaces = { ...elsewhere, target: RolloutTarget.statefulSetGroup(split), maxUnavailable: 1 };
    expect(() => new ZoneAwareUpdate(chart, 'r2', acrossNamespaces))
      .toThrow(`ZoneAwareUpdate 'test/r2': target="StatefulSet ${split[1].name} in namespace other" must be in the namespace of the group's other StatefulSets (logs)`);
  });
});

describe('ZoneAwareUpdate started after another', () => {
  const byName = (chart: Chart, id: string, sts: string, extra: object = {}) =>
    new ZoneAwareUpdate(chart, id, {
      ...elsewhere,
      target: RolloutTarget.statefulSetName(sts),
      maxUnavailable: 1,
      namespace: 'data',
      name: id,
      ...extra,
    });

  test('names the other ZoneAwareUpdate and the delay in seconds', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const first = byName(chart, 'write-path', 'a');
    byName(chart, 'read-path', 'b', { startAfter: first, startDelay: Duration.hours(3) });
    byName(chart, 'next', 'c', { startAfter: first });
    const zaus = synth(chart).filter((o) => o.kind === 'ZoneAwareUpdate');
    expect(zaus.map((z) => [z.metadata.name, z.spec.startAfter])).toEqual([
      ['write-path', undefined], ['read-path', { zoneAwareUpdate: 'write-path', delaySeconds: 10800 }], ['next', { zoneAwareUpdate: 'write-path' }],
    ]);
  });

  test.each([
    ['another namespace', (first: ZoneAwareUpdate) => ({ startAfter: first, namespace: 'other' }), /startAfter="ZoneAwareUpdate write-path in namespace data" must be in this ZoneAwareUpdate's namespace \(other\)/],
    ['a delay alone', () => ({ startDelay: Duration.seconds(5) }), /startDelay="5 seconds" only applies with startAfter/],
    ['a fraction of a second', (first: ZoneAwareUpdate) => ({ startAfter: first, startDelay: Duration.millis(1500) }), /startDelay=.* must be a whole number of seconds/],
    ['not a ZoneAwareUpdate (JavaScript)', () => ({ startAfter: { name: 'x' } }), /startAfter=.* must be a ZoneAwareUpdate/],
  ])('refuses %s', (_, extra, message) => {
    const chart = testChart(SERVED_NAMESPACE);
    const first = byName(chart, 'write-path', 'a');
    expect(() => byName(chart, 'read-path', 'b', extra(first))).toThrow(message);
  });
});

describe('ZoneDisruptionBudget', () => {
  test('guards a workload by its selector', () => {
    const chart = testChart(SERVED_NAMESPACE);
    const sts = onDeleteStatefulSet(chart);
    new ZoneDisruptionBudget(chart, 'budget', { ...elsewhere, workload: sts, maxUnavailable: '10%' });
    const objects = synth(chart);
    const zdb = only(objects, 'ZoneDisruptionBudget');
    expect(zdb.spec).toEqual({ selector: { matchLabels: sts.matchLabels }, maxUnavailable: '10%' });
    expect(Object.keys(sts.matchLabels).length).toBeGreaterThan(0);
    expect(objects).toMatchSnapshot();
  });

  test('by labels, dry run', () => {
    const chart = testChart(SERVED_NAMESPACE);
    new ZoneDisruptionBudget(chart, 'budget', {
      ...elsewhere,
      selector: { app: 'kafka' },
      maxUnavailable: 2,
      dryRun: true,
      name: 'kafka',
    });
    expect(only(synth(chart), 'ZoneDisruptionBudget', 'kafka').spec)
      .toEqual({ selector: { matchLabels: { app: 'kafka' } }, maxUnavailable: 2, dryRun: true });
  });

  test.each([
    [{ maxUnavailable: 0, selector: { app: 'a' } }, 'maxUnavailable=0 must be a whole number of pods >= 1'],
    [{ maxUnavailable: '150%', selector: { app: 'a' } }, 'maxUnavailable="150%" must be a percentage between'],
    [{ maxUnavailable: 1 }, 'selector=undefined set exactly one of selector and workload'],
    [{ maxUnavailable: 1, selector: {} }, 'selector={} must not be empty'],
    [{ maxUnavailable: 1, selector: { 'a b': 'x' } }, 'selector key="a b" is not a valid label key'],
    [{ maxUnavailable: 1, selector: { app: 'a b' } }, 'selector["app"]="a b" is not a valid label value'],
  ])('refuses %p', (props, message) => {
    const chart = testChart(SERVED_NAMESPACE);
    expect(() => new ZoneDisruptionBudget(chart, 'budget', { ...elsewhere, ...props })).toThrow(`ZoneDisruptionBudget 'test/budget': ${message}`);
  });
});

describe('the CRDs a ZoneController installs', () => {
  const crdsOf = (props: { zoneAwareUpdate?: boolean; zoneDisruptionBudget?: boolean }) => {
    const chart = new Chart(Testing.app(), 'c');
    const webhookTls = props.zoneDisruptionBudget ? { webhookTls: WebhookTls.selfManaged() } : {};
    new ZoneController(chart, 'zones', { ...props, workloadNamespaces: ['shop'], ...webhookTls });
    return Testing.synth(chart).filter((o) => o.kind === 'CustomResourceDefinition');
  };

  test('both CRDs: group cdk8s-zones.dev, v1alpha1, status subresource, int-or-string maxUnavailable', () => {
    const objects = crdsOf({ zoneAwareUpdate: true, zoneDisruptionBudget: true });
    expect(objects.map((o) => o.metadata.name)).toEqual(['zoneawareupdates.cdk8s-zones.dev', 'zonedisruptionbudgets.cdk8s-zones.dev']);
    for (const crd of objects) {
      const version = crd.spec.versions[0];
      expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
      expect(version.schema.openAPIV3Schema.properties.spec.properties.maxUnavailable['x-kubernetes-int-or-string']).toBe(true);
    }
    expect(objects).toMatchSnapshot();
  });

  test('only those of the enabled features', () => {
    expect(crdsOf({ zoneDisruptionBudget: true }).map((o) => o.spec.names.kind)).toEqual(['ZoneDisruptionBudget']);
    expect(crdsOf({ zoneAwareUpdate: true }).map((o) => o.spec.names.kind)).toEqual(['ZoneAwareUpdate']);
  });
});
