/** `ZoneReport.ofApp`: one report over every chart of an app, without calling `toJson()` on each chart. */
import { ApiObject, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { Zonal, ZoneInventory, ZoneReport, ZoneTopology } from '../../src';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const inventory = ZoneInventory.equalNodes(ZONES, 3);

/** An app of two charts: `web` (6 replicas, spread over the zones) in one, a budget for its pods in the other. */
function twoCharts(minAvailable: number) {
  const app = Testing.app();
  const workloads = new Chart(app, 'workloads', { namespace: 'shop' });
  const web = new kplus.Deployment(workloads, 'web', {
    replicas: 6,
    containers: [{ image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', portNumber: 8080 }],
  });
  Zonal.spread(web, { topology: new ZoneTopology({ zones: ZONES }) });
  const budgets = new Chart(app, 'budgets', { namespace: 'shop' });
  new ApiObject(budgets, 'web-budget', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web' },
    spec: { minAvailable, selector: { matchLabels: web.matchLabels } },
  });
  return { app, workloads };
}

test('every chart\'s objects are checked together: a budget in one chart sets what a workload of another needs', () => {
  const { app, workloads } = twoCharts(5);
  const report = ZoneReport.ofApp(app, inventory);
  expect(report.workloads.map((w) => [w.kind, w.namespace, w.name, w.replicas, w.needed])).toEqual([
    ['Deployment', 'shop', expect.stringMatching(/^workloads-web-/), 6, 5],
  ]);
  // losing a zone leaves 4 of the 5 the budget asks for; the workload's chart alone knows nothing of the budget
  expect(report.survivesAnyZoneLoss()).toBe(false);
  expect(ZoneReport.of(workloads, inventory).survivesAnyZoneLoss()).toBe(true);
  expect(ZoneReport.ofApp(twoCharts(4).app, inventory).survivesAnyZoneLoss()).toBe(true);
});

test('the same report as analyzing each chart\'s toJson() by hand', () => {
  const { app } = twoCharts(4);
  const byHand = ZoneReport.analyze(app.charts.flatMap((c) => c.toJson()), inventory);
  expect(ZoneReport.ofApp(app, inventory).data).toEqual(byHand.data);
});

test('an app with no chart: no workload, survives; anything but an App is refused, naming the method and argument', () => {
  const empty = ZoneReport.ofApp(Testing.app(), inventory);
  expect(empty.workloads).toEqual([]);
  expect(empty.survivesAnyZoneLoss()).toBe(true);
  const { workloads } = twoCharts(4);
  expect(() => ZoneReport.ofApp(workloads as any, inventory))
    .toThrow(/^ZoneReport\.ofApp: app=.* must be an App \(new App\(...\) or a factory of it\)$/);
});
