/**
 * The zone dashboard a monitoring Prometheus ships: a ConfigMap in the layout Grafana's dashboard sidecar loads (the
 * `grafana_dashboard` label, one .json key), whose JSON has every field Grafana's dashboard schema requires: a title,
 * a uid of at most 40 characters, the schema version, time range, templating and annotation lists; every panel an id
 * of its own, a type, a title and a place on the 24-column grid that overlaps no other; every time series panel the
 * `datasource` variable and targets with their own refIds and a query. Its panels are the monitored components', per
 * zone, over the metrics of their rules. (Grafana itself is never run: its licence is the AGPL.) The queries are
 * checked by the real promtool in the integration tier (test/integration/monitoring/dashboard.test.ts).
 */
import { dashboardOf } from './dashboard-fixture';
import { PrometheusOutput } from '../../src';
import { DASHBOARD_SCHEMA_VERSION } from '../../src/monitoring/dashboard';

/** What Grafana's dashboard schema requires of the JSON, as a list of what is missing or wrong (empty: valid). */
function schemaProblems(d: any): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  need(typeof d.title === 'string' && d.title !== '', 'title');
  need(typeof d.uid === 'string' && d.uid.length > 0 && d.uid.length <= 40, 'uid of 1 to 40 characters');
  need(Number.isInteger(d.schemaVersion), 'schemaVersion');
  need(typeof d.time?.from === 'string' && typeof d.time?.to === 'string', 'time.from and time.to');
  need(Array.isArray(d.templating?.list), 'templating.list');
  need(Array.isArray(d.annotations?.list), 'annotations.list');
  need(Array.isArray(d.panels) && d.panels.length > 0, 'panels');
  const variables = new Set((d.templating?.list ?? []).map((v: any) => v.name));
  const ids = new Set<number>();
  const cells = new Set<string>();
  for (const p of d.panels ?? []) {
    const where = `panel ${JSON.stringify(p.title)}`;
    need(Number.isInteger(p.id) && !ids.has(p.id), `${where}: an id of its own`);
    ids.add(p.id);
    need(typeof p.type === 'string' && typeof p.title === 'string', `${where}: type and title`);
    const g = p.gridPos ?? {};
    need([g.h, g.w, g.x, g.y].every(Number.isInteger) && g.x + g.w <= 24, `${where}: gridPos within 24 columns`);
    for (let x = g.x; x < g.x + g.w; x++) {
      for (let y = g.y; y < g.y + g.h; y++) {
        need(!cells.has(`${x},${y}`), `${where}: overlaps another panel at ${x},${y}`);
        cells.add(`${x},${y}`);
      }
    }
    if (p.type === 'row') continue;
    need(p.datasource?.uid === '${datasource}' && variables.has('datasource'), `${where}: the datasource variable`);
    need(p.fieldConfig?.defaults !== undefined && Array.isArray(p.fieldConfig?.overrides), `${where}: fieldConfig`);
    const refIds = (p.targets ?? []).map((t: any) => t.refId);
    need(refIds.length > 0 && new Set(refIds).size === refIds.length, `${where}: targets with refIds of their own`);
    need((p.targets ?? []).every((t: any) => typeof t.expr === 'string' && t.expr !== ''), `${where}: a query per target`);
  }
  return problems;
}

test('a ConfigMap Grafana\'s sidecar loads, beside the Prometheus, whatever its output', () => {
  for (const output of [PrometheusOutput.OPERATOR, PrometheusOutput.STANDALONE]) {
    const { configMap } = dashboardOf(output);
    expect(configMap.metadata).toMatchObject({ namespace: 'monitoring', labels: { grafana_dashboard: '1' } });
    expect(Object.keys(configMap.data)).toEqual(['monitoring-prom-zones.json']);
  }
});

test('the JSON has every field Grafana\'s dashboard schema requires', () => {
  const { dashboard } = dashboardOf();
  expect(schemaProblems(dashboard)).toEqual([]);
  expect(dashboard.schemaVersion).toBe(DASHBOARD_SCHEMA_VERSION);
  // the check finds what it checks
  const broken = { ...dashboard, uid: 'x'.repeat(41), panels: [...dashboard.panels, { ...dashboard.panels[1] }] };
  expect(schemaProblems(broken))
    .toEqual(expect.arrayContaining(['uid of 1 to 40 characters', expect.stringMatching(/an id of its own/), expect.stringMatching(/overlaps/)]));
});

test('a row per monitored component, its panels per zone over its rules\' metrics, and its pods up by zone', () => {
  const { dashboard } = dashboardOf();
  const rows = dashboard.panels.filter((p: any) => p.type === 'row').map((p: any) => p.title);
  expect(rows).toEqual([
    'Zone controller: readiness, shifts and rollouts', 'ZonalRedisCluster cache/redis', 'Loki logs/loki', 'Prometheus shards in monitoring',
  ]);
  const expr = (title: string, row: number) => {
    const start = dashboard.panels.findIndex((p: any) => p.title === rows[row]);
    return dashboard.panels.slice(start).find((p: any) => p.title === title).targets[0].expr;
  };
  expect(expr('Masters and replicas, by zone', 1)).toBe(
    'count by (zone, role) (cdk8s_zones_redis_node{namespace="cache", cluster="redis"} and on(instance) (cdk8s_zones_leader == 1))');
  expect(expr('Pods up, by zone', 1)).toBe('sum by (zone) (up{namespace="cache", pod=~"redis-.+"})');
  expect(expr('ZoneShifts in force, by zone', 0)).toContain('cdk8s_zones_zone_shift_expiry_timestamp_seconds');
  expect(expr('Ready pods of the zone-annotated workloads, by zone', 0)).toBe(
    'sum by (zone) (cdk8s_zones_workload_zone_ready_pods and on(instance) (cdk8s_zones_leader == 1))');
  expect(expr('Ingesters answering, by zone', 2)).toBe('sum by (zone) (up{namespace="logs", pod=~"loki-ingester-.+"})');
  expect(expr('Targets each shard scrapes, by zone', 3)).toContain('pod=~"prometheus-monitoring-prom-.+"');
});
