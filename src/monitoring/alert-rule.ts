/**
 * A zone alert rule as the library defines it, and as Prometheus reads it: a rule file's group (the standalone
 * output's rule files) is also a PrometheusRule's `spec.groups` entry (the operator output). Every alert carries a
 * severity, a summary that names the zone, and a runbook in docs/runbooks/alerts.md under a heading that is the
 * alert's name.
 */
import { docsUrl } from '../contract/docs';

/** How soon a person must act: `critical` pages, `warning` is for working hours, `info` tells. */
export type AlertSeverity = 'critical' | 'warning' | 'info';

/** The page of the alerts' runbooks, one section per alert. */
export const ALERT_RUNBOOKS_PAGE = 'runbooks/alerts.md';

export interface AlertRule {
  /** The alert's name (CamelCase, as Prometheus alerts are named); its runbook section's heading. */
  readonly alert: string;
  /** The PromQL expression: every series it returns is an alert. */
  readonly expr: string;
  /** How long the expression must hold before the alert fires (a Prometheus duration). */
  readonly for?: string;
  readonly severity: AlertSeverity;
  /** One line that names the zone (a template over the alert's labels, `{{ $labels.zone }}`). */
  readonly summary: string;
  /** What it means and what to look at first. */
  readonly description: string;
}

/** A group of rules evaluated together. */
export interface AlertGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

/** A rule as a Prometheus rule file (and a PrometheusRule) spells it. */
export interface PrometheusAlertingRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: { readonly severity: AlertSeverity };
  readonly annotations: { readonly summary: string; readonly description: string; readonly runbook_url: string };
}

/** A group as a Prometheus rule file spells it. */
export interface PrometheusRuleGroup {
  readonly name: string;
  readonly rules: readonly PrometheusAlertingRule[];
}

/** The address of an alert's runbook. */
export function runbookUrl(alert: string): string {
  return docsUrl(ALERT_RUNBOOKS_PAGE, alert);
}

/** `group` as Prometheus reads it. */
export function prometheusRuleGroup(group: AlertGroup): PrometheusRuleGroup {
  return {
    name: group.name,
    rules: group.rules.map((r) => ({
      alert: r.alert,
      expr: r.expr,
      ...(r.for !== undefined ? { for: r.for } : {}),
      labels: { severity: r.severity },
      annotations: { summary: r.summary, description: r.description, runbook_url: runbookUrl(r.alert) },
    })),
  };
}
