/**
 * The zone dashboard: Grafana dashboard JSON (schemaVersion 39) made from the panels the monitored components define
 * beside their alert rules, over the same metrics, each per zone. It is data for Grafana's dashboard sidecar (a
 * ConfigMap labelled `grafana_dashboard`); the library never runs Grafana. Every panel queries the data source the
 * dashboard's `datasource` variable names, so one dashboard serves any Prometheus.
 */

/** One time series panel of the dashboard, as a component defines it. */
export interface DashboardPanel {
  readonly title: string;
  /** What it shows, and what a reader should look for. */
  readonly description: string;
  /** The PromQL query: one series per zone (and per what `legend` names). */
  readonly expr: string;
  /** The legend of each series, a template over its labels: `{{zone}}`. */
  readonly legend: string;
  /** Grafana's unit id (`short`, `s`). */
  readonly unit?: string;
}

/** A group of panels under a row named after its component. */
export interface DashboardSection {
  readonly title: string;
  readonly panels: readonly DashboardPanel[];
}

/** The Grafana schema version the JSON follows. */
export const DASHBOARD_SCHEMA_VERSION = 39;
/** The label Grafana's dashboard sidecar loads ConfigMaps by (its default), and its value. */
export const GRAFANA_DASHBOARD_LABEL = 'grafana_dashboard';
export const GRAFANA_DASHBOARD_LABEL_VALUE = '1';

const PANEL_WIDTH = 12;
const PANEL_HEIGHT = 8;
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

/** The dashboard `uid` (at most 40 characters, as Grafana allows) titled `title`, with a row per section. */
export function zoneDashboard(uid: string, title: string, sections: readonly DashboardSection[]): object {
  const panels: object[] = [];
  let y = 0;
  let id = 1;
  for (const section of sections) {
    const row = { h: 1, w: 24, x: 0, y };
    panels.push({ id: id++, type: 'row', title: section.title, collapsed: false, gridPos: row, panels: [] });
    y += 1;
    // two panels side by side per line
    section.panels.forEach((panel, i) => {
      const place = { x: (i % 2) * PANEL_WIDTH, y: y + Math.floor(i / 2) * PANEL_HEIGHT };
      panels.push(timeSeries(id++, panel, { h: PANEL_HEIGHT, w: PANEL_WIDTH, ...place }));
    });
    y += Math.ceil(section.panels.length / 2) * PANEL_HEIGHT;
  }
  return {
    uid: uid.slice(0, 40),
    title,
    tags: ['cdk8s-zones', 'zones'],
    timezone: 'utc',
    editable: false,
    schemaVersion: DASHBOARD_SCHEMA_VERSION,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: {
      list: [{ name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', hide: 0 }],
    },
    annotations: { list: [] },
    panels,
  };
}

function timeSeries(id: number, panel: DashboardPanel, gridPos: object): object {
  return {
    id,
    type: 'timeseries',
    title: panel.title,
    description: panel.description,
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: { defaults: { unit: panel.unit ?? 'short' }, overrides: [] },
    options: { legend: { displayMode: 'table', placement: 'right', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
    targets: [{ refId: 'A', datasource: DATASOURCE, expr: panel.expr, legendFormat: panel.legend, range: true }],
  };
}
