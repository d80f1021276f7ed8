/**
 * The explicit wiring between a construct and the runtime controller that serves it: each construct that
 * needs the controller names it in its `controller` prop (a ZoneController of this app, or one another app
 * installs), must find there the feature it needs, and is served in its own namespace only. Nothing is
 * looked up in the app; one app may hold several controllers apart.
 */
import { Chart, Testing } from 'cdk8s';
import {
  IZoneController, RolloutTarget, WebhookTls, ZonalRedisCluster, ZoneAwareLokiStack, ZoneAwareUpdate, ZoneController,
  ZoneControllerProps, ZoneDisruptionBudget, ZoneSource, ZoneTopology,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';

const topology = new ZoneTopology({ zones: ['a', 'b', 'c'] });

/** Each construct that needs a feature of the controller, and the feature. */
const NEEDS: [string, keyof ZoneControllerProps, (chart: Chart, controller: IZoneController | undefined) => void][] = [
  ['ZonalRedisCluster', 'redisManager', (c, controller) => new ZonalRedisCluster(c, 'needs', {
    controller: controller!,
    topology,
    masters: 3,
    password: { name: 'redis-auth', key: 'password' },
  })],
  ['ZoneAwareUpdate', 'zoneAwareUpdate', (c, controller) => new ZoneAwareUpdate(c, 'needs', {
    controller: controller!,
    target: RolloutTarget.statefulSetName('db'),
    maxUnavailable: 1,
  })],
  ['ZoneDisruptionBudget', 'zoneDisruptionBudget', (c, controller) => new ZoneDisruptionBudget(c, 'needs', {
    controller: controller!,
    selector: { app: 'db' },
    maxUnavailable: 1,
  })],
];

const withFeature = (feature: keyof ZoneControllerProps): ZoneControllerProps =>
  (feature === 'zoneDisruptionBudget' ? { zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged() } : { [feature]: true });

/** The namespaces a controller's chart grants it rights in (a Role each). */
const roleNamespaces = (chart: Chart) => Testing.synth(chart)
  .filter((o) => o.kind === 'Role')
  .map((o) => o.metadata.namespace);

describe.each(NEEDS)('%s names the controller running %s', (kind, feature, make) => {
  test('none (a JavaScript caller leaving it out): refused at once, naming the construct and the prop', () => {
    const chart = new Chart(Testing.app(), 'app', { namespace: 'shop' });
    expect(() => make(chart, undefined)).toThrow(`${kind} 'app/needs': controller=undefined is required: a ZoneController of this app, or ZoneController.fromInstalled(...)`);
  });

  test('something else than a controller: refused', () => {
    const chart = new Chart(Testing.app(), 'app', { namespace: 'shop' });
    expect(() => make(chart, { namespace: 'x', name: 'y', image: 'z', reconcilers: [] } as IZoneController))
      .toThrow(`${kind} 'app/needs': controller={"namespace":"x","name":"y","image":"z","reconcilers":[]} must be a ZoneController of this app, or ZoneController.fromInstalled(...)`);
  });

  test('one without the feature: refused, saying which to turn on', () => {
    const app = Testing.app();
    const controller = new ZoneController(new Chart(app, 'platform'), 'controller', { zoneAnnotator: true });
    expect(() => make(new Chart(app, 'app', { namespace: 'shop' }), controller)).toThrow(new RegExp(
      `${kind} 'app/needs': controller="ZoneController 'platform/controller'" runs no .* \\(${feature} is off\\): .* Turn ${feature} on for it`));
  });

  test('one of this app with the feature, in another chart: granted its rights in the construct\'s namespace, and nowhere else', () => {
    const app = Testing.app();
    const platform = new Chart(app, 'platform');
    const controller = new ZoneController(platform, 'controller', withFeature(feature));
    make(new Chart(app, 'app', { namespace: 'shop' }), controller);
    expect(() => app.charts.map((c) => Testing.synth(c))).not.toThrow();
    expect(roleNamespaces(platform)).toEqual(['cdk8s-zones-system', 'shop']);
  });

  test('the construct in no namespace: refused, asking for one', () => {
    const app = Testing.app();
    const controller = new ZoneController(new Chart(app, 'platform'), 'controller', withFeature(feature));
    expect(() => make(new Chart(app, 'app'), controller)).toThrow(
      `${kind} 'app/needs': namespace=undefined must be set (on the construct or its chart): ZoneController 'platform/controller' serves the namespaces ` +
      'of the workloads it is given');
  });

  test('installed by another app and serving the namespace: fine, and nothing of it is emitted here', () => {
    const chart = new Chart(Testing.app(), 'app', { namespace: 'shop' });
    make(chart, ZoneController.fromInstalled({ workloadNamespaces: ['shop'], [feature]: true }));
    const objects = Testing.synth(chart);
    expect(objects.filter((o) => ['Deployment', 'Role', 'ClusterRole', 'CustomResourceDefinition'].includes(o.kind))).toEqual([]);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('installed by another app that does not serve the namespace: refused, naming what it serves', () => {
    const chart = new Chart(Testing.app(), 'app', { namespace: 'shop' });
    const installed = ZoneController.fromInstalled({ workloadNamespaces: ['blog', 'news'], [feature]: true });
    expect(() => make(chart, installed)).toThrow(
      `${kind} 'app/needs': controller="the installed controller cdk8s-zones-system/cdk8s-zones-controller" serves the namespaces blog, news ` +
      '(its workloadNamespaces), not shop: add shop to them where it is installed, and to ZoneController.fromInstalled here');
  });
});

test('two controllers of one app, apart: each serves exactly the constructs that name it', () => {
  const app = Testing.app();
  const a = new Chart(app, 'a');
  const b = new Chart(app, 'b');
  const first = new ZoneController(a, 'controller', { zoneAwareUpdate: true });
  const second = new ZoneController(b, 'controller', { namespace: 'zones-b', name: 'zones-b', zoneAwareUpdate: true, installCrds: false });
  const rollout = { target: RolloutTarget.statefulSetName('db'), maxUnavailable: 1 };
  new ZoneAwareUpdate(new Chart(app, 'shop', { namespace: 'shop' }), 'rollout', { controller: first, ...rollout });
  new ZoneAwareUpdate(new Chart(app, 'blog', { namespace: 'blog' }), 'rollout', { controller: second, ...rollout });
  expect(roleNamespaces(a)).toEqual(['cdk8s-zones-system', 'shop']);
  expect(roleNamespaces(b)).toEqual(['zones-b', 'blog']);
});

test('ZoneController.fromInstalled: the installed controller as its app configured it', () => {
  const installed = ZoneController.fromInstalled({
    workloadNamespaces: ['shop'],
    namespace: 'zones',
    name: 'zc',
    zoneAnnotator: false,
    redisManager: true,
  });
  const { namespace, name, image, reconcilers } = installed;
  expect({ namespace, name, image, reconcilers })
    .toEqual({ namespace: 'zones', name: 'zc', image: ZoneController.DEFAULT_IMAGE, reconcilers: ['redis'] });
  expect(() => ZoneController.fromInstalled({ workloadNamespaces: ['shop'], zoneAnnotator: false }))
    .toThrow('ZoneController.fromInstalled: zoneAnnotator=false leaves no reconciler enabled');
});

test('ZoneSource.controller needs the zone annotator, which would otherwise leave every pod waiting forever', () => {
  const chart = new Chart(Testing.app(), 'app');
  const controller = new ZoneController(chart, 'controller', { zoneAnnotator: false, redisManager: true });
  expect(() => ZoneSource.controller(controller)).toThrow(
    "ZoneSource.controller: zoneController=\"ZoneController 'app/controller'\" runs no zone annotator (zoneAnnotator: false): no pod is ever annotated " +
    'with its zone, so every pod waits forever in its init container. Turn zoneAnnotator on for it');
  expect(() => ZoneSource.controller({} as any)).toThrow('ZoneSource.controller: zoneController={} must be a ZoneController of this app, or ZoneController.fromInstalled(...)');
  const installed = ZoneController.fromInstalled({ workloadNamespaces: ['logs'] });
  expect(ZoneSource.controller(installed).zoneController?.reconcilers).toEqual(['zone-annotator']);
  const app = Testing.app();
  const annotating = new ZoneController(new Chart(app, 'platform'), 'controller');
  new ZoneAwareLokiStack(new Chart(app, 'logs'), 'loki', {
    topology,
    direct: { zoneSource: ZoneSource.controller(annotating), objectStorage: { bucket: 'logs' } },
  });
  expect(() => app.charts.map((c) => Testing.synth(c))).not.toThrow();
});

describe('the controller is installed once', () => {
  test('a second one of the same name and namespace: one error, which says how to merge them into one with every feature', () => {
    const chart = new Chart(Testing.app(), 'app');
    new ZoneController(chart, 'one', { redisManager: true, zoneAnnotator: false });
    new ZoneController(chart, 'two', { zoneAwareUpdate: true });
    let message = '';
    try { Testing.synth(chart); } catch (e) { message = (e as Error).message; }
    expect(message.split('\n').filter((l) => l.trim().startsWith('['))).toEqual([
      "  [app/one] ZoneController 'app/one' and 'app/two' install one controller twice (cdk8s-zones-system/cdk8s-zones-controller): an app needs " +
      "one ZoneController serving every feature in use. Keep one, new ZoneController(chart, 'controller', { zoneAnnotator: true, zoneAwareUpdate: true, " +
      'redisManager: true, ... }), and pass it as `controller` to every construct that needs it; or, for two controllers apart, give the second ' +
      'another namespace and name and installCrds: false',
    ]);
  });

  test('the same in two charts of one app (two guides copied into one app): the same one error', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'a'), 'controller');
    new ZoneController(new Chart(app, 'b'), 'controller');
    let message = '';
    try { Testing.synth(app.charts[1]); } catch (e) { message = (e as Error).message; }
    expect(message.match(/install one controller twice/g)).toHaveLength(1);
    expect(message).toMatch(/ZoneController 'a\/controller' and 'b\/controller' install one controller twice/);
  });

  test('a Redis cluster without a namespace: one error, naming the prop, and no false second one about the controller', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'x');
    const controller = new ZoneController(chart, 'controller', { redisManager: true });
    const props = { controller, topology, masters: 3, password: { name: 'p', key: 'k' } };
    expect(() => new ZonalRedisCluster(chart, 'redis', props))
      .toThrow(/^ZonalRedisCluster 'x\/redis': namespace=undefined must be set \(on the construct or its chart\)/);
  });

  test('the CRDs installed by two controllers apart', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'platform'), 'controller', { zoneAwareUpdate: true, workloadNamespaces: ['shop'] });
    new ZoneController(new Chart(app, 'team'), 'controller', {
      namespace: 'team-zones',
      name: 'team-zones',
      zoneAwareUpdate: true,
      workloadNamespaces: ['team'],
    });
    expect(() => Testing.synth(app.charts[0])).toThrow(/emits CustomResourceDefinition zoneawareupdates.cdk8s-zones.dev, which 'team\/controller\/[a-z-]+' emits too: .*installCrds: false/);
  });

  test('two controllers apart (namespace and name) in two charts, CRDs installed once: fine', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'a'), 'controller', { zoneAwareUpdate: true, workloadNamespaces: ['shop'] });
    new ZoneController(new Chart(app, 'b'), 'controller', {
      namespace: 'zones-b',
      name: 'zones-b',
      zoneAwareUpdate: true,
      installCrds: false,
      workloadNamespaces: ['blog'],
    });
    expect(() => app.charts.map((c) => Testing.synth(c))).not.toThrow();
  });
});

