/**
 * The zone alert rules that come with a monitored ZoneAwareLokiStack (direct output), over Loki's own metrics: a
 * zone whose ingesters do not answer (each shard sees its zone's, so the rule fires in that zone's shard), and an
 * ingester ring with unhealthy members, where losing one more zone would leave writes short of their quorum. Loki 2
 * names its ring gauge `cortex_ring_members`, later releases `loki_ring_members`: the rule reads both.
 */
import { AlertGroup } from './alert-rule';
import { DashboardSection } from './dashboard';
import { escapeRegex, promQlString } from './promql';

/** How long a zone's ingesters may not answer (a rollout restarts them one by one) before it alerts. */
export const INGESTERS_DOWN_FOR = '5m';

/** The series selectors of the stack `name` in `namespace`: its ingesters' pods, and its ring gauge. */
function selectors(namespace: string, name: string): { ingesters: string; ring: string } {
  const ns = `namespace=${promQlString(namespace)}`;
  const ingesterPods = promQlString(`${escapeRegex(name)}-ingester-.+`);
  return {
    ingesters: `up{${ns}, pod=~${ingesterPods}}`,
    ring: `{__name__=~"cortex_ring_members|loki_ring_members", ${ns}, pod=~${promQlString(`${escapeRegex(name)}-.+`)}, `
      + 'name="ingester", state="Unhealthy"}',
  };
}

/** The rules of the stack `namespace/name`. */
export function lokiAlertGroup(namespace: string, name: string): AlertGroup {
  const s = selectors(namespace, name);
  return {
    name: 'cdk8s-zones-loki',
    rules: [
      {
        alert: 'LokiIngestersDownInZone',
        expr: `count by (namespace, zone) (${s.ingesters} == 0) > 0`,
        for: INGESTERS_DOWN_FOR,
        severity: 'warning',
        summary: `Loki ${namespace}/${name}: {{ $value }} ingester(s) of zone {{ $labels.zone }} do not answer`,
        description: 'Writes still reach a majority of the zones, but that zone holds no copy of what comes in meanwhile,'
          + ' and losing another zone now would stop writes.',
      },
      {
        alert: 'LokiRingOneZoneFromQuorumLoss',
        expr: `max by (namespace) (${s.ring}) > 0`,
        for: INGESTERS_DOWN_FOR,
        severity: 'critical',
        summary: `Loki ${namespace}/${name}: {{ $value }} ingester(s) of the ring are unhealthy; losing one more zone`
          + ' would leave writes without their quorum',
        description: 'Zone-aware replication writes each stream to every zone and needs a majority of them: with a zone'
          + ' already short, one more zone lost stops writes. Bring the unhealthy ingesters back, or forget them from'
          + ' the ring if they are gone for good.',
      },
    ],
  };
}

/** The stack's panels of the zone dashboard: its ingesters per zone, and its ring's health. */
export function lokiDashboardSection(namespace: string, name: string): DashboardSection {
  const s = selectors(namespace, name);
  return {
    title: `Loki ${namespace}/${name}`,
    panels: [
      {
        title: 'Ingesters answering, by zone',
        description: 'Each zone holds a copy of every stream: a zone at 0 holds none of what comes in meanwhile.',
        expr: `sum by (zone) (${s.ingesters})`,
        legend: '{{zone}}',
      },
      {
        title: 'Unhealthy ingesters in the ring',
        description: 'Above 0, losing one more zone would leave writes without their quorum.',
        expr: `max (${s.ring})`,
        legend: 'unhealthy',
      },
    ],
  };
}
