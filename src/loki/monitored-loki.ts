/**
 * The direct output of a ZoneAwareLokiStack as a Prometheus that monitors it sees it (`monitor(loki)`): every
 * component's pods (the memberlist label they all carry) on their HTTP port, the zone rules of its ingesters and ring,
 * its dashboard panels, and its NetworkPolicy opened to the scrapers on that port.
 */
import { ResolvedLoki } from './options';
import { LOKI_MEMBERLIST_LABEL } from '../contract/labels';
import { NetworkPeer } from '../kubernetes/network-policy';
import { lokiAlertGroup, lokiDashboardSection } from '../monitoring/loki-rules';
import { MonitoredComponent } from '../monitoring/monitored';
import { escapeRegex } from '../monitoring/promql';
import { invalidProp } from '../shared/errors';

/** The direct output `p`, whose NetworkPolicy admits `scrapers` on the HTTP port. */
export function lokiMonitored(p: ResolvedLoki, scrapers: NetworkPeer[]): MonitoredComponent {
  if (p.metadataNamespace === undefined) {
    throw invalidProp(p.where, 'namespace', undefined, 'must be set (or the chart\'s namespace) for a Prometheus to monitor the stack');
  }
  return {
    what: p.where,
    kind: 'loki',
    name: p.name,
    namespace: p.metadataNamespace,
    podLabels: { [LOKI_MEMBERLIST_LABEL]: p.name },
    endpoints: [{ port: 'http', path: '/metrics' }],
    alertGroups: [lokiAlertGroup(p.metadataNamespace, p.name)],
    dashboard: lokiDashboardSection(p.metadataNamespace, p.name),
    podPattern: `${escapeRegex(p.name)}-.+`,
    admitScrapers: (peer) => {
      scrapers.push(peer);
    },
  };
}

