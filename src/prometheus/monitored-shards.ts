/**
 * A TopologyShardedPrometheus as a Prometheus that monitors it sees it (`monitor(prometheus)`, itself too): its
 * shards' pods on their web port, and in topology mode the rule that tells a shard that lost its zone's targets.
 */
import { operatorInstanceLabels } from './operator';
import { PrometheusOutput, ResolvedPrometheus, ShardingMode } from './options';
import { standaloneInstanceLabels } from './standalone';
import { NetworkPeer } from '../kubernetes/network-policy';
import { MonitoredComponent } from '../monitoring/monitored';
import { prometheusDashboardSection, prometheusShardAlertGroup } from '../monitoring/prometheus-rules';
import { escapeRegex } from '../monitoring/promql';

/** How prometheus-operator names the pods of a Prometheus and of a PrometheusAgent resource. */
const OPERATOR_POD_PREFIX = { [PrometheusOutput.OPERATOR]: 'prometheus', [PrometheusOutput.AGENT]: 'prom-agent' };

export function prometheusMonitored(
  p: ResolvedPrometheus, output: PrometheusOutput, admitScrapers: (peer: NetworkPeer) => void,
): MonitoredComponent {
  const standalone = output === PrometheusOutput.STANDALONE;
  // the shards' StatefulSets are named after the Prometheus (standalone), or after its resources (the operator's)
  const podPattern = standalone ? `${escapeRegex(p.name)}-.+` : `${OPERATOR_POD_PREFIX[output]}-${escapeRegex(p.name)}-.+`;
  return {
    what: p.where,
    kind: 'prometheus',
    name: p.name,
    namespace: p.namespace,
    podLabels: standalone ? standaloneInstanceLabels(p) : operatorInstanceLabels(p),
    endpoints: [{ port: 'web', path: '/metrics' }],
    alertGroups: p.mode === ShardingMode.TOPOLOGY ? [prometheusShardAlertGroup(p.namespace, podPattern)] : [],
    dashboard: prometheusDashboardSection(p.namespace, podPattern),
    podPattern,
    admitScrapers,
  };
}
