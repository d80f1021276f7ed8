/**
 * The direct output of a ZoneAwareLokiStack as a Prometheus that monitors it sees it (`monitor(loki)`): every
 * component's pods (the memberlist label they all carry) on their HTTP port, the zone rules of its ingesters and ring,
 * its dashboard panels, and its NetworkPolicy opened to the scrapers on that port.
 */
import { ResolvedLoki } from './options';
import { LOKI_MEMBERLIST_LABEL } from '../contract/labels';
import { lokiAlertGroup, lokiDashboardSection } from '../monitoring/loki-rules';
import { MonitoredComponent, monitoredNamespace, ScraperPeers } from '../monitoring/monitored';
import { escapeRegex } from '../monitoring/promql';

/** The direct output `p`, whose NetworkPolicy admits `scrapers` on the HTTP port. */
export function lokiMonitored(p: ResolvedLoki, scrapers: ScraperPeers): MonitoredComponent {
  const namespace = monitoredNamespace(p.where, p.metadataNamespace, 'the stack');
  return {
    what: p.where,
    kind: 'loki',
    name: p.name,
    namespace,
    podLabels: { [LOKI_MEMBERLIST_LABEL]: p.name },
    endpoints: [{ port: 'http', path: '/metrics' }],
    alertGroups: [lokiAlertGroup(namespace, p.name)],
    dashboard: lokiDashboardSection(namespace, p.name),
    podPattern: `${escapeRegex(p.name)}-.+`,
    admitScrapers: scrapers.admit,
  };
}

