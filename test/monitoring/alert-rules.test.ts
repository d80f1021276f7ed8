/**
 * The zone alert rules as Prometheus reads them: each has a severity, a summary and a description, and a runbook
 * address that leads to its own section of docs/runbooks/alerts.md; alert names are unique. The rules' behaviour is
 * proven with the real promtool (test/integration/monitoring/).
 */
import * as fs from 'fs';
import * as path from 'path';
import { headingAnchor } from '../../src/contract/docs';
import { ALERT_RUNBOOKS_PAGE, prometheusRuleGroup, runbookUrl } from '../../src/monitoring/alert-rule';
import { controllerAlertGroup, UPDATE_STALL_MINUTES } from '../../src/monitoring/controller-rules';
import { lokiAlertGroup } from '../../src/monitoring/loki-rules';
import { prometheusShardAlertGroup } from '../../src/monitoring/prometheus-rules';
import { redisAlertGroup } from '../../src/monitoring/redis-rules';

const GROUPS = [
  controllerAlertGroup(), prometheusShardAlertGroup('monitoring', 'prometheus-.+'), redisAlertGroup('db', 'cache'),
  lokiAlertGroup('logs', 'loki'),
];
const page = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', ALERT_RUNBOOKS_PAGE), 'utf8');
const sections = page.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3).trim());

test('every alert has its runbook section, and every section an alert', () => {
  const alerts = GROUPS.flatMap((g) => g.rules.map((r) => r.alert));
  expect(new Set(alerts).size).toBe(alerts.length);
  expect(sections.sort()).toEqual([...alerts].sort());
  for (const alert of alerts) {
    expect(runbookUrl(alert)).toMatch(new RegExp(`/docs/${ALERT_RUNBOOKS_PAGE}#${headingAnchor(alert)}$`));
  }
});

test('a rule as Prometheus reads it: severity a label; summary, description and runbook_url annotations', () => {
  const group = prometheusRuleGroup(controllerAlertGroup());
  const stalled = group.rules.find((r) => r.alert === 'ZoneAwareUpdateStalled')!;
  expect(stalled).toEqual({
    alert: 'ZoneAwareUpdateStalled',
    expr: expect.stringContaining(`> ${UPDATE_STALL_MINUTES * 60}`),
    labels: { severity: 'warning' },
    annotations: {
      summary: `ZoneAwareUpdate {{ $labels.namespace }}/{{ $labels.name }} has not progressed in zone {{ $labels.zone }} for ${UPDATE_STALL_MINUTES} minutes`,
      description: expect.stringMatching(/^No pod has left the old revision/),
      runbook_url: 'https://github.com/cdk8s-zones/cdk8s-zones/blob/main/docs/runbooks/alerts.md#zoneawareupdatestalled',
    },
  });
  expect(group.rules.find((r) => r.alert === 'ZoneControllerReconcileErrors')!.for).toBe('15m');
  // the rules over the controller's metrics count only the leading replica's series
  for (const rule of [...group.rules, ...prometheusRuleGroup(redisAlertGroup('db', 'cache')).rules]) {
    expect(['critical', 'warning', 'info']).toContain(rule.labels.severity);
    expect(rule.expr).toContain('and on(instance) (cdk8s_zones_leader == 1)');
  }
});
