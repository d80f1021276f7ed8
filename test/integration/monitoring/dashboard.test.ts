/**
 * Every query of the zone dashboard is PromQL the real promtool accepts: written as recording rules, the rule file
 * passes `promtool check rules` (the dashboard's JSON itself is held to Grafana's schema in test/monitoring/).
 */
import { Promtool, promtoolOver } from './promtool';
import { dashboardOf } from '../../monitoring/dashboard-fixture';

let promtool: Promtool;
afterAll(() => promtool?.close());

test('promtool check rules accepts every panel\'s query', () => {
  const { dashboard } = dashboardOf();
  const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
  expect(exprs.length).toBeGreaterThan(5);
  promtool = promtoolOver({ name: 'dashboard', rules: [] }, exprs.map((expr, i) => ({ record: `dashboard:panel_${i}`, expr })));
  const checked = promtool.run('check', 'rules', 'rules.yml');
  expect(checked).toMatchObject({ code: 0, output: expect.stringContaining(`SUCCESS: ${exprs.length} rules found`) });
});
