/**
 * What `TopologyShardedPrometheus.monitor(target)` emits. Operator outputs: a PodMonitor in the target's namespace
 * whose selector is the target's own pod labels, labelled so that `monitorSelector` selects it, and (Prometheus, not
 * agent: an agent evaluates no rules) a PrometheusRule with the target's zone alert rules. Standalone: a scrape job
 * per target in every shard's prometheus.yml, and the rules in a ConfigMap every shard mounts as rule files. Either
 * way a shard keeps only its zone's targets (the zone relabeling every scrape of this Prometheus has), the target's
 * NetworkPolicy admits the shards' pods on exactly its metrics ports, and the zone dashboard has its panels.
 */
import { ApiObject, Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { PodSelection, renderConfig } from './config';
import { nonEmpty } from './operator';
import { ResolvedPrometheus, ShardingMode } from './options';
import { podZoneLabelRules, RelabelRule, toOperatorSpelling } from './relabel';
import { selectorMatches, Selector } from '../kubernetes/label-selector';
import { NetworkPeer, podsInNamespace } from '../kubernetes/network-policy';
import { PodSpec, Workload } from '../kubernetes/objects';
import { standardLabels } from '../kubernetes/standard-labels';
import { PrometheusRuleGroup, prometheusRuleGroup } from '../monitoring/alert-rule';
import {
  DashboardSection, GRAFANA_DASHBOARD_LABEL, GRAFANA_DASHBOARD_LABEL_VALUE, zoneDashboard,
} from '../monitoring/dashboard';
import { MonitoredComponent } from '../monitoring/monitored';
import { promQlString } from '../monitoring/promql';
import { invalidProp } from '../shared/errors';

/**
 * Where the standalone shards mount the monitored components' rule files: beside the configuration (a mount point
 * inside the read-only ConfigMap volume of /etc/prometheus cannot be made).
 */
export const RULES_DIR = '/etc/prometheus-rules';
/** The rule file's key in the rules ConfigMap. */
export const RULES_FILE = 'rules.yml';

/** prometheus-operator's kinds of monitors and rules. */
const MONITORING_API = 'monitoring.coreos.com/v1';

export class PrometheusMonitors {
  private readonly targets: MonitoredComponent[] = [];
  private rulesMap: k8s.KubeConfigMap | undefined;
  private renderedRules: { readonly targets: number; readonly text: string } | undefined;

  constructor(
    private readonly scope: Construct,
    private readonly p: ResolvedPrometheus,
    /** The shards' pods, as the targets' NetworkPolicies admit them. */
    private readonly scrapers: NetworkPeer,
    /** Whether the Prometheus evaluates rules (not an agent). */
    private readonly evaluatesRules: boolean,
    /** Whether the shards are the standalone output's (else prometheus-operator's). */
    private readonly standalone: boolean,
    /** The standalone shards' StatefulSets (made after this object). */
    private readonly statefulSets: () => readonly k8s.KubeStatefulSet[] = () => [],
  ) {}

  /** Monitors `target`; `where` names the call in errors. */
  add(where: string, target: MonitoredComponent): void {
    if (this.targets.some((t) => t.what === target.what)) {
      throw invalidProp(where, 'target', target.what, 'is monitored already: each target once');
    }
    const namespaces = this.p.monitorNamespaces;
    if (namespaces !== undefined && !namespaces.includes(target.namespace)) {
      throw invalidProp(where, 'target', target.what,
        `is in namespace ${JSON.stringify(target.namespace)}, which this Prometheus does not look in ` +
        `(monitorNamespaces ${JSON.stringify(namespaces)}): add the namespace to monitorNamespaces`);
    }
    target.admitScrapers(this.scrapers);
    this.targets.push(target);
    if (this.targets.length === 1) this.emitDashboard();
    if (!this.standalone) this.emitOperatorObjects(target);
    else if (this.rulesMap === undefined && this.ruleGroups().length > 0) this.emitRulesConfigMap();
  }

  /**
   * The standalone output's rule file, as text ('' without rules): rendered once for every shard's hash and the
   * ConfigMap, again only when a target was added since.
   */
  ruleFile(): string {
    if (this.renderedRules?.targets !== this.targets.length) {
      const groups = this.ruleGroups();
      this.renderedRules = { targets: this.targets.length, text: groups.length > 0 ? renderConfig({ groups }) : '' };
    }
    return this.renderedRules.text;
  }

  /** The name of the standalone output's rules ConfigMap, once a monitored component brings rules. */
  rulesConfigMap(): string | undefined {
    return this.rulesMap?.name;
  }

  /** The rule groups of every target (standalone: the rule files). */
  ruleGroups(): PrometheusRuleGroup[] {
    return this.targets.flatMap(ruleGroupsOf);
  }

  /**
   * The rules that give each series of a monitored component its pod's zone (`zone`), in topology mode (where the
   * discovery may read the nodes).
   */
  zoneRules(): RelabelRule[] {
    return this.p.mode === ShardingMode.TOPOLOGY ? podZoneLabelRules(this.p.topology, this.p.sources) : [];
  }

  /** What each target's standalone scrape job selects. */
  podSelections(): PodSelection[] {
    return this.targets.flatMap((t) => t.endpoints.map((e) => ({
      jobName: `${t.namespace}/${t.kind}-${t.name}/${e.port}`,
      namespace: t.namespace,
      podLabels: t.podLabels,
      port: e.port,
      path: e.path,
      honorLabels: e.honorLabels,
    })));
  }

  /** The zone dashboard of every target, as a ConfigMap Grafana's dashboard sidecar loads. */
  dashboard(): object {
    const sections = this.targets.map((t): DashboardSection => ({
      title: t.dashboard.title,
      panels: [...t.dashboard.panels, {
        title: 'Pods up, by zone',
        description: 'Its pods this Prometheus scrapes and reaches, by their zone: a zone at 0 while others are not lost them.',
        expr: `sum by (zone) (up{namespace=${promQlString(t.namespace)}, pod=~${promQlString(t.podPattern)}})`,
        legend: '{{zone}}',
      }],
    }));
    return zoneDashboard(`cdk8s-zones-${this.p.name}`, `Zones: ${this.p.name}`, sections);
  }

  private emitDashboard(): void {
    new k8s.KubeConfigMap(this.scope, 'dashboard', {
      metadata: {
        name: `${this.p.name}-dashboard`,
        namespace: this.p.metadataNamespace,
        labels: { ...standardLabels('prometheus', this.p.name, 'dashboard'), [GRAFANA_DASHBOARD_LABEL]: GRAFANA_DASHBOARD_LABEL_VALUE },
      },
      data: { [`${this.p.name}-zones.json`]: Lazy.any({ produce: () => JSON.stringify(this.dashboard(), undefined, 2) }) },
    });
  }

  /**
   * The ConfigMap every standalone shard mounts as its rule files, and the check that each shard's pods still mount it
   * when the app is synthesized (an escape hatch may have changed their volumes).
   */
  private emitRulesConfigMap(): void {
    const name = `${this.p.name}-rules`;
    this.rulesMap = new k8s.KubeConfigMap(this.scope, 'rules', {
      metadata: { name, namespace: this.p.metadataNamespace, labels: standardLabels('prometheus', this.p.name, 'rules') },
      data: { [RULES_FILE]: Lazy.any({ produce: () => this.ruleFile() }) },
    });
    this.scope.node.addValidation({ validate: () => this.shardsWithoutRules(name) });
  }

  /** An error per shard StatefulSet whose pods do not mount the rules ConfigMap at the rules directory. */
  private shardsWithoutRules(configMap: string): string[] {
    return this.statefulSets().flatMap((set) => {
      const pod: PodSpec = (set.toJson() as Workload).spec?.template?.spec ?? {};
      const volume = (pod.volumes ?? []).find((v) => v?.configMap?.name === configMap)?.name;
      const mounted = (pod.containers ?? []).some((c) => (c.volumeMounts ?? [])
        .some((m) => m?.name === volume && m?.mountPath === RULES_DIR));
      return volume !== undefined && mounted ? [] : [
        `${this.p.where}: StatefulSet ${set.name} does not mount the rule files' volume (ConfigMap ${configMap} at ` +
        `${RULES_DIR}): the alert rules of the monitored components would not be evaluated; leave its volumes to the construct`,
      ];
    });
  }

  private emitOperatorObjects(target: MonitoredComponent): void {
    const name = `${this.p.name}-${target.kind}-${target.name}`;
    const labels = selectedLabels(this.p.where, this.p.monitorSelector);
    new ApiObject(this.scope, `monitor-${target.namespace}-${target.kind}-${target.name}`, {
      apiVersion: MONITORING_API,
      kind: 'PodMonitor',
      metadata: { name, namespace: target.namespace, labels },
      spec: {
        selector: { matchLabels: { ...target.podLabels } },
        podMetricsEndpoints: target.endpoints.map((e) => ({
          port: e.port,
          path: e.path,
          honorLabels: e.honorLabels,
          relabelings: nonEmpty(this.zoneRules().map(toOperatorSpelling)),
        })),
      },
    });
    if (!this.evaluatesRules || target.alertGroups.length === 0) return;
    new ApiObject(this.scope, `rules-${target.namespace}-${target.kind}-${target.name}`, {
      apiVersion: MONITORING_API,
      kind: 'PrometheusRule',
      // beside the PodMonitor: in a namespace the Prometheus looks in, as add() checked
      metadata: { name, namespace: target.namespace, labels },
      spec: { groups: ruleGroupsOf(target) },
    });
  }
}

/** A target's rule groups as Prometheus reads them, each named apart from another target's of the same kind. */
function ruleGroupsOf(target: MonitoredComponent): PrometheusRuleGroup[] {
  return target.alertGroups.map((g) => prometheusRuleGroup({ ...g, name: `${g.name}/${target.namespace}/${target.name}` }));
}

/**
 * Labels a monitor needs to be selected by `selector`: its matchLabels, and the first value of each `In`
 * expression; `NotIn` and `DoesNotExist` hold without the label. `Exists` asks for a value the construct cannot
 * choose: an error.
 */
export function selectedLabels(where: string, selector: Selector): { [key: string]: string } {
  const labels: { [key: string]: string } = { ...selector.matchLabels };
  for (const req of selector.matchExpressions ?? []) {
    const first = req.values?.[0];
    if (req.operator === 'In' && labels[req.key] === undefined && first !== undefined) labels[req.key] = first;
  }
  if (!selectorMatches(selector, labels)) {
    throw invalidProp(where, 'monitorSelector', selector,
      'cannot select the monitors and rules monitor() writes: they carry its matchLabels and the first value of each ' +
      '`In` expression; select them with matchLabels');
  }
  return labels;
}

/** The shards' pods, as a NetworkPolicy peer. */
export function scrapersPeer(p: ResolvedPrometheus, podLabels: { [key: string]: string }): NetworkPeer {
  return podsInNamespace(p.namespace, podLabels);
}
