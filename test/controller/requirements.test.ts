/**
 * Cross-construct rules, checked when the app is synthesized: what needs the runtime controller finds a
 * ZoneController with the matching feature in the app (or says the controller runs elsewhere), and one
 * app does not install the controller twice.
 */
import { App, Chart, Testing } from 'cdk8s';
import {
  LokiOutput, RolloutTarget, WebhookTls, ZonalRedisCluster, ZoneAwareLokiStack, ZoneAwareUpdate, ZoneController, ZoneControllerProps,
  ZoneDisruptionBudget, ZoneRolloutCrds, ZoneSource, ZoneTopology,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';

const topology = new ZoneTopology({ zones: ['a', 'b', 'c'] });
/** Synthesizes every chart of the app `chart` is in (the checks run on the whole app). */
const synthAll = (chart: Chart) => (chart.node.root as App).charts.map((c) => Testing.synth(c));

/** Each construct that needs a feature of the controller, and the feature. */
const NEEDS: [string, keyof ZoneControllerProps, (chart: Chart, elsewhere?: boolean) => void][] = [
  ['ZonalRedisCluster', 'redisManager', (c, e) => new ZonalRedisCluster(c, 'needs', { topology, masters: 3, password: { name: 'redis-auth', key: 'password' }, controllerInstalledElsewhere: e })],
  ['ZoneAwareUpdate', 'zoneAwareUpdate', (c, e) => new ZoneAwareUpdate(c, 'needs', { target: RolloutTarget.statefulSetName('db'), maxUnavailable: 1, controllerInstalledElsewhere: e })],
  ['ZoneDisruptionBudget', 'zoneDisruptionBudget', (c, e) => new ZoneDisruptionBudget(c, 'needs', { selector: { app: 'db' }, maxUnavailable: 1, controllerInstalledElsewhere: e })],
];

const withFeature = (feature: keyof ZoneControllerProps): ZoneControllerProps =>
  (feature === 'zoneDisruptionBudget' ? { zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged() } : { [feature]: true });

describe.each(NEEDS)('%s needs a ZoneController with %s', (kind, feature, make) => {
  test('none in the app: synth fails, naming the construct, the prop and what is lost', () => {
    const chart = new Chart(Testing.app(), 'app');
    make(chart);
    expect(() => synthAll(chart)).toThrow(new RegExp(
      `${kind} 'app/needs': controllerInstalledElsewhere=false needs a ZoneController with ${feature}: true in this app: without it .*` +
      'Add one .* or set controllerInstalledElsewhere: true'));
  });

  test('one with another feature only: still fails', () => {
    const chart = new Chart(Testing.app(), 'app');
    new ZoneController(chart, 'controller', { zoneAnnotator: true });
    make(chart);
    expect(() => synthAll(chart)).toThrow(`needs a ZoneController with ${feature}: true`);
  });

  test('one with the feature in another chart of the app, created before or after: fine', () => {
    for (const controllerFirst of [true, false]) {
      const app = Testing.app();
      const platform = new Chart(app, 'platform');
      if (controllerFirst) new ZoneController(platform, 'controller', withFeature(feature));
      make(new Chart(app, 'app', { namespace: 'shop' }));
      if (!controllerFirst) new ZoneController(platform, 'controller', withFeature(feature));
      expect(() => app.charts.map((c) => Testing.synth(c))).not.toThrow();
      // the controller is granted its rights in the construct's namespace, and nowhere else
      const roles = Testing.synth(platform).filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace);
      expect(roles).toEqual(['cdk8s-zones-system', 'shop']);
    }
  });

  test('one with the feature, and the construct in no namespace: synth asks for one', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'platform'), 'controller', withFeature(feature));
    make(new Chart(app, 'app'));
    expect(() => app.charts.map((c) => Testing.synth(c))).toThrow(
      `${kind} 'app/needs': namespace=undefined must be set (on the construct or its chart): ZoneController 'platform/controller' is granted its rights ` +
      'in the namespaces of the workloads it serves');
  });

  test('installed by another app: a warning that says what it must run', () => {
    const chart = new Chart(Testing.app(), 'app');
    make(chart, true);
    expect(() => synthAll(chart)).not.toThrow();
    expect(warningsOf(chart)).toContainEqual(expect.stringContaining(`needs the cdk8s-zones controller with ${feature}`));
  });

  test('installed by another app, and by this one too: two controllers would both act', () => {
    const chart = new Chart(Testing.app(), 'app');
    new ZoneController(chart, 'controller', withFeature(feature));
    make(chart, true);
    expect(() => synthAll(chart)).toThrow(new RegExp('controllerInstalledElsewhere=true but ZoneController \'app/controller\' of this app runs .* too'));
  });
});

test('ZoneSource.controller needs the zone annotator, which would otherwise leave every pod waiting forever', () => {
  const chart = new Chart(Testing.app(), 'app');
  const controller = new ZoneController(chart, 'controller', { zoneAnnotator: false, redisManager: true });
  expect(() => ZoneSource.controller(controller)).toThrow(
    "ZoneSource.controller: zoneController=\"ZoneController 'app/controller'\" runs no zone annotator (zoneAnnotator: false): no pod is ever annotated " +
    'with its zone, so every pod waits forever in its init container. Turn zoneAnnotator on for it');
  expect(() => ZoneSource.controller({} as any)).toThrow('ZoneSource.controller: zoneController={} must be the installed ZoneController');
  const app = Testing.app();
  const annotating = new ZoneController(new Chart(app, 'platform'), 'controller');
  new ZoneAwareLokiStack(new Chart(app, 'logs'), 'loki', { topology, output: LokiOutput.DIRECT, zoneSource: ZoneSource.controller(annotating), s3: { bucket: 'logs' } });
  expect(() => app.charts.map((c) => Testing.synth(c))).not.toThrow();
});

describe('the controller is installed once', () => {
  test('a second ZoneController in one chart is refused at once', () => {
    const chart = new Chart(Testing.app(), 'app');
    new ZoneController(chart, 'one');
    expect(() => new ZoneController(chart, 'two', { zoneAwareUpdate: true })).toThrow(
      "ZoneController 'app/two': chart 'app' already has ZoneController 'app/one': one controller serves the whole cluster; enable the features you need on that one");
  });

  test('two in two charts that would emit the same objects: synth names each duplicate', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'a'), 'controller');
    new ZoneController(new Chart(app, 'b'), 'controller');
    expect(() => Testing.synth(app.charts[0])).toThrow(/ZoneController 'a\/controller': emits Namespace cdk8s-zones-system, which 'b\/controller\/namespace' emits too/);
  });

  test('the CRDs of ZoneRolloutCrds beside a controller that installs them too', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'platform'), 'controller', { zoneAwareUpdate: true, workloadNamespaces: ['shop'] });
    new ZoneRolloutCrds(new Chart(app, 'crds'), 'crds');
    expect(() => Testing.synth(app.charts[0])).toThrow(/emits CustomResourceDefinition zoneawareupdates.cdk8s-zones.dev, which 'crds\/crds\/zoneawareupdates' emits too: .*installCrds: false/);
  });

  test('two controllers apart (namespace and name) in two charts, CRDs installed once: fine', () => {
    const app = Testing.app();
    new ZoneController(new Chart(app, 'a'), 'controller', { zoneAwareUpdate: true, workloadNamespaces: ['shop'] });
    new ZoneController(new Chart(app, 'b'), 'controller', { namespace: 'zones-b', name: 'zones-b', zoneAwareUpdate: true, installCrds: false, workloadNamespaces: ['blog'] });
    expect(() => app.charts.map((c) => Testing.synth(c))).not.toThrow();
  });
});

